package cli

import (
	"strings"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/bootstrap"
)

// launchVars are every variable bootstrap.DetectLaunch and bootstrap.MPILaunched read.
var launchVars = append([]string{
	"MSCCLPP_BENCH_RANK", "MSCCLPP_BENCH_NRANKS", "MSCCLPP_BENCH_ROOT", "MSCCLPP_BENCH_ROOT_PORT",
	"RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT", "TORCHELASTIC_RUN_ID",
	"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST",
	"SLURM_JOB_ID", "SLURM_STEP_ID", bootstrap.SocketIfnameEnv,
}, bootstrap.MPIEnv...)

// TestBadLaunchEnvIsUsage: a launcher's variable that does not parse is refused by the
// command line (exit 2, one line naming it), before the worker, which before needed a GPU
// to say so (and then exited 1). Good values, and any values under mpirun, whose rank and
// size win, reach the runner.
func TestBadLaunchEnvIsUsage(t *testing.T) {
	torch := map[string]string{"RANK": "1", "WORLD_SIZE": "2", "MASTER_ADDR": "node1", "MASTER_PORT": "29500"}
	slurm := map[string]string{"SLURM_PROCID": "1", "SLURM_NTASKS": "2", "SLURM_JOB_NODELIST": "node[01-02]"}
	env := map[string]string{"MSCCLPP_BENCH_RANK": "1", "MSCCLPP_BENCH_NRANKS": "2", "MSCCLPP_BENCH_ROOT": "127.0.0.1:5000"}
	with := func(base map[string]string, kv ...string) map[string]string {
		out := map[string]string{}
		for k, v := range base {
			out[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	tests := []struct {
		name string
		env  map[string]string
		want string // in the usage error; "" when the runner must be reached
	}{
		{"no launcher", nil, ""},
		{"torchrun-style", torch, ""},
		{"slurm", slurm, ""},
		{"env", env, ""},
		{"rank not a number", with(torch, "RANK", "abc"), `RANK="abc"`},
		{"rank beyond the size", with(torch, "RANK", "2"), `RANK="2": want an integer in 0..1`},
		{"world size 0", with(torch, "WORLD_SIZE", "0"), `WORLD_SIZE="0"`},
		{"world size missing", with(nil, "RANK", "0"), "WORLD_SIZE is missing"},
		{"local rank beyond the size", with(torch, "LOCAL_RANK", "5"), `LOCAL_RANK="5"`},
		{"no master address", with(nil, "RANK", "0", "WORLD_SIZE", "2"), "MASTER_ADDR and MASTER_PORT are not"},
		{"master address not a host name", with(torch, "MASTER_ADDR", "not a host!"), `MASTER_ADDR="not a host!": want a host name or IP address`},
		{"master address with an interface", with(torch, "MASTER_ADDR", "eth0:10.0.0.1"), `MASTER_ADDR="eth0:10.0.0.1"`},
		{"master address with a port", with(torch, "MASTER_ADDR", "node1:29500"), `MASTER_ADDR="node1:29500"`},
		{"master address bracketed twice", with(torch, "MASTER_ADDR", "[::1]"), `MASTER_ADDR="[::1]"`},
		{"master address IPv6", with(torch, "MASTER_ADDR", "fd00::1"), ""},
		{"master address IPv4", with(torch, "MASTER_ADDR", "10.1.2.3"), ""},
		{"slurm first host not a host name", with(slurm, "SLURM_JOB_NODELIST", "node 1,node2"), `SLURM_JOB_NODELIST's first host "node 1"`},
		{"master port too big", with(torch, "MASTER_PORT", "70000"), `MASTER_PORT="70000"`},
		{"master port negative", with(torch, "MASTER_PORT", "-1"), `MASTER_PORT="-1"`},
		{"torchrun at the last port", with(torch, "TORCHELASTIC_RUN_ID", "x", "MASTER_PORT", "65535"), `MASTER_PORT="65535"`},
		{"slurm rank not a number", with(slurm, "SLURM_PROCID", "x"), `SLURM_PROCID="x"`},
		{"slurm node list broken", with(slurm, "SLURM_JOB_NODELIST", "node[01-"), "SLURM_JOB_NODELIST"},
		{"slurm node list of 98 million hosts", with(slurm, "SLURM_JOB_NODELIST", strings.Repeat("n[0-65535],", 1500)+"n"), "SLURM_JOB_NODELIST"},
		{"slurm node list of 2^64 hosts", with(slurm, "SLURM_JOB_NODELIST", strings.Repeat("r[0-65535]", 4)), "more than 65536 hosts"},
		{"slurm root port 0", with(slurm, "MSCCLPP_BENCH_ROOT_PORT", "0"), `MSCCLPP_BENCH_ROOT_PORT="0"`},
		{"root without a launcher", with(nil, "MSCCLPP_BENCH_ROOT", "127.0.0.1:5000"), "MSCCLPP_BENCH_ROOT is set, but no launcher"},
		{"env incomplete", with(nil, "MSCCLPP_BENCH_RANK", "0"), "environment is incomplete"},
		{"env rank beyond the size", with(env, "MSCCLPP_BENCH_RANK", "2"), `MSCCLPP_BENCH_RANK="2"`},
		{"env root without a port", with(env, "MSCCLPP_BENCH_ROOT", "127.0.0.1:0"), "non-zero port"},
		{"root over torchrun's broken", with(torch, "MSCCLPP_BENCH_ROOT", "::::"), "MSCCLPP_BENCH_ROOT"},
		{"interface that matches none", with(env, bootstrap.SocketIfnameEnv, "=no-such-if0"), bootstrap.SocketIfnameEnv},
		{"under mpirun the others are not read", with(torch, "RANK", "abc", "OMPI_COMM_WORLD_SIZE", "2"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, k := range launchVars {
				t.Setenv(k, tt.env[k]) // empty counts as unset
			}
			checkAllreduce(t, tt.want)
		})
	}
}

// checkAllreduce runs `allreduce` through Main with no runner. With want "", every check
// must pass (exit 1: no GPU runner is built in); else the run must be refused with exit 2
// and one line containing want.
func checkAllreduce(t *testing.T, want string) {
	t.Helper()
	var out, errOut strings.Builder
	code := Main(App{Name: "mb", Stdout: &out, Stderr: &errOut}, []string{"allreduce"})
	if want == "" {
		if code != ExitFailure || !strings.Contains(errOut.String(), "needs a GPU runner") {
			t.Fatalf("exit %d, stderr %q; want the runner reached", code, errOut.String())
		}
		return
	}
	if code != ExitUsage || !strings.Contains(errOut.String(), want) || strings.Count(errOut.String(), "\n") != 1 {
		t.Fatalf("exit %d, stderr %.500q; want 2 and one line with %q", code, errOut.String(), want)
	}
	if len(errOut.String()) > 400 {
		t.Fatalf("a %d-byte message %.500q; want long inputs shortened", len(errOut.String()), errOut.String())
	}
}
