//go:build cgo

package mpi

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/bootstrap"
)

// childEnv marks the copies of this test binary started by mpirun.
const childEnv = "MSCCLPP_BENCH_MPI_TEST_CHILD"

// TestMPIBootstrap runs this test binary under mpirun with 4 ranks; each
// runs TestMPIChild.
func TestMPIBootstrap(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("inside mpirun")
	}
	mpirun, err := exec.LookPath("mpirun")
	if err != nil {
		t.Skip("mpirun is not on PATH; skipping the MPI launch test")
	}
	const np = 4
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, mpirun, "--oversubscribe", "--bind-to", "none", "-np", fmt.Sprint(np),
		os.Args[0], "-test.run=^TestMPIChild$", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"=1",
		"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("mpirun took %s", time.Since(start).Round(time.Millisecond))
	if ctx.Err() != nil {
		t.Fatalf("mpirun timed out:\n%s", out)
	}
	if err != nil {
		t.Fatalf("mpirun: %v\n%s", err, out)
	}
	for r := 0; r < np; r++ {
		if want := fmt.Sprintf("mpi child rank %d of %d ok", r, np); !strings.Contains(string(out), want) {
			t.Errorf("missing %q in output:\n%s", want, out)
		}
	}
}

// TestMPIChild is one rank of TestMPIBootstrap; it skips itself otherwise.
func TestMPIChild(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("runs only under mpirun, started by TestMPIBootstrap")
	}
	if !Launched() {
		t.Fatal("under mpirun but Launched() is false")
	}
	rank, nranks, err := Init()
	if err != nil {
		t.Fatal(err)
	}
	defer Finalize()
	if r2, n2, err := Init(); err != nil || r2 != rank || n2 != nranks {
		t.Fatalf("second Init: %d %d %v", r2, n2, err)
	}

	// The broadcast must move exactly 128 bytes: fill guards around the ID
	// and check that they survive.
	var buf struct {
		before [64]byte
		id     bootstrap.UniqueID
		after  [64]byte
	}
	for i := range buf.before {
		buf.before[i], buf.after[i] = 0xa5, 0x5a
	}
	if rank == 0 {
		for i := range buf.id {
			buf.id[i] = byte(i * 7)
		}
	}
	if err := BcastUniqueID(&buf.id); err != nil {
		t.Fatal(err)
	}
	for i := range buf.id {
		if buf.id[i] != byte(i*7) {
			t.Fatalf("byte %d of the broadcast ID is %#x", i, buf.id[i])
		}
	}
	for i := range buf.before {
		if buf.before[i] != 0xa5 || buf.after[i] != 0x5a {
			t.Fatalf("broadcast wrote outside the ID (guard byte %d)", i)
		}
	}

	b, err := Bootstrap(context.Background(), bootstrap.Options{Timeout: 20 * time.Second, Logf: t.Logf}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.Rank() != rank || b.NRanks() != nranks {
		t.Fatalf("bootstrap is rank %d of %d, MPI says %d of %d", b.Rank(), b.NRanks(), rank, nranks)
	}
	all, err := b.AllGather([]byte(fmt.Sprint(rank)))
	if err != nil {
		t.Fatal(err)
	}
	for i := range all {
		if string(all[i]) != fmt.Sprint(i) {
			t.Fatalf("allgather slot %d = %q", i, all[i])
		}
	}
	if err := b.Barrier(); err != nil {
		t.Fatal(err)
	}
	lr, ls, err := b.LocalRank("")
	if err != nil {
		t.Fatal(err)
	}
	if lr != rank || ls != nranks {
		t.Fatalf("LocalRank = %d of %d, want %d of %d", lr, ls, rank, nranks)
	}
	if err := b.Barrier(); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("mpi child rank %d of %d ok\n", rank, nranks)
}
