package params

import "github.com/mscclpp-bench/mscclpp-bench/internal/device"

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
	PingPongMemorySignal        = DeclareFunc[SignalArgs]("pingpong_memory_signal")
	PingPongMemoryRelaxedSignal = DeclareFunc[SignalArgs]("pingpong_memory_relaxed_signal")
	PingPongPortSignal          = DeclareFunc[SignalArgs]("pingpong_port_signal")
	PingPongMemoryPut           = DeclareFunc[PutArgs]("pingpong_memory_put")
	PingPongMemoryPutU8         = DeclareFunc[PutArgs]("pingpong_memory_put_u8") // 8 vectors in flight, not 4
	PingPongMemoryHandshake     = DeclareFunc[ChannelArgs]("pingpong_memory_handshake")
	PingPongPortPut             = DeclareFunc[PutArgs]("pingpong_port_put")
	PingPongPortHandshake       = DeclareFunc[ChannelArgs]("pingpong_port_handshake")
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
	ChanTestMemory     = DeclareFunc[ChanTestMemoryArgs]("chantest_memory")
	ChanTestPort       = DeclareFunc[ChanTestPortArgs]("chantest_port")
	ChanTestWait       = DeclareFunc[ChannelArgs]("chantest_wait")
	ChanTestPortOneWay = DeclareFunc[ChanTestPortOneWayArgs]("chantest_port_oneway")
)
