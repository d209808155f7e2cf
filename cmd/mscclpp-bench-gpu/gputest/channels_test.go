//go:build gpu

package gputest

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/cudaipc"
	"github.com/mscclpp-bench/mscclpp-bench/cmd/internal/cli"
	"github.com/mscclpp-bench/mscclpp-bench/cmd/mscclpp-bench-gpu/internal/worker"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

var job *worker.Job

func TestMain(m *testing.M) {
	// MSCCLPP_BENCH_GPUTEST_TRANSPORT (default nvlink) runs the suite over another
	// transport, e.g. ethernet between ranks given different MSCCLPP_BENCH_HOSTIDs.
	transport := os.Getenv("MSCCLPP_BENCH_GPUTEST_TRANSPORT")
	if transport == "" {
		transport = "nvlink"
	}
	mode, err := channels.ParseMode(transport)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gputest: MSCCLPP_BENCH_GPUTEST_TRANSPORT:", err)
		os.Exit(2)
	}
	// The suite joins as a pingpong plan would: it measures channels between pairs.
	plan := &cli.Plan{Version: cli.PlanVersion, Command: "gputest", PingPong: &cli.PingPongOptions{Common: cli.Common{Transport: mode, Timeout: 20 * time.Second}}}
	j, err := worker.Join(context.Background(), plan, "gputest")
	if err != nil {
		fmt.Fprintln(os.Stderr, "gputest: join:", err)
		os.Exit(1)
	}
	job = j
	code := 0
	if j.Mesh.NRanks < 2 || j.Mesh.NRanks%2 != 0 {
		fmt.Fprintf(os.Stderr, "gputest: needs an even number of ranks (>= 2), have %d\n", j.Mesh.NRanks)
		code = 1
	} else {
		fmt.Printf("rank %d: mesh set up in %.3f s\n", j.Rank(), j.SetupDur.Seconds())
		code = m.Run()
	}
	if err := j.Close(code == 0); err != nil {
		fmt.Fprintln(os.Stderr, "gputest: close:", err)
		code = 1
	}
	os.Exit(code)
}

// fixture holds buffers shared with every rank: src (filled with this rank's pattern),
// dst (poisoned) and scratch (zeroed packet buffers).
type fixture struct {
	t                  *testing.T
	bytes              uint64
	src, dst, scratch  device.Ptr
	srcAll, dstAll, sc *channels.Buffer
	peer               int
	wrong              device.Ptr
}

var seed uint32 = 1

// needCUDAIPC skips a test of memory channels when this rank's pair is connected by
// another transport (memory channels need both GPUs in one host).
func needCUDAIPC(t *testing.T) {
	t.Helper()
	if tr := job.Mesh.PairTransport(job.Mesh.Rank, job.Mesh.Rank^1); tr != cudaipc.Transport {
		t.Skipf("memory channels need CUDA IPC; this pair is connected over %v", tr)
	}
}

func newFixture(t *testing.T, bytes uint64) *fixture {
	t.Helper()
	m := job.Mesh
	f := &fixture{t: t, bytes: bytes, peer: m.Rank ^ 1}
	var err error
	must := func(e error) {
		if e != nil {
			t.Fatal(e)
		}
	}
	f.src, err = m.Alloc(bytes)
	must(err)
	f.dst, err = m.Alloc(bytes)
	must(err)
	f.scratch, err = m.Alloc(bytes*2 + 64)
	must(err)
	f.wrong, err = m.Alloc(8)
	must(err)
	f.srcAll, err = m.Share(f.src, bytes)
	must(err)
	f.dstAll, err = m.Share(f.dst, bytes)
	must(err)
	f.sc, err = m.Share(f.scratch, bytes*2+64)
	must(err)
	seed++
	must(launch(params.FillPattern, device.Dim{Grid: 64, Block: 256}, &params.FillPatternArgs{Buf: f.src, Bytes: bytes, Rank: uint32(m.Rank), Seed: seed}))
	must(launch(params.Poison, device.Dim{Grid: 64, Block: 256}, &params.PoisonArgs{Buf: f.dst, Bytes: bytes}))
	must(m.Sync(job.Stream))
	must(m.Boot.Barrier())
	return f
}

// launch looks fn up and launches it on the job's stream.
func launch[A any](fn params.Func[A], d device.Dim, a *A) error {
	k, err := fn.Load(job.GPU)
	if err != nil {
		return err
	}
	return k.Launch(d, job.Stream, a)
}

// upload picks the handle for peer out of a per-peer slice and copies it to the device.
func upload[T any](t *testing.T, hs []T, peer int) device.Ptr {
	t.Helper()
	i := 0
	for k, p := range job.Mesh.Peers() {
		if p == peer {
			i = k
		}
	}
	p, err := job.Mesh.Upload(channels.HandlesBytes(hs[i : i+1]))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// checkFromPeer counts bytes of dst that differ from the peer's pattern.
func (f *fixture) checkFromPeer(n uint64) int64 {
	f.t.Helper()
	if err := job.GPU.Memset(f.wrong, 0, 8); err != nil {
		f.t.Fatal(err)
	}
	check := params.CheckPatternArgs{Buf: f.dst, ChunkBytes: n, NChunks: 1, FirstRank: uint32(f.peer), Seed: seed, EltSize: 1, Wrong: f.wrong}
	if err := launch(params.CheckPattern, device.Dim{Grid: 64, Block: 256}, &check); err != nil {
		f.t.Fatal(err)
	}
	if err := job.Mesh.Sync(job.Stream); err != nil {
		f.t.Fatal(err)
	}
	var w [8]byte
	if err := job.GPU.CopyFromDevice(w[:], f.wrong); err != nil {
		f.t.Fatal(err)
	}
	return int64(binary.LittleEndian.Uint64(w[:]))
}

// run launches fn and waits for it.
func run[A any](f *fixture, fn params.Func[A], d device.Dim, a *A) {
	f.t.Helper()
	if err := launch(fn, d, a); err != nil {
		f.t.Fatal(err)
	}
	if err := job.Mesh.Sync(job.Stream); err != nil {
		f.t.Fatalf("%s: %v", fn.Name(), err)
	}
}

// Memory channel operations (op codes of chantest.cu).
const (
	memPut = iota
	memGet
	memRelaxed
	memPoll
	memLL8
	memLL16
	memMulti
)

var llFlag uint32

func TestMemoryChannelOps(t *testing.T) {
	cases := []struct {
		name  string
		op    int
		bytes uint64
		grid  int
	}{
		{"put", memPut, 1 << 20, 1},
		{"put-odd", memPut, 1000003, 1},
		{"get", memGet, 1 << 20, 1},
		{"relaxed", memRelaxed, 65536 + 12, 1},
		{"poll", memPoll, 4096, 1},
		{"ll8", memLL8, 4096, 1},
		{"ll8-odd", memLL8, 999, 1},
		{"ll16", memLL16, 65536, 1},
		{"ll16-odd", memLL16, 12345, 1},
		{"multi-block", memMulti, 64 << 20, 0}, // grid: this rank's share of the SMs
	}
	needCUDAIPC(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, c.bytes)
			var remote *channels.Buffer
			local := f.src
			switch c.op {
			case memGet:
				remote, local = f.srcAll, f.dst
			case memLL8, memLL16:
				remote = f.sc
			default:
				remote = f.dstAll
			}
			hs, err := job.Mesh.MemoryChannels(remote, local)
			if err != nil {
				t.Fatal(err)
			}
			ch := upload(t, hs, f.peer)
			llFlag++
			if c.grid == 0 {
				c.grid = job.SMs
			}
			run(f, params.ChanTestMemory, device.Dim{Grid: c.grid, Block: 512}, &params.ChanTestMemoryArgs{
				Ch: ch, Op: int32(c.op), Bytes: c.bytes, Flag: llFlag, Scratch: f.scratch, Dst: f.dst})
			if err := job.Mesh.Boot.Barrier(); err != nil {
				t.Fatal(err)
			}
			if w := f.checkFromPeer(c.bytes); w != 0 {
				t.Fatalf("%d of %d bytes wrong after %s", w, c.bytes, c.name)
			}
		})
	}
}

// Port channel operations.
const (
	portPutSignalFlush = iota
	portPutWithSignal
	portPutWithSignalAndFlush
	portMany
	portOneWay
)

func TestPortChannelOps(t *testing.T) {
	cases := []struct {
		name   string
		op     int
		bytes  uint64
		pieces int
	}{
		{"put-signal-flush", portPutSignalFlush, 8 << 20, 1},
		{"put-with-signal", portPutWithSignal, 1<<20 + 7, 1},
		{"put-with-signal-and-flush", portPutWithSignalAndFlush, 4096, 1},
		// 3 x 512 triggers through a 512-slot FIFO: the GPU must wait for room, never overwrite.
		{"more-triggers-than-slots", portMany, 1536 * 64, 1536},
		{"one-way", portOneWay, 1 << 20, 4},
	}
	for _, tokens := range []string{"device-tokens", "host-tokens"} {
		for _, c := range cases {
			t.Run(tokens+"/"+c.name, func(t *testing.T) { portChannelOp(t, c.op, c.bytes, c.pieces, tokens == "host-tokens") })
		}
	}
}

// portChannelOp runs one port-channel case and checks what arrived.
func portChannelOp(t *testing.T, op int, bytes uint64, pieces int, hostTokens bool) {
	var opts []channels.PortOption
	if hostTokens {
		opts = append(opts, channels.HostTokens)
	}
	f := newFixture(t, bytes)
	hs, err := job.Mesh.PortChannels(f.dstAll, f.src, bytes, opts...)
	if err != nil {
		t.Fatal(err)
	}
	ch := upload(t, hs, f.peer)
	if op == portOneWay { // the even rank of each pair sends, the odd one only waits
		run(f, params.ChanTestPortOneWay, device.Dim{Grid: 1, Block: 1}, &params.ChanTestPortOneWayArgs{
			Ch: ch, Bytes: bytes, Rounds: int32(pieces), Send: int32(1 - job.Mesh.Rank%2)})
	} else {
		run(f, params.ChanTestPort, device.Dim{Grid: 1, Block: 1}, &params.ChanTestPortArgs{Ch: ch, Op: int32(op), Bytes: bytes, Pieces: int32(pieces)})
	}
	if err := job.Mesh.Boot.Barrier(); err != nil {
		t.Fatal(err)
	}
	if op == portOneWay && job.Mesh.Rank%2 == 0 {
		return // only the odd rank of each pair received
	}
	if w := f.checkFromPeer(bytes); w != 0 {
		t.Fatalf("%d of %d bytes wrong after %s", w, bytes, t.Name())
	}
}

// TestWaitTimesOut: rank 0 of each pair waits on a channel nobody signals; the kernel must
// give up after the device timeout and the error must name the channel and the peer.
func TestWaitTimesOut(t *testing.T) {
	needCUDAIPC(t)
	f := newFixture(t, 4096)
	hs, err := job.Mesh.MemoryChannels(f.dstAll, f.src)
	if err != nil {
		t.Fatal(err)
	}
	ch := upload(t, hs, f.peer)
	m := job.Mesh
	if m.Rank%2 == 0 {
		if err := job.GPU.SetDeviceConfig(300*time.Millisecond, m.ErrorWordPtr(), m.Rank, m.NRanks); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if err := launch(params.ChanTestWait, device.Dim{Grid: 1, Block: 1}, &params.ChannelArgs{Ch: ch}); err != nil {
			t.Fatal(err)
		}
		err := m.Sync(job.Stream)
		took := time.Since(start)
		m.ClearDeviceError()
		if cerr := job.GPU.SetDeviceConfig(m.Opts.Timeout, m.ErrorWordPtr(), m.Rank, m.NRanks); cerr != nil {
			t.Fatal(cerr)
		}
		want := fmt.Sprintf("semaphore wait on channel %d with rank %d timed out", hs[0].Index, f.peer)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("got %v, want an error containing %q", err, want)
		}
		if took > 5*time.Second {
			t.Fatalf("timeout took %v", took)
		}
		t.Logf("rank %d: %v (after %v)", m.Rank, err, took.Round(time.Millisecond))
	}
	if err := m.Boot.Barrier(); err != nil {
		t.Fatal(err)
	}
}
