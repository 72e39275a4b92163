package mcp_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mrtr"
)

// TestLegacyInput_SecondAnswerRefused: on the in-process bus a second
// answer to a question is refused (400) even after the waiting call has
// read the first, while another question of the same round is pending;
// the tool runs once.
func TestLegacyInput_SecondAnswerRefused(t *testing.T) {
	ring := sessionRing(t, 7)
	srv := mcp.NewServer(mcp.Implementation{Name: "r", Version: "1"})
	ran := 0
	mcp.AddToolFunc(srv, mcp.Tool{Name: "ask2", Description: "Asks twice."},
		func(ctx context.Context, in struct{}) (map[string]any, error) {
			c := mcp.CallFromContext(ctx)
			if _, ok := c.Elicitation("a"); ok {
				ran++
				return map[string]any{"ok": true}, nil
			}
			s := json.RawMessage(`{"type":"object","properties":{"n":{"type":"string"}}}`)
			c.RequireInput([]byte("s1"), mcp.ElicitForm("a", "A?", s), mcp.ElicitForm("b", "B?", s))
			return nil, nil
		})
	a := auth.New(auth.Config{Resource: resourceURI, Verifier: auth.VerifierFunc(testVerifier)})
	url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(era2026.WithSealer(mrtr.NewSealer(ring))),
		era2025.New(era2025.WithSessions(mrtr.NewSealer(ring), 0))}, mcp.WithAuth(a), mcp.WithLegacyInput(mcp.LegacyInput{})))
	v := mcp.Version20250618
	session := sessionFor(t, url, tokAlice, v, `{"elicitation":{}}`)
	s := openCall(t, url, tokAlice, session, v, "ask2")
	q1 := s.next(t)
	q2 := s.next(t)
	acc := `{"action":"accept","content":{"n":"x"}}`
	if got := answer(t, url, tokAlice, q1["id"], acc); got != 202 {
		t.Fatalf("first answer: %d, want 202", got)
	}
	if got := answer(t, url, tokAlice, q1["id"], acc); got != 400 {
		t.Fatalf("second answer to the same question: %d, want 400", got)
	}
	if got := answer(t, url, tokAlice, q2["id"], acc); got != 202 {
		t.Fatalf("answer to the other question: %d, want 202", got)
	}
	if text, _ := resultText(t, s.next(t)); ran != 1 {
		t.Fatalf("the tool ran %d times (%q), want once", ran, text)
	}
}
