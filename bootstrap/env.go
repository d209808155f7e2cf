package bootstrap

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Environment variables read by FromEnv, for launchers other than mpirun.
const (
	EnvRank   = "MSCCLPP_BENCH_RANK"   // this process's rank, 0..nranks-1
	EnvNRanks = "MSCCLPP_BENCH_NRANKS" // number of ranks in the job
	EnvRoot   = "MSCCLPP_BENCH_ROOT"   // root address, "[interface:]ip:port"
)

// FromEnv reads EnvRank, EnvNRanks and EnvRoot. ok is false (and err nil)
// when none of them is set. If some but not all are set, or a value is
// invalid, err says which. The root address is only parsed, not resolved;
// pass it to InitializeAddr.
func FromEnv() (rank, nranks int, root string, ok bool, err error) {
	vals := map[string]string{}
	var missing []string
	for _, k := range []string{EnvRank, EnvNRanks, EnvRoot} {
		if v, set := os.LookupEnv(k); set && strings.TrimSpace(v) != "" {
			vals[k] = strings.TrimSpace(v)
		} else {
			missing = append(missing, k)
		}
	}
	if len(vals) == 0 {
		return 0, 0, "", false, nil
	}
	if len(missing) > 0 {
		return 0, 0, "", false, fmt.Errorf("bootstrap: environment is incomplete: %s set but %s missing",
			strings.Join(keys(vals), ", "), strings.Join(missing, ", "))
	}
	nranks, err = strconv.Atoi(vals[EnvNRanks])
	if err != nil || nranks < 1 || nranks > MaxRanks {
		return 0, 0, "", false, fmt.Errorf("bootstrap: %s=%q: want an integer in 1..%d", EnvNRanks, vals[EnvNRanks], MaxRanks)
	}
	rank, err = strconv.Atoi(vals[EnvRank])
	if err != nil || rank < 0 || rank >= nranks {
		return 0, 0, "", false, fmt.Errorf("bootstrap: %s=%q: want an integer in 0..%d", EnvRank, vals[EnvRank], nranks-1)
	}
	root = vals[EnvRoot]
	spec, err := parseAddrSpec(root)
	if err != nil {
		return 0, 0, "", false, fmt.Errorf("bootstrap: %s: %w", EnvRoot, err)
	}
	if !spec.hasHost() || spec.Port == 0 {
		return 0, 0, "", false, fmt.Errorf("bootstrap: %s=%q: want [interface:]ip:port with a non-zero port", EnvRoot, root)
	}
	return rank, nranks, root, true, nil
}

// keys returns the map's keys in the fixed order of FromEnv.
func keys(m map[string]string) []string {
	var out []string
	for _, k := range []string{EnvRank, EnvNRanks, EnvRoot} {
		if _, ok := m[k]; ok {
			out = append(out, k)
		}
	}
	return out
}
