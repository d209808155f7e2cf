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

// hostStagedKernel: (chans, outbox, scratch, slotBytes, in, out, unit, total, mode, root,
// rank, nranks, state); reduce: the host_staged_reduce family (int32 sum).
func hostStagedKernel(reduce bool) devicetest.Kernel {
	return func(g *devicetest.GPU, a []uint64) error {
		outbox, scratch, slot, in, out, unit, total := a[1], a[2], a[3], a[4], a[5], a[6], a[7]
		mode, root, rank, n := portstaged.PortStagedMode(a[8]), a[9], a[10], a[11]
		st := launchState(g, a[12])
		chans := ports(g, a[0], int(n-1))
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
		// my segments into my outbox (one slot for all where every peer gets the same)
		for i := uint64(0); i < boxSlots; i++ {
			off, bytes := psSendSeg(mode, rank, other(i, rank), unit, total, root, n)
			copy(bytesAt(g, outbox+box+i*slot, bytes), bytesAt(g, in+off, bytes))
		}
		for i, c := range chans {
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
		for _, c := range chans {
			if err := c.waitCount(1); err != nil {
				return err
			}
		}
		psReceive(g, mode, reduce, rank, root, n, unit, total, in, out, scratch, slotAt)
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

// TestHostStagedRefusesCUDAIPC: on two hosts of which one has two ranks connected by
// CUDA IPC, hostput does not fit (the run refuses it before the header), and its set-up
// fails with an error naming CUDA IPC rather than sharing host memory a peer could not
// map.
func TestHostStagedRefusesCUDAIPC(t *testing.T) {
	envs := standinJob(t, []string{"a", "a", "b"}, 1<<16, hostStagedKernels())
	for _, pc := range portstaged.HostCollectives() {
		a, err := collectives.Find(pc.Name, "hostput")
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Fits(envs[0].Layout); err == nil || !strings.Contains(err.Error(), "CUDA IPC") {
			t.Errorf("%s hostput on %v: Fits says %v, want a refusal naming CUDA IPC", pc.Name, envs[0].Layout, err)
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
