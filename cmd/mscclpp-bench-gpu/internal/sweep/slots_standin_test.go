package sweep

import (
	"strings"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/cmd/internal/cli"
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/collectives/algo"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device/devicetest"
	"github.com/mscclpp-bench/mscclpp-bench/results"
)

// Stand-in algorithms of gather, scatter, alltoallv and hypercube: their kernels build
// each rank's output in host memory from the pieces of the ranks' inputs that nccl-tests'
// definitions put there, so the collectives' InitData and Check (which slot or segment
// holds which pattern, at which offset, on which ranks) are tested against a correct
// result; faults[rank] elements of that rank's output are then made wrong.

// piece is part of an output: bytes of rank src's input from offset at.
type piece struct {
	src       int
	at, bytes uint64
}

// slotLayouts give the pieces of rank me's output, in order, from the launch's bytes sent
// and received, its root and alltoallv's total.
var slotLayouts = map[string]func(me, n, root int, send, recv uint64, total int64) []piece{
	"gather": func(me, n, root int, send, recv uint64, total int64) []piece {
		if me != root {
			return nil // left alone
		}
		var ps []piece
		for r := 0; r < n; r++ {
			ps = append(ps, piece{r, 0, send})
		}
		return ps
	},
	"scatter": func(me, n, root int, send, recv uint64, total int64) []piece {
		return []piece{{root, uint64(me) * recv, recv}}
	},
	"hypercube": func(me, n, root int, send, recv uint64, total int64) []piece {
		var ps []piece
		for r := 0; r < n; r++ {
			ps = append(ps, piece{r, 0, send})
		}
		return ps
	},
	"alltoallv": func(me, n, root int, send, recv uint64, total int64) []piece {
		var ps []piece
		for src := 0; src < n; src++ {
			var at int64 // rank src's segments for ranks before me
			for k := 0; k < me; k++ {
				at += algo.AlltoallvPeerBytes(src, k, n, total)
			}
			ps = append(ps, piece{src, uint64(at), uint64(algo.AlltoallvPeerBytes(src, me, n, total))})
		}
		return ps
	},
}

func init() {
	for coll := range slotLayouts {
		collectives.Register(&collectives.Algorithm{
			Collective: coll, Name: "host" + coll, Number: hostAlgNumber, Doc: "test only: host-memory " + coll,
			MinRanks: 2,
			New: func(env *collectives.Env) (collectives.Instance, error) {
				return &hostSlots{env, "host_slots_" + coll}, nil
			},
		})
	}
}

// hostSlots launches its kernel with (sendBytes, recvBytes, root, alltoallv's total, my
// output, every rank's input).
type hostSlots struct {
	env    *collectives.Env
	kernel string
}

func (h *hostSlots) Launch(a *collectives.LaunchArgs, s device.Stream) error {
	n := h.env.NRanks
	return launchHostKernel(h.env, h.kernel, a, s, a.SendBytes, a.RecvBytes, uint64(a.Root),
		uint64(a.Param)*uint64(n)*uint64(a.Type.Size), uint64(h.env.OutPtr(a, h.env.Rank)))
}

func (h *hostSlots) Close() error { return nil }

// slotKernels returns the stand-in kernels of the four collectives, for every type.
func slotKernels() map[string]devicetest.Kernel {
	ks := map[string]devicetest.Kernel{}
	for coll, layout := range slotLayouts {
		for _, dt := range collectives.Datatypes {
			ks["host_slots_"+coll+"_"+dt.Name] = func(g *devicetest.GPU, a []uint64) error {
				out, ins := device.Ptr(a[4]), a[5:]
				me, n := g.Rank(), len(ins)
				if err := g.Space().Barrier(n); err != nil { // every input is filled
					return err
				}
				var all []byte
				for _, p := range layout(me, n, int(a[2]), a[0], a[1], int64(a[3])) {
					b, err := g.Space().Bytes(device.Ptr(ins[p.src]).Add(p.at), p.bytes)
					if err != nil {
						return err
					}
					all = append(all, b...)
				}
				if err := g.Space().Barrier(n); err != nil { // every rank has read (in place: outputs are inputs)
					return err
				}
				b, err := g.Space().Bytes(out, a[1])
				if err != nil {
					return err
				}
				copy(b, all)
				for i := 0; i < faultsOf(me) && i*dt.Size < len(b); i++ {
					b[i*dt.Size] = 0xfe // the fault: a wrong element
				}
				return nil
			}
		}
	}
	return ks
}

// TestRunSlotCollectives: the checks of gather (the root's slots, and the other ranks'
// outputs left as they were, as nccl-tests checks), scatter (every rank's slot of the
// root's input), alltoallv (every segment) and hypercube (every slot on every rank) find
// 0 wrong elements in a correct result, out of place and in place, for each root, on 2
// and 4 ranks (alltoallv also on 3), and count the elements made wrong on any rank.
func TestRunSlotCollectives(t *testing.T) {
	for _, n := range []int{2, 3, 4} {
		j := newJob(t, n)
		for _, tt := range []struct {
			coll, dtype string
			root        int
			faults      map[int]int
			perPlace    int64
		}{
			{"gather", "float", 0, nil, 0},
			{"gather", "int8", 1, nil, 0},
			{"gather", "half", 1, map[int]int{1: 2}, 2},
			{"gather", "double", 0, map[int]int{1: 3}, 3}, // a non-root rank's output changed
			{"scatter", "float", 1, nil, 0},
			{"scatter", "bfloat16", 0, nil, 0},
			{"scatter", "int32", 0, map[int]int{1: 2}, 2},
			{"alltoallv", "float", 0, nil, 0},
			{"alltoallv", "int8", 0, nil, 0},
			{"alltoallv", "uint64", 0, map[int]int{0: 1, 1: 1}, 2},
			{"hypercube", "float", 0, nil, 0},
			{"hypercube", "half", 0, map[int]int{0: 2}, 2},
		} {
			if tt.coll == "hypercube" && n == 3 {
				continue // TestRunRefusesHypercubeOnThreeRanks
			}
			if n == 3 && tt.faults != nil {
				continue
			}
			cfg := config(tt.coll, "host"+tt.coll, tt.dtype, 1)
			cfg.Ops = []string{"none"}
			cfg.MinBytes, cfg.MaxBytes = 192, 192*64 // whole 16-byte slots on 2, 3 and 4 ranks
			cfg.NCCLTests.Root = tt.root
			setFaults(t, tt.faults)
			o := run(t, j, cfg)
			wantError := ""
			if tt.perPlace > 0 {
				wantError = tt.coll + ": "
			}
			for r, err := range o.errs {
				if (wantError == "" && err != nil) || (wantError != "" && (err == nil || !strings.HasPrefix(err.Error(), wantError))) {
					t.Errorf("%s %s root %d on %d ranks, rank %d: error %v", tt.coll, tt.dtype, tt.root, n, r, err)
				}
			}
			if o.report == nil || len(o.report.Rows) != 2 {
				t.Fatalf("%s on %d ranks: report %+v; text:\n%s", tt.coll, n, o.report, o.text)
			}
			wantRoot, wantOp := -1, "none"
			if tt.coll == "gather" || tt.coll == "scatter" {
				wantRoot = tt.root
			}
			if tt.coll == "hypercube" {
				wantOp = ""
			}
			for _, row := range o.report.Rows {
				for _, p := range []*results.Placement{row.OutOfPlace, row.InPlace} {
					if p.Wrong != tt.perPlace {
						t.Errorf("%s %s root %d on %d ranks, faults %v, size %d: #wrong %d, want %d", tt.coll, tt.dtype, tt.root, n, tt.faults, row.Size, p.Wrong, tt.perPlace)
					}
				}
				if row.Root != wantRoot || row.Op != wantOp {
					t.Errorf("%s on %d ranks: root column %d, redop %q; want %d, %q", tt.coll, n, row.Root, row.Op, wantRoot, wantOp)
				}
			}
		}
	}
}

// TestRunRefusesHypercubeOnThreeRanks: hypercube needs a power-of-two rank count: any
// other is a usage error on every rank, in one line, before the header.
func TestRunRefusesHypercubeOnThreeRanks(t *testing.T) {
	j := newJob(t, 3)
	cfg := config("hypercube", "auto", "float", 1)
	cfg.Ops = []string{"none"}
	o := run(t, j, cfg)
	for r, err := range o.errs {
		if err == nil || !cli.IsUsage(err) || err.Error() != "hypercube needs a power-of-two rank count; this job has 3 ranks" {
			t.Errorf("rank %d: %v, want the power-of-two usage error", r, err)
		}
	}
	if o.text != "" {
		t.Errorf("printed before refusing:\n%s", o.text)
	}
}
