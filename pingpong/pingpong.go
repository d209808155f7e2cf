// Package pingpong measures point-to-point latency and bandwidth between pairs of ranks
// over memory channels (GPU threads copy) and port channels (the proxy drives the copy
// engine), with the received data verified. Kernels: kernels/pingpong.cu.
package pingpong

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
	"github.com/mscclpp-bench/mscclpp-bench/results"
)

// Options select what to measure.
type Options struct {
	Sizes        []int64
	Iters        int // bandwidth rounds per size
	Warmup       int
	Check        bool
	Pairs        [][2]int // each pair (initiator, responder)
	Memory, Port bool
	Seed         uint32
	SMs          int // multiprocessors the put kernels may fill (0: the whole GPU)
	// Essential measures only the release/acquire signal and the one-way put, leaving out
	// the relaxed signal and the put in both directions (acceptance).
	Essential bool
	// Put tunes the memory-channel put kernel; zero fields keep the defaults.
	Put PutTuning
}

// PutTuning are the put kernel's knobs (the GPU worker reads them from
// MSCCLPP_BENCH_PUT_BLOCKS, _THREADS and _UNROLL).
type PutTuning struct {
	Blocks  int // blocks (default: the SMs the kernels may fill)
	Threads int // threads per block (default 1024)
	Unroll  int // vectors in flight per thread: 4 (default) or 8
}

// PairError is an error met while measuring a pair; every rank reports the pair that was
// being measured, including ranks outside it that were waiting for its results.
type PairError struct {
	Pair [2]int // the ranks
	Err  error
}

func (e *PairError) Error() string { return fmt.Sprintf("pair %d-%d: %v", e.Pair[0], e.Pair[1], e.Err) }
func (e *PairError) Unwrap() error { return e.Err }

// LatencyRounds is how many signal round trips one latency figure averages.
const LatencyRounds = 2000

// Pairs lists every pair of ranks (i < j), or just the one given.
func Pairs(nranks int, only *[2]int) ([][2]int, error) {
	if only != nil {
		if only[0] < 0 || only[1] < 0 || only[0] == only[1] || only[0] >= nranks || only[1] >= nranks {
			return nil, fmt.Errorf("--pair %d,%d: want two different ranks below %d", only[0], only[1], nranks)
		}
		return [][2]int{*only}, nil
	}
	var out [][2]int
	for i := 0; i < nranks; i++ {
		for j := i + 1; j < nranks; j++ {
			out = append(out, [2]int{i, j})
		}
	}
	return out, nil
}

// Bench holds the buffers and channels of a ping-pong run.
type Bench struct {
	gpu    device.GPU
	mesh   *channels.Mesh
	stream device.Stream
	opts   Options
	sms    int

	src, dst   device.Ptr
	maxBytes   uint64
	memChans   map[int]device.Ptr // per peer: device copy of its MemoryChannelHandle
	portChans  map[int]device.Ptr
	wrong      device.Ptr // device counter for check kernels
	start, end device.Event

	putBlocks, putThreads int
	k                     kernels
}

// kernels are the kernels a Bench launches, looked up once in New.
type kernels struct {
	memSignal, memRelaxedSignal, portSignal params.Kernel[params.SignalArgs]
	memPut, portPut                         params.Kernel[params.PutArgs]
	memHandshake, portHandshake             params.Kernel[params.ChannelArgs]
	poison                                  params.Kernel[params.PoisonArgs]
	fillPattern                             params.Kernel[params.FillPatternArgs]
	checkPattern                            params.Kernel[params.CheckPatternArgs]
}

func loadKernels(g device.GPU, memPut params.Func[params.PutArgs]) (kernels, error) {
	ld := &params.Loader{GPU: g}
	k := kernels{
		memSignal:        params.Load(ld, params.PingPongMemorySignal),
		memRelaxedSignal: params.Load(ld, params.PingPongMemoryRelaxedSignal),
		portSignal:       params.Load(ld, params.PingPongPortSignal),
		memPut:           params.Load(ld, memPut),
		portPut:          params.Load(ld, params.PingPongPortPut),
		memHandshake:     params.Load(ld, params.PingPongMemoryHandshake),
		portHandshake:    params.Load(ld, params.PingPongPortHandshake),
		poison:           params.Load(ld, params.Poison),
		fillPattern:      params.Load(ld, params.FillPattern),
		checkPattern:     params.Load(ld, params.CheckPattern),
	}
	return k, ld.Err
}

// New allocates source and destination buffers of the largest size and builds one memory
// and one port channel to every peer. Every rank calls it.
func New(g device.GPU, m *channels.Mesh, s device.Stream, o Options) (*Bench, error) {
	b := &Bench{gpu: g, mesh: m, stream: s, opts: o, sms: g.Info().SMs, memChans: map[int]device.Ptr{}, portChans: map[int]device.Ptr{}}
	if o.SMs > 0 && o.SMs < b.sms {
		b.sms = o.SMs
	}
	for _, sz := range o.Sizes {
		if uint64(sz) > b.maxBytes {
			b.maxBytes = uint64(sz)
		}
	}
	if b.maxBytes < 16 {
		b.maxBytes = 16
	}
	b.putBlocks = positiveOr(o.Put.Blocks, b.sms)
	b.putThreads = positiveOr(o.Put.Threads, 1024)
	putKernel := params.PingPongMemoryPut
	if o.Put.Unroll == 8 {
		putKernel = params.PingPongMemoryPutU8
	}
	var err error
	if b.k, err = loadKernels(g, putKernel); err != nil {
		return nil, err
	}
	if b.src, err = m.Alloc(b.maxBytes); err != nil {
		return nil, err
	}
	if b.dst, err = m.Alloc(b.maxBytes); err != nil {
		return nil, err
	}
	if b.wrong, err = m.Alloc(8); err != nil {
		return nil, err
	}
	dstAll, err := m.Share(b.dst, b.maxBytes)
	if err != nil {
		return nil, fmt.Errorf("pingpong: share destination buffers: %w", err)
	}
	// Only the channels asked for: memory channels need every peer on this host.
	var mc []channels.MemoryChannelHandle
	var pc []channels.PortChannelHandle
	if o.Memory {
		if mc, err = m.MemoryChannels(dstAll, b.src); err != nil {
			return nil, err
		}
	}
	if o.Port {
		// Host tokens: the proxy signals with a CPU store; one thread waits (see HostTokens).
		if pc, err = m.PortChannels(dstAll, b.src, b.maxBytes, channels.HostTokens); err != nil {
			return nil, err
		}
	}
	for i, p := range m.Peers() {
		if o.Memory {
			if b.memChans[p], err = m.Upload(channels.HandlesBytes(mc[i : i+1])); err != nil {
				return nil, err
			}
		}
		if o.Port {
			if b.portChans[p], err = m.Upload(channels.HandlesBytes(pc[i : i+1])); err != nil {
				return nil, err
			}
		}
	}
	if b.start, err = g.NewEvent(); err != nil {
		return nil, err
	}
	if b.end, err = g.NewEvent(); err != nil {
		return nil, err
	}
	return b, m.Boot.Barrier()
}

func positiveOr(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// Close releases the events (buffers belong to the mesh).
func (b *Bench) Close() error {
	err1 := b.gpu.DestroyEvent(b.start)
	err2 := b.gpu.DestroyEvent(b.end)
	if err1 != nil {
		return err1
	}
	return err2
}

var one = device.Dim{Grid: 1, Block: 1}

// outcome is what each rank reports after one measurement.
type outcome struct {
	ms    float64
	wrong int64
}

// gather collects every rank's outcome (all ranks call it: it is also a barrier).
func (b *Bench) gather(o outcome) ([]outcome, error) {
	var buf [16]byte
	binary.LittleEndian.PutUint64(buf[0:], math.Float64bits(o.ms))
	binary.LittleEndian.PutUint64(buf[8:], uint64(o.wrong))
	all, err := b.mesh.Boot.AllGather(buf[:])
	if err != nil {
		return nil, err
	}
	out := make([]outcome, len(all))
	for r, a := range all {
		if len(a) != 16 {
			return nil, fmt.Errorf("pingpong: rank %d sent a %d-byte outcome", r, len(a))
		}
		out[r] = outcome{math.Float64frombits(binary.LittleEndian.Uint64(a)), int64(binary.LittleEndian.Uint64(a[8:]))}
	}
	return out, nil
}

// timed runs body between two events and returns the elapsed milliseconds.
func (b *Bench) timed(body func() error) (float64, error) {
	if err := b.gpu.Record(b.start, b.stream); err != nil {
		return 0, err
	}
	if err := body(); err != nil {
		return 0, err
	}
	if err := b.gpu.Record(b.end, b.stream); err != nil {
		return 0, err
	}
	if err := b.mesh.Sync(b.stream); err != nil {
		return 0, err
	}
	return b.gpu.ElapsedMs(b.start, b.end)
}

// Run measures every pair and calls emit (on rank 0 only) for each row. It returns the
// total number of wrong bytes seen by any rank; an error is a *PairError.
func (b *Bench) Run(emit func(results.PingPongRow)) (int64, error) {
	var total int64
	for _, pr := range b.opts.Pairs {
		wrong, err := b.runPair(pr, emit)
		total += wrong
		if err != nil {
			return total, &PairError{Pair: pr, Err: err}
		}
	}
	return total, nil
}

// runPair measures one pair; every rank takes part (those outside it only gather).
func (b *Bench) runPair(pr [2]int, emit func(results.PingPongRow)) (int64, error) {
	var total int64
	me := b.mesh.Rank
	in := me == pr[0] || me == pr[1]
	peer, initiator := pr[1], 1
	if me == pr[1] {
		peer, initiator = pr[0], 0
	}
	pair := fmt.Sprintf("%d-%d", pr[0], pr[1])
	type kind struct {
		on      bool
		channel string
		signals map[string]params.Kernel[params.SignalArgs] // by mode
		ch      map[int]device.Ptr
	}
	kinds := []kind{
		{b.opts.Memory, "memory", map[string]params.Kernel[params.SignalArgs]{"signal": b.k.memSignal, "signal-relaxed": b.k.memRelaxedSignal}, b.memChans},
		{b.opts.Port, "port", map[string]params.Kernel[params.SignalArgs]{"signal": b.k.portSignal}, b.portChans},
	}
	signalModes, bidirs := []string{"signal", "signal-relaxed"}, []bool{false, true}
	if b.opts.Essential {
		signalModes, bidirs = signalModes[:1], bidirs[:1]
	}
	for _, k := range kinds {
		if !k.on {
			continue
		}
		// Latency: signal round trips (release/acquire, then relaxed where it exists).
		for _, mode := range signalModes {
			kernel, ok := k.signals[mode]
			if !ok {
				continue
			}
			var o outcome
			if in {
				warm := params.SignalArgs{Ch: k.ch[peer], Iters: 16, Initiator: int32(initiator)}
				if err := kernel.Launch(one, b.stream, &warm); err != nil { // warm up and align both GPUs
					return total, fmt.Errorf("%s %s: %w", k.channel, mode, err)
				}
				timed := params.SignalArgs{Ch: k.ch[peer], Iters: LatencyRounds, Initiator: int32(initiator)}
				ms, err := b.timed(func() error { return kernel.Launch(one, b.stream, &timed) })
				if err != nil {
					return total, fmt.Errorf("%s %s: %w", k.channel, mode, err)
				}
				o.ms = ms
			}
			all, err := b.gather(o)
			if err != nil {
				return total, err
			}
			if me == 0 {
				us := all[pr[0]].ms * 1000 / LatencyRounds
				emit(results.PingPongRow{Pair: pair, Channel: k.channel, Mode: mode, TimeUs: us, LatencyUs: us / 2, Wrong: 0})
			}
		}
		// Bandwidth: one way, then both ways.
		for _, bidir := range bidirs {
			mode := "put"
			if bidir {
				mode = "put-bidir"
			}
			for _, size := range b.opts.Sizes {
				var o outcome
				var err error
				if in {
					if o, err = b.measurePut(k.channel, peer, initiator == 1, bidir, uint64(size)); err != nil {
						return total, fmt.Errorf("%s %s %d bytes: %w", k.channel, mode, size, err)
					}
				}
				all, err := b.gather(o)
				if err != nil {
					return total, err
				}
				wrong := all[pr[0]].wrong + all[pr[1]].wrong
				total += wrong
				if me == 0 {
					us := all[pr[0]].ms * 1000 / float64(b.opts.Iters)
					emit(results.PingPongRow{Pair: pair, Channel: k.channel, Mode: mode, Size: size, TimeUs: us, LatencyUs: us, BwGBs: results.AlgBw(size, us/1e6), Wrong: wrong})
				}
			}
		}
	}
	return total, nil
}

// measurePut runs warmup and timed put rounds to peer and checks what arrived.
func (b *Bench) measurePut(channel string, peer int, initiator, bidir bool, size uint64) (outcome, error) {
	send, recv := initiator, !initiator
	if bidir {
		send, recv = true, true
	}
	var o outcome
	seed := b.opts.Seed + uint32(size)
	verify := device.Dim{Grid: b.sms * 4, Block: 512}
	if b.opts.Check {
		if err := b.k.poison.Launch(verify, b.stream, &params.PoisonArgs{Buf: b.dst, Bytes: size}); err != nil {
			return o, err
		}
		if err := b.k.fillPattern.Launch(verify, b.stream, &params.FillPatternArgs{Buf: b.src, Bytes: size, Rank: uint32(b.mesh.Rank), Seed: seed}); err != nil {
			return o, err
		}
		if err := b.mesh.Sync(b.stream); err != nil {
			return o, err
		}
		if err := b.mesh.Boot.Send(peer, 100, nil); err != nil { // peer's buffers are ready
			return o, err
		}
		if _, err := b.mesh.Boot.Recv(peer, 100); err != nil {
			return o, err
		}
	}
	rounds := func(iters int) error {
		if iters == 0 {
			return nil
		}
		if channel == "memory" {
			d := device.Dim{Grid: b.putBlocks, Block: b.putThreads}
			put := params.PutArgs{Ch: b.memChans[peer], Bytes: size, Iters: int32(iters), Send: b2i(send), Recv: b2i(recv)}
			if err := b.k.memPut.Launch(d, b.stream, &put); err != nil {
				return err
			}
			return b.k.memHandshake.Launch(one, b.stream, &params.ChannelArgs{Ch: b.memChans[peer]})
		}
		put := params.PutArgs{Ch: b.portChans[peer], Bytes: size, Iters: int32(iters), Send: b2i(send), Recv: b2i(recv)}
		if err := b.k.portPut.Launch(one, b.stream, &put); err != nil {
			return err
		}
		return b.k.portHandshake.Launch(one, b.stream, &params.ChannelArgs{Ch: b.portChans[peer]})
	}
	if err := rounds(b.opts.Warmup); err != nil {
		return o, err
	}
	ms, err := b.timed(func() error { return rounds(b.opts.Iters) })
	if err != nil {
		return o, err
	}
	o.ms = ms
	if b.opts.Check && recv {
		if err := b.gpu.Memset(b.wrong, 0, 8); err != nil {
			return o, err
		}
		check := params.CheckPatternArgs{Buf: b.dst, ChunkBytes: size, NChunks: 1, FirstRank: uint32(peer), Seed: seed, EltSize: 1, Wrong: b.wrong}
		if err := b.k.checkPattern.Launch(verify, b.stream, &check); err != nil {
			return o, err
		}
		if err := b.mesh.Sync(b.stream); err != nil {
			return o, err
		}
		var w [8]byte
		if err := b.gpu.CopyFromDevice(w[:], b.wrong); err != nil {
			return o, err
		}
		o.wrong = int64(binary.LittleEndian.Uint64(w[:]))
	}
	return o, nil
}

func b2i(v bool) int32 {
	if v {
		return 1
	}
	return 0
}
