package mcp_test

import (
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/mcp"
)

// TestQuote: nothing invisible survives into a confirmation question, and
// nothing long is cut without saying so.
func TestQuote(t *testing.T) {
	t.Parallel()
	hidden := []string{
		"\u2028", "\u2029", // line and paragraph separators
		"\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", // zero-width
		"\U000E0041", "\U000E0061", "\U000E007F", // Unicode tag characters
		"\ufff9", "\ufffa", "\ufffb", // interlinear annotation
		"\u202a", "\u202e", "\u2066", "\u2069", "\u061c", "\u200e", // bidi
		"\x00", "\x1b", "\u0085", // controls
		"\ue000", "\U000F0000", // private use
		"\u0378", "\ufffe", "\ufdd0", // unassigned, noncharacters
		"\xff", // invalid UTF-8
	}
	for _, h := range hidden {
		if got := mcp.Quote("at" + h + "tacker@evil.test"); got != `"attacker@evil.test"` {
			t.Errorf("%+q: %q", h, got)
		}
	}
	if got := mcp.Quote("a\nb\tc\"d é 日本 ✓"); got != `"a b c'd é 日本 ✓"` {
		t.Errorf("visible text changed: %q", got)
	}
	long := strings.Repeat("a", 100) + "@attacker.example"
	got := mcp.Quote(long)
	if !strings.HasSuffix(got, `@attacker.example" (45 characters not shown)`) || !strings.HasPrefix(got, `"aaaa`) {
		t.Errorf("long value: %q", got)
	}
	if got := mcp.Quote(strings.Repeat("b", 80)); got != `"`+strings.Repeat("b", 80)+`"` {
		t.Errorf("80 characters are shown whole: %q", got)
	}
}

func TestQuoteList(t *testing.T) {
	t.Parallel()
	senders := []string{"a@x.test", "b@x.test", "c@x.test", "d@x.test", "attacker@evil.test"}
	if got := mcp.QuoteList(senders, 10); got != `"a@x.test", "b@x.test", "c@x.test", "d@x.test", "attacker@evil.test"` {
		t.Errorf("all: %q", got)
	}
	if got := mcp.QuoteList(senders, 3); got != `"a@x.test", "b@x.test", "c@x.test" and 2 more, not shown` {
		t.Errorf("cut: %q", got)
	}
	if got := mcp.QuoteList(nil, 3); got != "" {
		t.Errorf("empty: %q", got)
	}
}
