package cli

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/bootstrap"
	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/ethernet"
	"github.com/mscclpp-bench/mscclpp-bench/channels/ib"
	"github.com/mscclpp-bench/mscclpp-bench/internal/bytesize"
	"github.com/mscclpp-bench/mscclpp-bench/internal/clip"
	"github.com/mscclpp-bench/mscclpp-bench/pingpong"
)

// The environment variables read for the libraries, which read none themselves: each
// becomes a field of Env and then of a library's options. (bootstrap reads the launchers'
// own variables, which are its input, and $MSCCLPP_BENCH_BOOTSTRAP_TIMEOUT.)
const (
	envHostID       = channels.EnvHostID            // channels.MeshOptions.HostID
	envSockets      = "MSCCLPP_BENCH_SOCKETS"       // ethernet.Options.Sockets
	envEthChunk     = "MSCCLPP_BENCH_ETH_CHUNK"     // ethernet.Options.Chunk
	envEthDepth     = "MSCCLPP_BENCH_ETH_DEPTH"     // ethernet.Options.Depth
	envEthPieces    = "MSCCLPP_BENCH_ETH_PIECES"    // ethernet.Options.Pieces
	envEthInline    = "MSCCLPP_BENCH_ETH_INLINE"    // ethernet.Options.Inline
	envSocketBuffer = "MSCCLPP_BENCH_SOCKET_BUFFER" // ethernet.Options.SocketBuffer
	envEthSpin      = "MSCCLPP_BENCH_ETH_SPIN"      // ethernet.Options.Spin, in µs
	envIBAtomics    = "MSCCLPP_BENCH_IB_ATOMICS"    // 0: ib.Options.NoAtomics
	envIBHCA        = "MSCCLPP_BENCH_IB_HCA"        // ib.Options.Device
	envIBGIDIndex   = "MSCCLPP_BENCH_IB_GID_INDEX"  // ibverbs.Library.GIDIndex
	envProxyTrace   = "MSCCLPP_BENCH_PROXY_TRACE"   // channels.MeshOptions.ProxyTrace
	envPutBlocks    = "MSCCLPP_BENCH_PUT_BLOCKS"    // pingpong.PutTuning.Blocks
	envPutThreads   = "MSCCLPP_BENCH_PUT_THREADS"   // pingpong.PutTuning.Threads
	envPutUnroll    = "MSCCLPP_BENCH_PUT_UNROLL"    // pingpong.PutTuning.Unroll
	envCPUProfile   = "MSCCLPP_BENCH_CPUPROFILE"    // Env.CPUProfile
	envMinBusBw     = "NCCL_TESTS_MIN_BW"           // Env.MinBusBw, as nccl-tests reads it
)

// defaultEthSpin is how long the Ethernet control receiver polls before it sleeps when
// MSCCLPP_BENCH_ETH_SPIN is unset.
const defaultEthSpin = 200 * time.Microsecond

// envNumber reads a whole number (or, with size, a byte size such as 4M) from name, lo to
// hi; unset or blank gives 0 (the library's default).
func envNumber(getenv func(string) string, name string, lo, hi int64, size bool) (int64, error) {
	s := strings.TrimSpace(getenv(name))
	if s == "" {
		return 0, nil
	}
	var n int64
	var err error
	if size {
		n, err = bytesize.Parse(s)
	} else {
		n, err = strconv.ParseInt(s, 10, 64)
	}
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("%s=%q: want a number from %d to %d", name, s, lo, hi)
	}
	return n, nil
}

// envSwitch reads 0 or 1 from name; unset or blank gives def. Anything else is a usage
// error: "false" or "off" must not turn a switch on, nor leave one on.
func envSwitch(getenv func(string) string, name string, def bool) (bool, error) {
	switch s := strings.TrimSpace(getenv(name)); s {
	case "":
		return def, nil
	case "0", "1":
		return s == "1", nil
	default:
		return false, usagef("%s=%q: want 0 or 1", name, s)
	}
}

// Env is what the environment sets for the libraries, read and checked with the command
// line (a bad value is a usage error before any GPU work).
type Env struct {
	Mesh       channels.MeshOptions // HostID, ProxyTrace only
	Ethernet   ethernet.Options     // the Ethernet transport's options the environment sets
	IB         ib.Options           // the InfiniBand transport's (Device, NoAtomics)
	IBGIDIndex int                  // for ibverbs.Library
	Put        pingpong.PutTuning
	// CPUProfile, when set, is where each rank writes a Go CPU profile of its run
	// (CPUProfile.RANK), to see where the host's time goes.
	CPUProfile string
	// Split is nccl-tests' NCCL_TESTS_SPLIT_MASK / NCCL_TESTS_SPLIT (split.go): the job's
	// ranks run the collective in independent groups.
	Split SplitRule
	// Device is nccl-tests' NCCL_TESTS_DEVICE: every rank's CUDA device; -1 by local rank.
	Device int
	// MinBusBw is NCCL_TESTS_MIN_BW in GB/s, when CheckBusBw is set: as in nccl-tests
	// 2.19.6, a collective sweep fails when its average bus bandwidth is below 90 % of it.
	MinBusBw   float64
	CheckBusBw bool
}

// ReadEnv reads every variable above through getenv (os.Getenv, or a test's map).
func ReadEnv(getenv func(string) string) (Env, error) {
	var e Env
	o := &e.Mesh
	o.HostID = getenv(envHostID)
	eth, hca := &e.Ethernet, &e.IB
	eth.Ifname = getenv(bootstrap.SocketIfnameEnv)
	hca.Device = getenv(envIBHCA)
	atomics, err := envSwitch(getenv, envIBAtomics, true)
	if err != nil {
		return e, err
	}
	hca.NoAtomics = !atomics
	if o.ProxyTrace, err = envSwitch(getenv, envProxyTrace, false); err != nil {
		return e, err
	}
	e.CPUProfile = strings.TrimSpace(getenv(envCPUProfile))
	if e.Split, err = readSplit(getenv); err != nil {
		return e, err
	}
	if e.Device, err = readDevice(getenv); err != nil {
		return e, err
	}
	var vals [7]int64
	for i, v := range []struct {
		name   string
		lo, hi int64
		isSize bool
	}{
		{envSockets, 1, ethernet.MaxSockets, false},
		{envEthChunk, ethernet.MinChunk, ethernet.MaxChunk, true},
		{envEthDepth, 1, ethernet.MaxDepth, false},
		{envSocketBuffer, 0, 1 << 30, true},
		{envEthSpin, 0, ethernet.MaxSpin.Microseconds(), false},
		{envEthPieces, 1, ethernet.MaxPieces, false},
		{envEthInline, 1, ethernet.MaxInline, true},
	} {
		n, err := envNumber(getenv, v.name, v.lo, v.hi, v.isSize)
		if err != nil {
			return e, usagef("%v", err)
		}
		vals[i] = n
	}
	eth.Sockets, eth.Chunk, eth.Depth, eth.SocketBuffer = int(vals[0]), uint64(vals[1]), int(vals[2]), int(vals[3])
	eth.Pieces, eth.Inline = int(vals[5]), uint64(vals[6])
	eth.Spin = defaultEthSpin
	if strings.TrimSpace(getenv(envEthSpin)) != "" {
		eth.Spin = time.Duration(vals[4]) * time.Microsecond
	}
	if eth.Chunk%4096 != 0 {
		return e, usagef("%s=%q: want a multiple of 4096", envEthChunk, getenv(envEthChunk))
	}
	gid, err := envNumber(getenv, envIBGIDIndex, 0, 255, false)
	if err != nil {
		return e, usagef("%v", err)
	}
	e.IBGIDIndex = int(gid)
	if e.MinBusBw, e.CheckBusBw, err = readMinBusBw(getenv); err != nil {
		return e, err
	}
	// The put kernel's knobs: unset gives 0, the kernel's default; junk is refused as
	// for every other variable (it used to be ignored, so a typo measured the default).
	var put [3]int64
	for i, v := range []struct {
		name   string
		lo, hi int64
	}{
		{envPutBlocks, 1, maxPutBlocks},
		{envPutThreads, 1, maxPutThreads},
		{envPutUnroll, 4, 8},
	} {
		if put[i], err = envNumber(getenv, v.name, v.lo, v.hi, false); err != nil {
			return e, usagef("%v", err)
		}
	}
	if put[2] != 0 && put[2] != 4 && put[2] != 8 {
		return e, usagef("%s=%s: want 4 or 8", envPutUnroll, clip.Quote(getenv(envPutUnroll)))
	}
	e.Put = pingpong.PutTuning{Blocks: int(put[0]), Threads: int(put[1]), Unroll: int(put[2])}
	return e, nil
}

// Limits of the put kernel's launch: CUDA's threads per block, and a grid far beyond any
// GPU's SMs.
const (
	maxPutThreads = 1024
	maxPutBlocks  = 1 << 16
)

// readMinBusBw reads NCCL_TESTS_MIN_BW: a finite number of GB/s, at least 0; unset or
// blank leaves the average bus bandwidth unchecked. nccl-tests reads it with atof, so a
// typo there silently checks against 0; here it is a usage error.
func readMinBusBw(getenv func(string) string) (float64, bool, error) {
	s := strings.TrimSpace(getenv(envMinBusBw))
	if s == "" {
		return 0, false, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, false, usagef("%s=%q: want a bus bandwidth in GB/s, a finite number of at least 0", envMinBusBw, s)
	}
	return v, true, nil
}
