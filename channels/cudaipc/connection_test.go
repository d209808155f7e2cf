package cudaipc

import (
	"strings"
	"testing"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/channelstest"
)

func TestCUDAIPCRefusesOtherHost(t *testing.T) {
	_, err := newCUDAIPCConn(channelstest.NewMemGPU(0, channelstest.NewMemSpace()), channels.Endpoint{Rank: 0, HostID: "a"}, channels.Endpoint{Rank: 1, HostID: "b"}, time.Second)
	if err == nil || !strings.Contains(err.Error(), "host b") {
		t.Errorf("different hosts: %v", err)
	}
}
