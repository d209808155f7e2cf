package bootstrap

import (
	"fmt"
	"hash/fnv"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/mscclpp-bench/mscclpp-bench/internal/clip"
)

// Launch is what a launcher told this process about its place in the job.
type Launch struct {
	Launcher  string // "env" (MSCCLPP_BENCH_*), "torchrun", "pytorch-env" or "slurm"
	Rank      int
	NRanks    int
	LocalRank int    // -1 when the launcher does not say
	Root      string // rank 0's bootstrap address, "[interface:]host:port", for InitializeAddr
}

// More environment variables read by DetectLaunch.
const (
	// EnvRootPort is the root's port when the root's host comes from a Slurm node list
	// (default: derived from SLURM_JOB_ID and SLURM_STEP_ID, 20000–39999).
	EnvRootPort = "MSCCLPP_BENCH_ROOT_PORT"
)

// DetectLaunch reads the environment that launchers other than MPI leave, in this order
// of precedence (MPI, when present, is detected before this and wins):
//
//  1. MSCCLPP_BENCH_RANK and MSCCLPP_BENCH_NRANKS, with MSCCLPP_BENCH_ROOT (FromEnv).
//  2. RANK and WORLD_SIZE (torchrun and other PyTorch-style launchers), LOCAL_RANK if
//     set. The root is MSCCLPP_BENCH_ROOT if set, else MASTER_ADDR with MASTER_PORT, or
//     MASTER_PORT+1 under torchrun (TORCHELASTIC_RUN_ID is set), whose agent already
//     listens on MASTER_PORT.
//  3. SLURM_PROCID and SLURM_NTASKS (srun), SLURM_LOCALID if set. The root is
//     MSCCLPP_BENCH_ROOT if set, else the first host of SLURM_STEP_NODELIST (or
//     SLURM_JOB_NODELIST) with port MSCCLPP_BENCH_ROOT_PORT or one derived from the job.
//
// A torchrun started by srun sees both; its own variables come first because they are
// per process. An empty variable counts as unset. When MSCCLPP_BENCH_SOCKET_IFNAME is set
// and the root names no interface, the interface it picks is put in front of the root, so
// that every rank listens there. ok is false, with no error, when no launcher is seen.
func DetectLaunch() (l Launch, ok bool, err error) {
	get := func(k string) string { return strings.TrimSpace(os.Getenv(k)) }
	switch {
	case get(EnvRank) != "" || get(EnvNRanks) != "":
		rank, nranks, root, ok, err := FromEnv()
		if !ok || err != nil {
			return l, false, err
		}
		l = Launch{Launcher: "env", Rank: rank, NRanks: nranks, LocalRank: -1, Root: root}
	case get("RANK") != "" || get("WORLD_SIZE") != "":
		l.Launcher = "pytorch-env"
		if get("TORCHELASTIC_RUN_ID") != "" {
			l.Launcher = "torchrun"
		}
		if l.Rank, l.NRanks, l.LocalRank, err = launchNumbers("RANK", "WORLD_SIZE", "LOCAL_RANK"); err != nil {
			return l, false, err
		}
		if l.Root, err = torchRoot(l.Launcher == "torchrun"); err != nil {
			return l, false, err
		}
	case get("SLURM_PROCID") != "" || get("SLURM_NTASKS") != "":
		l.Launcher = "slurm"
		if l.Rank, l.NRanks, l.LocalRank, err = launchNumbers("SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"); err != nil {
			return l, false, err
		}
		if l.Root, err = slurmRoot(); err != nil {
			return l, false, err
		}
	default:
		if get(EnvRoot) != "" {
			return l, false, fmt.Errorf("bootstrap: %s is set, but no launcher gave this process its rank and the job's size (%s/%s, RANK/WORLD_SIZE or SLURM_PROCID/SLURM_NTASKS)", EnvRoot, EnvRank, EnvNRanks)
		}
		return l, false, nil
	}
	if l.Root, err = withIfname(l.Root); err != nil {
		return l, false, err
	}
	return l, true, nil
}

// launchNumbers reads a launcher's rank, size and (optional) local rank.
func launchNumbers(rankVar, sizeVar, localVar string) (rank, size, local int, err error) {
	num := func(k string, lo, hi int) (int, error) {
		s := strings.TrimSpace(os.Getenv(k))
		if s == "" {
			return 0, fmt.Errorf("bootstrap: %s and %s must both be set (%s is missing)", rankVar, sizeVar, k)
		}
		v, err := strconv.Atoi(s)
		if err != nil || v < lo || v > hi {
			return 0, fmt.Errorf("bootstrap: %s=%q: want an integer in %d..%d", k, s, lo, hi)
		}
		return v, nil
	}
	if size, err = num(sizeVar, 1, MaxRanks); err != nil {
		return
	}
	if rank, err = num(rankVar, 0, size-1); err != nil {
		return
	}
	local = -1
	if strings.TrimSpace(os.Getenv(localVar)) != "" {
		local, err = num(localVar, 0, size-1)
	}
	return
}

// explicitRoot returns MSCCLPP_BENCH_ROOT, checked, or "" when it is unset.
func explicitRoot() (string, error) {
	root := strings.TrimSpace(os.Getenv(EnvRoot))
	if root == "" {
		return "", nil
	}
	spec, err := parseAddrSpec(root)
	if err != nil {
		return "", fmt.Errorf("bootstrap: %s: %w", EnvRoot, err)
	}
	if !spec.hasHost() || spec.Port == 0 {
		return "", fmt.Errorf("bootstrap: %s=%q: want [interface:]ip:port with a non-zero port", EnvRoot, root)
	}
	return root, nil
}

func torchRoot(torchrun bool) (string, error) {
	if root, err := explicitRoot(); root != "" || err != nil {
		return root, err
	}
	host, portStr := strings.TrimSpace(os.Getenv("MASTER_ADDR")), strings.TrimSpace(os.Getenv("MASTER_PORT"))
	if host == "" || portStr == "" {
		return "", fmt.Errorf("bootstrap: RANK/WORLD_SIZE are set but MASTER_ADDR and MASTER_PORT are not (or set %s)", EnvRoot)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil || port < 1 || port > 65535 || torchrun && port == 65535 {
		return "", fmt.Errorf("bootstrap: MASTER_PORT=%q: want a port number", portStr)
	}
	if torchrun {
		port++
	}
	return rootAt("MASTER_ADDR="+clip.Quote(host), host, port)
}

// rootAt is the root address of host and port, checked as InitializeAddr will parse it:
// junk in a launcher's variable (what says which, and its value) is refused with the
// launcher's other checks, before the worker, not when the ranks meet.
func rootAt(what, host string, port int) (string, error) {
	root := net.JoinHostPort(host, strconv.Itoa(port))
	if spec, err := parseAddrSpec(root); err != nil || spec.Iface != "" || !spec.hasHost() {
		return "", fmt.Errorf("bootstrap: %s: want a host name or IP address", what)
	}
	return root, nil
}

func slurmRoot() (string, error) {
	if root, err := explicitRoot(); root != "" || err != nil {
		return root, err
	}
	list, name := strings.TrimSpace(os.Getenv("SLURM_STEP_NODELIST")), "SLURM_STEP_NODELIST"
	if list == "" {
		list, name = strings.TrimSpace(os.Getenv("SLURM_JOB_NODELIST")), "SLURM_JOB_NODELIST"
	}
	if list == "" {
		return "", fmt.Errorf("bootstrap: Slurm gave no node list (SLURM_JOB_NODELIST); set %s to rank 0's address", EnvRoot)
	}
	host, err := FirstNode(list)
	if err != nil {
		return "", fmt.Errorf("bootstrap: %s=%s: %w", name, clip.Quote(list), err)
	}
	port := 0
	if s := strings.TrimSpace(os.Getenv(EnvRootPort)); s != "" {
		if port, err = strconv.Atoi(s); err != nil || port < 1 || port > 65535 {
			return "", fmt.Errorf("bootstrap: %s=%q: want a port number", EnvRootPort, s)
		}
	} else {
		h := fnv.New32a()
		h.Write([]byte(os.Getenv("SLURM_JOB_ID") + "." + os.Getenv("SLURM_STEP_ID")))
		port = 20000 + int(h.Sum32()%20000)
	}
	return rootAt(name+"'s first host "+clip.Quote(host), host, port)
}

// withIfname puts the interface that MSCCLPP_BENCH_SOCKET_IFNAME picks in front of a root
// that names none.
func withIfname(root string) (string, error) {
	spec := strings.TrimSpace(os.Getenv(SocketIfnameEnv))
	if spec == "" {
		return root, nil
	}
	parsed, err := parseAddrSpec(root)
	if err != nil {
		return "", fmt.Errorf("bootstrap: root %q: %w", root, err)
	}
	if parsed.Iface != "" {
		return root, nil
	}
	name, _, err := MatchInterface(spec)
	if err != nil {
		return "", fmt.Errorf("bootstrap: %w", err)
	}
	return name + ":" + root, nil
}
