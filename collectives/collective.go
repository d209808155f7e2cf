package collectives

import (
	"fmt"
	"sort"

	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/params"
	"github.com/mscclpp-bench/mscclpp-bench/results"
)

// Counts are one size's element counts, as nccl-tests' getCollByteCount computes them.
type Counts struct {
	Send, Recv int64 // elements each rank sends and receives
	Param      int64 // the count printed in the report (and given to Bandwidth)
	// In place, rank r's input starts SendInPlace*r elements and its output RecvInPlace*r
	// elements into its output buffer (nccl-tests' sendInplaceOffset, recvInplaceOffset).
	SendInPlace, RecvInPlace int64
}

// SizeBytes is the report's size column: the larger of the bytes sent and received.
func (c Counts) SizeBytes(eltSize int) int64 { return max(c.Send, c.Recv) * int64(eltSize) }

// Collective supplies only what differs between collectives, as nccl-tests' testColl does;
// the harness does the rest. One small file per collective implements it and registers it
// (RegisterCollective), which also gives it its subcommand, help, worker dispatch and a
// one-rank fallback algorithm: nothing else changes to add one.
type Collective interface {
	Name() string     // the subcommand, e.g. "allgather"
	TestName() string // nccl-tests' program name, e.g. "all_gather_perf"
	Doc() string      // one line for the subcommand's help
	HasOp() bool      // whether -o applies (a reduction)
	HasRoot() bool    // whether -r applies (a root rank)
	// Counts turns a requested size in bytes into element counts and in-place offsets.
	Counts(size int64, dt Datatype, nranks int) Counts
	// BusFactor is nccl-tests' bus-bandwidth factor on nranks ranks (doc/PERFORMANCE.md):
	// bus bandwidth is algorithm bandwidth times it. It is the one place the factor is
	// kept: Bandwidth uses it, and RegisterCollective gives it to results (BusBwFactor).
	BusFactor(nranks int) float64
	// Bandwidth turns a measured time into algorithm and bus bandwidth in GB/s, as
	// nccl-tests' getBw does (c.Param elements of eltSize bytes).
	Bandwidth(c Counts, eltSize int, seconds float64, nranks int) (algBw, busBw float64)
	// InitData fills this rank's input with known values (seed varies per check) and
	// poisons the output, for args a; the data goes through v.
	InitData(v *Verifier, a *LaunchArgs, seed uint32) error
	// Check enqueues a count of this rank's wrong output elements into v.Wrong.
	Check(v *Verifier, a *LaunchArgs, seed uint32) error
}

// OpLabeler is implemented by a collective without an operator whose report's redop
// column is not "none": OpLabel is the column for -o requested (OpNone when the caller
// gave none). nccl-tests 2.19.6 prints sendrecv's requested operator, which it does not
// use, and leaves hypercube's blank.
type OpLabeler interface{ OpLabel(requested Op) string }

// OpLabel is the redop column of collective c run with -o op: the operator where c
// reduces, else what nccl-tests prints there ("none" unless c is an OpLabeler).
func OpLabel(c Collective, op Op) string {
	if c.HasOp() {
		return string(op)
	}
	if l, ok := c.(OpLabeler); ok {
		return l.OpLabel(op)
	}
	return string(OpNone)
}

// RunOps is the operators a sweep of c runs for -o ops: all of them where c reduces;
// where it does not, -o has no effect on what runs, and one run is made per distinct
// redop column (nccl-tests repeats sendrecv for each operator of -o all, and runs the
// others once).
func RunOps(c Collective, ops []string) []string {
	if len(ops) == 0 {
		ops = []string{string(OpNone)}
	}
	if c.HasOp() {
		return ops
	}
	var out []string
	seen := map[string]bool{}
	for _, op := range ops {
		if l := OpLabel(c, Op(op)); !seen[l] {
			seen[l] = true
			out = append(out, op)
		}
	}
	return out
}

// RankChecker is implemented by a collective that runs only on some rank counts
// (hypercube: powers of two); the sweep refuses the others before the header.
type RankChecker interface{ CheckRanks(nranks int) error }

// CheckRanks says whether collective c runs on nranks ranks, and if not, why.
func CheckRanks(c Collective, nranks int) error {
	if rc, ok := c.(RankChecker); ok {
		return rc.CheckRanks(nranks)
	}
	return nil
}

// ScaledBw is nccl-tests' getBw for the collectives whose algorithm bandwidth is
// c.Param*eltSize*scale bytes per second, and bus bandwidth that times factor.
func ScaledBw(c Counts, eltSize int, seconds float64, scale int64, factor float64) (float64, float64) {
	alg := results.AlgBw(c.Param*int64(eltSize)*scale, seconds)
	return alg, alg * factor
}

// RingFactor is (n-1)/n, the bus-bandwidth factor of all-gather and reduce-scatter.
func RingFactor(nranks int) float64 {
	n := float64(max(nranks, 1))
	return (n - 1) / n
}

var collectivesByName = map[string]Collective{}

// RegisterCollective adds a collective (from its package's init), with its one-rank
// fallback algorithm (local.go), and gives results its bus factor. It panics on a
// duplicate name: a programming error found by the first test run, never user input.
func RegisterCollective(c Collective) {
	if _, dup := collectivesByName[c.Name()]; dup {
		panic(fmt.Sprintf("collectives: collective %q registered twice", c.Name()))
	}
	collectivesByName[c.Name()] = c
	registerLocal(c.Name())
	results.RegisterBusFactor(c.Name(), c.BusFactor)
}

// Collectives lists every registered collective by name.
func Collectives() []Collective {
	out := make([]Collective, 0, len(collectivesByName))
	for _, c := range collectivesByName {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// Lookup finds a collective by subcommand name.
func Lookup(name string) (Collective, error) {
	c, ok := collectivesByName[name]
	if !ok {
		var names []string
		for n := range collectivesByName {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("unknown collective %q (have %v)", name, names)
	}
	return c, nil
}

// Verifier runs the verification kernels of kernels/verify.cu on one rank.
type Verifier struct {
	GPU    device.GPU
	Env    *Env
	Stream device.Stream
	Wrong  device.Ptr // 8-byte device counter
	Grid   int

	k     *verifyKernels // looked up at first use
	Mixed bool           // FillValues writes the repeat check's order-sensitive values
}

// kernels returns the verification kernels, looking them up the first time.
func (v *Verifier) kernels() (*verifyKernels, error) {
	if v.k == nil {
		k, err := loadVerifyKernels(v.GPU)
		if err != nil {
			return nil, err
		}
		v.k = k
	}
	return v.k, nil
}

// Dim is the grid and block the verification kernels run with.
func (v *Verifier) Dim() device.Dim { return device.Dim{Grid: v.Grid, Block: 512} }

// Poison fills bytes at p with 0xff.
func (v *Verifier) Poison(p device.Ptr, bytes uint64) error {
	k, err := v.kernels()
	if err != nil {
		return err
	}
	return k.poison.Launch(v.Dim(), v.Stream, &params.PoisonArgs{Buf: p, Bytes: bytes})
}

// FillPattern writes rank's byte pattern.
func (v *Verifier) FillPattern(p device.Ptr, bytes uint64, rank int, seed uint32) error {
	k, err := v.kernels()
	if err != nil {
		return err
	}
	return k.fillPattern.Launch(v.Dim(), v.Stream, &params.FillPatternArgs{Buf: p, Bytes: bytes, Rank: uint32(rank), Seed: seed})
}

// FillValues writes rank's input values for a reduction: exactly reducible ones, or during
// the repeat check values whose reduction depends on its order (verify.cu's fill_mixed).
func (v *Verifier) FillValues(p device.Ptr, dt Datatype, op Op, count int64, seed uint32) error {
	k, err := v.kernels()
	if err != nil {
		return err
	}
	cache, family := k.fill, params.Fill
	if v.Mixed {
		cache, family = k.fillMixed, params.FillMixed
	}
	fill, err := typed(k.gpu, cache, family, dt, op)
	if err != nil {
		return err
	}
	return fill.Launch(v.Dim(), v.Stream, &params.FillArgs{Buf: p, Count: uint64(count), Rank: uint32(v.Env.Rank), NRanks: uint32(v.Env.NRanks), Seed: seed})
}

// CheckPattern counts wrong elements in nchunks chunks, chunk c holding rank c's pattern.
func (v *Verifier) CheckPattern(p device.Ptr, chunkBytes uint64, nchunks int, seed uint32, eltSize int) error {
	k, err := v.kernels()
	if err != nil {
		return err
	}
	return k.checkPattern.Launch(v.Dim(), v.Stream, &params.CheckPatternArgs{Buf: p, ChunkBytes: chunkBytes,
		NChunks: uint32(nchunks), FirstRank: 0, Seed: seed, EltSize: uint32(eltSize), Wrong: v.Wrong})
}

// CheckValues counts elements that differ from the exact reduction: count elements at p
// that hold the reduction's elements first, first+1, ...
func (v *Verifier) CheckValues(p device.Ptr, dt Datatype, op Op, count, first int64, seed uint32) error {
	k, err := v.kernels()
	if err != nil {
		return err
	}
	check, err := typed(k.gpu, k.check, params.Check, dt, op)
	if err != nil {
		return err
	}
	return check.Launch(v.Dim(), v.Stream, &params.CheckArgs{Buf: p, Count: uint64(count), First: uint64(first), NRanks: uint32(v.Env.NRanks), Seed: seed, Wrong: v.Wrong})
}

// CheckPatternOf counts the wrong elements of bytes at p that must hold pattern id's bytes
// (FillPattern with rank id).
func (v *Verifier) CheckPatternOf(p device.Ptr, bytes uint64, id int, seed uint32, eltSize int) error {
	k, err := v.kernels()
	if err != nil {
		return err
	}
	return k.checkPattern.Launch(v.Dim(), v.Stream, &params.CheckPatternArgs{Buf: p, ChunkBytes: bytes,
		NChunks: 1, FirstRank: uint32(id), Seed: seed, EltSize: uint32(eltSize), Wrong: v.Wrong})
}
