//go:build race

package jsonrpc

// raceEnabled: the race detector makes sync.Pool drop what it is given at
// random, and the scanner comes from a pool, so allocation counts are
// measured without it (.ci/run runs them in a step of their own).
const raceEnabled = true
