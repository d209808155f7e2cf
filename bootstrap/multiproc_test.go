package bootstrap

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Environment of a helper process (the test binary re-executed).
const (
	helperRole    = "BOOTSTRAP_TEST_ROLE"    // "ring" or "die"
	helperMode    = "BOOTSTRAP_TEST_MODE"    // "id" (UniqueID), "env" (FromEnv), "slurm" or "torchrun" (DetectLaunch)
	helperRank    = "BOOTSTRAP_TEST_RANK"    // id mode
	helperNRanks  = "BOOTSTRAP_TEST_NRANKS"  // id mode
	helperID      = "BOOTSTRAP_TEST_ID"      // id mode, ranks > 0: hex UniqueID
	helperTimeout = "BOOTSTRAP_TEST_TIMEOUT" // Options.Timeout
)

// TestHelperProcess is not a test: it is the body of the child processes
// started by the multi-process tests.
func TestHelperProcess(t *testing.T) {
	role := os.Getenv(helperRole)
	if role == "" {
		t.Skip("helper process for the multi-process tests")
	}
	if err := runHelper(role); err != nil {
		fmt.Fprintf(os.Stderr, "helper: %v\n", err)
		os.Exit(1)
	}
	os.Exit(0)
}

func runHelper(role string) error {
	timeout, err := time.ParseDuration(os.Getenv(helperTimeout))
	if err != nil {
		return err
	}
	opts := Options{Timeout: timeout}
	ctx := context.Background()
	var b *TCPBootstrap
	switch os.Getenv(helperMode) {
	case "env":
		rank, nranks, root, ok, err := FromEnv()
		if err != nil || !ok {
			return fmt.Errorf("FromEnv: %v %v", ok, err)
		}
		if b, err = New(rank, nranks, opts); err != nil {
			return err
		}
		if err := b.InitializeAddr(ctx, root, ""); err != nil {
			return err
		}
	case "slurm", "torchrun":
		l, ok, err := DetectLaunch()
		if err != nil || !ok {
			return fmt.Errorf("DetectLaunch: %v %v", ok, err)
		}
		want, _ := strconv.Atoi(os.Getenv(helperRank))
		if l.Launcher != os.Getenv(helperMode) || l.Rank != want || l.LocalRank != want%2 {
			return fmt.Errorf("DetectLaunch = %+v, want launcher %s, rank %d, local rank %d", l, os.Getenv(helperMode), want, want%2)
		}
		if b, err = New(l.Rank, l.NRanks, opts); err != nil {
			return err
		}
		if err := b.InitializeAddr(ctx, l.Root, ""); err != nil {
			return err
		}
	case "id":
		rank, _ := strconv.Atoi(os.Getenv(helperRank))
		nranks, _ := strconv.Atoi(os.Getenv(helperNRanks))
		if b, err = New(rank, nranks, opts); err != nil {
			return err
		}
		var id UniqueID
		if rank == 0 {
			if id, err = b.CreateUniqueID("127.0.0.1:0"); err != nil {
				return err
			}
			fmt.Printf("ID %x\n", id[:])
		} else {
			raw, err := hex.DecodeString(os.Getenv(helperID))
			if err != nil || len(raw) != UniqueIDSize {
				return fmt.Errorf("bad %s: %v", helperID, err)
			}
			copy(id[:], raw)
		}
		if err := b.Initialize(ctx, id); err != nil {
			return err
		}
	default:
		return errors.New("unknown mode")
	}
	r, n := b.Rank(), b.NRanks()

	all, err := b.AllGather([]byte(fmt.Sprintf("rank-%d", r)))
	if err != nil {
		return err
	}
	for i := range all {
		if string(all[i]) != fmt.Sprintf("rank-%d", i) {
			return fmt.Errorf("allgather slot %d = %q", i, all[i])
		}
	}
	for i := 0; i < 3; i++ {
		if err := b.Barrier(); err != nil {
			return err
		}
	}
	next, prev := (r+1)%n, (r-1+n)%n
	for i := 0; i < 5; i++ {
		if err := b.Send(next, 42, []byte(fmt.Sprintf("%d from %d", i, r))); err != nil {
			return err
		}
	}
	for i := 0; i < 5; i++ {
		got, err := b.Recv(prev, 42)
		if err != nil {
			return err
		}
		if want := fmt.Sprintf("%d from %d", i, prev); string(got) != want {
			return fmt.Errorf("ring: got %q, want %q", got, want)
		}
	}
	if err := b.Barrier(); err != nil {
		return err
	}

	switch role {
	case "ring":
		lr, ls, err := b.LocalRank("")
		if err != nil {
			return err
		}
		if lr != r || ls != n {
			return fmt.Errorf("LocalRank = %d of %d", lr, ls)
		}
		if err := b.Barrier(); err != nil {
			return err
		}
	case "die":
		victim := n - 1
		if r == victim {
			time.Sleep(200 * time.Millisecond) // let in-flight frames drain
			fmt.Printf("rank %d dying\n", r)
			os.Exit(7) // no Close: a crash
		}
		start := time.Now()
		_, err := b.Recv(victim, 99)
		d := time.Since(start)
		if !errors.Is(err, ErrPeerLost) || !strings.Contains(err.Error(), fmt.Sprintf("recv from rank %d (127.0.0.1:", victim)) {
			return fmt.Errorf("Recv from the dead rank: %v", err)
		}
		if d > 10*time.Second { // at once, not after the job's timeout
			return fmt.Errorf("Recv from the dead rank took %s", d)
		}
		fmt.Printf("rank %d: %v\n", r, err)
		// The survivors still talk to each other.
		if r < 2 {
			if err := b.Send(1-r, 5, []byte("still here")); err != nil {
				return err
			}
			if got, err := b.Recv(1-r, 5); err != nil || string(got) != "still here" {
				return fmt.Errorf("survivors: %q %v", got, err)
			}
		}
	}
	if err := b.Close(); err != nil {
		return err
	}
	fmt.Printf("rank %d ok\n", r)
	return nil
}

// helper is one child process.
type helper struct {
	rank   int
	cmd    *exec.Cmd
	out    bytes.Buffer // stdout
	errOut bytes.Buffer // stderr
	copied sync.WaitGroup
}

func (h *helper) String() string {
	return fmt.Sprintf("rank %d: stdout:\n%s\nstderr:\n%s", h.rank, h.out.String(), h.errOut.String())
}

func helperCmd(env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	for _, kv := range os.Environ() {
		if !launcherVar(kv) && !strings.HasPrefix(kv, "BOOTSTRAP_TEST_") && !strings.HasPrefix(kv, "GORACE=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	// A race-enabled child otherwise sleeps 1s at exit.
	cmd.Env = append(cmd.Env, "GORACE=atexit_sleep_ms=0 "+os.Getenv("GORACE"))
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// launcherVar reports whether an environment entry belongs to a launcher: the helpers
// must not inherit the test's own (a CI job may itself run under Slurm or MPI).
func launcherVar(kv string) bool {
	for _, p := range []string{"MSCCLPP_BENCH_", "SLURM_", "OMPI_", "PMIX_", "PMI_", "TORCHELASTIC_", "RANK=", "WORLD_SIZE=", "LOCAL_RANK=", "MASTER_ADDR=", "MASTER_PORT="} {
		if strings.HasPrefix(kv, p) {
			return true
		}
	}
	return false
}

// runHelpers starts n children in the given mode and role, waits for all
// of them (killing them after a deadline) and returns them.
func runHelpers(t *testing.T, mode, role string, n int) []*helper {
	t.Helper()
	if testing.Short() {
		t.Skip("multi-process test skipped in -short mode")
	}
	common := []string{helperRole + "=" + role, helperMode + "=" + mode, helperTimeout + "=20s"}
	hs := make([]*helper, n)
	start := func(h *helper, env ...string) {
		h.cmd = helperCmd(append(common, env...)...)
		h.cmd.Stdout = &h.out
		h.cmd.Stderr = &h.errOut
		if err := h.cmd.Start(); err != nil {
			t.Fatal(err)
		}
	}
	defer func() {
		for _, h := range hs {
			if h != nil && h.cmd != nil && h.cmd.ProcessState == nil && h.cmd.Process != nil {
				h.cmd.Process.Kill()
				h.cmd.Wait()
			}
		}
	}()

	switch mode {
	case "env":
		root := fmt.Sprintf("127.0.0.1:%d", freePort(t))
		for r := range hs {
			hs[r] = &helper{rank: r}
			start(hs[r], EnvRank+"="+strconv.Itoa(r), EnvNRanks+"="+strconv.Itoa(n), EnvRoot+"="+root)
		}
	case "slurm":
		port := strconv.Itoa(freePort(t))
		for r := range hs {
			hs[r] = &helper{rank: r}
			start(hs[r], helperRank+"="+strconv.Itoa(r), "SLURM_PROCID="+strconv.Itoa(r), "SLURM_NTASKS="+strconv.Itoa(n),
				"SLURM_LOCALID="+strconv.Itoa(r%2), "SLURM_JOB_NODELIST=localhost,gpu[02-04]", "SLURM_JOB_ID=77", EnvRootPort+"="+port)
		}
	case "torchrun":
		port := strconv.Itoa(freePort(t) - 1) // torchrun's agent would hold MASTER_PORT; the root takes the next
		for r := range hs {
			hs[r] = &helper{rank: r}
			start(hs[r], helperRank+"="+strconv.Itoa(r), "RANK="+strconv.Itoa(r), "WORLD_SIZE="+strconv.Itoa(n),
				"LOCAL_RANK="+strconv.Itoa(r%2), "MASTER_ADDR=127.0.0.1", "MASTER_PORT="+port, "TORCHELASTIC_RUN_ID=test")
		}
	case "id":
		// Rank 0 prints the ID; the others get it in their environment.
		h0 := &helper{rank: 0}
		hs[0] = h0
		pr, pw := io.Pipe()
		h0.cmd = helperCmd(append(common, helperRank+"=0", helperNRanks+"="+strconv.Itoa(n))...)
		h0.cmd.Stdout = pw
		h0.cmd.Stderr = &h0.errOut
		if err := h0.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		idLine := make(chan string, 1)
		h0.copied.Add(1)
		go func() {
			defer h0.copied.Done()
			sc := bufio.NewScanner(pr)
			sent := false
			for sc.Scan() {
				line := sc.Text()
				if !sent && strings.HasPrefix(line, "ID ") {
					idLine <- strings.TrimPrefix(line, "ID ")
					sent = true
					continue
				}
				h0.out.WriteString(line + "\n")
			}
			io.Copy(io.Discard, pr)
		}()
		var id string
		select {
		case id = <-idLine:
		case <-time.After(20 * time.Second):
			pw.Close()
			t.Fatalf("rank 0 printed no ID: %s", h0)
		}
		for r := 1; r < n; r++ {
			hs[r] = &helper{rank: r}
			start(hs[r], helperRank+"="+strconv.Itoa(r), helperNRanks+"="+strconv.Itoa(n), helperID+"="+id)
		}
	}

	done := make(chan struct{})
	go func() {
		for _, h := range hs {
			h.cmd.Wait()
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(45 * time.Second):
		for _, h := range hs {
			h.cmd.Process.Kill()
		}
		<-done
		for _, h := range hs {
			t.Log(h)
		}
		t.Fatal("helpers did not finish in time")
	}
	if mode == "id" {
		// Rank 0's stdout goes through a pipe; finish copying it.
		if pw, ok := hs[0].cmd.Stdout.(*io.PipeWriter); ok {
			pw.Close()
		}
		hs[0].copied.Wait()
	}
	return hs
}

func checkHelpers(t *testing.T, hs []*helper, exitCode func(rank int) int) {
	t.Helper()
	for _, h := range hs {
		want := exitCode(h.rank)
		if got := h.cmd.ProcessState.ExitCode(); got != want {
			t.Errorf("rank %d exited %d, want %d\n%s", h.rank, got, want, h)
			continue
		}
		if want == 0 && !strings.Contains(h.out.String(), fmt.Sprintf("rank %d ok", h.rank)) {
			t.Errorf("rank %d did not report success\n%s", h.rank, h)
		}
	}
}

// TestMultiProcessUniqueID: 4 processes bootstrap through a UniqueID that
// rank 0 hands out, then allgather, barrier, ring send/recv and LocalRank.
func TestMultiProcessUniqueID(t *testing.T) {
	hs := runHelpers(t, "id", "ring", 4)
	checkHelpers(t, hs, func(int) int { return 0 })
	for _, h := range hs {
		t.Logf("pid %d: %s", h.cmd.Process.Pid, strings.TrimSpace(h.out.String()))
	}
}

// TestMultiProcessEnv: the same through MSCCLPP_BENCH_{RANK,NRANKS,ROOT}.
func TestMultiProcessEnv(t *testing.T) {
	hs := runHelpers(t, "env", "ring", 4)
	checkHelpers(t, hs, func(int) int { return 0 })
}

// TestMultiProcessPeerDies: rank 3 of 4 exits without closing; the others'
// Recv from it fails quickly, naming it, and they carry on.
func TestMultiProcessPeerDies(t *testing.T) {
	hs := runHelpers(t, "id", "die", 4)
	checkHelpers(t, hs, func(r int) int {
		if r == 3 {
			return 7
		}
		return 0
	})
	for _, h := range hs[:3] {
		t.Logf("rank %d: %s", h.rank, strings.TrimSpace(h.out.String()))
	}
}

// TestMultiProcessSlurm: 4 processes started as srun starts them (SLURM_PROCID,
// SLURM_NTASKS, SLURM_LOCALID, a compressed node list whose first host is rank 0's) find
// each other and run the collectives.
func TestMultiProcessSlurm(t *testing.T) {
	hs := runHelpers(t, "slurm", "ring", 4)
	checkHelpers(t, hs, func(int) int { return 0 })
}

// TestMultiProcessTorchrun: the same with torchrun's RANK, WORLD_SIZE, LOCAL_RANK,
// MASTER_ADDR and MASTER_PORT.
func TestMultiProcessTorchrun(t *testing.T) {
	hs := runHelpers(t, "torchrun", "ring", 3)
	checkHelpers(t, hs, func(int) int { return 0 })
}
