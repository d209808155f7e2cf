package all

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/bootstrap"
	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/cudaipc"
	"github.com/mscclpp-bench/mscclpp-bench/channels/ethernet"
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/allgather"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/allreduce"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"
	"github.com/mscclpp-bench/mscclpp-bench/internal/bounded"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device/devicetest"
	"github.com/mscclpp-bench/mscclpp-bench/internal/netnstest"
)

// The port-staged family's algorithms (portput, hostput, railput) and allgather's and
// allreduce's port algorithms between two network namespaces joined by a veth pair: one
// process per namespace acts as one host, its ranks on one stand-in GPU space (the
// stand-in's CUDA IPC between them), the hosts joined by the Ethernet transport over the
// veth pair only.

// Environment of a helper process (the test binary re-executed as one host's ranks).
const (
	psNetnsRanks  = "COLLECTIVES_TEST_NETNS_RANKS" // this host's ranks, comma-separated; set only in helpers
	psNetnsNRanks = "COLLECTIVES_TEST_NETNS_NRANKS"
	psNetnsRoot   = "COLLECTIVES_TEST_NETNS_ROOT" // bootstrap root ip:port
	psNetnsHost   = "COLLECTIVES_TEST_NETNS_HOST" // this host's id
)

// TestPortStagedNetnsHelperProcess is not a test: it is one host of
// TestPortStagedAcrossNetworkNamespaces.
func TestPortStagedNetnsHelperProcess(t *testing.T) {
	if os.Getenv(psNetnsRanks) == "" {
		t.Skip("one host of TestPortStagedAcrossNetworkNamespaces")
	}
	var ranks []int
	for _, f := range strings.Split(os.Getenv(psNetnsRanks), ",") {
		r, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("%s=%q: %v", psNetnsRanks, os.Getenv(psNetnsRanks), err)
		}
		ranks = append(ranks, r)
	}
	n, err := strconv.Atoi(os.Getenv(psNetnsNRanks))
	if err != nil {
		t.Fatal(err)
	}
	host := os.Getenv(psNetnsHost)
	old := channels.ShmDir
	channels.ShmDir = t.TempDir()
	t.Cleanup(func() { channels.ShmDir = old })
	kernels := hostStagedKernels()
	for _, more := range []map[string]devicetest.Kernel{portKernels(), hierKernels(), hostKernels()} {
		maps.Copy(kernels, more)
	}
	space := devicetest.NewSpace(kernels)
	const bufBytes = 1 << 20
	envs := make([]*collectives.Env, len(ranks))
	boots := make([]*bootstrap.TCPBootstrap, len(ranks))
	errs := bounded.Ranks(t, len(ranks), 60*time.Second, func(i int) error {
		r := ranks[i]
		b, err := bootstrap.New(r, n, bootstrap.Options{Timeout: 20 * time.Second})
		if err != nil {
			return err
		}
		if err := b.InitializeAddr(context.Background(), os.Getenv(psNetnsRoot), "portput-netns"); err != nil {
			return err
		}
		boots[i] = b
		g := space.NewGPU(r)
		m, err := channels.NewMesh(g, b, withEthernet(channels.MeshOptions{Timeout: 20 * time.Second, Hostname: host, HostID: host},
			ethernet.Options{Sockets: 2, Chunk: 64 << 10, Depth: 2, Ifname: os.Getenv(bootstrap.SocketIfnameEnv)}))
		if err != nil {
			return err
		}
		e := &collectives.Env{GPU: g, Mesh: m, Rank: r, NRanks: n, SMs: 4, MaxBytes: bufBytes, InBytes: bufBytes, OutBytes: bufBytes, Layout: collectives.LayoutOf(m)}
		for _, buf := range []**channels.Buffer{&e.In, &e.Out} {
			p, err := m.Alloc(bufBytes)
			if err != nil {
				return err
			}
			if *buf, err = m.Share(p, bufBytes); err != nil {
				return err
			}
		}
		for q := 0; q < n; q++ {
			if q == r {
				continue
			}
			want := ethernet.Transport
			if sameHost(e.Layout, q, r) {
				want = cudaipc.Transport
			}
			if got := m.PairTransport(r, q); got != want {
				return fmt.Errorf("ranks %d and %d connect over %v, want %v (%v)", r, q, got, want, e.Layout)
			}
		}
		envs[i] = e
		return nil
	})
	for i, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", ranks[i], err)
		}
	}
	checkPortStaged(t, envs, n)
	checkStaged(t, envs, n, "hostput", portstaged.HostCollectives())
	checkStagedRSAG(t, envs, n, "hostrsag")
	if len(envs[0].Layout.Hosts[0]) > 1 { // hosts of several ranks: railput and railrsag too
		checkStaged(t, envs, n, "railput", portstaged.RailCollectives())
		checkStagedRSAG(t, envs, n, "railrsag")
	}
	// allgather's and allreduce's algorithms across hosts (allgather hostput is the
	// family's, above); hostoneshot only where no pair uses CUDA IPC
	checkGatherReduce(t, envs, allgather.NewAllgatherPortput, allreduce.NewAllreducePortRSAG)
	checkGatherReduce(t, envs, allgather.NewAllgatherPortput, allreduce.NewAllreducePortOneShot)
	// allgather hier puts straight into the rail's outputs: each put waits for the peer's
	// entry into the launch, so a rank one collective ahead does not overwrite an output
	// its peer has not checked yet (the processes do not meet between launches here)
	checkGatherReduce(t, envs, allgather.NewAllgatherHier, allreduce.NewAllreduceHier)
	if envs[0].Layout.NetworkOnly() {
		checkGatherReduce(t, envs, newAllgatherHostput, allreduce.NewAllreduceHostOneShot)
		checkStaged(t, envs, n, "hostoneshot", hostOneShots)
	}
	// the worker's closing step: everything sent, then nobody closes while a peer may
	// still read (hostput's last signals to peers that wait for none may still be queued)
	for i, err := range bounded.Ranks(t, len(ranks), 30*time.Second, func(i int) error {
		if err := envs[i].Mesh.StopProxy(); err != nil {
			return err
		}
		if err := boots[i].Barrier(); err != nil {
			return err
		}
		return envs[i].Mesh.Close()
	}) {
		if err != nil {
			t.Fatalf("rank %d: close: %v", ranks[i], err)
		}
	}
	for _, b := range boots {
		b.Close()
	}
}

// sameHost says whether ranks a and b share a host of layout l.
func sameHost(l collectives.Layout, a, b int) bool {
	ha, _, _ := l.Local(a)
	hb, _, _ := l.Local(b)
	return ha == hb
}

// TestPortStagedAcrossNetworkNamespaces: every portput and hostput algorithm, allgather
// portput and hier, allreduce portrsag, portoneshot and hier (and with one rank per
// namespace every hostoneshot; with two, every railput and allreduce railrsag)
// between two network namespaces joined by a veth pair, each with its own address and
// only that link, 1 and 2 ranks per namespace; every byte of every rank's output checked.
// It needs root and iproute2; the namespaces are the test's own and are deleted at the end.
func TestPortStagedAcrossNetworkNamespaces(t *testing.T) {
	p := netnstest.New(t, "ps", "10.214.0")
	for port, hosts := range map[int][]string{29501: {"0", "1"}, 29502: {"0,1", "2,3"}} {
		t.Run(fmt.Sprintf("ranks %s", strings.Join(hosts, " | ")), func(t *testing.T) {
			n := strings.Count(strings.Join(hosts, ","), ",") + 1
			root := fmt.Sprintf("%s:%d", p.Addrs[0], port) // inside the test's own namespace: nothing else listens
			ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
			defer cancel()
			type result struct {
				out []byte
				err error
			}
			done := make([]chan result, len(hosts))
			for h, ranks := range hosts {
				done[h] = make(chan result, 1)
				args := append(p.Exec(h)[1:], os.Args[0],
					"-test.run=^TestPortStagedNetnsHelperProcess$", "-test.count=1", "-test.v")
				cmd := exec.CommandContext(ctx, p.IP, args...)
				cmd.Env = append(os.Environ(), psNetnsRanks+"="+ranks, psNetnsNRanks+"="+strconv.Itoa(n),
					psNetnsRoot+"="+root, psNetnsHost+"="+fmt.Sprintf("host%d", h), bootstrap.SocketIfnameEnv+"="+p.Veth[h])
				go func() {
					out, err := cmd.CombinedOutput()
					done[h] <- result{out, err}
				}()
			}
			for h := range hosts {
				r := <-done[h]
				if r.err != nil || !strings.Contains(string(r.out), "--- PASS: TestPortStagedNetnsHelperProcess") {
					t.Errorf("host %d (ranks %s): %v\n%s", h, hosts[h], r.err, r.out)
				}
			}
		})
	}
}
