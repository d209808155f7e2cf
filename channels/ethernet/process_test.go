package ethernet

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/bootstrap"
	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/channelstest"
	"github.com/mscclpp-bench/mscclpp-bench/internal/netnstest"
)

// Environment of a helper process (the test binary re-executed as one rank).
const (
	helperEnv     = "CHANNELS_TEST_ETH_RANK" // this rank; set only in helpers
	helperNRanks  = "CHANNELS_TEST_ETH_NRANKS"
	helperRoot    = "CHANNELS_TEST_ETH_ROOT"    // bootstrap root ip:port
	helperMaxSize = "CHANNELS_TEST_ETH_MAXSIZE" // largest transfer
)

// TestEthernetHelperProcess is not a test: it is one rank of the multi-process tests. It
// joins the job through the bootstrap, builds an Ethernet mesh on a stand-in GPU and
// exchanges transfers with every other rank, checking every byte.
func TestEthernetHelperProcess(t *testing.T) {
	if os.Getenv(helperEnv) == "" {
		t.Skip("one rank of the multi-process Ethernet tests")
	}
	if err := runEthernetRank(); err != nil {
		fmt.Fprintf(os.Stderr, "rank %s: %v\n", os.Getenv(helperEnv), err)
		os.Exit(1)
	}
	fmt.Printf("rank %s: ok\n", os.Getenv(helperEnv))
	os.Exit(0)
}

func runEthernetRank() error {
	rank, _ := strconv.Atoi(os.Getenv(helperEnv))
	nranks, _ := strconv.Atoi(os.Getenv(helperNRanks))
	most, _ := strconv.ParseUint(os.Getenv(helperMaxSize), 10, 64)
	b, err := bootstrap.New(rank, nranks, bootstrap.Options{Timeout: 20 * time.Second})
	if err != nil {
		return err
	}
	defer b.Close()
	if err := b.InitializeAddr(context.Background(), os.Getenv(helperRoot), "ethernet-test"); err != nil {
		return err
	}
	host, _ := os.Hostname()
	s := &channelstest.Standin{G: channelstest.NewMemGPU(rank, channelstest.NewMemSpace()), Bytes: uint64(nranks)*most + 64, Ports: map[int]*channelstest.CPUPort{}}
	opts := ethOpts(Mode, host)
	setEth(&opts, func(e *Options) { e.Ifname = os.Getenv(bootstrap.SocketIfnameEnv) }) // as the worker passes it on
	if s.M, err = channels.NewMesh(s.G, b, opts); err != nil {
		return err
	}
	if err := s.SetUp(false); err != nil {
		s.M.Close()
		return err
	}
	for _, p := range s.M.Peers() {
		if tr := s.M.Conns[p].Transport(); tr != Transport {
			return fmt.Errorf("connection to rank %d is %v", p, tr)
		}
	}
	var runErr error
	for k, size := range []uint64{1, 4097, 1<<20 + 3, most} {
		if runErr = s.Exchange(b, k, size, 3, 1); runErr != nil {
			runErr = fmt.Errorf("round %d, %d bytes: %w", k, size, runErr)
			break
		}
	}
	if runErr == nil {
		runErr = s.M.StopProxy() // the worker's closing step
	}
	if runErr == nil {
		runErr = b.Barrier() // nobody closes while a peer still reads
	}
	if err := s.M.Close(); err != nil && runErr == nil {
		runErr = err
	}
	if leaks := s.G.Leaks(); leaks != "" && runErr == nil {
		runErr = fmt.Errorf("Close left %s", leaks)
	}
	return runErr
}

// runRanks starts one helper process per command prefix (nil: run directly) and waits
// for all of them; it fails the test with their output if any fails.
func runRanks(t *testing.T, prefixes [][]string, env func(rank int) []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	outs := make([][]byte, len(prefixes))
	errs := make([]error, len(prefixes))
	for r, prefix := range prefixes {
		args := append(append([]string{}, prefix...), os.Args[0], "-test.run=^TestEthernetHelperProcess$", "-test.count=1")
		cmd := exec.CommandContext(ctx, args[0], args[1:]...)
		cmd.Env = append(os.Environ(), env(r)...)
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			outs[r], errs[r] = cmd.CombinedOutput()
		}(r)
	}
	wg.Wait()
	for r := range prefixes {
		if errs[r] != nil || !strings.Contains(string(outs[r]), fmt.Sprintf("rank %d: ok", r)) {
			t.Errorf("rank %d: %v\n%s", r, errs[r], outs[r])
		}
	}
}

// freePort returns a TCP port that was free on ip a moment ago.
func freePort(t testing.TB, ip string) int {
	t.Helper()
	ln, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func rankEnv(rank, nranks int, root string, most uint64) []string {
	return []string{
		helperEnv + "=" + strconv.Itoa(rank), helperNRanks + "=" + strconv.Itoa(nranks),
		helperRoot + "=" + root, helperMaxSize + "=" + strconv.FormatUint(most, 10),
	}
}

// TestEthernetBetweenProcesses: three processes on loopback move data to each other over
// the Ethernet transport, up to 8 times the staging memory, every byte checked.
func TestEthernetBetweenProcesses(t *testing.T) {
	const n = 3
	root := fmt.Sprintf("127.0.0.1:%d", freePort(t, "127.0.0.1"))
	runRanks(t, make([][]string, n), func(r int) []string { return rankEnv(r, n, root, 8<<20-1) })
}

// TestEthernetAcrossNetworkNamespaces: two ranks in two network namespaces joined by a
// veth pair, each with its own address and only that link: the bootstrap and the data
// sockets cross it (the data listener picked by MSCCLPP_BENCH_SOCKET_IFNAME). It needs
// root and iproute2; the namespaces are the test's own and are deleted at the end.
func TestEthernetAcrossNetworkNamespaces(t *testing.T) {
	p := netnstest.New(t, "eth", "10.213.0")
	root := p.Addrs[0] + ":29500" // inside the test's own namespace: nothing else listens
	runRanks(t, [][]string{p.Exec(0), p.Exec(1)}, func(r int) []string {
		return append(rankEnv(r, 2, root, 4<<20+5), bootstrap.SocketIfnameEnv+"="+p.Veth[r])
	})
}
