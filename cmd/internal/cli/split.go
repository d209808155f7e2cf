package cli

import (
	"fmt"
	"strconv"
	"strings"
)

// nccl-tests 2.19.6's environment (src/common.cu): NCCL_TESTS_SPLIT_MASK or
// NCCL_TESTS_SPLIT split the job into independent groups of ranks that each run the test
// at once (the "Group" column of the device list), and NCCL_TESTS_DEVICE puts every rank
// on one CUDA device instead of its local rank's.
const (
	envSplitMask = "NCCL_TESTS_SPLIT_MASK" // hexadecimal mask: group = rank & mask
	envSplit     = "NCCL_TESTS_SPLIT"      // "AND n", "OR n", "MOD n", "DIV n" (or & | % /)
	envDevice    = "NCCL_TESTS_DEVICE"     // CUDA device of every rank; -1: by local rank
)

// SplitRule is how NCCL_TESTS_SPLIT_MASK or NCCL_TESTS_SPLIT turn a rank into its group
// (nccl-tests' "color"); the zero value puts every rank in group 0.
type SplitRule struct {
	Op  string // "and", "or", "mod", "div"; "" no split
	Arg uint64
	Env string // the variable and value it came from, for messages
}

// On says whether the rule splits the job at all.
func (s SplitRule) On() bool { return s.Op != "" }

// Group returns rank's group, as nccl-tests computes its color.
func (s SplitRule) Group(rank int) int {
	r := uint64(rank)
	switch s.Op {
	case "and":
		return int(r & s.Arg)
	case "or":
		return int(r | s.Arg)
	case "mod":
		return int(r % s.Arg)
	case "div":
		return int(r / s.Arg)
	}
	return 0
}

// splitOps are NCCL_TESTS_SPLIT's operators, words and symbols, as nccl-tests spells them.
var splitOps = []struct{ prefix, op string }{
	{"and", "and"}, {"&", "and"}, {"or", "or"}, {"|", "or"}, {"mod", "mod"}, {"%", "mod"}, {"div", "div"}, {"/", "div"},
}

// readSplit reads NCCL_TESTS_SPLIT_MASK (first, as nccl-tests does) or NCCL_TESTS_SPLIT.
// nccl-tests parses them with strtoul and ignores what it cannot read; here a value that
// is not whole is a usage error, and so is MOD 0 or DIV 0 (nccl-tests divides by zero).
func readSplit(getenv func(string) string) (SplitRule, error) {
	if s := strings.TrimSpace(getenv(envSplitMask)); s != "" {
		h := strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
		mask, err := strconv.ParseUint(h, 16, 31)
		if err != nil || h == "" {
			return SplitRule{}, usagef("%s=%q: want a hexadecimal mask such as 0x1 (group = rank & mask)", envSplitMask, s)
		}
		return SplitRule{Op: "and", Arg: mask, Env: fmt.Sprintf("%s=%s", envSplitMask, s)}, nil
	}
	s := strings.TrimSpace(getenv(envSplit))
	if s == "" {
		return SplitRule{}, nil
	}
	lower := strings.ToLower(s)
	for _, o := range splitOps {
		rest, ok := strings.CutPrefix(lower, o.prefix)
		if !ok {
			continue
		}
		n, err := strconv.ParseUint(strings.TrimSpace(rest), 0, 31)
		if err != nil {
			break
		}
		if n == 0 && (o.op == "mod" || o.op == "div") {
			return SplitRule{}, usagef("%s=%q: %s by 0", envSplit, s, strings.ToUpper(o.op))
		}
		return SplitRule{Op: o.op, Arg: n, Env: fmt.Sprintf("%s=%s", envSplit, s)}, nil
	}
	return SplitRule{}, usagef("%s=%q: want AND, OR, MOD or DIV (or &, |, %%, /) and a number, e.g. \"MOD 2\"", envSplit, s)
}

// readDevice reads NCCL_TESTS_DEVICE: a CUDA device ordinal for every rank, or -1 (or
// unset) for the local rank's device.
func readDevice(getenv func(string) string) (int, error) {
	s := strings.TrimSpace(getenv(envDevice))
	if s == "" {
		return -1, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < -1 || n > 1023 {
		return 0, usagef("%s=%q: want a CUDA device number (0 or more), or -1 for each rank's local one", envDevice, s)
	}
	return n, nil
}
