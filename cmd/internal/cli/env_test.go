package cli

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/channels/ethernet"
	"github.com/mscclpp-bench/mscclpp-bench/channels/ib"
)

// ethOf and ibOf return the Ethernet and InfiniBand options that ReadEnv set.
func ethOf(e Env) ethernet.Options { return e.Ethernet }

func ibOf(e Env) ib.Options { return e.IB }

// TestReadEnv: every variable the libraries used to read themselves reaches its option,
// and a bad value is a usage error naming the variable.
func TestReadEnv(t *testing.T) {
	for _, c := range []struct {
		name  string
		env   map[string]string
		check func(e Env) bool
		err   string
	}{
		{"nothing set: the libraries' defaults, and the control receiver's spin", nil, func(e Env) bool {
			want := Env{Device: -1}
			want.Ethernet.Spin = defaultEthSpin
			return reflect.DeepEqual(e, want)
		}, ""},
		{"spin off", map[string]string{"MSCCLPP_BENCH_ETH_SPIN": "0"}, func(e Env) bool { return ethOf(e).Spin == 0 }, ""},
		{"spin 50 µs", map[string]string{"MSCCLPP_BENCH_ETH_SPIN": "50"}, func(e Env) bool { return ethOf(e).Spin == 50*time.Microsecond }, ""},
		{"spin too long", map[string]string{"MSCCLPP_BENCH_ETH_SPIN": "2000000"}, nil, "MSCCLPP_BENCH_ETH_SPIN"},
		{"ethernet", map[string]string{"MSCCLPP_BENCH_SOCKETS": "8", "MSCCLPP_BENCH_ETH_CHUNK": "1M", "MSCCLPP_BENCH_ETH_DEPTH": "3",
			"MSCCLPP_BENCH_ETH_PIECES": "4", "MSCCLPP_BENCH_ETH_INLINE": "128K", "MSCCLPP_BENCH_SOCKET_BUFFER": "4M", "MSCCLPP_BENCH_SOCKET_IFNAME": "=eth0"}, func(e Env) bool {
			o := ethOf(e)
			return o.Sockets == 8 && o.Chunk == 1<<20 && o.Depth == 3 && o.Pieces == 4 && o.Inline == 128<<10 && o.SocketBuffer == 4<<20 && o.Ifname == "=eth0"
		}, ""},
		{"mesh", map[string]string{"MSCCLPP_BENCH_HOSTID": "h1", "MSCCLPP_BENCH_IB_HCA": "mlx5_0:1", "MSCCLPP_BENCH_IB_ATOMICS": "0",
			"MSCCLPP_BENCH_PROXY_TRACE": "1", "MSCCLPP_BENCH_IB_GID_INDEX": "3"}, func(e Env) bool {
			m := e.Mesh
			return m.HostID == "h1" && ibOf(e).Device == "mlx5_0:1" && ibOf(e).NoAtomics && m.ProxyTrace && e.IBGIDIndex == 3
		}, ""},
		{"cpu profile", map[string]string{"MSCCLPP_BENCH_CPUPROFILE": " /tmp/prof "}, func(e Env) bool { return e.CPUProfile == "/tmp/prof" }, ""},
		{"atomics on", map[string]string{"MSCCLPP_BENCH_IB_ATOMICS": "1"}, func(e Env) bool { return !ibOf(e).NoAtomics }, ""},
		{"atomics blank: on", map[string]string{"MSCCLPP_BENCH_IB_ATOMICS": " "}, func(e Env) bool { return !ibOf(e).NoAtomics }, ""},
		{"atomics false is not 0", map[string]string{"MSCCLPP_BENCH_IB_ATOMICS": "false"}, nil, `MSCCLPP_BENCH_IB_ATOMICS="false": want 0 or 1`},
		{"atomics off is not 0", map[string]string{"MSCCLPP_BENCH_IB_ATOMICS": "off"}, nil, `MSCCLPP_BENCH_IB_ATOMICS="off"`},
		{"trace 0 is off", map[string]string{"MSCCLPP_BENCH_PROXY_TRACE": "0"}, func(e Env) bool { return !e.Mesh.ProxyTrace }, ""},
		{"trace 1 with spaces", map[string]string{"MSCCLPP_BENCH_PROXY_TRACE": " 1 "}, func(e Env) bool { return e.Mesh.ProxyTrace }, ""},
		{"trace yes", map[string]string{"MSCCLPP_BENCH_PROXY_TRACE": "yes"}, nil, `MSCCLPP_BENCH_PROXY_TRACE="yes": want 0 or 1`},
		{"put knobs", map[string]string{"MSCCLPP_BENCH_PUT_BLOCKS": "16", "MSCCLPP_BENCH_PUT_THREADS": "512", "MSCCLPP_BENCH_PUT_UNROLL": "8"}, func(e Env) bool {
			return e.Put.Blocks == 16 && e.Put.Threads == 512 && e.Put.Unroll == 8
		}, ""},
		{"put unroll 4", map[string]string{"MSCCLPP_BENCH_PUT_UNROLL": "4"}, func(e Env) bool { return e.Put.Unroll == 4 }, ""},
		{"put knobs blank: the defaults", map[string]string{"MSCCLPP_BENCH_PUT_BLOCKS": " ", "MSCCLPP_BENCH_PUT_THREADS": ""},
			func(e Env) bool { return e.Put.Blocks == 0 && e.Put.Threads == 0 }, ""},
		// Junk in a put knob is refused like junk in every other variable.
		{"put blocks negative", map[string]string{"MSCCLPP_BENCH_PUT_BLOCKS": "-3"}, nil, `MSCCLPP_BENCH_PUT_BLOCKS="-3": want a number from 1 to 65536`},
		{"put blocks zero", map[string]string{"MSCCLPP_BENCH_PUT_BLOCKS": "0"}, nil, `MSCCLPP_BENCH_PUT_BLOCKS="0"`},
		{"put threads not a number", map[string]string{"MSCCLPP_BENCH_PUT_THREADS": "x"}, nil, `MSCCLPP_BENCH_PUT_THREADS="x"`},
		{"put threads above a block", map[string]string{"MSCCLPP_BENCH_PUT_THREADS": "2048"}, nil, `MSCCLPP_BENCH_PUT_THREADS="2048": want a number from 1 to 1024`},
		{"put unroll 5", map[string]string{"MSCCLPP_BENCH_PUT_UNROLL": "5"}, nil, `MSCCLPP_BENCH_PUT_UNROLL="5": want 4 or 8`},
		{"put unroll 16", map[string]string{"MSCCLPP_BENCH_PUT_UNROLL": "16"}, nil, `MSCCLPP_BENCH_PUT_UNROLL="16"`},
		{"sockets out of range", map[string]string{"MSCCLPP_BENCH_SOCKETS": "65"}, nil, `MSCCLPP_BENCH_SOCKETS="65": want a number from 1 to 64`},
		{"chunk not a size", map[string]string{"MSCCLPP_BENCH_ETH_CHUNK": "lots"}, nil, "MSCCLPP_BENCH_ETH_CHUNK"},
		{"chunk not a multiple of 4096", map[string]string{"MSCCLPP_BENCH_ETH_CHUNK": "100000"}, nil, "multiple of 4096"},
		{"depth zero", map[string]string{"MSCCLPP_BENCH_ETH_DEPTH": "0"}, nil, "MSCCLPP_BENCH_ETH_DEPTH"},
		{"pieces out of range", map[string]string{"MSCCLPP_BENCH_ETH_PIECES": "65"}, nil, `MSCCLPP_BENCH_ETH_PIECES="65": want a number from 1 to 64`},
		{"inline above the receiver's limit", map[string]string{"MSCCLPP_BENCH_ETH_INLINE": "1M"}, nil, `MSCCLPP_BENCH_ETH_INLINE="1M": want a number from 1 to 524288`},
		{"gid index", map[string]string{"MSCCLPP_BENCH_IB_GID_INDEX": "256"}, nil, "MSCCLPP_BENCH_IB_GID_INDEX"},
		// nccl-tests' variables
		{"split mask", map[string]string{"NCCL_TESTS_SPLIT_MASK": "0x1"}, func(e Env) bool { return e.Split.Op == "and" && e.Split.Arg == 1 }, ""},
		{"split mask without 0x", map[string]string{"NCCL_TESTS_SPLIT_MASK": "6"}, func(e Env) bool { return e.Split.Op == "and" && e.Split.Arg == 6 }, ""},
		{"split mask before split", map[string]string{"NCCL_TESTS_SPLIT_MASK": "0x2", "NCCL_TESTS_SPLIT": "MOD 3"}, func(e Env) bool { return e.Split.Op == "and" && e.Split.Arg == 2 }, ""},
		{"split mask not hex", map[string]string{"NCCL_TESTS_SPLIT_MASK": "0xg"}, nil, `NCCL_TESTS_SPLIT_MASK="0xg": want a hexadecimal mask`},
		{"split MOD", map[string]string{"NCCL_TESTS_SPLIT": "MOD 2"}, func(e Env) bool { return e.Split.Op == "mod" && e.Split.Arg == 2 }, ""},
		{"split %", map[string]string{"NCCL_TESTS_SPLIT": "%4"}, func(e Env) bool { return e.Split.Op == "mod" && e.Split.Arg == 4 }, ""},
		{"split div, lower case, hex", map[string]string{"NCCL_TESTS_SPLIT": "div 0x8"}, func(e Env) bool { return e.Split.Op == "div" && e.Split.Arg == 8 }, ""},
		{"split OR", map[string]string{"NCCL_TESTS_SPLIT": "|1"}, func(e Env) bool { return e.Split.Op == "or" && e.Split.Arg == 1 }, ""},
		{"split AND", map[string]string{"NCCL_TESTS_SPLIT": "AND 3"}, func(e Env) bool { return e.Split.Op == "and" && e.Split.Arg == 3 }, ""},
		{"split by zero", map[string]string{"NCCL_TESTS_SPLIT": "DIV 0"}, nil, `NCCL_TESTS_SPLIT="DIV 0": DIV by 0`},
		{"split junk", map[string]string{"NCCL_TESTS_SPLIT": "XOR 1"}, nil, `NCCL_TESTS_SPLIT="XOR 1": want AND, OR, MOD or DIV`},
		{"split no number", map[string]string{"NCCL_TESTS_SPLIT": "MOD two"}, nil, `NCCL_TESTS_SPLIT="MOD two"`},
		{"device", map[string]string{"NCCL_TESTS_DEVICE": "3"}, func(e Env) bool { return e.Device == 3 }, ""},
		{"device -1: by local rank", map[string]string{"NCCL_TESTS_DEVICE": "-1"}, func(e Env) bool { return e.Device == -1 }, ""},
		{"device junk", map[string]string{"NCCL_TESTS_DEVICE": "gpu0"}, nil, `NCCL_TESTS_DEVICE="gpu0": want a CUDA device number`},
		{"device below -1", map[string]string{"NCCL_TESTS_DEVICE": "-2"}, nil, `NCCL_TESTS_DEVICE="-2"`},
		{"min bus bandwidth", map[string]string{"NCCL_TESTS_MIN_BW": " 12.5 "}, func(e Env) bool { return e.CheckBusBw && e.MinBusBw == 12.5 }, ""},
		{"min bus bandwidth 0 is checked", map[string]string{"NCCL_TESTS_MIN_BW": "0"}, func(e Env) bool { return e.CheckBusBw && e.MinBusBw == 0 }, ""},
		{"min bus bandwidth blank: unchecked", map[string]string{"NCCL_TESTS_MIN_BW": " "}, func(e Env) bool { return !e.CheckBusBw }, ""},
		{"min bus bandwidth negative", map[string]string{"NCCL_TESTS_MIN_BW": "-1"}, nil, `NCCL_TESTS_MIN_BW="-1": want a bus bandwidth in GB/s`},
		{"min bus bandwidth not a number", map[string]string{"NCCL_TESTS_MIN_BW": "fast"}, nil, `NCCL_TESTS_MIN_BW="fast"`},
		{"min bus bandwidth infinite", map[string]string{"NCCL_TESTS_MIN_BW": "Inf"}, nil, `NCCL_TESTS_MIN_BW="Inf"`},
		{"min bus bandwidth NaN", map[string]string{"NCCL_TESTS_MIN_BW": "NaN"}, nil, `NCCL_TESTS_MIN_BW="NaN"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, err := ReadEnv(func(k string) string { return c.env[k] })
			if c.err != "" {
				if err == nil || !IsUsage(err) || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("ReadEnv = %v, want a usage error with %q", err, c.err)
				}
				return
			}
			if err != nil || !c.check(e) {
				t.Fatalf("ReadEnv = %+v, %v", e, err)
			}
		})
	}
}

// TestBadEnvIsUsage: a bad variable is refused by the command line, before any GPU work.
func TestBadEnvIsUsage(t *testing.T) {
	t.Setenv("MSCCLPP_BENCH_SOCKETS", "0")
	var out, errOut strings.Builder
	code := Main(App{Name: "mb", Stdout: &out, Stderr: &errOut, Run: nil}, []string{"allreduce"})
	if code != ExitUsage || !strings.Contains(errOut.String(), "MSCCLPP_BENCH_SOCKETS") {
		t.Fatalf("exit %d, stderr %q; want 2 naming MSCCLPP_BENCH_SOCKETS", code, errOut.String())
	}
}

// TestCPUProfilePathChecked: MSCCLPP_BENCH_CPUPROFILE's files (PATH.RANK) must be
// writable, checked with the command line; a bad path failed only after the job had
// joined and set up its GPU.
func TestCPUProfilePathChecked(t *testing.T) {
	for _, k := range launchVars {
		t.Setenv(k, "") // one process: the launcher's checks pass
	}
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "prof.0"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want string // in the usage error; "" when the runner must be reached
	}{
		{filepath.Join(dir, "cpu"), ""},
		{filepath.Join(dir, "missing", "cpu"), "MSCCLPP_BENCH_CPUPROFILE: cannot write " + filepath.Join(dir, "missing", "cpu.0")},
		{filepath.Join(dir, "prof"), "MSCCLPP_BENCH_CPUPROFILE: " + filepath.Join(dir, "prof.0") + " is a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			t.Setenv("MSCCLPP_BENCH_CPUPROFILE", tt.path)
			checkAllreduce(t, tt.want)
		})
	}
}

// TestSplitRuleGroup: the group of each rank, as nccl-tests computes its color.
func TestSplitRuleGroup(t *testing.T) {
	for _, tt := range []struct {
		rule SplitRule
		want []int // groups of ranks 0..7
	}{
		{SplitRule{}, []int{0, 0, 0, 0, 0, 0, 0, 0}},
		{SplitRule{Op: "and", Arg: 1}, []int{0, 1, 0, 1, 0, 1, 0, 1}},
		{SplitRule{Op: "and", Arg: 6}, []int{0, 0, 2, 2, 4, 4, 6, 6}},
		{SplitRule{Op: "or", Arg: 1}, []int{1, 1, 3, 3, 5, 5, 7, 7}},
		{SplitRule{Op: "mod", Arg: 3}, []int{0, 1, 2, 0, 1, 2, 0, 1}},
		{SplitRule{Op: "div", Arg: 4}, []int{0, 0, 0, 0, 1, 1, 1, 1}},
	} {
		var got []int
		for r := 0; r < 8; r++ {
			got = append(got, tt.rule.Group(r))
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%+v: groups %v, want %v", tt.rule, got, tt.want)
		}
	}
}

// TestBadMinBusBwIsUsage: a bad NCCL_TESTS_MIN_BW is refused before any GPU work, under
// the main command and under an nccl-tests program name alike.
func TestBadMinBusBwIsUsage(t *testing.T) {
	t.Setenv("NCCL_TESTS_MIN_BW", "10GB")
	for _, argv := range [][]string{{"mb", "allreduce"}, {"/opt/bin/all_reduce_perf", "-b", "8"}, {"sendrecv_perf"}} {
		var out, errOut strings.Builder
		code := MainArgv(App{Name: "mb", Stdout: &out, Stderr: &errOut, Run: nil}, argv)
		if code != ExitUsage || !strings.Contains(errOut.String(), `NCCL_TESTS_MIN_BW="10GB"`) || strings.Count(errOut.String(), "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line naming NCCL_TESTS_MIN_BW", argv, code, errOut.String())
		}
	}
}
