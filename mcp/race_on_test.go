//go:build race

package mcp_test

// raceEnabled: the race detector makes sync.Pool drop what it is given at
// random, so allocation budgets are measured without it (.ci/run runs
// them in a step of their own).
const raceEnabled = true
