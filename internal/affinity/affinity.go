// Package affinity reads and sets which CPUs a thread may run on, and plans where a rank's
// proxy thread runs. mpirun binds each rank to one core by default (Slurm binds too); the
// proxy that drives port channels spins on its own thread and, sharing that core with the
// rank's main thread, halves the copy engine's throughput. Plan gives the proxy a CPU that
// no rank of the host is bound to, when there is one; Helpers gives the Ethernet sender and
// receiver threads such CPUs, and WidenOthers lets the rank's other threads use them too.
package affinity

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Set is a sorted list of CPU numbers without duplicates.
type Set []int

// Parse reads a Linux CPU list such as "0-3,8,10-11" (the format of /sys and of
// /proc/self/status's Cpus_allowed_list). An empty string is the empty set.
func Parse(s string) (Set, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	var out Set
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 {
			return nil, fmt.Errorf("affinity: bad CPU list %q", s)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("affinity: bad CPU list %q", s)
			}
		}
		if b-a > 1<<16 {
			return nil, fmt.Errorf("affinity: CPU range %q is too large", part)
		}
		for c := a; c <= b; c++ {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// String writes s in the Linux CPU list format ("0-3,8"); the empty set is "none".
func (s Set) String() string {
	if len(s) == 0 {
		return "none"
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		j := i
		for j+1 < len(s) && s[j+1] == s[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(s[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(s[j]))
		}
		i = j + 1
	}
	return b.String()
}

// Contains says whether c is in s.
func (s Set) Contains(c int) bool {
	_, ok := slices.BinarySearch(s, c)
	return ok
}

// Union returns the CPUs in any of the sets.
func Union(sets ...Set) Set {
	var out Set
	for _, s := range sets {
		out = append(out, s...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Intersect returns the CPUs in both a and b.
func Intersect(a, b Set) Set {
	var out Set
	for _, c := range a {
		if b.Contains(c) {
			out = append(out, c)
		}
	}
	return out
}

// Minus returns the CPUs of a that are not in b.
func Minus(a, b Set) Set {
	var out Set
	for _, c := range a {
		if !b.Contains(c) {
			out = append(out, c)
		}
	}
	return out
}

// Current returns the CPUs the calling thread may run on.
func Current() (Set, error) {
	var m unix.CPUSet
	if err := unix.SchedGetaffinity(0, &m); err != nil {
		return nil, fmt.Errorf("affinity: sched_getaffinity: %w", err)
	}
	var out Set
	for c := 0; c < len(m)*64; c++ {
		if m.IsSet(c) {
			out = append(out, c)
		}
	}
	return out, nil
}

// Pin restricts the calling OS thread (lock the goroutine to it first) to the CPUs of s.
func Pin(s Set) error {
	m, err := mask(s)
	if err != nil {
		return err
	}
	if err := unix.SchedSetaffinity(0, &m); err != nil {
		return fmt.Errorf("affinity: pin to CPUs %v: %w", s, err)
	}
	return nil
}

// WidenOthers lets every thread of this process, but the calling one, that may run only on
// the CPUs of from (the rank's binding) run on those of to, and returns how many threads it
// set. Under mpirun's default binding every thread starts on the rank's one CPU, where its
// main thread (the caller) spins waiting for the GPU: the Go runtime's threads, which run
// the goroutines that are not locked to a thread of their own, and the CUDA driver's and
// MPI's threads. Threads pinned elsewhere (the proxy, the Ethernet helpers) keep their
// pinning. Threads created later take their creator's CPUs. A thread that ends meanwhile
// is skipped.
func WidenOthers(from, to Set) (int, error) {
	want, err := mask(to)
	if err != nil {
		return 0, err
	}
	old, err := mask(from)
	if err != nil {
		return 0, err
	}
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return 0, fmt.Errorf("affinity: list this process's threads: %w", err)
	}
	me, n := unix.Gettid(), 0
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil || tid == me {
			continue
		}
		var m unix.CPUSet
		if err := unix.SchedGetaffinity(tid, &m); err != nil || m != old {
			continue // ended since the listing, or pinned elsewhere
		}
		if err := unix.SchedSetaffinity(tid, &want); err != nil {
			if errors.Is(err, unix.ESRCH) {
				continue
			}
			return n, fmt.Errorf("affinity: let thread %d run on CPUs %v: %w", tid, to, err)
		}
		n++
	}
	return n, nil
}

// mask is s as sched_setaffinity takes it.
func mask(s Set) (unix.CPUSet, error) {
	var m unix.CPUSet
	if len(s) == 0 {
		return m, fmt.Errorf("affinity: no CPU to pin to")
	}
	for _, c := range s {
		if c >= len(m)*64 {
			return m, fmt.Errorf("affinity: CPU %d is beyond what sched_setaffinity takes", c)
		}
		m.Set(c)
	}
	return m, nil
}

// Yield gives the CPU to another runnable thread (sched_yield). Spinning threads that are
// locked to their goroutine (the proxy, the rank's main thread) yield with it, not with
// runtime.Gosched: Gosched puts a locked goroutine on the global run queue and parks its
// thread until another thread picks the goroutine up and hands it back, and those other
// threads run on the rank's CPU, where its main thread spins; a proxy that waited so was
// seen to stall for milliseconds.
func Yield() { _, _, _ = unix.RawSyscall(unix.SYS_SCHED_YIELD, 0, 0, 0) }

// Host describes the CPUs of this machine that matter for placing a proxy thread.
type Host struct {
	Allowed Set // CPUs this job may use at all: the cgroup's cpuset, else every online CPU
	Near    Set // CPUs local to the GPU's PCI device (its NUMA node); empty when unknown
}

// ReadHost reads Allowed from the cgroup (v2, then v1) or /sys's online list, and Near from
// the GPU's PCI device (busID such as "0000:18:00.0"; empty skips it).
func ReadHost(busID string) Host {
	var h Host
	for _, p := range cgroupCpusetFiles() {
		if s, err := readList(p); err == nil && len(s) > 0 {
			h.Allowed = s
			break
		}
	}
	if len(h.Allowed) == 0 {
		h.Allowed, _ = readList("/sys/devices/system/cpu/online")
	}
	if busID != "" {
		h.Near, _ = readList(filepath.Join("/sys/bus/pci/devices", strings.ToLower(busID), "local_cpulist"))
	}
	return h
}

// cgroupCpusetFiles lists where the calling process's cgroup keeps its effective cpuset.
func cgroupCpusetFiles() []string {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		switch {
		case f[0] == "0" && f[1] == "": // v2
			out = append(out, filepath.Join("/sys/fs/cgroup", f[2], "cpuset.cpus.effective"))
		case strings.Contains(","+f[1]+",", ",cpuset,"): // v1
			out = append(out, filepath.Join("/sys/fs/cgroup/cpuset", f[2], "cpuset.effective_cpus"))
		}
	}
	return out
}

func readList(path string) (Set, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(string(b))
}
