//go:build !race

package channels

const raceEnabled = false
