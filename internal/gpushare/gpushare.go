// Package gpushare describes how the ranks of a job share GPUs: whether an MPS control
// daemon serves them, and the report's header lines that say what the sharing means for
// the timings and for the algorithms (docs/gpu-testing.md).
//
// Measured on one H100 (driver 580): an MPS client started with
// CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50 sees 66 of the 132 SMs, both in
// cuDeviceGetAttribute(MULTIPROCESSOR_COUNT) and in its context's execution affinity, so a
// rank's grids, which never exceed the SMs the device reports, stay within its share.
package gpushare

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
)

// DefaultPipeDir is where MPS clients look for the control daemon when
// CUDA_MPS_PIPE_DIRECTORY is unset.
const DefaultPipeDir = "/tmp/nvidia-mps"

// PipeDir returns the folder in which this process's CUDA driver looks for an MPS control
// daemon: $CUDA_MPS_PIPE_DIRECTORY, else DefaultPipeDir.
func PipeDir(getenv func(string) string) string {
	if d := getenv("CUDA_MPS_PIPE_DIRECTORY"); d != "" {
		return d
	}
	return DefaultPipeDir
}

// MPSOn reports whether an MPS control daemon listens in dir. The CUDA driver then makes
// this process a client of that daemon. The daemon (driver 580) listens on a Unix socket
// named control there and leaves it behind when it quits, and a client pointed at such a
// socket runs without MPS, time-sliced: so a control socket counts only where it takes a
// connection (refused: no daemon; any other error, such as no permission, counts as one).
// The connection sends nothing: the daemon logs "User did not send valid credentials" and
// serves on. A named pipe called control (not seen from driver 580) counts as a daemon
// whenever it is there.
func MPSOn(dir string) bool {
	path := filepath.Join(dir, "control")
	fi, err := os.Stat(path)
	if err != nil {
		return false
	}
	switch {
	case fi.Mode()&os.ModeSocket != 0:
		c, err := net.Dial("unix", path)
		if err != nil {
			return !errors.Is(err, syscall.ECONNREFUSED) && !errors.Is(err, syscall.ENOENT)
		}
		c.Close()
		return true
	case fi.Mode()&os.ModeNamedPipe != 0:
		return true
	}
	return false
}

// ThreadPercent returns the CUDA_MPS_ACTIVE_THREAD_PERCENTAGE that getenv gives this
// process (the share of the GPU an MPS client may use), or 0 when it is unset or not a
// number above 0 and below 100.
func ThreadPercent(getenv func(string) string) int {
	v, err := strconv.ParseFloat(strings.TrimSpace(getenv("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE")), 64)
	if err != nil || v <= 0 || v >= 100 {
		return 0
	}
	return max(int(v), 1)
}

// WorkQueues returns the CUDA_DEVICE_MAX_CONNECTIONS that getenv gives this process (the
// hardware work queues it asks the driver for), or 0 when it is unset or not a number
// above 0.
func WorkQueues(getenv func(string) string) int {
	v, err := strconv.Atoi(strings.TrimSpace(getenv("CUDA_DEVICE_MAX_CONNECTIONS")))
	if err != nil || v <= 0 {
		return 0
	}
	return v
}

// RecommendedWorkQueues is the CUDA_DEVICE_MAX_CONNECTIONS that ranks sharing a GPU under
// MPS are asked to set. Measured on one H100 (driver 580, 2026-11-25): with MPS's default,
// copies and stream writes that a rank queued while its kernels spun stalled (2 and 4
// ranks as 2 simulated hosts hung in most steps; 3 ranks on one host hung in the port
// algorithms); with 8 the same suites passed; with 32, 4 clients' contexts did not fit the
// MPS server's pool (out of memory at start-up).
const RecommendedWorkQueues = 8

// WorkerQueues is the CUDA_DEVICE_MAX_CONNECTIONS (the most the driver takes) that the
// front end gives a GPU worker whose environment sets none and which no MPS daemon serves
// (QueuesEnv). With the driver's default of 8 a rank's streams (the kernels', one per CUDA
// IPC peer, the Ethernet copy streams) share hardware queues, and a copy queued behind a
// spinning kernel in its queue waits for that kernel (ethernet.CopyStreams).
const WorkerQueues = 32

// QueuesEnv returns the "CUDA_DEVICE_MAX_CONNECTIONS=WorkerQueues" to add to a GPU
// worker's environment, or "" where getenv already sets the variable or an MPS daemon
// listens in PipeDir(getenv) (there 32 queues a client did not fit the server's memory:
// RecommendedWorkQueues).
func QueuesEnv(getenv func(string) string) string {
	if getenv("CUDA_DEVICE_MAX_CONNECTIONS") != "" || MPSOn(PipeDir(getenv)) {
		return ""
	}
	return fmt.Sprintf("CUDA_DEVICE_MAX_CONNECTIONS=%d", WorkerQueues)
}

// Rank is what one rank tells the others of its GPU.
type Rank struct {
	Host    string // host name (the machine's, not a simulated host's)
	BusID   string // the GPU's PCI bus id
	MPS     bool   // an MPS daemon serves this rank (MPSOn)
	Percent int    // its CUDA_MPS_ACTIVE_THREAD_PERCENTAGE (ThreadPercent; 0: no limit)
	SMs     int    // the SMs its device reports (under an MPS limit, its share)
	GridSMs int    // the most blocks its grids take
	Queues  int    // its CUDA_DEVICE_MAX_CONNECTIONS (WorkQueues; 0: the driver's default)
}

// Shared groups the ranks that share a GPU (same host and bus id), in order of their
// lowest rank; GPUs with one rank are left out.
func Shared(ranks []Rank) [][]int {
	type key struct{ host, bus string }
	groups := map[key][]int{}
	var order []key
	for r, x := range ranks {
		k := key{x.Host, x.BusID}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	var out [][]int
	for _, k := range order {
		if len(groups[k]) > 1 {
			out = append(out, groups[k])
		}
	}
	return out
}

// UnderMPS says whether some GPU is shared by ranks that are all MPS clients: their
// kernels then run side by side.
func UnderMPS(ranks []Rank) bool {
	for _, g := range Shared(ranks) {
		all := true
		for _, r := range g {
			all = all && ranks[r].MPS
		}
		if all {
			return true
		}
	}
	return false
}

// DefaultQueuesUnderMPS says whether some GPU is shared by ranks that are all MPS clients,
// one of which left CUDA_DEVICE_MAX_CONNECTIONS unset: under MPS's default, stream work that
// a rank queues while its kernels spin (the proxy's copies, the network receivers' copies
// and token writes) can stall behind them (RecommendedWorkQueues).
func DefaultQueuesUnderMPS(ranks []Rank) bool {
	for _, g := range Shared(ranks) {
		all, unset := true, false
		for _, r := range g {
			all = all && ranks[r].MPS
			unset = unset || ranks[r].Queues == 0
		}
		if all && unset {
			return true
		}
	}
	return false
}

// Notes returns the header lines that describe the GPUs several ranks share (ranks[r] is
// rank r's): none when every rank has a GPU of its own. Ranks that share a GPU without MPS
// are time-sliced; under MPS with no SM limit, a rank's kernels may take the SMs that a
// peer's kernel, which they wait for, needs.
func Notes(ranks []Rank) []string {
	var notes []string
	for _, g := range Shared(ranks) {
		first := ranks[g[0]]
		where := fmt.Sprintf("ranks %s share GPU %s on %s", List(g), first.BusID, first.Host)
		mps, limited := 0, 0
		for _, r := range g {
			if ranks[r].MPS {
				mps++
			}
			if ranks[r].Percent > 0 {
				limited++
			}
		}
		switch {
		case mps < len(g):
			notes = append(notes, where+" without MPS: their kernels are time-sliced, so the times say nothing of speed")
		case limited < len(g):
			notes = append(notes, fmt.Sprintf("%s under MPS with no SM limit: a rank's kernels can take the SMs that a peer's kernel, which they wait for, needs (a hang); give each rank CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=%d", where, 100/len(g)))
		default:
			notes = append(notes, fmt.Sprintf("%s under MPS, each limited to %d %% of it (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE: %d SMs), grids of at most %d blocks; they share the SMs, the memory bandwidth and the copy engines", where, first.Percent, first.SMs, first.GridSMs))
		}
		if mps == len(g) && DefaultQueuesUnderMPS(sub(ranks, g)) {
			notes = append(notes, fmt.Sprintf("%s under MPS with the driver's default work queues: copies and stream writes queued while kernels spin can stall behind them (a hang); give each rank CUDA_DEVICE_MAX_CONNECTIONS=%d", where, RecommendedWorkQueues))
		}
	}
	return notes
}

// sub returns the ranks of g, in g's order.
func sub(ranks []Rank, g []int) []Rank {
	out := make([]Rank, len(g))
	for i, r := range g {
		out[i] = ranks[r]
	}
	return out
}

// List writes ranks as "0-3,6" (ascending; the argument is not changed).
func List(ranks []int) string {
	rs := append([]int(nil), ranks...)
	sort.Ints(rs)
	var parts []string
	for i := 0; i < len(rs); {
		j := i
		for j+1 < len(rs) && rs[j+1] == rs[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, strconv.Itoa(rs[i])+"-"+strconv.Itoa(rs[j]))
		} else {
			parts = append(parts, strconv.Itoa(rs[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}
