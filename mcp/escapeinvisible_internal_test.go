package mcp

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestClean_Cut: a question or an error text over its cap is cut between
// what a person reads — never inside an escape — and the cut is marked.
func TestClean_Cut(t *testing.T) {
	for _, tc := range []struct {
		in    string
		max   int
		want  string
		whole bool
	}{
		{"abc", 3, "abc", true},
		{"abcd", 3, "abc…", false},
		{"ab\u200b", 10, `ab\u{200B}`, true},
		// The escape would end past the cap: it is left out whole.
		{"ab\u200bcd", 5, "ab…", false},
		{"ab\u200bcd", 10, `ab\u{200B}…`, false},
		{"ab\u200bcd", 12, `ab\u{200B}cd`, true},
		{strings.Repeat("\u3164", 100), 500, strings.Repeat(`\u{3164}`, 62) + "…", false},
		{"line\nbreak\ttab", -1, "line break tab", true},
	} {
		got, whole := clean(tc.in, tc.max)
		if got != tc.want || whole != tc.whole {
			t.Errorf("clean(%+q, %d) = %q, %v; want %q, %v", tc.in, tc.max, got, whole, tc.want, tc.whole)
		}
		if n := utf8.RuneCountInString(strings.TrimSuffix(got, "…")); tc.max >= 0 && n > tc.max {
			t.Errorf("clean(%+q, %d): %d characters", tc.in, tc.max, n)
		}
	}
}

// TestClean_HostText: in the host's own text, curly quotes and guillemets
// are its punctuation and stay; only values (Quote) escape them. What
// hides text is escaped everywhere.
func TestClean_HostText(t *testing.T) {
	in := "Delete “report” «now»?\u202e\u3164"
	if got, _ := clean(in, -1); got != `Delete “report” «now»?\u{202E}\u{3164}` {
		t.Errorf("%q", got)
	}
}
