package params

import "github.com/mscclpp-bench/mscclpp-bench/internal/device"

// ---- allgather.cu ----

// AllgatherLL16Args are allgather_ll16's parameters.
type AllgatherLL16Args struct {
	ScratchChans device.Ptr // MemoryChannelHandle[npeers] to the peers' scratch
	Scratch      device.Ptr
	SlotBytes    uint64
	In, Out      device.Ptr
	Chunk        uint64 // bytes each rank contributes
	Rank, NRanks uint32
	State        device.Ptr // LaunchState
}

// AllgatherPutArgs are allgather_put's parameters.
type AllgatherPutArgs struct {
	OutChans     device.Ptr
	In, Out      device.Ptr
	OutOff       uint64
	Chunk        uint64
	Rank, NRanks uint32
	State        device.Ptr
}

// AllgatherGetArgs are allgather_get's parameters.
type AllgatherGetArgs struct {
	InChans, SyncChans device.Ptr
	In, Out            device.Ptr
	PeerInOff          uint64
	Chunk              uint64
	Rank, NRanks       uint32
	InPlace            uint32 // 0 or 1
	State              device.Ptr
}

// AllgatherPortArgs are allgather_port's parameters.
type AllgatherPortArgs struct {
	PortChans, SyncChans device.Ptr
	In, Out              device.Ptr
	SrcOff, OutOff       uint64
	Chunk                uint64
	Rank, NRanks         uint32
	State                device.Ptr
}

// The all-gather kernels.
var (
	AllgatherLL16 = declareFunc[AllgatherLL16Args]("allgather_ll16")
	AllgatherPut  = declareFunc[AllgatherPutArgs]("allgather_put")
	AllgatherGet  = declareFunc[AllgatherGetArgs]("allgather_get")
	AllgatherPort = declareFunc[AllgatherPortArgs]("allgather_port")
)

// ---- allreduce.cu ----

// AllreduceLLArgs are the parameters of the LL-packet all-reduce kernels.
type AllreduceLLArgs struct {
	Chans        device.Ptr // MemoryChannelHandle[npeers] to the peers' scratch
	Scratch      device.Ptr
	SlotBytes    uint64
	In, Out      device.Ptr
	Count        uint64 // elements
	Rank, NRanks uint32
	State        device.Ptr
}

// AllreduceRSAGArgs are allreduce_rsag's parameters.
type AllreduceRSAGArgs struct {
	InChans, OutChans device.Ptr
	In, Out           device.Ptr
	InOff, OutOff     uint64
	Count             uint64
	Rank, NRanks      uint32
	State             device.Ptr
}

// AllreducePortArgs are allreduce_port's parameters.
type AllreducePortArgs struct {
	RSChans, OutChans device.Ptr // port channels (reduce-scatter), memory channels (outputs)
	Scratch           device.Ptr
	SlotBytes         uint64
	In, Out           device.Ptr
	InOff, OutOff     uint64
	Count             uint64
	PieceBytes        uint64
	Rank, NRanks      uint32
	State             device.Ptr
}

// The all-reduce kernel families, one kernel per element type and operator. LL8 exists
// only for the types its 4-byte payload can carry (collectives/allreduce_ll.go).
var (
	AllreduceLL8    = declareFamily[AllreduceLLArgs]("allreduce_ll8")
	AllreduceLL16   = declareFamily[AllreduceLLArgs]("allreduce_ll16")
	AllreduceLL16x2 = declareFamily[AllreduceLLArgs]("allreduce_ll16x2")
	AllreduceRSAG   = declareFamily[AllreduceRSAGArgs]("allreduce_rsag")
	AllreducePort   = declareFamily[AllreducePortArgs]("allreduce_port")
)

// ---- verify.cu ----

// FillArgs are the parameters of the fill family (a rank's input values).
type FillArgs struct {
	Buf                device.Ptr
	Count              uint64
	Rank, NRanks, Seed uint32
}

// CheckArgs are the parameters of the check family (count wrong reduction results).
type CheckArgs struct {
	Buf          device.Ptr
	Count        uint64
	First        uint64 // index of buf[0] among the reduced elements
	NRanks, Seed uint32
	Wrong        device.Ptr // 8-byte counter the kernel adds to
}

// FillPatternArgs are fill_pattern's parameters.
type FillPatternArgs struct {
	Buf        device.Ptr
	Bytes      uint64
	Rank, Seed uint32
}

// CheckPatternArgs are check_pattern's parameters.
type CheckPatternArgs struct {
	Buf                               device.Ptr
	ChunkBytes                        uint64
	NChunks, FirstRank, Seed, EltSize uint32
	Wrong                             device.Ptr
}

// PoisonArgs are poison's parameters.
type PoisonArgs struct {
	Buf   device.Ptr
	Bytes uint64
}

// RepeatCompareArgs are repeat_compare's parameters.
type RepeatCompareArgs struct {
	Out, Saved device.Ptr
	Bytes      uint64
	EltSize    uint32
	Iter       uint64
	First      device.Ptr // 8-byte word lowered to Iter<<40 | element at the first difference
}

// RepeatHashArgs are repeat_hash's parameters.
type RepeatHashArgs struct {
	Buf   device.Ptr
	Bytes uint64
	Hash  device.Ptr // 8-byte word the kernel adds to
}

// The verification kernels.
var (
	Fill         = declareFamily[FillArgs]("fill")
	FillMixed    = declareFamily[FillArgs]("fill_mixed")
	RepeatCmp    = declareFunc[RepeatCompareArgs]("repeat_compare")
	RepeatHash   = declareFunc[RepeatHashArgs]("repeat_hash")
	Check        = declareFamily[CheckArgs]("check")
	FillPattern  = declareFunc[FillPatternArgs]("fill_pattern")
	CheckPattern = declareFunc[CheckPatternArgs]("check_pattern")
	Poison       = declareFunc[PoisonArgs]("poison")
)

// ---- pingpong.cu ----

// ChannelArgs are the parameters of kernels that take one channel handle only.
type ChannelArgs struct {
	Ch device.Ptr // MemoryChannelHandle* or PortChannelHandle*
}

// SignalArgs are the parameters of the signal round-trip kernels.
type SignalArgs struct {
	Ch        device.Ptr
	Iters     int32
	Initiator int32 // 1 on the rank that starts each round
}

// PutArgs are the parameters of the put-bandwidth kernels.
type PutArgs struct {
	Ch                device.Ptr
	Bytes             uint64
	Iters, Send, Recv int32
}

// The ping-pong kernels.
var (
	PingPongMemorySignal        = declareFunc[SignalArgs]("pingpong_memory_signal")
	PingPongMemoryRelaxedSignal = declareFunc[SignalArgs]("pingpong_memory_relaxed_signal")
	PingPongPortSignal          = declareFunc[SignalArgs]("pingpong_port_signal")
	PingPongMemoryPut           = declareFunc[PutArgs]("pingpong_memory_put")
	PingPongMemoryPutU8         = declareFunc[PutArgs]("pingpong_memory_put_u8") // 8 vectors in flight, not 4
	PingPongMemoryHandshake     = declareFunc[ChannelArgs]("pingpong_memory_handshake")
	PingPongPortPut             = declareFunc[PutArgs]("pingpong_port_put")
	PingPongPortHandshake       = declareFunc[ChannelArgs]("pingpong_port_handshake")
)

// ---- chantest.cu (the GPU test suite) ----

// ChanTestMemoryArgs are chantest_memory's parameters.
type ChanTestMemoryArgs struct {
	Ch           device.Ptr
	Op           int32
	Bytes        uint64
	Flag         uint32
	Scratch, Dst device.Ptr
}

// ChanTestPortArgs are chantest_port's parameters.
type ChanTestPortArgs struct {
	Ch     device.Ptr
	Op     int32
	Bytes  uint64
	Pieces int32
}

// ChanTestPortOneWayArgs are chantest_port_oneway's parameters.
type ChanTestPortOneWayArgs struct {
	Ch           device.Ptr
	Bytes        uint64
	Rounds, Send int32
}

// The channel test kernels.
var (
	ChanTestMemory     = declareFunc[ChanTestMemoryArgs]("chantest_memory")
	ChanTestPort       = declareFunc[ChanTestPortArgs]("chantest_port")
	ChanTestWait       = declareFunc[ChannelArgs]("chantest_wait")
	ChanTestPortOneWay = declareFunc[ChanTestPortOneWayArgs]("chantest_port_oneway")
)
