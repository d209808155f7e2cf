package channels_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/channelstest"
)

// TestShareHostRefusesCUDAIPC: host-resident memory cannot be mapped by a peer over CUDA
// IPC, so a rank with such a peer refuses it with an error that says why.
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
