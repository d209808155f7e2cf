//go:build !race

package channelstest

// RaceEnabled says whether the race detector is on.
const RaceEnabled = false
