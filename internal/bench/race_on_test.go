//go:build race

package bench

// raceEnabled: the race detector makes sync.Pool drop what it is given at
// random, so allocation counts are read without it (.ci/bench.sh runs the
// tests without -race).
const raceEnabled = true
