package all

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/ethernet"
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device/devicetest"
)

// The hostput algorithms of the port-staged family end to end on the CPU, as
// port_staged_standin_test.go runs portput: ranks on simulated hosts, Ethernet over
// loopback, the real proxy, and a Go transcription of port_staged.cu's host_staged and
// host_staged_reduce (one block; int32 sum) that pushes the same triggers and counts the
// same signals. The outbox and the scratch are host-resident, so the proxy sends from
// host memory and the receivers read into it.

// hostStagedKernel: (chans, mems, outbox, scratch, local, slotBytes, in, out, unit, total,
// mode, root, rank, nranks, state); reduce: the host_staged_reduce family (int32 sum). A
// peer whose memory-channel entry has a remote address (CUDA IPC, on my host) gets its
// segment written straight into its local scratch and a memory-channel signal; the others
// a put from my outbox.
func hostStagedKernel(reduce bool) devicetest.Kernel {
	return func(g *devicetest.GPU, a []uint64) error {
		outbox, scratch, local, slot, in, out, unit, total := a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9]
		mode, root, rank, n := portstaged.PortStagedMode(a[10]), a[11], a[12], a[13]
		st := launchState(g, a[14])
		chans := ports(g, a[0], int(n-1))
		var memChans []devMem
		if a[1] != 0 {
			memChans = mems(g, a[1], int(n-1))
		}
		isLocal := func(i uint64) bool { return memChans != nil && memChans[i].h.Remote != 0 }
		flag := uint64(st.Launches) + 1
		boxSlots := uint64(mode.OutboxSlots(int(n)))
		box := (flag & 1) * boxSlots * slot
		slots := mode.Slots(int(n))
		region := (flag & 1) * slots * slot
		slotAt := func(from uint64) uint64 {
			if slots == 1 {
				return region
			}
			return region + from*slot
		}
		// my segments into my outbox (one slot for all where every peer gets the same),
		// the CUDA IPC peers' straight into their scratch
		for i := uint64(0); i < boxSlots; i++ {
			if boxSlots > 1 && isLocal(i) {
				continue
			}
			off, bytes := psSendSeg(mode, rank, other(i, rank), unit, total, root, n)
			copy(bytesAt(g, outbox+box+i*slot, bytes), bytesAt(g, in+off, bytes))
		}
		for i := uint64(0); i < n-1; i++ {
			if isLocal(i) {
				off, bytes := psSendSeg(mode, rank, other(i, rank), unit, total, root, n)
				copy(bytesAt(g, memChans[i].h.Remote+slotAt(rank), bytes), bytesAt(g, in+off, bytes))
			}
		}
		for i, c := range chans {
			if isLocal(uint64(i)) {
				memChans[i].signal()
				continue
			}
			_, bytes := psSendSeg(mode, rank, other(uint64(i), rank), unit, total, root, n)
			if bytes == 0 {
				if _, err := c.push(channels.TriggerFlag, 0, 0, 0); err != nil {
					return err
				}
				continue
			}
			src := box
			if boxSlots > 1 {
				src += uint64(i) * slot
			}
			if _, err := c.push(channels.TriggerData|channels.TriggerFlag, slotAt(rank), src, bytes); err != nil {
				return err
			}
		}
		// every peer alike: a CUDA IPC peer's entry in chans carries its memory channel's
		// semaphore
		for _, c := range chans {
			if err := c.waitCount(1); err != nil {
				return err
			}
		}
		psReceive(g, mode, reduce, rank, root, n, unit, total, in, out, func(q uint64) uint64 {
			i := q // q's peer index
			if q > rank {
				i--
			}
			if q != rank && isLocal(i) {
				return local + slotAt(q)
			}
			return scratch + slotAt(q)
		})
		hostFinish(chans, st)
		return nil
	}
}

// hostStagedKernels are the stand-in's hostput kernels, with portput's beside them.
func hostStagedKernels() map[string]devicetest.Kernel {
	kernels := map[string]devicetest.Kernel{"port_staged": portStagedKernel(false), "host_staged": hostStagedKernel(false)}
	addFamily(kernels, "port_staged_reduce", portStagedKernel(true))
	addFamily(kernels, "host_staged_reduce", hostStagedKernel(true))
	return kernels
}

// TestHostStagedAcrossHostsOnStandin: every collective's hostput on 2 and 3 simulated
// hosts of one rank each, and on one host of 3 ranks under --transport ethernet, every
// byte of every output checked at odd sizes, in and out of place, the root moving,
// several launches per instance (both halves, counts carried over).
func TestHostStagedAcrossHostsOnStandin(t *testing.T) {
	for _, tc := range []struct {
		hosts []string
		mode  channels.Mode
	}{
		{[]string{"h0", "h1"}, channels.ModeAuto},
		{[]string{"h0", "h1", "h2"}, channels.ModeAuto},
		{[]string{"h0", "h0", "h0"}, ethernet.Mode},
	} {
		t.Run(fmt.Sprintf("hosts %v, %v", tc.hosts, tc.mode), func(t *testing.T) {
			envs := standinJobMode(t, tc.hosts, 1<<20, hostStagedKernels(), tc.mode)
			if !envs[0].Layout.NetworkOnly() {
				t.Fatalf("layout %v: want no pair over CUDA IPC", envs[0].Layout)
			}
			checkStaged(t, envs, len(tc.hosts), "hostput", portstaged.HostCollectives())
		})
	}
}

// TestHostStagedMixedLayoutsOnStandin: every collective's hostput where some hosts have
// several ranks connected by the stand-in's CUDA IPC (hosts of 2 and 1 ranks, and 2 hosts
// of 2): the peers of a rank's host through its GPU-memory scratch, the others through
// host-resident buffers over Ethernet; every byte checked as above.
func TestHostStagedMixedLayoutsOnStandin(t *testing.T) {
	for _, hosts := range [][]string{{"a", "a", "b"}, {"a", "a", "b", "b"}} {
		t.Run(fmt.Sprintf("hosts %v", hosts), func(t *testing.T) {
			envs := standinJob(t, hosts, 1<<20, hostStagedKernels())
			if l := envs[0].Layout; !l.HostIPC || l.NetworkOnly() {
				t.Fatalf("layout %v: want CUDA IPC inside each host", l)
			}
			checkStaged(t, envs, len(hosts), "hostput", portstaged.HostCollectives())
		})
	}
}

// TestHostStagedRefusesOneHost: where every pair is connected by CUDA IPC (one host), no
// pair talks over a network: hostput does not fit (the run refuses it before the header),
// and its set-up fails with an error naming CUDA IPC rather than sharing host memory no
// peer could reach.
func TestHostStagedRefusesOneHost(t *testing.T) {
	envs := standinJob(t, []string{"a", "a"}, 1<<16, hostStagedKernels())
	for _, pc := range portstaged.HostCollectives() {
		a, err := collectives.Find(pc.Name, "hostput")
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Fits(envs[0].Layout); err == nil || !strings.Contains(err.Error(), "network") {
			t.Errorf("%s hostput on %v: Fits says %v, want a refusal naming the network", pc.Name, envs[0].Layout, err)
		}
	}
	onAll(t, envs, func(e *collectives.Env) error {
		_, err := portstaged.NewHostStaged(e, portstaged.PSAlltoall)
		if err == nil || !strings.Contains(err.Error(), "CUDA IPC") {
			return fmt.Errorf("set-up on rank %d: %v, want an error naming CUDA IPC", e.Rank, err)
		}
		return nil
	})
}
