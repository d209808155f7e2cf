package ethernet

import (
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// doorbell lets one thread sleep until another has new work for it, in the kernel (a
// futex) rather than in the Go scheduler. A goroutine woken through a channel is queued on
// the waker's P; when the waker is the proxy, which never gives its P up, the woken one
// waited for another P to steal it (100–250 µs from the proxy's request to a sender's
// write, measured on a busy 2-core machine with BenchmarkEthernetLoopback).
type doorbell struct {
	seq      atomic.Uint32
	sleepers atomic.Int32
}

// futex(2) operations (linux/futex.h): FUTEX_WAIT and FUTEX_WAKE with FUTEX_PRIVATE_FLAG.
const (
	futexWaitPrivate = 0 | 128
	futexWakePrivate = 1 | 128
)

// ring wakes the sleeper, if any. Call it after publishing the work.
func (d *doorbell) ring() {
	if d.sleepers.Load() == 0 {
		return
	}
	d.seq.Add(1)
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(&d.seq)), futexWakePrivate, 1, 0, 0, 0)
}

// wait returns once ready() is true, once the bell rings, or after max (the caller checks
// again). A signal that interrupts the sleep (the Go runtime sends them to its threads)
// does not end it early: the sleep resumes for the time left.
func (d *doorbell) wait(ready func() bool, max time.Duration) {
	v := d.seq.Load()
	d.sleepers.Add(1)
	defer d.sleepers.Add(-1)
	deadline := time.Now().Add(max)
	for !ready() {
		left := time.Until(deadline)
		if left <= 0 {
			return
		}
		ts := unix.NsecToTimespec(left.Nanoseconds())
		_, _, errno := unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(&d.seq)), futexWaitPrivate, uintptr(v), uintptr(unsafe.Pointer(&ts)), 0, 0)
		if errno != unix.EINTR || d.seq.Load() != v {
			return // rung, timed out, or rung before the sleep began
		}
	}
}
