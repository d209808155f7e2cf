package all

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/cudaipc"
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/alltoall"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/broadcast"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/collectivestest"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/sendrecv"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device/devicetest"
)

// portDirectCollectives are the collectives with a one-host copy-engine algorithm of their
// own (port_direct.go), the memory-channel algorithm -k auto picks below its range, and
// where that range starts.
var portDirectCollectives = []struct {
	coll, below string
	autoMin     int64
}{
	{"alltoall", "blockput", alltoall.AlltoallPortAutoMin},
	{"sendrecv", "put", sendrecv.SendRecvPortAutoMin},
	{"broadcast", "read", broadcast.BroadcastPortAutoMin},
}

// TestPortDirectRegistry: each collective's port is algorithm 2, found by name and number,
// one host only, picked by -k auto from its threshold up on two or more ranks, and listed
// by -k all at every size (before portput, which runs on any layout).
func TestPortDirectRegistry(t *testing.T) {
	two := layoutOf(false, "h0", "h1")
	for _, c := range portDirectCollectives {
		for _, k := range []string{"port", "2"} {
			a, err := collectives.Find(c.coll, k)
			if err != nil || a.Name != "port" || a.Number != 2 {
				t.Fatalf("Find(%s, %s) = %v, %v; want port (#2)", c.coll, k, a, err)
			}
			if a.MinRanks != 2 || a.MaxBytes != 0 || a.Types != nil || a.Needs != collectives.OneHost || a.Doc == "" {
				t.Errorf("%s port: MinRanks %d, MaxBytes %d, Types %v, Needs %v, Doc %q", c.coll, a.MinRanks, a.MaxBytes, a.Types, a.Needs, a.Doc)
			}
		}
		for _, tt := range []struct {
			size   int64
			nranks int
			want   string
		}{
			{c.autoMin - 1, 2, c.below},
			{c.autoMin, 2, "port"},
			{c.autoMin, 3, "port"},
			{4 << 30, 8, "port"},
			{c.autoMin, 1, "local"},
		} {
			algs, err := collectives.Select(c.coll, "auto", tt.size, tt.nranks, "float")
			if err != nil || len(algs) != 1 || algs[0].Name != tt.want {
				t.Errorf("Select(%s, auto, %d, %d ranks) = %v, %v; want %s", c.coll, tt.size, tt.nranks, AlgNames(algs), err, tt.want)
			}
		}
		for _, size := range []int64{0, 1 << 20, 256 << 20} {
			algs, err := collectives.Select(c.coll, "all", size, 2, "int8")
			if got := strings.Join(AlgNames(algs), ","); err != nil || !strings.HasSuffix(got, c.below+",port,portput") {
				t.Errorf("Select(%s, all, %d) = %s, %v; want a list ending %s,port,portput", c.coll, size, got, err, c.below)
			}
		}
		if _, err := collectives.SelectIn(c.coll, "port", 1<<30, two, "float"); err == nil || !strings.Contains(err.Error(), "one host") {
			t.Errorf("SelectIn(%s, port, two hosts) = %v, want an error naming one host", c.coll, err)
		}
	}
}

// The port algorithms end to end on the CPU, ranks on one simulated host: the stand-in's
// CUDA IPC connects them (memory channels for the start barrier, the real proxy and the
// CUDA IPC connection's copies for the port channels). The kernels are Go transcriptions of
// collectives/alltoall/alltoall_port.cu, sendrecv_port.cu and broadcast_port.cu: the same
// triggers, offsets and semaphore counts. Block 0's threads run one peer each; here their
// puts go first, then their waits, then their flushes, one of the orders the GPU may take.

// portDrive is block 0 of the port kernels: the start barrier, a put-with-signal of
// puts[i] = {dstOff, srcOff, bytes} on channel cs[i], one wait on each channel cs[k] for k
// in waits, and a flush of each channel that put.
func portDrive(syncs []devMem, cs []devPort, puts [][3]uint64, waits []int) error {
	if err := memBarrier(syncs); err != nil {
		return err
	}
	for i, p := range puts {
		if _, err := cs[i].push(channels.TriggerData|channels.TriggerFlag, p[0], p[1], p[2]); err != nil {
			return err
		}
	}
	for _, i := range waits {
		if err := cs[i].waitCount(1); err != nil {
			return err
		}
		cs[i].advance(1)
	}
	for i := range puts {
		pos, err := cs[i].push(channels.TriggerSync, 0, 0, 0)
		if err != nil {
			return err
		}
		if err := cs[i].sync(pos); err != nil {
			return err
		}
	}
	return nil
}

// alltoallPortKernel: (chans, syncChans, scratch, in, out, srcOff, dstOff, chunk, rank, nranks, state).
func alltoallPortKernel(g *devicetest.GPU, a []uint64) error {
	scratch, in, out, srcOff, dstOff, chunk, rank, nranks := a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9]
	np := int(nranks - 1)
	cs, puts, waits := ports(g, a[0], np), make([][3]uint64, np), make([]int, np)
	for i := range puts {
		puts[i] = [3]uint64{dstOff + rank*chunk, srcOff + other(uint64(i), rank)*chunk, chunk}
		waits[i] = i
	}
	if err := portDrive(mems(g, a[1], np), cs, puts, waits); err != nil {
		return err
	}
	for q := uint64(0); q < nranks; q++ {
		switch {
		case scratch != 0 && q != rank:
			copy(bytesAt(g, out+q*chunk, chunk), bytesAt(g, scratch+q*chunk, chunk))
		case scratch == 0 && q == rank:
			copy(bytesAt(g, out+q*chunk, chunk), bytesAt(g, in+q*chunk, chunk))
		}
	}
	launchState(g, a[10]).Launches++
	return nil
}

// sendrecvPortKernel: (chans, syncChans, scratch, out, srcOff, dstOff, bytes, rank, nranks, state).
func sendrecvPortKernel(g *devicetest.GPU, a []uint64) error {
	scratch, out, srcOff, dstOff, bytes, rank, nranks := a[2], a[3], a[4], a[5], a[6], a[7], a[8]
	np := int(nranks - 1)
	idx := func(p uint64) uint64 {
		if p < rank {
			return p
		}
		return p - 1
	}
	next, prev := idx((rank+1)%nranks), idx((rank+nranks-1)%nranks)
	cs := ports(g, a[0], np)
	// one thread: put to next, wait for prev, flush next
	if err := portDrive(mems(g, a[1], np), []devPort{cs[next], cs[prev]}, [][3]uint64{{dstOff, srcOff, bytes}}, []int{1}); err != nil {
		return err
	}
	if scratch != 0 {
		copy(bytesAt(g, out, bytes), bytesAt(g, scratch, bytes))
	}
	launchState(g, a[9]).Launches++
	return nil
}

// broadcastPortKernel: (chans, syncChans, in, out, srcOff, dstOff, bytes, root, rank, nranks, state).
func broadcastPortKernel(g *devicetest.GPU, a []uint64) error {
	in, out, srcOff, dstOff, bytes, root, rank, nranks := a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9]
	np := int(nranks - 1)
	cs, syncs := ports(g, a[0], np), mems(g, a[1], np)
	var err error
	if rank == root {
		puts := make([][3]uint64, np)
		for i := range puts {
			puts[i] = [3]uint64{dstOff, srcOff, bytes}
		}
		err = portDrive(syncs, cs, puts, nil)
	} else {
		r := root
		if root > rank {
			r--
		}
		err = portDrive(syncs, []devPort{cs[r]}, nil, []int{0})
	}
	if err != nil {
		return err
	}
	if rank == root && in != out {
		copy(bytesAt(g, out, bytes), bytesAt(g, in, bytes))
	}
	launchState(g, a[10]).Launches++
	return nil
}

// TestPortDirectOnStandin runs each collective's port algorithm on 2 and 3 ranks of one
// host at odd sizes, in and out of place, at offsets, several launches per instance (the
// semaphore counts carry over; broadcast's root moves), and checks every byte of every
// rank's output.
func TestPortDirectOnStandin(t *testing.T) {
	kernels := map[string]devicetest.Kernel{
		"alltoall_port": alltoallPortKernel, "sendrecv_port": sendrecvPortKernel, "broadcast_port": broadcastPortKernel,
	}
	int8T := collectivestest.MustType(t, "int8")
	for _, n := range []int{2, 3} {
		t.Run(fmt.Sprintf("%d ranks", n), func(t *testing.T) {
			const bufBytes = 1 << 20
			envs := standinJob(t, make([]string, n), bufBytes, kernels) // one host: ""
			for r, e := range envs {
				if tr := e.Mesh.PairTransport(0, 1); tr != cudaipc.Transport {
					t.Fatalf("rank %d: ranks 0 and 1 connect over %v, want CUDA IPC", r, tr)
				}
			}
			for _, c := range portDirectCollectives {
				a, err := collectives.Find(c.coll, "port")
				if err != nil {
					t.Fatal(err)
				}
				insts := instancesOn(t, envs, a)
				coll := collectivestest.MustLookup(t, c.coll)
				for launch, size := range []int64{1, 48, 1000, 4097, 60000} {
					for _, inPlace := range []bool{false, true} {
						cnt := coll.Counts(size, int8T, n)
						l := &collectives.LaunchArgs{Type: int8T, Root: launch % n, Count: cnt.Send, Param: cnt.Param, SendBytes: uint64(cnt.Send),
							RecvBytes: uint64(cnt.Recv), InPlace: inPlace, Shift: uint64(launch) * 256,
							SendInPlace: uint64(cnt.SendInPlace), RecvInPlace: uint64(cnt.RecvInPlace)}
						onAll(t, envs, func(e *collectives.Env) error {
							la := *l
							la.InOff, la.OutOff = la.InOffOf(e.Rank), la.OutOffOf(e.Rank)
							fillInput(e, &la, launch)
							return insts[e.Rank].Launch(&la, 0)
						})
						for _, e := range envs {
							got := bytesAt(e.GPU.(*devicetest.GPU), uint64(e.OutPtr(l, e.Rank)), l.RecvBytes)
							for i, b := range got {
								from, j := portDirectSource(c.coll, e.Rank, n, l, i)
								if want := byte(j*7 + from*31 + launch*13); b != want {
									t.Fatalf("%s %d bytes (in place %v) rank %d: byte %d = %d, want %d (rank %d's byte %d)", c.coll, size, inPlace, e.Rank, i, b, want, from, j)
								}
							}
						}
					}
				}
			}
		})
	}
}

// portDirectSource says which rank's input byte lands in byte i of rank me's output.
func portDirectSource(coll string, me, n int, l *collectives.LaunchArgs, i int) (from, j int) {
	switch coll {
	case "alltoall":
		chunk := int(l.RecvBytes) / n
		return i / chunk, me*chunk + i%chunk
	case "sendrecv":
		return sendrecv.PrevRank(me, n), i
	}
	return l.Root, i
}
