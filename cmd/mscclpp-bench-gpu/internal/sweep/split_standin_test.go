package sweep

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/cudaipc"
	"github.com/mscclpp-bench/mscclpp-bench/cmd/internal/cli"
	"github.com/mscclpp-bench/mscclpp-bench/internal/bounded"
	"github.com/mscclpp-bench/mscclpp-bench/results"
)

// runSplit runs cfg under rule on every rank of j, each group on a mesh of its own.
func runSplit(t *testing.T, j *job, cfg cli.CollectiveOptions, rule cli.SplitRule) outcome {
	t.Helper()
	var o outcome
	var out bytes.Buffer
	n := len(j.meshes)
	devices := make([]results.Device, n)
	for r := range devices {
		devices[r] = results.Device{Rank: r, Pid: 100 + r, Hostname: "node", Device: 0, BusID: "0000:00:06", Name: "stand-in"}
	}
	o.errs = bounded.Ranks(t, n, 60*time.Second, func(r int) error {
		rank := Rank{
			Cfg: &cfg, GPU: j.gpus[r], Mesh: j.meshes[r], Stream: 1, SMs: 4, Out: io.Discard,
			Header: func(name string) results.Header {
				return results.Header{Program: "test", Collective: name, Devices: devices}
			},
			WriteJSON: func(*results.Report) error { return nil },
		}
		if r == 0 {
			rank.Out = &out
			rank.WriteJSON = func(rep *results.Report) error { o.report = rep; return nil }
		}
		return RunSplit(rank, rule, func(b channels.Bootstrap) (*channels.Mesh, error) {
			return channels.NewMesh(j.gpus[r], b, channels.MeshOptions{Mode: cudaipc.Mode, Timeout: 10 * time.Second, Hostname: "node"})
		})
	})
	o.text = out.String()
	return o
}

// TestRunSplit: NCCL_TESTS_SPLIT_MASK=0x1 on 4 ranks runs two all-reduces of 2 ranks at
// once (ranks 0, 2 and 1, 3): each group's sums are its own ranks' (0 wrong, checked
// against 2 ranks' values), the rows are of 2 ranks, and the device list says each rank's
// group; a group that measures other rows than the rest is refused, not left to hang.
func TestRunSplit(t *testing.T) {
	j := newJob(t, 4)
	rule := cli.SplitRule{Op: "and", Arg: 1, Env: "NCCL_TESTS_SPLIT_MASK=0x1"}
	o := runSplit(t, j, config("allreduce", "hostsum", "int32", 1), rule)
	for r, err := range o.errs {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
	if o.report == nil || len(o.report.Rows) != 2 {
		t.Fatalf("no report of two rows:\n%s", o.text)
	}
	for _, row := range o.report.Rows {
		if row.OutOfPlace.Wrong != 0 || row.InPlace.Wrong != 0 {
			t.Errorf("size %d: #wrong %d, %d; want 0 (each group sums its own 2 ranks)", row.Size, row.OutOfPlace.Wrong, row.InPlace.Wrong)
		}
	}
	for r, want := range []string{"Rank  0 Group  0", "Rank  1 Group  1", "Rank  2 Group  0", "Rank  3 Group  1"} {
		if !strings.Contains(o.text, want) {
			t.Errorf("rank %d: no %q in the device list:\n%s", r, want, o.text)
		}
	}
	if !strings.Contains(o.text, "# NCCL_TESTS_SPLIT_MASK=0x1: 2 groups of ranks run at once (the Group column); the rows are rank 0's group's (2 ranks), times combined over all 4 ranks") {
		t.Errorf("no note on the split:\n%s", o.text)
	}
	// busbw of a 2-rank all-reduce is algbw (factor 2*(2-1)/2 = 1)
	for _, row := range o.report.Rows {
		if p := row.OutOfPlace; p.BusBw != p.AlgBw {
			t.Errorf("size %d: busbw %g, algbw %g; want equal, as on 2 ranks", row.Size, p.BusBw, p.AlgBw)
		}
	}

	// MOD 3 on 4 ranks: groups of 2 (ranks 0, 3) and of 1 (ranks 1 and 2): -k all measures
	// other rows on one rank than on two, which must be refused on every rank
	uneven := cli.SplitRule{Op: "mod", Arg: 3, Env: "NCCL_TESTS_SPLIT=MOD 3"}
	o = runSplit(t, j, config("allreduce", "all", "int32", 1), uneven)
	for r, err := range o.errs {
		if err == nil || !strings.Contains(err.Error(), "groups must run the same sweep") {
			t.Errorf("rank %d: error %v, want a refusal of uneven groups", r, err)
		}
	}
}
