package ethernet

import (
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"

	"github.com/mscclpp-bench/mscclpp-bench/internal/affinity"
)

// onCPUs runs f, one of the connection's sender or receiver loops, on an OS thread of its
// own pinned to cpus (Options.CPUs). Under mpirun's default binding a rank has
// one core, which its main thread keeps busy waiting for the GPU; the socket threads, on
// that core too, were starved. A pinning error fails the connection (the CPUs come from
// the job's own cpuset, so it means something is wrong). With no CPUs, f runs where Go puts it.
func (c *ethConn) onCPUs(cpus affinity.Set, f func()) {
	if err := pinThread(cpus); err != nil {
		// The run fails with this error; f still runs, so that Close finds it to stop.
		c.fail(fmt.Errorf("socket thread: %w", err))
	}
	f()
}

// pinThread locks the calling goroutine to its OS thread and pins the thread to cpus
// (nothing when empty). The thread stays locked: when the goroutine ends, Go ends the
// thread rather than hand a re-pinned thread to other goroutines. Its timer slack drops
// from the kernel's 50 µs to 1 µs, so that its naps between polls of a copy (copyNap)
// last about as long as asked.
func pinThread(cpus affinity.Set) error {
	if len(cpus) == 0 {
		return nil
	}
	runtime.LockOSThread()
	if err := unix.Prctl(unix.PR_SET_TIMERSLACK, 1000, 0, 0, 0); err != nil {
		return fmt.Errorf("timer slack: %w", err)
	}
	return affinity.Pin(cpus)
}
