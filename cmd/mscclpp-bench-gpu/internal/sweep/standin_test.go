package sweep

import (
	"encoding/binary"
	"fmt"
	"github.com/mscclpp-bench/mscclpp-bench/bootstrap/bootstraptest"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/cudaipc"
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/internal/bounded"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device/devicetest"
	"github.com/mscclpp-bench/mscclpp-bench/kernels/verifytest"
)

// The stand-in for the GPU: devicetest's host memory, with Go versions of the harness's
// verification kernels (the contract of kernels/verify.cu: names, arguments, counts added
// to a device word) and three test-only algorithms, "hostsum" (allreduce), "hostgather"
// (allgather) and "hostrs" (reducescatter), whose kernels do the collective in host memory. faults[rank] elements of
// that rank's output are then made wrong on purpose.

// faults is how many output elements each rank's collective gets wrong (tests set it).
var (
	faultsMu sync.Mutex
	faults   = map[int]int{}
)

// setFaults sets faults for the rest of the test.
func setFaults(t *testing.T, f map[int]int) {
	set := func(f map[int]int) {
		faultsMu.Lock()
		faults = f
		faultsMu.Unlock()
	}
	set(f)
	t.Cleanup(func() { set(map[int]int{}) })
}

func faultsOf(rank int) int {
	faultsMu.Lock()
	defer faultsMu.Unlock()
	return faults[rank]
}

// The test algorithms' numbers, far from the real ones.
const hostAlgNumber = 900

func init() {
	collectives.Register(&collectives.Algorithm{
		Collective: "allreduce", Name: "hostsum", Number: hostAlgNumber, Doc: "test only: host-memory sum",
		MinRanks: 2, Types: []string{"int32", "float"},
		New: func(env *collectives.Env) (collectives.Instance, error) {
			return &hostInstance{env, "host_allreduce"}, nil
		},
	})
	collectives.Register(&collectives.Algorithm{
		Collective: "reducescatter", Name: "hostrs", Number: hostAlgNumber, Doc: "test only: host-memory reduce-scatter",
		MinRanks: 2, Types: []string{"int32", "float"},
		New: func(env *collectives.Env) (collectives.Instance, error) {
			return &hostInstance{env, "host_reducescatter"}, nil
		},
	})
	collectives.Register(&collectives.Algorithm{
		Collective: "allgather", Name: "hostgather", Number: hostAlgNumber, Doc: "test only: host-memory gather",
		MinRanks: 2,
		New: func(env *collectives.Env) (collectives.Instance, error) {
			return &hostInstance{env, "host_allgather"}, nil
		},
	})
}

// hostInstance launches its kernel with every rank's input and its own output.
type hostInstance struct {
	env    *collectives.Env
	kernel string
}

func (h *hostInstance) Launch(a *collectives.LaunchArgs, s device.Stream) error {
	k, err := h.env.GPU.Kernel(h.kernel + "_" + a.Type.Name)
	if err != nil {
		return err
	}
	// Every rank's input as mapped here: the harness's in-place offsets put rank r's where
	// nccl-tests does (all-gather: slot r of r's output).
	args := []uint64{uint64(a.Count), a.SendBytes, uint64(h.env.OutPtr(a, h.env.Rank))}
	for r := 0; r < h.env.NRanks; r++ {
		args = append(args, uint64(h.env.InPtr(a, r)))
	}
	return h.env.GPU.Launch(k, device.Dim{Grid: 1, Block: 1}, s, args...)
}

func (h *hostInstance) Close() error { return nil }

// elem reads and writes element i of a buffer of int32 or float.
type elem struct {
	get func(b []byte, i int) float64
	set func(b []byte, i int, v float64)
}

var elems = map[string]elem{
	"int32": {
		get: func(b []byte, i int) float64 { return float64(int32(binary.LittleEndian.Uint32(b[4*i:]))) },
		set: func(b []byte, i int, v float64) { binary.LittleEndian.PutUint32(b[4*i:], uint32(int32(v))) },
	},
	"float": {
		get: func(b []byte, i int) float64 {
			return float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
		},
		set: func(b []byte, i int, v float64) { binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(v))) },
	},
}

// kernels returns the stand-in's kernels.
func kernels() map[string]devicetest.Kernel {
	ks := verifytest.PatternKernels()
	for name, e := range elems {
		signed := true
		ks["fill_"+name+"_sum"] = func(g *devicetest.GPU, a []uint64) error { // (buf, count, rank, nranks, seed)
			b, err := g.Space().Bytes(device.Ptr(a[0]), 4*a[1])
			for i := 0; err == nil && i < int(a[1]); i++ {
				e.set(b, i, float64(collectives.InputValue(collectives.OpSum, signed, uint64(i), int(a[2]), int(a[3]), uint32(a[4]))))
			}
			return err
		}
		ks["check_"+name+"_sum"] = func(g *devicetest.GPU, a []uint64) error { // (buf, count, first, nranks, seed, wrong)
			b, err := g.Space().Bytes(device.Ptr(a[0]), 4*a[1])
			if err != nil {
				return err
			}
			bad := uint64(0)
			for i := 0; i < int(a[1]); i++ {
				if e.get(b, i) != float64(collectives.ExpectedValue(collectives.OpSum, signed, a[2]+uint64(i), int(a[3]), uint32(a[4]))) {
					bad++
				}
			}
			return verifytest.AddWrong(g, device.Ptr(a[5]), bad)
		}
		// (count, sendBytes, out, in[0..nranks-1]): block `rank` (count/nranks elements) of
		// every rank's input, summed into out.
		ks["host_reducescatter_"+name] = func(g *devicetest.GPU, a []uint64) error {
			ins := a[3:]
			recv := int(a[0]) / len(ins)
			first := g.Rank() * recv
			sum := make([]float64, recv)
			if err := g.Space().Barrier(len(ins)); err != nil { // every input is filled
				return err
			}
			for _, in := range ins {
				b, err := g.Space().Bytes(device.Ptr(in), a[1])
				if err != nil {
					return err
				}
				for i := range sum {
					sum[i] += e.get(b, first+i)
				}
			}
			if err := g.Space().Barrier(len(ins)); err != nil { // every rank has read (in place: out is inside an input)
				return err
			}
			b, err := g.Space().Bytes(device.Ptr(a[2]), uint64(4*recv))
			if err != nil {
				return err
			}
			for i, v := range sum {
				if i < faultsOf(g.Rank()) {
					v++ // the fault: a wrong element
				}
				e.set(b, i, v)
			}
			return nil
		}
		// (count, sendBytes, out, in[0..nranks-1]): sum every rank's input into out.
		ks["host_allreduce_"+name] = func(g *devicetest.GPU, a []uint64) error {
			count, out, ins := int(a[0]), device.Ptr(a[2]), a[3:]
			sum := make([]float64, count)
			// the ranks of one group (RunSplit) meet each other only
			key := fmt.Sprint(ins)
			if err := g.Space().BarrierOf(key, len(ins)); err != nil { // every input is filled
				return err
			}
			for _, in := range ins {
				b, err := g.Space().Bytes(device.Ptr(in), uint64(4*count))
				if err != nil {
					return err
				}
				for i := range sum {
					sum[i] += e.get(b, i)
				}
			}
			if err := g.Space().BarrierOf(key, len(ins)); err != nil { // every rank has read (in place: out is an input)
				return err
			}
			b, err := g.Space().Bytes(out, uint64(4*count))
			if err != nil {
				return err
			}
			for i, v := range sum {
				if i < faultsOf(g.Rank()) {
					v++ // the fault: a wrong element
				}
				e.set(b, i, v)
			}
			return nil
		}
	}
	// (count, sendBytes, out, in[0..nranks-1]): rank r's input to slot r of out.
	gather := func(eltSize int) devicetest.Kernel {
		return func(g *devicetest.GPU, a []uint64) error {
			send, out, ins := a[1], device.Ptr(a[2]), a[3:]
			if err := g.Space().Barrier(len(ins)); err != nil {
				return err
			}
			var all []byte
			for _, in := range ins {
				b, err := g.Space().Bytes(device.Ptr(in), send)
				if err != nil {
					return err
				}
				all = append(all, b...)
			}
			if err := g.Space().Barrier(len(ins)); err != nil {
				return err
			}
			b, err := g.Space().Bytes(out, uint64(len(all)))
			if err != nil {
				return err
			}
			copy(b, all)
			for i := 0; i < faultsOf(g.Rank()) && i*eltSize < len(b); i++ {
				b[i*eltSize] = 0xfe // the fault: a wrong element
			}
			return nil
		}
	}
	for _, dt := range collectives.Datatypes {
		ks["host_allgather_"+dt.Name] = gather(dt.Size)
	}
	for name, k := range moverKernels() { // movers_standin_test.go
		ks[name] = k
	}
	for name, k := range rootedKernels() { // rooted_standin_test.go
		ks[name] = k
	}
	for name, k := range slotKernels() { // slots_standin_test.go
		ks[name] = k
	}
	for name, k := range repeatKernels() { // repeat_standin_test.go
		ks[name] = k
	}
	// The verifier looks up fill and check kernels of every type and op at set-up; those
	// the stand-in does not model fail if they are ever launched.
	for _, dt := range collectives.DatatypeNames() {
		for _, op := range collectives.Ops {
			for _, k := range []string{"fill_", "check_"} {
				name := k + dt + "_" + string(op)
				if _, ok := ks[name]; !ok {
					ks[name] = func(*devicetest.GPU, []uint64) error { return fmt.Errorf("the stand-in does not model %s", name) }
				}
			}
		}
	}
	return ks
}

// job is n ranks joined over loopback bootstraps, each with a stand-in GPU and a mesh.
type job struct {
	gpus   []*devicetest.GPU
	meshes []*channels.Mesh
}

func newJob(t *testing.T, n int) *job {
	t.Helper()
	space := devicetest.NewSpace(kernels())
	boots := bootstraptest.Loopback(t, n, 10*time.Second)
	j := &job{gpus: make([]*devicetest.GPU, n), meshes: make([]*channels.Mesh, n)}
	errs := bounded.Ranks(t, n, 30*time.Second, func(r int) error {
		j.gpus[r] = space.NewGPU(r)
		m, err := channels.NewMesh(j.gpus[r], boots[r], channels.MeshOptions{Mode: cudaipc.Mode, Timeout: 10 * time.Second, Hostname: "node"})
		j.meshes[r] = m
		return err
	})
	t.Cleanup(func() {
		for _, m := range j.meshes {
			if m != nil {
				m.Close()
			}
		}
	})
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	return j
}
