// Package memstat reads how much host memory this process holds, for long runs that must
// show their memory stays flat.
package memstat

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// HostRSS returns this process's resident set size in bytes (/proc/self/status's VmRSS).
func HostRSS() (uint64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, fmt.Errorf("host RSS: %w", err)
	}
	return parseRSS(string(b))
}

func parseRSS(status string) (uint64, error) {
	for _, line := range strings.Split(status, "\n") {
		rest, ok := strings.CutPrefix(line, "VmRSS:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 2 && f[1] == "kB" {
			if kb, err := strconv.ParseUint(f[0], 10, 64); err == nil {
				return kb << 10, nil
			}
		}
		return 0, fmt.Errorf("host RSS: unreadable line %q", line)
	}
	return 0, fmt.Errorf("host RSS: no VmRSS line in /proc/self/status")
}
