package era2026

import "testing"

// TestStatus pins this revision's statuses for in-band errors (absent from
// the profile's map: 200).
func TestStatus(t *testing.T) {
	for code, want := range map[int]int{-32601: 404, -32021: 400, -32602: 200, -32603: 200, -32002: 200} {
		got, ok := profile.Statuses[code]
		if !ok {
			got = 200
		}
		if got != want {
			t.Errorf("code %d: %d, want %d", code, got, want)
		}
	}
}
