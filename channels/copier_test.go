package channels

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// pollGPU answers StreamIdle: busy for its first busy polls, then idle (or err).
type pollGPU struct {
	device.GPU
	busy, polls int
	err         error
}

func (g *pollGPU) StreamIdle(device.Stream) (bool, error) {
	g.polls++
	if g.polls <= g.busy {
		return false, nil
	}
	return true, g.err
}

// TestDeviceQueueWait: a copy queue's Wait returns once the stream is idle, passes the
// stream's error on, and gives up after its timeout with an error that says so.
func TestDeviceQueueWait(t *testing.T) {
	broken := errors.New("stream broke")
	for _, c := range []struct {
		name    string
		gpu     *pollGPU
		timeout time.Duration
		err     string
	}{
		{"idle at once", &pollGPU{}, time.Second, ""},
		{"idle after naps", &pollGPU{busy: 5000}, 10 * time.Second, ""},
		{"stream error", &pollGPU{busy: 3, err: broken}, time.Second, "stream broke"},
		{"never idle", &pollGPU{busy: 1 << 62}, 5 * time.Millisecond, "did not finish within 5ms"},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := &deviceQueue{g: c.gpu}
			start := time.Now()
			err := q.Wait(c.timeout)
			took := time.Since(start)
			switch {
			case c.err == "" && err != nil:
				t.Fatalf("Wait = %v after %d polls", err, c.gpu.polls)
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Fatalf("Wait = %v, want an error with %q", err, c.err)
			case c.err == "" && c.gpu.polls != c.gpu.busy+1:
				t.Fatalf("%d polls, want %d", c.gpu.polls, c.gpu.busy+1)
			case took > c.timeout+time.Second:
				t.Fatalf("Wait took %v with a %v timeout", took, c.timeout)
			}
		})
	}
}
