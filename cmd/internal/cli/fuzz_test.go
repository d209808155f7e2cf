package cli

import (
	"strings"
	"testing"
)

// FuzzMain: any command line (words separated by spaces) ends in exit 0, 1 or 2 with
// nothing or one line on stderr, never a panic; a usage error never reaches the runner.
// Words with a slash are skipped so that file flags stay inside the test's directory.
func FuzzMain(f *testing.F) {
	for _, seed := range []string{
		"allreduce -b 8 -e 1M -f 2",
		"allreduce -f 1 -i 1 -b 1 -e 64G",
		"allreduce -k ll8 -d all",
		"allreduce -d float,float -o sum,sum",
		"allreduce -T NaN --bootstrap-addr garbage",
		"allgather -J out.json -J dir.json",
		"pingpong --pair 0,0 --channel x",
		"acceptance -b 1G --spec spec.json -J spec.json",
		"completion tcsh",
		"--version",
		"version extra",
		"help allreduce",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "/\\") || strings.Contains(line, "..") {
			return
		}
		t.Chdir(t.TempDir())
		args := strings.Fields(line)
		r := mainWith(t, nil, args...)
		switch r.code {
		case ExitOK:
		case ExitUsage:
			if r.calls != 0 {
				t.Fatalf("%q: usage error after the runner ran", line)
			}
			if !strings.HasPrefix(r.stderr, "mscclpp-bench: ") || strings.Count(r.stderr, "\n") != 1 {
				t.Fatalf("%q: stderr %q is not one line", line, r.stderr)
			}
		default:
			t.Fatalf("%q: exit %d (the fake runner does not fail)", line, r.code)
		}
	})
}
