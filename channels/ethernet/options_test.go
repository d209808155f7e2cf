package ethernet

import (
	"testing"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/channelstest"
	"github.com/mscclpp-bench/mscclpp-bench/channels/ib"
	"github.com/mscclpp-bench/mscclpp-bench/internal/rdma"
)

// ethOpts is a small Ethernet set-up: 2 sockets, 256 KiB pieces, 2 slots deep, so each
// direction stages through 1 MiB.
func ethOpts(mode channels.Mode, host string) channels.MeshOptions {
	return meshOpts(mode, host, Options{Sockets: 2, Chunk: 256 << 10, Depth: 2})
}

// meshOpts is a mesh of mode on host with Ethernet options o.
func meshOpts(mode channels.Mode, host string, o Options) channels.MeshOptions {
	m := channels.MeshOptions{Mode: mode, Timeout: 20 * time.Second, Hostname: host}
	m.SetTransportOptions(Transport, o)
	return m
}

// setEth changes the Ethernet options of o.
func setEth(o *channels.MeshOptions, f func(*Options)) {
	e, _ := o.TransportOptions(Transport).(Options)
	f(&e)
	o.SetTransportOptions(Transport, e)
}

// ibMeshOpts connects every pair over the stand-in InfiniBand fabric v.
func ibMeshOpts(v rdma.Verbs) channels.MeshOptions {
	o := ethOpts(ib.Mode, "node")
	o.SetTransportOptions(ib.Transport, ib.Options{Verbs: v})
	return o
}

// TestInlineFor: a rank alone on its host sends host-resident writes above AloneInline
// on the data sockets; a rank whose host has other ranks keeps them on the control
// socket up to MaxInline.
func TestInlineFor(t *testing.T) {
	cases := []struct {
		name  string
		hosts []string // HostID of each rank
		me    int
		want  uint64
	}{
		{"one rank a host", []string{"a", "b"}, 0, AloneInline},
		{"hosts of 2", []string{"a", "a", "b", "b"}, 2, MaxInline},
		{"alone beside a host of 2", []string{"a", "a", "b"}, 2, AloneInline},
		{"in the host of 2 beside one alone", []string{"a", "a", "b"}, 1, MaxInline},
		{"one host", []string{"a", "a"}, 0, MaxInline},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			eps := make([]channels.Endpoint, len(c.hosts))
			for r, h := range c.hosts {
				eps[r] = channels.Endpoint{Rank: r, HostID: h}
			}
			if got := inlineFor(eps, c.me); got != c.want {
				t.Errorf("rank %d of hosts %v: %d, want %d", c.me, c.hosts, got, c.want)
			}
		})
	}
}

// TestInlineDefault: a connection's control-socket limit for host-resident writes is
// Options.Inline where set, and otherwise follows the ranks' hosts (inlineFor).
func TestInlineDefault(t *testing.T) {
	cases := []struct {
		name   string
		hosts  []string
		inline uint64
		want   uint64
	}{
		{"two hosts of one rank", []string{"a", "b"}, 0, AloneInline},
		{"one host", []string{"a", "a"}, 0, MaxInline},
		{"set", []string{"a", "b"}, 64 << 10, 64 << 10},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bs := channelstest.NewBoots(t, len(c.hosts))
			ranks := channelstest.NewStandins(t, channelstest.BootsOf(bs), 4096, false, func(r int) channels.MeshOptions {
				o := meshOpts(Mode, "node", Options{Sockets: 2, Chunk: 256 << 10, Depth: 2, Inline: c.inline})
				o.HostID = c.hosts[r]
				return o
			})
			for r, s := range ranks {
				for p, conn := range s.M.Conns {
					if got := conn.(*ethConn).inlineMax; got != c.want {
						t.Errorf("rank %d to rank %d: limit %d, want %d", r, p, got, c.want)
					}
				}
			}
		})
	}
}
