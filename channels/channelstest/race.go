//go:build race

package channelstest

// RaceEnabled: the test binary runs under the race detector, which does not see
// synchronisation through memory mapped outside Go's heap (the host token files).
const RaceEnabled = true
