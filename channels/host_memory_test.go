package channels_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/channelstest"
)

// TestShareHostRefusesCUDAIPC: host-resident memory cannot be mapped by a peer over CUDA
// IPC, so a job whose every pair is connected by CUDA IPC refuses it, with an error that
// says why.
func TestShareHostRefusesCUDAIPC(t *testing.T) {
	bs := channelstest.NewBoots(t, 2)
	ranks := channelstest.NewStandins(t, channelstest.BootsOf(bs), 4096, false, func(r int) channels.MeshOptions { return ethOpts(channels.ModeAuto, "machine") })
	channelstest.OnRanks(t, 2, func(r int) error {
		_, err := ranks[r].M.ShareHost(4096)
		if err == nil || !strings.Contains(err.Error(), "CUDA IPC") {
			return fmt.Errorf("ShareHost over CUDA IPC: got %v, want an error naming CUDA IPC", err)
		}
		return nil
	})
}

// TestShareHostServesNetworkPeers: on hosts a (ranks 0, 1: CUDA IPC) and b (rank 2),
// host-resident memory is shared; a port channel into it reaches the peer on the other
// host, and a port or memory channel into the copy of a peer reached by CUDA IPC, which
// cannot map it, is refused naming CUDA IPC instead of writing to address 0.
func TestShareHostServesNetworkPeers(t *testing.T) {
	hosts := []string{"a", "a", "b"}
	bs := channelstest.NewBoots(t, 3)
	ranks := channelstest.NewStandins(t, channelstest.BootsOf(bs), 4096, false, func(r int) channels.MeshOptions { return ethOpts(channels.ModeAuto, hosts[r]) })
	channelstest.OnRanks(t, 3, func(r int) error {
		m := ranks[r].M
		buf, err := m.ShareHost(4096)
		if err != nil {
			return fmt.Errorf("ShareHost on hosts %v: %w", hosts, err)
		}
		if buf.Ptrs[r] == 0 {
			return fmt.Errorf("rank %d: no address for its own host-resident memory", r)
		}
		var ipcPeer, netPeers []int
		for _, p := range m.Peers() {
			if hosts[p] == hosts[r] {
				ipcPeer = append(ipcPeer, p)
			} else {
				netPeers = append(netPeers, p)
			}
		}
		// every rank makes the same calls in the same order (semaphore numbers)
		if _, err := m.PortChannelsTo(netPeers, buf, buf.Ptrs[r], 4096); err != nil {
			return fmt.Errorf("port channels to network peers %v: %w", netPeers, err)
		}
		if len(ipcPeer) == 0 {
			return nil
		}
		if buf.Ptrs[ipcPeer[0]] != 0 {
			return fmt.Errorf("rank %d: host-resident memory of rank %d mapped at %v over CUDA IPC", r, ipcPeer[0], buf.Ptrs[ipcPeer[0]])
		}
		if _, err := m.PortChannelsTo(ipcPeer, buf, buf.Ptrs[r], 4096); err == nil || !strings.Contains(err.Error(), "CUDA IPC") {
			return fmt.Errorf("port channel into host memory of CUDA IPC peer %v: got %v, want a refusal naming CUDA IPC", ipcPeer, err)
		}
		if _, err := m.MemoryChannelsTo(ipcPeer, buf, buf.Ptrs[r]); err == nil || !strings.Contains(err.Error(), "CUDA IPC") {
			return fmt.Errorf("memory channel into host memory of CUDA IPC peer %v: got %v, want a refusal naming CUDA IPC", ipcPeer, err)
		}
		return nil
	})
}
