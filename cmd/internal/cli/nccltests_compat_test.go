package cli

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/collectives"
)

// TestNCCLTestsOptions gives every option of nccl-tests 2.19.6 (its getopt string
// "t:g:b:e:i:f:n:m:w:N:p:I:K:c:o:d:r:z:y:T:hG:C:a:R:x:D:V:J:S:M:u:"), by letter and by long
// name, and checks that it is accepted and has its meaning.
func TestNCCLTestsOptions(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		short, long, value string
		want               func(c *CollectiveOptions) any
		is                 any
	}{
		{"t", "nthreads", "1", func(c *CollectiveOptions) any { return c.Iters }, 20},
		{"g", "ngpus", "1", func(c *CollectiveOptions) any { return c.Iters }, 20},
		{"b", "minbytes", "1K", func(c *CollectiveOptions) any { return c.MinBytes }, int64(1024)},
		{"e", "maxbytes", "64M", func(c *CollectiveOptions) any { return c.MaxBytes }, int64(64 << 20)},
		{"i", "stepbytes", "2M", func(c *CollectiveOptions) any { return c.StepBytes }, int64(2 << 20)},
		{"f", "stepfactor", "4", func(c *CollectiveOptions) any { return c.StepFactor }, int64(4)},
		{"n", "iters", "7", func(c *CollectiveOptions) any { return c.Iters }, 7},
		{"m", "agg_iters", "3", func(c *CollectiveOptions) any { return c.AggIters }, 3},
		{"w", "warmup_iters", "0", func(c *CollectiveOptions) any { return c.Warmup }, 0},
		{"N", "run_cycles", "0", func(c *CollectiveOptions) any { return c.Cycles }, 0},
		{"p", "parallel_init", "1", func(c *CollectiveOptions) any { return c.NCCLTests.ParallelInit }, true},
		{"I", "per_iter_timing", "1", func(c *CollectiveOptions) any { return c.NCCLTests.PerIter }, true},
		{"c", "check", "0", func(c *CollectiveOptions) any { return c.Check }, 0},
		{"o", "op", "max", func(c *CollectiveOptions) any { return c.Ops }, []string{"max"}},
		{"d", "datatype", "half", func(c *CollectiveOptions) any { return c.Datatypes }, []string{"half"}},
		{"r", "root", "1", func(c *CollectiveOptions) any { return c.NCCLTests.Root }, 1},
		{"z", "blocking", "3", func(c *CollectiveOptions) any { return c.Blocking }, 3},
		{"y", "stream_null", "1", func(c *CollectiveOptions) any { return c.NCCLTests.StreamNull }, true},
		{"T", "timeout", "5", func(c *CollectiveOptions) any { return c.Timeout.Seconds() }, 5.0},
		{"G", "cudagraph", "10", func(c *CollectiveOptions) any { return c.Graph }, 10},
		{"C", "report_cputime", "1", func(c *CollectiveOptions) any { return c.NCCLTests.CPUTime }, true},
		{"S", "report_timestamps", "1", func(c *CollectiveOptions) any { return c.NCCLTests.Timestamps }, true},
		{"J", "output_file", dir + "/r.json", func(c *CollectiveOptions) any { return c.JSONPath }, dir + "/r.json"},
		{"a", "average", "2", func(c *CollectiveOptions) any { return c.Average }, 2},
		{"R", "local_register", "2", func(c *CollectiveOptions) any { return c.NCCLTests.Notes }, []string{"-R 2 (local_register) does not apply: mscclpp-bench registers its buffers with every peer at set-up, always"}},
		{"x", "cta_policy", "1", func(c *CollectiveOptions) any { return c.NCCLTests.Notes }, []string{"-x 1 (cta_policy) does not apply: an NCCL setting, and NCCL is not used"}},
		{"D", "device_implementation", "1", func(c *CollectiveOptions) any { return c.NCCLTests.Notes }, []string{"-D 1 (device_implementation) does not apply: an NCCL setting, and NCCL is not used"}},
		{"V", "device_cta_count", "32", func(c *CollectiveOptions) any { return c.NCCLTests.Notes }, []string{"-V 32 (device_cta_count) does not apply: an NCCL setting, and NCCL is not used"}},
		{"M", "memory", "1", func(c *CollectiveOptions) any { return c.NCCLTests.Memory }, true},
		{"u", "unalign", "8", func(c *CollectiveOptions) any { return c.NCCLTests.Unalign }, 8},
	}
	letters := ""
	for _, tt := range tests {
		letters += tt.short
		for _, arg := range [][]string{{"-" + tt.short, tt.value}, {"--" + tt.long, tt.value}, {"--" + tt.long + "=" + tt.value}} {
			r := mainWith(t, nil, append([]string{"allreduce"}, arg...)...)
			if r.code != ExitOK || r.cfg == nil {
				t.Errorf("%v: exit %d, stderr %q", arg, r.code, r.stderr)
				continue
			}
			if got := tt.want(r.cfg); !reflect.DeepEqual(got, tt.is) {
				t.Errorf("%v: got %v, want %v", arg, got, tt.is)
			}
		}
	}
	// -u takes any number of elements, as nccl-tests does, for every type: auto and all
	// pick among the algorithms that handle the offset.
	for _, args := range [][]string{{"-u", "1"}, {"-u", "3", "-d", "all"}, {"-u", "7", "-d", "half,double", "-k", "all"}, {"-u", "1", "-k", "rsag"}} {
		r := mainWith(t, nil, append([]string{"allreduce"}, args...)...)
		if r.code != ExitOK || r.cfg == nil || strconv.Itoa(r.cfg.NCCLTests.Unalign) != args[1] {
			t.Errorf("%v: exit %d, stderr %q; want -u accepted", args, r.code, r.stderr)
		}
	}
	// -K needs -I (and -n above it); -h is cobra's help.
	r := mainWith(t, nil, "allreduce", "-I", "1", "-K", "2", "--per_iter_skip", "3")
	if r.code != ExitOK || r.cfg.NCCLTests.PerIterSkip != 3 || len(r.cfg.NCCLTests.Notes) != 0 {
		t.Errorf("-I 1 -K 3: exit %d, %+v, stderr %q", r.code, r.cfg, r.stderr)
	}
	letters += "K"
	for _, h := range []string{"-h", "--help"} {
		if r := mainWith(t, nil, "allreduce", h); r.code != ExitOK || r.calls != 0 || !strings.Contains(r.stdout, "--per_iter_timing") ||
			!strings.Contains(r.stdout, "Also runs as all_reduce_perf") {
			t.Errorf("%s: exit %d, calls %d, stdout %q", h, r.code, r.calls, r.stdout)
		}
	}
	letters += "h"
	var want []string
	for _, c := range strings.ReplaceAll("t:g:b:e:i:f:n:m:w:N:p:I:K:c:o:d:r:z:y:T:hG:C:a:R:x:D:V:J:S:M:u:", ":", "") {
		want = append(want, string(c))
	}
	got := strings.Split(letters, "")
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("options tested %v, nccl-tests 2.19.6 has %v", got, want)
	}
}

// TestNCCLTestsCombinations checks what nccl-tests turns off (a header note says so) and
// what cannot work here (exit 2, one line).
func TestNCCLTestsCombinations(t *testing.T) {
	notes := []struct {
		args     []string
		perIter  bool
		skip     int
		noteWant string
	}{
		{[]string{"-I", "1", "-G", "5"}, false, 0, "-I 1 (per_iter_timing) is off with -G"},
		{[]string{"-K", "2"}, false, 0, "-K (per_iter_skip) is off: it needs -I 1"},
		{[]string{"-I", "1", "-K", "20"}, true, 0, "-K (per_iter_skip) must be below -n 20"},
		{[]string{"-p", "1"}, false, 0, "-p 1 (parallel_init) does not apply"},
	}
	for _, tt := range notes {
		r := mainWith(t, nil, append([]string{"allgather"}, tt.args...)...)
		if r.code != ExitOK {
			t.Errorf("%v: exit %d, stderr %q", tt.args, r.code, r.stderr)
			continue
		}
		o := r.cfg.NCCLTests
		if o.PerIter != tt.perIter || o.PerIterSkip != tt.skip || len(o.Notes) != 1 || !strings.HasPrefix(o.Notes[0], tt.noteWant) {
			t.Errorf("%v: per_iter %v skip %d notes %q; want %v %d and a note %q", tt.args, o.PerIter, o.PerIterSkip, o.Notes, tt.perIter, tt.skip, tt.noteWant)
		}
	}
	bad := []struct {
		args []string
		want string
	}{
		{[]string{"-I", "2"}, "-I/--per_iter_timing 2: want 0 or 1"},
		{[]string{"-C", "-1"}, "-C/--report_cputime -1"},
		{[]string{"-S", "7"}, "-S/--report_timestamps 7"},
		{[]string{"-M", "2"}, "-M/--memory 2"},
		{[]string{"-p", "3"}, "-p/--parallel_init 3"},
		{[]string{"-y", "2"}, "-y/--stream_null 2"},
		{[]string{"-y", "1", "-G", "2"}, "cannot capture the default stream"},
		{[]string{"-z", "3", "-G", "2"}, "--blocking 3 cannot be combined with --cudagraph"},
		{[]string{"-r", "-1"}, "-r/--root -1"},
		{[]string{"-u", "-2"}, "-u/--unalign -2"},
		// -u takes any offset, but a named algorithm that needs aligned buffers refuses one
		{[]string{"-u", "3", "-k", "hier"}, "-u 3 with float: allreduce hier needs buffers aligned to 16 bytes, and -u puts them 12 bytes off"},
		{[]string{"-u", "4", "-d", "float,int8", "-k", "hostoneshot", "-b", "8", "-e", "1M"}, "-u 4 with int8: allreduce hostoneshot needs buffers aligned to 16 bytes, and -u puts them 4 bytes off"},
		{[]string{"-K", "-1"}, "-K/--per_iter_skip -1"},
		{[]string{"-R", "3"}, "-R/--local_register 3"},
		{[]string{"-I", "x"}, `-I/--per_iter_timing "x": want a whole number`},
	}
	for _, tt := range bad {
		args := append([]string{"allreduce"}, tt.args...)
		r := mainWith(t, nil, args...)
		if r.code != ExitUsage || r.calls != 0 || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 mentioning %q", tt.args, r.code, r.stderr, tt.want)
		}
		checkOneLineError(t, args, r.stderr)
	}
}

// TestArgsDispatch maps program names to subcommands: nccl-tests' names of built
// collectives run them, the others are refused, anything else is left alone.
func TestArgsDispatch(t *testing.T) {
	for name, sub := range NCCLTestsBinaries {
		for _, argv0 := range []string{name, "/opt/nccl-tests/build/" + name, "./" + name} {
			got, err := Args([]string{argv0, "-b", "8"})
			if _, lerr := collectives.Lookup(sub); lerr != nil {
				if err == nil || !IsUsage(err) || !strings.Contains(err.Error(), "not built") {
					t.Errorf("Args(%s): %v, %v; want a usage error saying %s is not built", argv0, got, err, sub)
				}
				continue
			}
			if err != nil || !slices.Equal(got, []string{sub, "-b", "8"}) {
				t.Errorf("Args(%s) = %v, %v; want [%s -b 8]", argv0, got, err, sub)
			}
		}
	}
	for _, argv := range [][]string{{"mscclpp-bench", "allreduce"}, {"/x/mscclpp-bench-gpu", "allgather", "-b", "8"}, {"all_reduce_perf.sh", "x"}, {"my_all_reduce_perf"}} {
		got, err := Args(argv)
		if err != nil || !slices.Equal(got, argv[1:]) {
			t.Errorf("Args(%v) = %v, %v; want %v", argv, got, err, argv[1:])
		}
	}
	// a name whose collective is missing (every one of nccl-tests' is built now)
	without := func(sub string) bool { return sub != "hypercube" }
	want := "hypercube_perf: the hypercube collective is not built in this mscclpp-bench yet (built: allgather, allreduce,"
	if got, err := args([]string{"./hypercube_perf", "-b", "8"}, without); err == nil || !IsUsage(err) || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "hypercube,") {
		t.Errorf("args(hypercube_perf) without hypercube = %v, %v; want a usage error starting %q", got, err, want)
	}
	if got, err := args([]string{"gather_perf", "-r", "1"}, without); err != nil || !slices.Equal(got, []string{"gather", "-r", "1"}) {
		t.Errorf("args(gather_perf) = %v, %v", got, err)
	}
	if got, err := Args(nil); err != nil || got != nil {
		t.Errorf("Args(nil) = %v, %v", got, err)
	}
}

// TestNCCLTestsNamesCoverRegistry: every registered collective runs under its nccl-tests
// program name (argv[0] dispatch goes through NCCLTestsBinaries), and that name is one
// of nccl-tests' eleven, so make links it.
func TestNCCLTestsNamesCoverRegistry(t *testing.T) {
	for _, c := range collectives.Collectives() {
		if sub, ok := NCCLTestsBinaries[c.TestName()]; !ok || sub != c.Name() {
			t.Errorf("collective %s (nccl-tests' %s): NCCLTestsBinaries[%s] = %q, %v; want %q",
				c.Name(), c.TestName(), c.TestName(), sub, ok, c.Name())
			continue
		}
		got, err := Args([]string{"/usr/bin/" + c.TestName(), "-n", "3"})
		if err != nil || !slices.Equal(got, []string{c.Name(), "-n", "3"}) {
			t.Errorf("Args(%s) = %v, %v; want [%s -n 3]", c.TestName(), got, err, c.Name())
		}
	}
}

// TestMakefileLinksEveryName checks that make links exactly the programs Args knows.
func TestMakefileLinksEveryName(t *testing.T) {
	data, err := os.ReadFile("../../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)NCCL_TESTS_NAMES := (.*?)\n\n`).FindSubmatch(data)
	if m == nil {
		t.Fatal("Makefile has no NCCL_TESTS_NAMES")
	}
	got := strings.Fields(strings.ReplaceAll(string(m[1]), "\\", " "))
	var want []string
	for name := range NCCLTestsBinaries {
		want = append(want, name)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) || len(want) != 11 {
		t.Errorf("Makefile links %v, want nccl-tests' eleven %v", got, want)
	}
}
