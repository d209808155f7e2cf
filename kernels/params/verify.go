package params

import (
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
)

// The kernels of verify.cu.

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
	Fill         = DeclareFamily[FillArgs]("fill")
	FillMixed    = DeclareFamily[FillArgs]("fill_mixed")
	RepeatCmp    = DeclareFunc[RepeatCompareArgs]("repeat_compare")
	RepeatHash   = DeclareFunc[RepeatHashArgs]("repeat_hash")
	Check        = DeclareFamily[CheckArgs]("check")
	FillPattern  = DeclareFunc[FillPatternArgs]("fill_pattern")
	CheckPattern = DeclareFunc[CheckPatternArgs]("check_pattern")
	Poison       = DeclareFunc[PoisonArgs]("poison")
)
