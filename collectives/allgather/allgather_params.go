package allgather

import (
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
)

// The kernels of allgather.cu.

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
	AllgatherLL16 = params.DeclareFunc[AllgatherLL16Args]("allgather_ll16")
	AllgatherPut  = params.DeclareFunc[AllgatherPutArgs]("allgather_put")
	AllgatherGet  = params.DeclareFunc[AllgatherGetArgs]("allgather_get")
	AllgatherPort = params.DeclareFunc[AllgatherPortArgs]("allgather_port")
)
