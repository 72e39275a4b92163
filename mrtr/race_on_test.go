//go:build race

package mrtr

// raceEnabled: the race detector makes sync.Pool drop what it is given at
// random, so allocation counts are asserted only without it.
const raceEnabled = true
