package sweep

import (
	"strings"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/cmd/internal/cli"
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device"
	"github.com/mscclpp-bench/mscclpp-bench/internal/device/devicetest"
	"github.com/mscclpp-bench/mscclpp-bench/results"
)

// Test-only algorithms of the rooted collectives on the stand-in: "hostbc" (broadcast)
// and "hostreduce" (reduce, a sum), whose kernels do the collective in host memory, then
// make faults[rank] elements of that rank's output wrong.
func init() {
	for c, name := range map[string]string{"broadcast": "hostbc", "reduce": "hostreduce"} {
		kernel := "host_" + c
		collectives.Register(&collectives.Algorithm{
			Collective: c, Name: name, Number: hostAlgNumber,
			Doc: "test only: host-memory " + c, MinRanks: 2, Types: []string{"int32", "float"},
			New: func(env *collectives.Env) (collectives.Instance, error) {
				return &hostRooted{env, kernel}, nil
			},
		})
	}
}

// hostRooted launches its kernel with the root, every rank's input and its own output.
type hostRooted struct {
	env    *collectives.Env
	kernel string
}

func (h *hostRooted) Launch(a *collectives.LaunchArgs, s device.Stream) error {
	return launchHostKernel(h.env, h.kernel, a, s, uint64(a.Count), a.RecvBytes, uint64(a.Root), uint64(h.env.OutPtr(a, h.env.Rank)))
}

// launchHostKernel launches the stand-in kernel KERNEL_TYPE on one thread with the
// arguments head followed by every rank's input pointer.
func launchHostKernel(env *collectives.Env, kernel string, a *collectives.LaunchArgs, s device.Stream, head ...uint64) error {
	k, err := env.GPU.Kernel(kernel + "_" + a.Type.Name)
	if err != nil {
		return err
	}
	args := head
	for r := 0; r < env.NRanks; r++ {
		args = append(args, uint64(env.InPtr(a, r)))
	}
	return env.GPU.Launch(k, device.Dim{Grid: 1, Block: 1}, s, args...)
}

func (h *hostRooted) Close() error { return nil }

// rootedKernels are the kernels of hostbc and hostreduce, with arguments (count,
// bytes, root, out, in[0..nranks-1]). Non-root ranks of reduce get their faults too: only
// the root's output is checked, so they must not count.
func rootedKernels() map[string]devicetest.Kernel {
	ks := map[string]devicetest.Kernel{}
	for name, e := range elems {
		ks["host_broadcast_"+name] = func(g *devicetest.GPU, a []uint64) error {
			return hostRootedStep(g, a, func(ins []uint64, out []byte) error {
				src, err := g.Space().Bytes(device.Ptr(ins[a[2]]), a[1])
				copy(out, src)
				return err
			})
		}
		ks["host_reduce_"+name] = func(g *devicetest.GPU, a []uint64) error {
			return hostRootedStep(g, a, func(ins []uint64, out []byte) error {
				if uint64(g.Rank()) != a[2] {
					return nil
				}
				sum := make([]float64, a[0])
				for _, in := range ins {
					b, err := g.Space().Bytes(device.Ptr(in), a[1])
					if err != nil {
						return err
					}
					for i := range sum {
						sum[i] += e.get(b, i)
					}
				}
				for i, v := range sum {
					e.set(out, i, v)
				}
				return nil
			})
		}
	}
	return ks
}

// hostRootedStep computes this rank's output into a copy once every input is filled,
// writes it once every rank has read (in place, outputs are inputs), then adds the faults.
func hostRootedStep(g *devicetest.GPU, a []uint64, compute func(ins []uint64, out []byte) error) error {
	ins := a[4:]
	out, err := g.Space().Bytes(device.Ptr(a[3]), a[1])
	if err != nil {
		return err
	}
	next := append([]byte(nil), out...)
	if err := g.Space().Barrier(len(ins)); err != nil {
		return err
	}
	if err := compute(ins, next); err != nil {
		return err
	}
	if err := g.Space().Barrier(len(ins)); err != nil {
		return err
	}
	copy(out, next)
	for i := 0; i < faultsOf(g.Rank()) && 4*i < len(out); i++ {
		out[4*i] ^= 0x40 // the fault: a wrong element (never the right value or the poison)
	}
	return nil
}

// rootedConfig is config for a rooted collective with root r.
func rootedConfig(command, k, dtype string, root int) cli.CollectiveOptions {
	c := config(command, k, dtype, 1)
	c.NCCLTests.Root = root
	return c
}

// TestRunRootedCollectives: broadcast checks every rank's output against the root's input
// and reduce only the root's output, for each root; the report's root column is -r.
func TestRunRootedCollectives(t *testing.T) {
	j := newJob(t, 2)
	for _, tt := range []struct {
		name      string
		cfg       cli.CollectiveOptions
		faults    map[int]int
		perPlace  int64
		wantError string
	}{
		{"broadcast root 0", rootedConfig("broadcast", "hostbc", "float", 0), nil, 0, ""},
		{"broadcast root 1", rootedConfig("broadcast", "hostbc", "int32", 1), nil, 0, ""},
		{"broadcast wrong on a non-root rank", rootedConfig("broadcast", "hostbc", "float", 1), map[int]int{0: 2}, 2, "broadcast: 8 wrong elements"},
		{"broadcast wrong on the root", rootedConfig("broadcast", "hostbc", "int32", 1), map[int]int{1: 1}, 1, "broadcast: 4 wrong elements"},
		{"reduce root 0", rootedConfig("reduce", "hostreduce", "int32", 0), nil, 0, ""},
		{"reduce root 1", rootedConfig("reduce", "hostreduce", "float", 1), nil, 0, ""},
		{"reduce wrong on the root", rootedConfig("reduce", "hostreduce", "float", 1), map[int]int{1: 3}, 3, "reduce: 12 wrong elements"},
		{"reduce wrong on a non-root rank: not checked", rootedConfig("reduce", "hostreduce", "int32", 1), map[int]int{0: 3}, 0, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			setFaults(t, tt.faults)
			o := run(t, j, tt.cfg)
			for r, err := range o.errs {
				if (tt.wantError == "" && err != nil) || (tt.wantError != "" && (err == nil || err.Error() != tt.wantError)) {
					t.Errorf("rank %d: error %v, want %q", r, err, tt.wantError)
				}
			}
			if o.report == nil || len(o.report.Rows) != 2 {
				t.Fatalf("want a report of 2 rows; text:\n%s", o.text)
			}
			for _, row := range o.report.Rows {
				if row.Root != tt.cfg.NCCLTests.Root {
					t.Errorf("size %d: root column %d, want %d", row.Size, row.Root, tt.cfg.NCCLTests.Root)
				}
				for _, p := range []*results.Placement{row.OutOfPlace, row.InPlace} {
					if p.Wrong != tt.perPlace {
						t.Errorf("size %d: #wrong %d, want %d", row.Size, p.Wrong, tt.perPlace)
					}
				}
			}
		})
	}
}

// TestRunRefusesRootOutsideJob: -r must name a rank of the job (a usage error on every
// rank, before the header).
func TestRunRefusesRootOutsideJob(t *testing.T) {
	j := newJob(t, 2)
	o := run(t, j, rootedConfig("broadcast", "hostbc", "float", 2))
	for r, err := range o.errs {
		if err == nil || !cli.IsUsage(err) || !strings.Contains(err.Error(), "-r/--root 2: this job has ranks 0 to 1") {
			t.Errorf("rank %d: %v, want a usage error naming ranks 0 to 1", r, err)
		}
	}
	if o.text != "" {
		t.Errorf("printed before refusing:\n%s", o.text)
	}
}
