package cli

import (
	"reflect"
	"strings"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/collectives"
)

// TestCollectiveCommandsFromRegistry: every registered collective is a subcommand with its
// help line, its algorithms in -k's help, -o (as on every nccl-tests program), and runs with its
// name as the Config's command.
func TestCollectiveCommandsFromRegistry(t *testing.T) {
	colls := collectives.Collectives()
	if len(colls) < 3 {
		t.Fatalf("%d collectives registered, want allgather, allreduce, reducescatter at least", len(colls))
	}
	help := mainWith(t, nil, "--help")
	for _, c := range colls {
		name := c.Name()
		t.Run(name, func(t *testing.T) {
			if !strings.Contains(help.stdout, name) || !strings.Contains(help.stdout, c.Doc()) {
				t.Errorf("root help lacks %s: %q", name, help.stdout)
			}
			h := mainWith(t, nil, name, "--help")
			if h.code != ExitOK || !strings.Contains(h.stdout, "--op") || !strings.Contains(h.stdout, c.TestName()) {
				t.Errorf("%s --help (exit %d): --op shown %v; names %s: %v\n%s", name, h.code, strings.Contains(h.stdout, "--op"), c.TestName(), strings.Contains(h.stdout, c.TestName()), h.stdout)
			}
			for _, a := range collectives.Algorithms(name) {
				if !strings.Contains(h.stdout, a.Name) {
					t.Errorf("%s --help lacks algorithm %s", name, a.Name)
				}
			}
			// nccl-tests takes -o on every program, whether or not it reduces.
			args := []string{name, "-d", "int32", "-b", "1K", "-e", "1M", "-f", "2", "-o", "all"}
			r := mainWith(t, nil, args...)
			if r.code != ExitOK || r.cfg == nil || r.cfg.Collective != name {
				t.Fatalf("%v: exit %d, stderr %q, config %+v", args, r.code, r.stderr, r.cfg)
			}
			if !reflect.DeepEqual(r.cfg.Ops, AllOps) {
				t.Errorf("%v: ops %v", args, r.cfg.Ops)
			}
			for _, op := range []string{"prod", "--op=max"} {
				a := []string{name, "-o", op}
				if strings.HasPrefix(op, "--") {
					a = []string{name, op}
				}
				if r := mainWith(t, nil, a...); r.code != ExitOK || r.calls != 1 {
					t.Errorf("%v: exit %d, stderr %q; want it accepted as nccl-tests does", a, r.code, r.stderr)
				}
			}
			if r := mainWith(t, nil, name, "-o", "bogus"); r.code != ExitUsage || r.calls != 0 {
				t.Errorf("%s -o bogus: exit %d, want %d", name, r.code, ExitUsage)
			}
		})
	}
}

// TestReduceScatterCommand: the example plug-in's command takes its algorithm by name and
// number and refuses a name it lacks, before any GPU work.
func TestReduceScatterCommand(t *testing.T) {
	for _, k := range []string{"read", "1", "auto", "all"} {
		if r := mainWith(t, nil, "reducescatter", "-k", k, "-d", "all", "-o", "all"); r.code != ExitOK || r.cfg.Kernel.Given != k {
			t.Errorf("reducescatter -k %s: exit %d, stderr %q", k, r.code, r.stderr)
		}
	}
	r := mainWith(t, nil, "reducescatter", "-k", "rsag")
	if r.code != ExitUsage || r.calls != 0 || !strings.Contains(r.stderr, "read (1)") {
		t.Errorf("reducescatter -k rsag: exit %d, stderr %q; want 2 listing read (1)", r.code, r.stderr)
	}
}
