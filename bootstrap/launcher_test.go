package bootstrap

import (
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

// launchVars are every variable DetectLaunch reads.
var launchVars = []string{EnvRank, EnvNRanks, EnvRoot, EnvRootPort, SocketIfnameEnv, "RANK", "WORLD_SIZE", "LOCAL_RANK",
	"MASTER_ADDR", "MASTER_PORT", "TORCHELASTIC_RUN_ID", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID",
	"SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST", "SLURM_JOB_ID", "SLURM_STEP_ID"}

func TestDetectLaunch(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		want Launch
		err  string // "" = success; "none" = no launcher, no error
	}{
		{"nothing", nil, Launch{}, "none"},
		{"ours", map[string]string{EnvRank: "1", EnvNRanks: "2", EnvRoot: "10.0.0.1:5000"},
			Launch{"env", 1, 2, -1, "10.0.0.1:5000"}, ""},
		{"ours beat torchrun and slurm", map[string]string{EnvRank: "0", EnvNRanks: "1", EnvRoot: "h:1", "RANK": "3", "WORLD_SIZE": "4", "SLURM_PROCID": "2", "SLURM_NTASKS": "8"},
			Launch{"env", 0, 1, -1, "h:1"}, ""},
		{"torchrun", map[string]string{"RANK": "3", "WORLD_SIZE": "8", "LOCAL_RANK": "1", "MASTER_ADDR": "node7", "MASTER_PORT": "29500", "TORCHELASTIC_RUN_ID": "abc"},
			Launch{"torchrun", 3, 8, 1, "node7:29501"}, ""},
		{"torchrun under srun", map[string]string{"RANK": "5", "WORLD_SIZE": "8", "MASTER_ADDR": "10.1.1.1", "MASTER_PORT": "1234", "TORCHELASTIC_RUN_ID": "x", "SLURM_PROCID": "1", "SLURM_NTASKS": "2"},
			Launch{"torchrun", 5, 8, -1, "10.1.1.1:1235"}, ""},
		{"pytorch-style, no agent", map[string]string{"RANK": "0", "WORLD_SIZE": "2", "MASTER_ADDR": "fd00::1", "MASTER_PORT": "23456"},
			Launch{"pytorch-env", 0, 2, -1, "[fd00::1]:23456"}, ""},
		{"torchrun with an explicit root", map[string]string{"RANK": "1", "WORLD_SIZE": "2", "MASTER_ADDR": "a", "MASTER_PORT": "1", EnvRoot: "eth0:10.0.0.2:7000"},
			Launch{"pytorch-env", 1, 2, -1, "eth0:10.0.0.2:7000"}, ""},
		{"slurm", map[string]string{"SLURM_PROCID": "9", "SLURM_NTASKS": "16", "SLURM_LOCALID": "1", "SLURM_JOB_NODELIST": "gpu[07-08,11],login", EnvRootPort: "31000"},
			Launch{"slurm", 9, 16, 1, "gpu07:31000"}, ""},
		{"slurm step list first", map[string]string{"SLURM_PROCID": "0", "SLURM_NTASKS": "2", "SLURM_STEP_NODELIST": "b[2-3]", "SLURM_JOB_NODELIST": "a1,b[2-3]", EnvRootPort: "5"},
			Launch{"slurm", 0, 2, -1, "b2:5"}, ""},
		{"slurm explicit root", map[string]string{"SLURM_PROCID": "1", "SLURM_NTASKS": "2", "SLURM_JOB_NODELIST": "n1", EnvRoot: "10.9.9.9:4000"},
			Launch{"slurm", 1, 2, -1, "10.9.9.9:4000"}, ""},
		{"torchrun without master", map[string]string{"RANK": "0", "WORLD_SIZE": "2"}, Launch{}, "MASTER_ADDR"},
		{"rank without size", map[string]string{"RANK": "0", "MASTER_ADDR": "a", "MASTER_PORT": "1"}, Launch{}, "WORLD_SIZE"},
		{"rank out of range", map[string]string{"SLURM_PROCID": "4", "SLURM_NTASKS": "4", "SLURM_JOB_NODELIST": "n1"}, Launch{}, "SLURM_PROCID"},
		{"bad local rank", map[string]string{"SLURM_PROCID": "0", "SLURM_NTASKS": "4", "SLURM_LOCALID": "x", "SLURM_JOB_NODELIST": "n1"}, Launch{}, "SLURM_LOCALID"},
		{"bad node list", map[string]string{"SLURM_PROCID": "0", "SLURM_NTASKS": "2", "SLURM_JOB_NODELIST": "n[1-"}, Launch{}, "SLURM_JOB_NODELIST"},
		{"slurm without node list", map[string]string{"SLURM_PROCID": "0", "SLURM_NTASKS": "2"}, Launch{}, "node list"},
		{"bad master port", map[string]string{"RANK": "0", "WORLD_SIZE": "2", "MASTER_ADDR": "a", "MASTER_PORT": "99999"}, Launch{}, "MASTER_PORT"},
		{"root alone", map[string]string{EnvRoot: "10.0.0.1:5000"}, Launch{}, "no launcher"},
		{"ours incomplete", map[string]string{EnvRank: "1"}, Launch{}, "incomplete"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, k := range launchVars {
				t.Setenv(k, c.env[k])
			}
			got, ok, err := DetectLaunch()
			switch {
			case c.err == "none":
				if ok || err != nil {
					t.Errorf("got %+v, %v, %v; want no launcher", got, ok, err)
				}
			case c.err != "":
				if ok || err == nil || !strings.Contains(err.Error(), c.err) {
					t.Errorf("got %+v, %v, %v; want an error about %s", got, ok, err, c.err)
				}
			case !ok || err != nil || got != c.want:
				t.Errorf("got %+v, %v, %v; want %+v", got, ok, err, c.want)
			}
		})
	}
}

// TestDetectLaunchSlurmDefaultPort: without MSCCLPP_BENCH_ROOT_PORT every rank of a step
// derives the same port from the job and step, and another step gets another one.
func TestDetectLaunchSlurmDefaultPort(t *testing.T) {
	root := func(step string) string {
		for _, k := range launchVars {
			t.Setenv(k, "")
		}
		for k, v := range map[string]string{"SLURM_PROCID": "0", "SLURM_NTASKS": "2", "SLURM_JOB_NODELIST": "n1", "SLURM_JOB_ID": "4242", "SLURM_STEP_ID": step} {
			t.Setenv(k, v)
		}
		l, ok, err := DetectLaunch()
		if !ok || err != nil {
			t.Fatal(err)
		}
		return l.Root
	}
	a, again, b := root("0"), root("0"), root("1")
	if a != again || a == b || !strings.HasPrefix(a, "n1:") {
		t.Errorf("roots %q, %q, %q", a, again, b)
	}
}

func TestExpandNodeList(t *testing.T) {
	cases := []struct {
		list string
		want []string
		err  bool
	}{
		{"node01", []string{"node01"}, false},
		{"node[01-04,07]", []string{"node01", "node02", "node03", "node04", "node07"}, false},
		{"gpu[8-10],login", []string{"gpu8", "gpu9", "gpu10", "login"}, false},
		{"a[098-101]-ib", []string{"a098-ib", "a099-ib", "a100-ib", "a101-ib"}, false},
		{"r[1-2]n[1-2]", []string{"r1n1", "r1n2", "r2n1", "r2n2"}, false},
		{"x,y[3],z", []string{"x", "y3", "z"}, false},
		{"node[1-", nil, true},
		{"node]1[", nil, true},
		{"node[[1]]", nil, true},
		{"node[3-1]", nil, true},
		{"node[a-b]", nil, true},
		{"a,,b", nil, true},
		{"", nil, true},
		{"n[0-99999]", nil, true},
		// The cap is on the whole list, not on each range or item.
		{"n[1-40000],m[1-40000]", nil, true},
		{"n[1-40000,50001-90000]", nil, true},
		{"r[0-300]n[0-300]", nil, true},
		{"n[1-65535],x", nil, false},
	}
	for _, c := range cases {
		got, err := ExpandNodeList(c.list)
		if c.err {
			if err == nil {
				t.Errorf("%q: expanded to %d hosts, want an error", c.list, len(got))
			}
			continue
		}
		if c.want == nil { // a long list: check its length and ends
			if err != nil || len(got) != maxNodes || got[0] != "n1" || got[len(got)-1] != "x" {
				t.Errorf("%q: %d hosts, %v", c.list, len(got), err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: %q, %v; want %q", c.list, got, err, c.want)
		}
		first, err := FirstNode(c.list)
		if err != nil || first != c.want[0] {
			t.Errorf("FirstNode(%q) = %q, %v", c.list, first, err)
		}
	}
}

func FuzzExpandNodeList(f *testing.F) {
	for _, s := range []string{"node[01-04,07],gpu-a[1-2]-ib,login", "r[1-2]n[1-2]", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		hosts, err := ExpandNodeList(s)
		first, ferr := FirstNode(s)
		if (err == nil) != (ferr == nil) {
			t.Fatalf("ExpandNodeList: %v, FirstNode: %v", err, ferr)
		}
		if err != nil {
			return
		}
		if len(hosts) == 0 || len(hosts) > maxNodes {
			t.Fatalf("%d hosts, want 1 to %d", len(hosts), maxNodes)
		}
		if first != hosts[0] {
			t.Fatalf("first host %q, FirstNode %q", hosts[0], first)
		}
		for _, h := range hosts {
			if h == "" || strings.ContainsAny(h, "[],") {
				t.Fatalf("host %q", h)
			}
		}
	})
}

// TestNodeListBoundedAsAWhole: a list that names too many hosts in all is refused from its
// ranges, fast, in a short message, without making its hosts; the first host of a long
// valid list is taken without expanding the rest.
func TestNodeListBoundedAsAWhole(t *testing.T) {
	huge := []string{
		strings.Repeat("n[0-65535],", 1500) + "n",            // 16 KB, 98 million hosts
		"n[" + strings.Repeat("0-65535,", 1500) + "1]",       // one bracket of many ranges
		strings.Repeat("r[0-65535]", 4),                      // a product of 2^64
		strings.Repeat("a", 20000) + "[0-65535]," + "b[0-1]", // a long name
	}
	for _, list := range huge {
		for name, fn := range map[string]func(string) error{
			"ExpandNodeList": func(s string) error { _, err := ExpandNodeList(s); return err },
			"FirstNode":      func(s string) error { _, err := FirstNode(s); return err },
		} {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			err := fn(list)
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), "more than 65536 hosts") {
				t.Errorf("%s(%.30q...): %v; want more than 65536 hosts", name, list, err)
				continue
			}
			if len(err.Error()) > 300 {
				t.Errorf("%s(%.30q...): a %d-byte message", name, list, len(err.Error()))
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 || took > 10*time.Second {
				t.Errorf("%s(%.30q...): %d bytes allocated, %v; want the list refused from its ranges", name, list, alloc, took)
			}
		}
	}
	long := "n[00000-65535]"
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	first, err := FirstNode(long)
	runtime.ReadMemStats(&after)
	if err != nil || first != "n00000" {
		t.Fatalf("FirstNode(%q) = %q, %v", long, first, err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<10 {
		t.Errorf("FirstNode(%q) allocated %d bytes; want the first host without the others", long, alloc)
	}
}
