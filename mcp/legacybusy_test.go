package mcp_test

import (
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/mcp"
)

// TestLegacyInput_BusyConfirmationIsNotDeclined: a destructive call over
// the caller's bound of waiting calls is not asked, and says so: its
// outcome is confirmation_unavailable and retryable, not the
// confirmation_declined ("do not retry unless the user asks again") of a
// user who refused, and nothing runs. A tool's own question over the
// bound keeps its isError text. In the 2025 revisions with form
// elicitation.
func TestLegacyInput_BusyConfirmationIsNotDeclined(t *testing.T) {
	t.Parallel()
	for _, v := range []mcp.Version{mcp.Version20250618, mcp.Version20251125} {
		f := newLegacyFixture(t, mcp.LegacyInput{PerCaller: 1})
		session := sessionFor(t, f.a, tokAlice, v, `{"elicitation":{}}`)
		waiting := openCall(t, f.a, tokAlice, session, v, "purge")
		if q := waiting.next(t); q["method"] != "elicitation/create" {
			t.Fatalf("%s: %v", v, q)
		}
		m := openCall(t, f.a, tokAlice, session, v, "purge").next(t)
		text, isErr := resultText(t, m)
		sc, _ := m["result"].(map[string]any)["structuredContent"].(map[string]any)
		if !isErr || !strings.HasPrefix(text, "Not executed (confirmation_unavailable): ") || !strings.Contains(text, "try again later") ||
			strings.Contains(text, "Do not retry") || sc["outcome"] != "confirmation_unavailable" || sc["executed"] != false || sc["retryable"] != true {
			t.Errorf("%s: over the bound: %v", v, m)
		}
		text, isErr = resultText(t, openCall(t, f.a, tokAlice, session, v, "ask").next(t))
		if !isErr || !strings.Contains(text, "too many") {
			t.Errorf("%s: a tool's question over the bound: %q", v, text)
		}
		waiting.cancel()
		if n := f.executed.Load(); n != 0 {
			t.Errorf("%s: executed %d", v, n)
		}
	}
}
