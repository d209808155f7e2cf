package scripts

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestNCCLHost: ncclhost.sh runs rank r in a UTS namespace named for its simulated host
// (r*HOSTS/NP), with NCCL_HOSTID the same; --device also gives nccl-tests rank r's GPU.
func TestNCCLHost(t *testing.T) {
	if err := exec.Command("unshare", "-u", "true").Run(); err != nil {
		t.Skipf("unshare -u (root only) is refused here: %v", err)
	}
	for _, c := range []struct {
		args []string
		rank string
		want string
	}{
		{[]string{"2", "2"}, "1", "simhost1 simhost1 none"},
		{[]string{"2", "4"}, "1", "simhost0 simhost0 none"},
		{[]string{"--device", "2", "4"}, "3", "simhost1 simhost1 3"},
		{[]string{"--device", "2", "4"}, "0", "simhost0 simhost0 0"},
	} {
		args := append(c.args, "sh", "-c", `echo "$(hostname) $NCCL_HOSTID ${NCCL_TESTS_DEVICE:-none}"`)
		cmd := exec.Command("./ncclhost.sh", args...)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "OMPI_COMM_WORLD_RANK=" + c.rank}
		out, err := cmd.CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != c.want {
			t.Errorf("rank %s, ncclhost.sh %v: %v, output %q; want %q", c.rank, c.args, err, out, c.want)
		}
	}
	if out, err := exec.Command("./ncclhost.sh", "2").CombinedOutput(); err == nil || !strings.Contains(string(out), "usage:") {
		t.Errorf("ncclhost.sh without a command: %v, output %q; want a usage line and a failure", err, out)
	}
}
