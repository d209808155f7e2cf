// Package version holds the program version, set at link time by the Makefile.
package version

import "runtime"

// Version and Commit are set with -ldflags "-X .../internal/version.Version=...".
var (
	Version = "0.1.0-dev"
	Commit  = "unknown"
)

// String returns "VERSION (commit COMMIT, GOVERSION)".
func String() string { return Version + " (commit " + Commit + ", " + runtime.Version() + ")" }
