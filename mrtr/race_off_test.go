//go:build !race

package mrtr

const raceEnabled = false
