package sweep

import (
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device/devicetest"
)

// Stand-in algorithms for the collectives that only move data, alltoall and sendrecv:
// their kernels do the collective in host memory, so the collectives' InitData and Check
// (which chunk holds which pattern, at which offset) are tested against a correct result.

func init() {
	collectives.Register(&collectives.Algorithm{
		Collective: "alltoall", Name: "hostalltoall", Number: hostAlgNumber, Doc: "test only: host-memory all-to-all",
		MinRanks: 2,
		New: func(env *collectives.Env) (collectives.Instance, error) {
			return &hostInstance{env, "host_alltoall"}, nil
		},
	})
	collectives.Register(&collectives.Algorithm{
		Collective: "sendrecv", Name: "hostsendrecv", Number: hostAlgNumber, Doc: "test only: host-memory send-receive",
		MinRanks: 2,
		New: func(env *collectives.Env) (collectives.Instance, error) {
			return &hostInstance{env, "host_sendrecv"}, nil
		},
	})
}

// moverKernels returns the stand-in kernels of the data-moving collectives, for every type.
func moverKernels() map[string]devicetest.Kernel {
	ks := map[string]devicetest.Kernel{}
	for _, dt := range collectives.Datatypes {
		// chunk c of my output is chunk `me` of rank c's input
		ks["host_alltoall_"+dt.Name] = mover(dt.Size, func(me, n int, send uint64) (int, uint64, uint64) {
			return n, uint64(me) * (send / uint64(n)), send / uint64(n)
		})
		// my output is the previous rank's input
		ks["host_sendrecv_"+dt.Name] = mover(dt.Size, func(me, n int, send uint64) (int, uint64, uint64) {
			return 1, 0, send
		})
	}
	return ks
}

// mover is a stand-in kernel (count, sendBytes, out, in[0..nranks-1]) whose output is
// `chunks` chunks of `size` bytes taken at offset `at` of the inputs: of rank c for chunk c
// when there are nranks chunks, else of the previous rank. faults[rank] elements of the
// output are then made wrong.
func mover(eltSize int, layout func(me, n int, send uint64) (chunks int, at, size uint64)) devicetest.Kernel {
	return func(g *devicetest.GPU, a []uint64) error {
		send, out, ins := a[1], device.Ptr(a[2]), a[3:]
		me, n := g.Rank(), len(ins)
		chunks, at, size := layout(me, n, send)
		if err := g.Space().Barrier(n); err != nil { // every input is filled
			return err
		}
		var all []byte
		for c := 0; c < chunks; c++ {
			src := c
			if chunks == 1 {
				src = (me + n - 1) % n
			}
			b, err := g.Space().Bytes(device.Ptr(ins[src]).Add(at), size)
			if err != nil {
				return err
			}
			all = append(all, b...)
		}
		if err := g.Space().Barrier(n); err != nil { // every rank has read (in place: out is an input)
			return err
		}
		b, err := g.Space().Bytes(out, uint64(len(all)))
		if err != nil {
			return err
		}
		copy(b, all)
		for i := 0; i < faultsOf(me) && i*eltSize < len(b); i++ {
			b[i*eltSize] = 0xfe // the fault: a wrong element
		}
		return nil
	}
}

// TestRunMovesData: alltoall's and sendrecv's checks find 0 wrong elements in a correct
// result, out of place and in place, on 2 and 3 ranks, and count the elements made wrong.
func TestRunMovesData(t *testing.T) {
	for _, n := range []int{2, 3} {
		j := newJob(t, n)
		for _, tt := range []struct {
			coll, kernel, dtype string
			faults              map[int]int
			perPlace            int64
			wantError           string
		}{
			{"alltoall", "hostalltoall", "float", nil, 0, ""},
			{"alltoall", "hostalltoall", "half", map[int]int{1: 2}, 2, "alltoall: 8 wrong elements"},
			{"sendrecv", "hostsendrecv", "int8", nil, 0, ""},
			{"sendrecv", "hostsendrecv", "double", map[int]int{0: 1, 1: 2}, 3, "sendrecv: 12 wrong elements"},
		} {
			cfg := config(tt.coll, tt.kernel, tt.dtype, 1)
			cfg.Ops = []string{"none"}
			cfg.MinBytes, cfg.MaxBytes = 96, 96*64 // whole chunks of 16 bytes on 2 and 3 ranks
			setFaults(t, tt.faults)
			o := run(t, j, cfg)
			for r, err := range o.errs {
				if (tt.wantError == "" && err != nil) || (tt.wantError != "" && (err == nil || err.Error() != tt.wantError)) {
					t.Errorf("%s on %d ranks, rank %d: error %v, want %q", tt.coll, n, r, err, tt.wantError)
				}
			}
			if o.report == nil || len(o.report.Rows) != 2 {
				t.Fatalf("%s on %d ranks: report %+v; text:\n%s", tt.coll, n, o.report, o.text)
			}
			for _, row := range o.report.Rows {
				if row.OutOfPlace.Wrong != tt.perPlace || row.InPlace.Wrong != tt.perPlace {
					t.Errorf("%s on %d ranks, size %d: #wrong %d and %d, want %d", tt.coll, n, row.Size, row.OutOfPlace.Wrong, row.InPlace.Wrong, tt.perPlace)
				}
			}
		}
	}
}

// TestRunOpOnCollectivesThatDoNotReduce: -o runs on every collective, as in nccl-tests
// 2.19.6. Where the collective does not reduce, the data moved and checked are the same
// whatever the operator, and the redop column reads as nccl-tests prints it: sendrecv the
// operator (one sweep per operator of -o all), hypercube nothing, the others "none" (one
// sweep for -o all).
func TestRunOpOnCollectivesThatDoNotReduce(t *testing.T) {
	j := newJob(t, 2)
	all := []string{"sum", "prod", "max", "min", "avg"}
	for _, tt := range []struct {
		coll, kernel string
		ops          []string
		want         []string // the redop column of each sweep, in order
	}{
		{"sendrecv", "hostsendrecv", []string{"prod"}, []string{"prod"}},
		{"sendrecv", "hostsendrecv", all, all},
		{"sendrecv", "hostsendrecv", []string{"none"}, []string{"sum"}},
		{"alltoall", "hostalltoall", []string{"max"}, []string{"none"}},
		{"alltoall", "hostalltoall", all, []string{"none"}},
		{"allgather", "hostgather", all, []string{"none"}},
		{"hypercube", "hosthypercube", all, []string{""}},
	} {
		cfg := config(tt.coll, tt.kernel, "float", 1)
		cfg.Ops = tt.ops
		cfg.MinBytes, cfg.MaxBytes = 96, 96*64
		o := run(t, j, cfg)
		for r, err := range o.errs {
			if err != nil {
				t.Errorf("%s -o %v, rank %d: %v", tt.coll, tt.ops, r, err)
			}
		}
		if o.report == nil || len(o.report.Rows) != 2*len(tt.want) {
			t.Fatalf("%s -o %v: report %+v, want %d rows; text:\n%s", tt.coll, tt.ops, o.report, 2*len(tt.want), o.text)
		}
		for i, row := range o.report.Rows {
			if row.Op != tt.want[i/2] || row.OutOfPlace.Wrong != 0 || row.InPlace.Wrong != 0 {
				t.Errorf("%s -o %v, row %d: redop %q, #wrong %d and %d; want %q and 0", tt.coll, tt.ops, i, row.Op, row.OutOfPlace.Wrong, row.InPlace.Wrong, tt.want[i/2])
			}
		}
	}
}
