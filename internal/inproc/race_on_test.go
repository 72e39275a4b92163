//go:build race

package inproc

// raceEnabled: the race detector makes sync.Pool drop what it is given at
// random, and released header maps go to a pool, so allocation counts are
// measured without it (.ci/run runs them in a step of their own).
const raceEnabled = true
