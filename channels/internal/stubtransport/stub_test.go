package stubtransport_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/channelstest"
	"github.com/mscclpp-bench/mscclpp-bench/channels/ethernet"
	"github.com/mscclpp-bench/mscclpp-bench/channels/ib"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"

	// The one line that adds the stub transport to this program, beside the others.
	stub "github.com/mscclpp-bench/mscclpp-bench/channels/internal/stubtransport"
	_ "github.com/mscclpp-bench/mscclpp-bench/channels/transports"
)

// opts is a mesh on host with small Ethernet buffers and stub options o.
func opts(mode channels.Mode, host string, o stub.Options) channels.MeshOptions {
	m := channels.MeshOptions{Mode: mode, Timeout: 20 * time.Second, Hostname: "node", HostID: host}
	m.SetTransportOptions(ethernet.Transport, ethernet.Options{Sockets: 2, Chunk: 256 << 10, Depth: 2})
	m.SetTransportOptions(stub.Transport, o)
	return m
}

// TestStubConnects: four ranks on two hosts in auto mode. The registry picks CUDA IPC
// within a host and the stub between hosts (its priority is above Ethernet's), and every
// byte of port-channel puts arrives over both, with the stub registering memory or not.
func TestStubConnects(t *testing.T) {
	hosts := []string{"a", "a", "b", "b"}
	for _, registers := range []bool{false, true} {
		t.Run(fmt.Sprintf("Registers=%v", registers), func(t *testing.T) {
			bs := channelstest.NewBoots(t, len(hosts))
			ranks := channelstest.NewStandins(t, channelstest.BootsOf(bs), 1<<20, false, func(r int) channels.MeshOptions {
				return opts(channels.ModeAuto, hosts[r], stub.Options{Registers: registers})
			})
			m := ranks[0].M
			if got, want := channels.DescribeTransports(m.Endpoints, m.PairTransport), "hosts=2 within=cudaipc between=stub"; got != want {
				t.Fatalf("transports %q, want %q", got, want)
			}
			for k, size := range []uint64{1, 4097, 64 << 10} {
				if err := channelstest.Exchange(ranks, func(r int) channels.Bootstrap { return bs[r] }, k, size, uint64(k), 3); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestStubPriority: the records' priorities decide auto mode between hosts: the stub
// over Ethernet, InfiniBand over the stub where both ranks have an HCA.
func TestStubPriority(t *testing.T) {
	hosts := []string{"a", "b"}
	for _, c := range []struct {
		name string
		hca  bool
		want channels.Transport
	}{{"no HCA", false, stub.Transport}, {"HCAs", true, ib.Transport}} {
		t.Run(c.name, func(t *testing.T) {
			space := channelstest.NewMemSpace()
			fabric := channelstest.NewIBFabric(space)
			bs := channelstest.NewBoots(t, len(hosts))
			ranks := channelstest.NewStandinsOn(t, channelstest.BootsOf(bs), 4096, false, space, func(r int) channels.MeshOptions {
				o := opts(channels.ModeAuto, hosts[r], stub.Options{})
				o.SetTransportOptions(ib.Transport, ib.Options{Verbs: channelstest.FakeVerbs{F: fabric, Atomics: true, Missing: !c.hca}})
				return o
			})
			if got := ranks[0].M.PairTransport(0, 1); got != c.want {
				t.Fatalf("ranks 0 and 1 connect over %v, want %v", got, c.want)
			}
			if err := channelstest.Exchange(ranks, func(r int) channels.Bootstrap { return bs[r] }, 0, 100, 0, 0); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestStubByName: --transport stub reaches the stub through the registry, and a rank that
// cannot open it fails with the stub's own error.
func TestStubByName(t *testing.T) {
	if m, err := channels.ParseMode("stub"); err != nil || m != stub.Mode || m.String() != "stub" {
		t.Fatalf("ParseMode(stub) = %v, %v", m, err)
	}
	if _, err := channels.ParseMode("nope"); err == nil || !strings.Contains(err.Error(), "stub") {
		t.Fatalf("ParseMode(nope): %v, want the list of values with stub in it", err)
	}
	bs := channelstest.NewBoots(t, 2)
	channelstest.OnRanks(t, 2, func(r int) error {
		_, err := channels.NewMesh(channelstest.NewMemGPU(r, channelstest.NewMemSpace()), bs[r], opts(stub.Mode, "a", stub.Options{Missing: true}))
		if !errors.Is(err, stub.ErrUnavailable) || !strings.Contains(err.Error(), "--transport stub") {
			return fmt.Errorf("--transport stub without a stub: %v, want stub.ErrUnavailable", err)
		}
		return nil
	})
}

// recordingGPU is a stand-in GPU that records the calls that release what a mesh holds.
type recordingGPU struct {
	*channelstest.MemGPU
	record func(string)
}

func (g recordingGPU) IPCClose(p device.Ptr) error {
	g.record("gpu IPCClose")
	return g.MemGPU.IPCClose(p)
}

func (g recordingGPU) Free(p device.Ptr) error {
	g.record("gpu Free")
	return g.MemGPU.Free(p)
}

func (g recordingGPU) DestroyStream(s device.Stream) error {
	g.record("gpu DestroyStream")
	return g.MemGPU.DestroyStream(s)
}

// TestConnectAndCloseOrder: rank 0 of three (ranks 0 and 1 on one host, rank 2 on
// another) reaches rank 1 over CUDA IPC and rank 2 over the stub. It must connect as
// before transports were packages: the transports that connect peer by peer first (its
// CUDA IPC connection exists when the stub, which connects all its peers at once, is
// asked to connect); and close so: connections first (the CUDA IPC one destroys its
// stream), then a network that registers no memory, before any mapping is closed or any
// memory freed; a network that registers memory only after its registrations, and after
// the mappings, before the memory is freed.
func TestConnectAndCloseOrder(t *testing.T) {
	hosts := []string{"a", "a", "b"}
	for _, registers := range []bool{false, true} {
		t.Run(fmt.Sprintf("Registers=%v", registers), func(t *testing.T) {
			var mu sync.Mutex
			var events []string
			record := func(r int) func(string) {
				return func(e string) {
					if r == 0 || strings.HasPrefix(e, "rank 0:") {
						mu.Lock()
						events = append(events, strings.TrimPrefix(e, "rank 0: "))
						mu.Unlock()
					}
				}
			}
			bs := channelstest.NewBoots(t, len(hosts))
			space := channelstest.NewMemSpace()
			meshes := make([]*channels.Mesh, len(hosts))
			channelstest.OnRanks(t, len(hosts), func(r int) error {
				g := recordingGPU{channelstest.NewMemGPU(r, space), record(r)}
				var err error
				meshes[r], err = channels.NewMesh(g, bs[r], opts(channels.ModeAuto, hosts[r], stub.Options{Registers: registers, Record: record(r)}))
				return err
			})
			if t.Failed() {
				t.FailNow()
			}
			channelstest.OnRanks(t, len(hosts), func(r int) error { return meshes[r].Close() })
			mu.Lock()
			defer mu.Unlock()
			at := func(e string) int { return slices.Index(events, e) }
			last := func(prefix string) int {
				n := -1
				for i, e := range events {
					if strings.HasPrefix(e, prefix) {
						n = i
					}
				}
				return n
			}
			first := func(prefix string) int {
				return slices.IndexFunc(events, func(e string) bool { return strings.HasPrefix(e, prefix) })
			}
			closed := at("close network")
			checks := []struct {
				what string
				ok   bool
			}{
				{"opened once", at("open") == 0 && last("open") == 0},
				{"the stub connects rank 2 after the CUDA IPC connection to rank 1", at("connect [2] after 1 connections") > 0},
				{"the connections close before the network", last("close connection") >= 0 && last("close connection") < closed && last("gpu DestroyStream") < closed},
				{"memory is freed after the network closes", first("gpu Free") > closed},
			}
			if registers {
				checks = append(checks,
					struct {
						what string
						ok   bool
					}{"the registrations close before the network, after the mappings", first("unregister") > last("gpu IPCClose") && last("unregister") < closed && first("register") > 0},
				)
			} else {
				checks = append(checks, struct {
					what string
					ok   bool
				}{"the network closes before any mapping", first("gpu IPCClose") > closed})
			}
			for _, c := range checks {
				if !c.ok {
					t.Errorf("%s: events of rank 0: %q", c.what, events)
				}
			}
		})
	}
}
