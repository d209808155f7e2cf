package flows

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/cudaipc"
	"github.com/mscclpp-bench/mscclpp-bench/channels/ethernet"
	"github.com/mscclpp-bench/mscclpp-bench/cmd/internal/cli"
	"github.com/mscclpp-bench/mscclpp-bench/results"
)

// TestPingPongOneRankRefused: pingpong's flow on a job of one rank prints nothing and
// exits 1 with one line that says how to launch it.
func TestPingPongOneRankRefused(t *testing.T) {
	jobs := standinJob(t, 1, nil)
	o := runPlan(t, jobs, planOf(t, "pingpong", "--progress", "off"))
	if o.codes[0] != cli.ExitFailure || o.stdout != "" {
		t.Fatalf("exit %d, stdout %q; want exit 1 and no report", o.codes[0], o.stdout)
	}
	if err := oneLine(o.stderr[0]); err != nil {
		t.Error(err)
	}
	if want := "pingpong needs at least 2 ranks, this job has 1"; !strings.Contains(o.stderr[0], want) {
		t.Errorf("stderr %q, want it to say %q", o.stderr[0], want)
	}
}

// TestPingPongOnStandin runs pingpong's flow on stand-in ranks from the front end's plan:
// every row the channels and sizes ask for, of the pair asked for, with measured figures,
// in the table and the -J report; bytes a memory put delivers wrong are counted in the rows
// of the ranks that received them and fail the run with exit 1 and one line.
func TestPingPongOnStandin(t *testing.T) {
	sizes := []int64{4096, 8192, 16384}
	tests := []struct {
		name   string
		ranks  int
		args   []string
		faults int64
		pair   string
		rows   map[string]int // channel/mode: rows
		wrong  map[string]int64
		code   int
	}{
		{"every channel", 2, nil, 0, "0-1",
			map[string]int{"memory/signal": 1, "memory/signal-relaxed": 1, "memory/put": 3, "memory/put-bidir": 3, "port/signal": 1, "port/put": 3, "port/put-bidir": 3}, nil, cli.ExitOK},
		{"one pair of three ranks, port channels", 3, []string{"--pair", "0,2", "--channel", "port"}, 0, "0-2",
			map[string]int{"port/signal": 1, "port/put": 3, "port/put-bidir": 3}, nil, cli.ExitOK},
		{"memory puts deliver 2 bytes wrong", 2, []string{"--channel", "memory"}, 2, "0-1",
			map[string]int{"memory/signal": 1, "memory/signal-relaxed": 1, "memory/put": 3, "memory/put-bidir": 3},
			map[string]int64{"memory/put": 2, "memory/put-bidir": 4}, cli.ExitFailure},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			putFaults.Store(tt.faults)
			t.Cleanup(func() { putFaults.Store(0) })
			jsonPath := filepath.Join(t.TempDir(), "pingpong.json")
			args := append([]string{"pingpong", "-b", "4K", "-e", "16K", "-f", "2", "-n", "3", "-w", "1", "-J", jsonPath, "--progress", "off"}, tt.args...)
			o := runPlan(t, standinJob(t, tt.ranks, pingpongKernels()), planOf(t, args...))
			for r, code := range o.codes {
				if code != tt.code {
					t.Errorf("rank %d: exit %d, stderr %q; want %d", r, code, o.stderr[r], tt.code)
				}
			}
			var wantWrong int64
			for key, n := range tt.wrong {
				wantWrong += n * int64(tt.rows[key])
			}
			if tt.code != cli.ExitOK {
				if err := oneLine(o.stderr[0]); err != nil {
					t.Error(err)
				}
				if want := fmt.Sprintf("pingpong: %d bytes arrived wrong", wantWrong); !strings.Contains(o.stderr[0], want) {
					t.Errorf("stderr %q, want %q", o.stderr[0], want)
				}
			}
			f, err := os.Open(jsonPath)
			if err != nil {
				t.Fatalf("-J: %v", err)
			}
			rep, err := results.ReadJSON(f)
			f.Close()
			if err != nil {
				t.Fatalf("-J: %v", err)
			}
			got := map[string]int{}
			for _, row := range rep.PingPong {
				key := row.Channel + "/" + row.Mode
				got[key]++
				if row.Pair != tt.pair {
					t.Errorf("row %+v: pair %q, want %q", row, row.Pair, tt.pair)
				}
				if strings.HasPrefix(row.Mode, "signal") {
					if row.LatencyUs <= 0 {
						t.Errorf("row %+v: no latency", row)
					}
				} else {
					if row.BwGBs <= 0 || !containsSize(sizes, row.Size) {
						t.Errorf("row %+v: no bandwidth, or a size not asked for", row)
					}
					if row.Wrong != tt.wrong[key] {
						t.Errorf("row %+v: %d wrong, want %d", row, row.Wrong, tt.wrong[key])
					}
				}
				if !strings.Contains(o.stdout, " "+row.Mode+" ") {
					t.Errorf("the table has no %s row:\n%s", row.Mode, o.stdout)
				}
			}
			for key, n := range tt.rows {
				if got[key] != n {
					t.Errorf("%d %s rows, want %d", got[key], key, n)
				}
			}
			if len(got) != len(tt.rows) {
				t.Errorf("rows %v, want %v", got, tt.rows)
			}
		})
	}
}

func containsSize(sizes []int64, s int64) bool {
	for _, x := range sizes {
		if x == s {
			return true
		}
	}
	return false
}

// TestUnmappedPair: --channel all leaves memory channels out where some pair of ranks is
// connected over a network transport, and names the first such pair.
func TestUnmappedPair(t *testing.T) {
	ipc, eth := cudaipc.Transport, ethernet.Transport
	tests := []struct {
		name  string
		pairs [][]channels.Transport
		want  []int
	}{
		{"one host", [][]channels.Transport{{0, ipc}, {ipc, 0}}, nil},
		{"two hosts", [][]channels.Transport{{0, eth}, {eth, 0}}, []int{0, 1}},
		{"three ranks, the last on a host of its own", [][]channels.Transport{{0, ipc, eth}, {ipc, 0, eth}, {eth, eth, 0}}, []int{0, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := unmappedPair(len(tt.pairs), func(i, j int) channels.Transport { return tt.pairs[i][j] })
			if !slices.Equal(got, tt.want) {
				t.Errorf("unmappedPair = %v, want %v", got, tt.want)
			}
		})
	}
}
