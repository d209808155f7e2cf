package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/internal/bounded"
)

// badInputDir makes a directory holding a good spec, specs with sizes over the limit,
// a JSON spec with a trailing comma, a directory and a FIFO named like outputs, and a
// symbolic link to the good spec.
func badInputDir(t *testing.T) (dir string) {
	t.Helper()
	dir = t.TempDir()
	files := map[string]string{
		"ok.json":        `{"min_port_put_gbs": 100}`,
		"ok.yaml":        "min_port_put_gbs: 100\n",
		"big.yaml":       "collectives:\n  - {collective: allreduce, size: 65G, min_bus_bw: 1}\n",
		"bigput.yaml":    "put_bytes: 65G\n",
		"bigcopy.yaml":   "copy_bytes: 65G\n",
		"bignet.yaml":    "network_collectives:\n  - {collective: allgather, size: 65G}\n",
		"negnet.yaml":    "max_network_signal_us: -3\n",
		"comma.json":     `{"min_port_put_gbs": 100,}`,
		"negative.yaml":  "min_port_put_gbs: -1\n",
		"nan.yaml":       "min_port_put_gbs: .nan\n",
		"huge-int.yaml":  "ranks: 99999999999999999999\n",
		"huge-size.yaml": "put_bytes: 99999999999999999999\n",
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"dir.json", "dir.yaml"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"fifo.json", "fifo.yaml"} {
		if err := syscall.Mkfifo(filepath.Join(dir, f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(dir, "ok.json"), filepath.Join(dir, "link.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "readonly.json"), []byte("{}"), 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("readonly.json", filepath.Join(dir, "rolink.json")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestMainBadInput: inputs a new user tried that were accepted, or refused late or
// unclearly, are refused before the runner (the GPU) with one line and exit 2.
func TestMainBadInput(t *testing.T) {
	dir := badInputDir(t)
	in := func(name string) string { return filepath.Join(dir, name) }
	tests := []struct {
		args []string
		env  string // NAME=value set for the case
		want []string
		not  string // must not appear in the message
	}{
		// Runaway sweeps: refused with the count.
		{args: []string{"allreduce", "-f", "1", "-i", "1", "-b", "1", "-e", "64G"}, want: []string{"68719476736 sizes", "at most 10000"}},
		{args: []string{"allgather", "-f", "1", "-i", "1", "-b", "1", "-e", "10001"}, want: []string{"10001 sizes"}},
		{args: []string{"pingpong", "-f", "1", "-i", "8", "-b", "8", "-e", "1M"}, want: []string{"131072 sizes"}},
		// Huge, negative and non-finite values.
		{args: []string{"allreduce", "-e", "65G"}, want: []string{"--maxbytes 69793218560 is above the 64 GiB"}},
		{args: []string{"allreduce", "-e", "99999999999999999999"}, want: []string{"--maxbytes"}},
		{args: []string{"allreduce", "-b", "-8"}, want: []string{"--minbytes"}},
		{args: []string{"allreduce", "-n", "99999999999999999999"}, want: []string{`-n/--iters "99999999999999999999": out of range`}},
		{args: []string{"allreduce", "-T", "NaN"}, want: []string{"--timeout"}},
		{args: []string{"allreduce", "-T", "+Inf"}, want: []string{"--timeout"}},
		{args: []string{"allreduce", "-T", "-Inf"}, want: []string{"--timeout"}},
		{args: []string{"allreduce", "-T", "1e308"}, want: []string{"--timeout"}},
		// Duplicates in lists.
		{args: []string{"allreduce", "-d", "float,float"}, want: []string{"--datatype lists float twice"}},
		{args: []string{"allreduce", "-d", "float,fp32"}, want: []string{"--datatype lists float twice"}},
		{args: []string{"allreduce", "-o", "sum,max,sum"}, want: []string{"--op lists sum twice"}},
		// Algorithm limits from the registry, before any GPU work.
		{args: []string{"allreduce", "-k", "ll8", "-d", "all", "-b", "8", "-e", "1M"}, want: []string{"--kernel ll8", "does not support type int64", "supports int8, uint8, int32, uint32, half, float, bfloat16"}},
		{args: []string{"allreduce", "-k", "ll8", "-d", "all"}, want: []string{"does not support type int64"}},
		{args: []string{"allreduce", "-k", "ll8", "-b", "8", "-e", "2G", "-f", "2"}, want: []string{"allreduce ll8 handles 0 to 1048576 bytes, not 2147483648"}},
		{args: []string{"allgather", "-k", "ll16", "-b", "8", "-e", "1G", "-f", "2"}, want: []string{"allgather ll16 handles"}},
		// Bootstrap settings the worker would only meet later.
		{args: []string{"allreduce", "--bootstrap-addr", "garbage"}, want: []string{"--bootstrap-addr", `bad address "garbage"`}},
		{args: []string{"pingpong", "--bootstrap-addr", "1.2.3.4:99999"}, want: []string{"--bootstrap-addr"}},
		{args: []string{"allreduce"}, env: "MSCCLPP_BENCH_BOOTSTRAP_TIMEOUT=abc", want: []string{`MSCCLPP_BENCH_BOOTSTRAP_TIMEOUT="abc"`}},
		{args: []string{"acceptance"}, env: "MSCCLPP_BENCH_BOOTSTRAP_TIMEOUT=-5", want: []string{"MSCCLPP_BENCH_BOOTSTRAP_TIMEOUT"}},
		// -J checked before the run: directories, FIFOs, missing directories, the spec.
		{args: []string{"allreduce", "-J", "/nonexistent/x.json"}, want: []string{"--output_file", "/nonexistent/x.json", "no such file or directory"}},
		{args: []string{"allreduce", "-J", in("dir.json")}, want: []string{"--output_file", "is a directory"}},
		{args: []string{"pingpong", "-J", in("fifo.json")}, want: []string{"--output_file", "named pipe"}},
		{args: []string{"acceptance", "--spec", in("ok.json"), "-J", in("ok.json")}, want: []string{"--output_file", "is also an input"}},
		{args: []string{"acceptance", "--spec", in("link.json"), "-J", in("ok.json")}, want: []string{"is also an input"}},
		// A read-only -J (or a link to one) is refused before the run, not after it.
		{args: []string{"allreduce", "-J", in("readonly.json")}, want: []string{"--output_file", "readonly.json is read-only (mode 0444): not replaced"}},
		{args: []string{"pingpong", "-J", in("rolink.json")}, want: []string{"--output_file", "rolink.json is read-only"}},
		{args: []string{"acceptance", "-J", in("readonly.json")}, want: []string{"--output_file", "is read-only"}},
		// acceptance's sizes come from the spec; its size flags are refused, not ignored.
		{args: []string{"acceptance", "-b", "1G"}, want: []string{"sizes from the spec", "-b/--minbytes"}, not: "1073741824 > 8"},
		{args: []string{"acceptance", "-e", "1G"}, want: []string{"-e/--maxbytes"}},
		{args: []string{"acceptance", "-f", "3"}, want: []string{"-f/--stepfactor"}},
		{args: []string{"acceptance", "--stepbytes", "1M"}, want: []string{"-i/--stepbytes"}},
		// Specs: sizes over the limit as -e is, strict JSON, non-regular files.
		{args: []string{"acceptance", "--spec", in("big.yaml")}, want: []string{"--spec: collectives[0].size 69793218560 is above the 64 GiB"}},
		{args: []string{"acceptance", "--spec", in("bigput.yaml")}, want: []string{"put_bytes 69793218560 is above the 64 GiB"}},
		{args: []string{"acceptance", "--spec", in("bigcopy.yaml")}, want: []string{"copy_bytes 69793218560 is above the 64 GiB"}},
		{args: []string{"acceptance", "--spec", in("bignet.yaml")}, want: []string{"--spec: network_collectives[0].size 69793218560 is above the 64 GiB"}},
		{args: []string{"acceptance", "--spec", in("negnet.yaml")}, want: []string{"max_network_signal_us", "negative"}},
		{args: []string{"acceptance", "--spec", in("comma.json")}, want: []string{"comma.json", "JSON"}},
		{args: []string{"acceptance", "--spec", in("negative.yaml")}, want: []string{"min_port_put_gbs", "negative"}},
		{args: []string{"acceptance", "--spec", in("nan.yaml")}, want: []string{"min_port_put_gbs", "not a finite number"}},
		{args: []string{"acceptance", "--spec", in("huge-int.yaml")}, want: []string{"ranks"}},
		{args: []string{"acceptance", "--spec", in("huge-size.yaml")}, want: []string{"put_bytes"}},
		{args: []string{"acceptance", "--spec", in("fifo.yaml")}, want: []string{"named pipe"}},
		{args: []string{"acceptance", "--spec", in("dir.yaml")}, want: []string{"is a directory"}},
		// completion for a shell cobra does not know.
		{args: []string{"completion", "tcsh"}, want: []string{`completion "tcsh"`, "bash, fish, powershell, zsh"}},
		// help on a command that does not exist.
		{args: []string{"help", "nope"}, want: []string{`help "nope": no such command`}},
		{args: []string{"help", "--nope"}, want: []string{"unknown flag"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			if name, value, ok := strings.Cut(tt.env, "="); ok {
				t.Setenv(name, value)
			}
			var r result
			bounded.Run(t, 10*time.Second, strings.Join(tt.args, " "), func() { r = mainWith(t, nil, tt.args...) })
			if r.code != ExitUsage || r.calls != 0 {
				t.Fatalf("exit %d, runner called %d times; want exit %d before the runner (stderr %q)", r.code, r.calls, ExitUsage, r.stderr)
			}
			checkOneLineError(t, tt.args, r.stderr)
			for _, w := range tt.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr %q does not mention %q", r.stderr, w)
				}
			}
			if tt.not != "" && strings.Contains(r.stderr, tt.not) {
				t.Errorf("stderr %q mentions %q", r.stderr, tt.not)
			}
		})
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp*"))
	if len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// TestMainGoodInputNearLimits: values at the limits, and the fixed inputs' good
// neighbours, still reach the runner.
func TestMainGoodInputNearLimits(t *testing.T) {
	dir := badInputDir(t)
	in := func(name string) string { return filepath.Join(dir, name) }
	for _, args := range [][]string{
		{"allreduce", "-f", "1", "-i", "1", "-b", "1", "-e", "10000"},
		{"allreduce", "-b", "1", "-e", "64G", "-f", "2"},
		{"allreduce", "-k", "ll8", "-d", "float,half", "-b", "8", "-e", "1M", "-f", "2"},
		{"allreduce", "-k", "all", "-d", "all", "-b", "8", "-e", "2G", "-f", "2"},
		{"allreduce", "--bootstrap-addr", "eth0:10.0.0.1:5000", "-J", in("new.json")},
		{"acceptance", "--spec", in("ok.json"), "-J", in("report.json")},
		{"acceptance", "--spec", in("ok.yaml")},
	} {
		r := mainWith(t, nil, args...)
		if r.code != ExitOK || r.calls != 1 {
			t.Errorf("%v: exit %d, runner called %d times, stderr %q", args, r.code, r.calls, r.stderr)
		}
	}
	// An explicit --bootstrap-timeout wins over a bad environment value, as in bootstrap.New.
	t.Setenv("MSCCLPP_BENCH_BOOTSTRAP_TIMEOUT", "abc")
	if r := mainWith(t, nil, "allreduce", "--bootstrap-timeout", "5s"); r.code != ExitOK {
		t.Errorf("--bootstrap-timeout with a bad environment value: exit %d, stderr %q", r.code, r.stderr)
	}
	if _, err := os.Stat(in("new.json")); err == nil {
		t.Error("checking -J created the file")
	}
}

// TestMainVersionFlag: the root's --version (cobra's convention) prints what the version
// command prints.
func TestMainVersionFlag(t *testing.T) {
	cmd := mainWith(t, nil, "version")
	for _, args := range [][]string{{"--version"}, {"-v"}} {
		r := mainWith(t, nil, args...)
		if r.code != ExitOK || r.stdout != cmd.stdout || r.stdout == "" || r.calls != 0 {
			t.Errorf("%v: exit %d, stdout %q; want exit 0 and %q", args, r.code, r.stdout, cmd.stdout)
		}
	}
}

// TestMainHelpTopics: help on a real command still prints its help.
func TestMainHelpTopics(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"help", "allreduce"}, {"help", "completion", "bash"}} {
		r := mainWith(t, nil, args...)
		if r.code != ExitOK || !strings.Contains(r.stdout, "Usage:") || r.stderr != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, r.code, r.stdout, r.stderr)
		}
	}
}

// TestMainCompletion: known shells still get their scripts.
func TestMainCompletion(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish", "powershell"} {
		r := mainWith(t, nil, "completion", sh)
		if r.code != ExitOK || !strings.Contains(r.stdout, "mscclpp-bench") {
			t.Errorf("completion %s: exit %d, %d bytes of output, stderr %q", sh, r.code, len(r.stdout), r.stderr)
		}
	}
	if r := mainWith(t, nil, "completion"); r.code != ExitOK || !strings.Contains(r.stdout, "bash") {
		t.Errorf("completion without a shell: exit %d, stdout %q", r.code, r.stdout)
	}
}
