package all

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/allreduce"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device/devicetest"
)

// The host-resident algorithms end to end on the CPU, as port_standin_test.go runs the port
// algorithms: ranks on simulated hosts, Ethernet over loopback, the real proxy, and Go
// transcriptions of collectives/allreduce/allreduce_hostoneshot.cu (int32 sum) and of the
// port-staged family's host_staged (allgather's hostput; host_staged_standin_test.go) that
// push the same triggers and count the same signals. The outbox and the scratch are host-resident, so the proxy
// sends from host memory and the receivers read into it.

// newAllgatherHostput sets allgather's hostput (the port-staged family's) up on e.
func newAllgatherHostput(e *collectives.Env) (collectives.Instance, error) {
	return portstaged.NewHostStaged(e, portstaged.PSAllgather)
}

// hostLaunch is what allreduce hostoneshot does before its own work: my bytes into half (flag&1)
// of my outbox, a put with a signal of them into slot `rank` of the same half of every
// peer's scratch, and the wait for every peer's. It returns the scratch half's offset.
func hostLaunch(g *devicetest.GPU, chans []devPort, outbox, slot, in, bytes, rank, nranks uint64, st *channels.LaunchState) (uint64, error) {
	flag := uint64(st.Launches) + 1
	half, box := (flag&1)*nranks*slot, (flag&1)*slot
	copy(bytesAt(g, outbox+box, bytes), bytesAt(g, in, bytes))
	for _, c := range chans {
		if _, err := c.push(channels.TriggerData|channels.TriggerFlag, half+rank*slot, box, bytes); err != nil {
			return 0, err
		}
	}
	for _, c := range chans {
		if err := c.waitCount(1); err != nil {
			return 0, err
		}
	}
	return half, nil
}

// hostFinish ends a launch: every channel's expected count advances by one.
func hostFinish(chans []devPort, st *channels.LaunchState) {
	for _, c := range chans {
		c.advance(1)
	}
	st.Launches++
}

// allreduceHostOneShotKernel (int32 sum): (chans, outbox, scratch, slotBytes, in, out,
// count, rank, nranks, state).
func allreduceHostOneShotKernel(g *devicetest.GPU, a []uint64) error {
	outbox, scratch, slot, in, out, count, rank, nranks := a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]
	st := launchState(g, a[9])
	chans := ports(g, a[0], int(nranks-1))
	bytes := count * 4
	half, err := hostLaunch(g, chans, outbox, slot, in, bytes, rank, nranks, st)
	if err != nil {
		return err
	}
	sumSlots(g, out, in, scratch+half, slot, bytes, rank, nranks)
	hostFinish(chans, st)
	return nil
}

// reduceScatterHostOneShotKernel (int32 sum): (chans, outbox, scratch, slotBytes, in,
// out, count, rank, nranks, state), as collectives/reducescatter/reducescatter_hostoneshot.cu:
// my whole input into half (flag&1) of my outbox, peer p's block of it put with a signal
// into slot `rank` of the same half of p's scratch, then my block reduced in rank order.
func reduceScatterHostOneShotKernel(g *devicetest.GPU, a []uint64) error {
	outbox, scratch, slot, in, out, count, rank, nranks := a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]
	st := launchState(g, a[9])
	chans := ports(g, a[0], int(nranks-1))
	bytes := count * 4
	flag := uint64(st.Launches) + 1
	half, box := (flag&1)*nranks*slot, (flag&1)*slot
	copy(bytesAt(g, outbox+box, nranks*bytes), bytesAt(g, in, nranks*bytes))
	for _, c := range chans {
		typ := uint32(channels.TriggerData | channels.TriggerFlag)
		if bytes == 0 {
			typ = channels.TriggerFlag
		}
		if _, err := c.push(typ, half+rank*slot, box+uint64(c.h.Peer)*bytes, bytes); err != nil {
			return err
		}
	}
	for _, c := range chans {
		if err := c.waitCount(1); err != nil {
			return err
		}
	}
	sumSlots(g, out, in+rank*bytes, scratch+half, slot, bytes, rank, nranks)
	hostFinish(chans, st)
	return nil
}

// allgatherHostOneShotKernel: (chans, outbox, scratch, slotBytes, in, out, chunk, rank,
// nranks, state), as collectives/allgather/allgather_hostoneshot.cu: hostLaunch's put of
// my chunk, then each rank's chunk into its place in my output.
func allgatherHostOneShotKernel(g *devicetest.GPU, a []uint64) error {
	outbox, scratch, slot, in, out, chunk, rank, nranks := a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]
	st := launchState(g, a[9])
	chans := ports(g, a[0], int(nranks-1))
	half, err := hostLaunch(g, chans, outbox, slot, in, chunk, rank, nranks, st)
	if err != nil {
		return err
	}
	for r := uint64(0); r < nranks; r++ {
		src := scratch + half + r*slot
		if r == rank {
			src = in
		}
		if dst := out + r*chunk; dst != src {
			copy(bytesAt(g, dst, chunk), bytesAt(g, src, chunk))
		}
	}
	hostFinish(chans, st)
	return nil
}

func hostKernels() map[string]devicetest.Kernel {
	kernels := map[string]devicetest.Kernel{"host_staged": hostStagedKernel(false), "allgather_hostoneshot": allgatherHostOneShotKernel}
	addFamily(kernels, "allreduce_hostoneshot", allreduceHostOneShotKernel)
	addFamily(kernels, "reducescatter_hostoneshot", reduceScatterHostOneShotKernel)
	return kernels
}

// hostOneShots are the collectives whose hostoneshot checkStaged can check (allreduce's has
// checkGatherReduce), with the mode whose outputs they produce.
var hostOneShots = []portstaged.Use{{Name: "reducescatter", Mode: portstaged.PSReduceScatter}, {Name: "allgather", Mode: portstaged.PSAllgather}}

// TestHostOneShotsOnStandin: reducescatter's and allgather's hostoneshot on 2 and 3
// simulated hosts of one rank (and on one host of 3 ranks under --transport ethernet), every byte
// of every output checked at odd sizes, in and out of place, at offsets, several
// launches per instance (both halves of the buffers, counts carried over).
func TestHostOneShotsOnStandin(t *testing.T) {
	for _, tc := range networkOnlyJobs {
		t.Run(fmt.Sprintf("hosts %v, %v", tc.hosts, tc.mode), func(t *testing.T) {
			envs := standinJobMode(t, tc.hosts, 2<<20, hostKernels(), tc.mode)
			checkStagedSizes(t, envs, len(tc.hosts), "hostoneshot", hostOneShots, []int64{12, 100, 4004, 16388, 240012, 52, 1 << 20, 0})
		})
	}
}

// TestHostAlgorithmsAcrossHostsOnStandin: allgather hostput and allreduce hostoneshot on
// 2 and 3 simulated hosts, every byte of every output checked at odd sizes, in and out of
// place, several launches per instance (both halves, counts carried over).
func TestHostAlgorithmsAcrossHostsOnStandin(t *testing.T) {
	for _, n := range []int{2, 3} {
		t.Run(fmt.Sprintf("%d hosts", n), func(t *testing.T) {
			hosts := make([]string, n)
			for r := range hosts {
				hosts[r] = fmt.Sprintf("h%d", r)
			}
			envs := standinJob(t, hosts, 1<<20, hostKernels())
			if !envs[0].Layout.NetworkOnly() {
				t.Fatalf("layout %v: want no pair over CUDA IPC", envs[0].Layout)
			}
			checkGatherReduce(t, envs, newAllgatherHostput, allreduce.NewAllreduceHostOneShot)
		})
	}
}

// TestHostOneShotRefusesCUDAIPC: on two hosts of which one has two ranks connected by
// CUDA IPC, the layout does not fit allreduce hostoneshot, whose kernel reaches every peer
// over a port channel (the run refuses it before the header), and its set-up fails with
// an error naming CUDA IPC. (allgather's hostput, the port-staged family's, runs there:
// host_staged_standin_test.go.)
func TestHostOneShotRefusesCUDAIPC(t *testing.T) {
	envs := standinJob(t, []string{"a", "a", "b"}, 1<<16, hostKernels())
	a, err := collectives.Find("allreduce", "hostoneshot")
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Fits(envs[0].Layout); err == nil || !strings.Contains(err.Error(), "CUDA IPC") {
		t.Errorf("allreduce hostoneshot on %v: Fits says %v, want a refusal naming CUDA IPC", envs[0].Layout, err)
	}
	onAll(t, envs, func(e *collectives.Env) error {
		_, err := allreduce.NewAllreduceHostOneShot(e)
		if err == nil || !strings.Contains(err.Error(), "CUDA IPC") {
			return fmt.Errorf("set-up on rank %d: %v, want an error naming CUDA IPC", e.Rank, err)
		}
		return nil
	})
}
