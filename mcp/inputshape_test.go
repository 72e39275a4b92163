package mcp_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mrtr"
)

// TestInputResponses_AnswerMatchesItsKind: an answer under a key the
// state asked is checked against the result that kind of request has (a
// form's values, a CreateMessageResult, a ListRootsResult) before the
// handler runs; one that is not is -32602 naming the key, in-band, and a
// well-formed one reaches the handler.
func TestInputResponses_AnswerMatchesItsKind(t *testing.T) {
	t.Parallel()
	s := newMRTRServer(t, mrtrConfig{})
	sampled := asInterim(t, rt{name: "sample", caps: `{"sampling":{}}`}.send(t, s.url))
	asked := asInterim(t, rt{name: "ask_name", caps: formCaps}.send(t, s.url))
	loginCaps := `{"elicitation":{"url":{}},"roots":{}}`
	rooted := asInterim(t, rt{name: "login", caps: loginCaps}.send(t, s.url))
	retry := map[string]rt{
		"s":     {id: 2, name: "sample", caps: `{"sampling":{}}`, state: quoteJSON(sampled.RequestState)},
		"name":  {id: 2, name: "ask_name", caps: formCaps, state: quoteJSON(asked.RequestState)},
		"roots": {id: 2, name: "login", caps: loginCaps, state: quoteJSON(rooted.RequestState)},
	}
	bad := []struct{ key, answer string }{
		{"s", `{"role":"assistant","content":{"type":"text","text":"Paris"}}`},
		{"s", `{"role":"assistant","content":{"type":"text","text":"Paris"},"model":7}`},
		{"s", `{"role":"model","content":{"type":"text","text":"Paris"},"model":"m"}`},
		{"s", `{"content":{"type":"text","text":"Paris"},"model":"m"}`},
		{"roots", `{"roots":[1]}`},
		{"roots", `{"roots":[{"name":"home"}]}`},
		{"roots", `{"roots":[{"uri":7}]}`},
		{"roots", `{"roots":[{"uri":"file:///ok"},{"uri":"https://localhost/x"}]}`},
		{"name", `{"action":"accept","content":{"name":{"first":"Ada"}}}`},
		{"name", `{"action":"accept","content":{"name":[1,2]}}`},
		{"name", `{"action":"accept","content":{"name":null}}`},
	}
	for _, c := range bad {
		r := retry[c.key]
		r.responses = `{` + quoteJSON(c.key) + `:` + c.answer + `}`
		got := r.send(t, s.url)
		if got.status != 200 || got.code() != -32602 || got.msg.Error.Message != "Invalid inputResponses" ||
			string(got.msg.Error.Data) != `{"key":`+quoteJSON(c.key)+`,"reason":"invalid_input_responses"}` {
			t.Errorf("%s: %s: %d %s", c.key, c.answer, got.status, got.raw)
		}
	}
	// Well-formed answers of every kind reach the handler.
	r := retry["s"]
	r.responses = `{"s":{"role":"assistant","content":[{"type":"text","text":"Paris"}],"model":"m","stopReason":"endTurn"}}`
	if res := asResult(t, r.send(t, s.url)); res.IsError || !strings.Contains(res.Content[0].Text, "Paris") {
		t.Errorf("sampling: %+v", res)
	}
	r = retry["name"]
	r.responses = `{"name":{"action":"accept","content":{"name":"Ada","age":36,"tall":true,"langs":["go","c"]}}}`
	if res := asResult(t, r.send(t, s.url)); res.IsError || !strings.Contains(res.Content[0].Text, "Hello Ada") {
		t.Errorf("elicitation: %+v", res)
	}
	r = retry["roots"]
	r.responses = `{"roots":{"roots":[{"uri":"file:///home/ada","name":"home"}]}}`
	asInterim(t, r.send(t, s.url)) // the login tool always asks again
	r.responses = `{"roots":{"roots":[{"uri":"FILE:///home/ada"}]}}`
	asInterim(t, r.send(t, s.url))
	r.responses = `{"roots":{"roots":[]}}`
	asInterim(t, r.send(t, s.url))
}

// TestLegacyInput_AnswerMatchesItsKind: a 2025 client's answer to a
// question on its stream is checked as a 2026-07-28 retry's is: a
// sampling answer without its model never reaches the handler, in every
// 2025 revision that can sample.
func TestLegacyInput_AnswerMatchesItsKind(t *testing.T) {
	t.Parallel()
	f := newLegacyFixture(t, mcp.LegacyInput{})
	for _, v := range []mcp.Version{mcp.Version20250326, mcp.Version20250618, mcp.Version20251125} {
		session := sessionFor(t, f.a, tokAlice, v, `{"sampling":{}}`)
		s := openCall(t, f.a, tokAlice, session, v, "summarize")
		q := s.next(t)
		if q["method"] != "sampling/createMessage" {
			t.Fatalf("%s: question %v", v, q)
		}
		if got := answer(t, f.b, tokAlice, q["id"], `{"role":"assistant","content":{"type":"text","text":"done"}}`); got != 202 {
			t.Fatalf("%s: answer %d", v, got)
		}
		m := s.next(t)
		e, _ := m["error"].(map[string]any)
		if e == nil || e["code"] != float64(-32602) || e["message"] != "Invalid inputResponses" {
			t.Errorf("%s: %v", v, m)
		}
		select {
		case got := <-f.answers:
			t.Errorf("%s: the handler ran with %s", v, got)
		default:
		}
	}
}

// TestElicitation_ContentOnlyWhenAccepted: Call.Elicitation gives the
// form's values only with accept; a decline or cancel that carries
// content anyway (the schema says content is for accept) gives none, so a
// handler that reads Content never acts on a form the user refused.
func TestElicitation_ContentOnlyWhenAccepted(t *testing.T) {
	t.Parallel()
	f := newLegacyFixture(t, mcp.LegacyInput{})
	alice := map[string]string{"Authorization": "Bearer " + tokAlice}
	for _, action := range []string{"decline", "cancel", "accept"} {
		reply := `{"action":"` + action + `","content":{"n":"Ann"}}`
		want := action + ` {"n":"Ann"} state=s1`
		if action != "accept" {
			want = action + "  state=s1"
		}
		// 2026-07-28: a retry carrying the answer.
		in := asInterim(t, rt{name: "ask", args: `{}`, caps: formCaps, header: alice}.send(t, f.a))
		asResult(t, rt{id: 2, name: "ask", args: `{}`, caps: formCaps, header: alice, state: quoteJSON(in.RequestState),
			responses: `{"name":` + reply + `}`}.send(t, f.a))
		if got := <-f.answers; got != want {
			t.Errorf("2026-07-28 %s: the handler saw %q, want %q", action, got, want)
		}
		// 2025: the answer to the question on the stream.
		for _, v := range []mcp.Version{mcp.Version20250618, mcp.Version20251125} {
			session := sessionFor(t, f.a, tokAlice, v, `{"elicitation":{}}`)
			s := openCall(t, f.a, tokAlice, session, v, "ask")
			q := s.next(t)
			if got := answer(t, f.b, tokAlice, q["id"], reply); got != 202 {
				t.Fatalf("%s %s: answer %d", v, action, got)
			}
			s.next(t)
			if got := <-f.answers; got != want {
				t.Errorf("%s %s: the handler saw %q, want %q", v, action, got, want)
			}
		}
	}
}

// TestMRTR_StateOpensForItsWholeTTL: a requestState minted between two
// whole seconds opens until its TTL has passed, and is refused after: a
// host with a one-second TTL and no skew got the invalid-state error for
// a retry sent half a second after the round it answered.
func TestMRTR_StateOpensForItsWholeTTL(t *testing.T) {
	t.Parallel()
	clk := &fakeClock{t: time.Unix(2_000_000_000, 900_000_000)}
	s := newMRTRServer(t, mrtrConfig{sealer: mrtr.NewSealer(ring(t, "k1"), mrtr.WithClock(clk.now), mrtr.WithTTL(time.Second), mrtr.WithSkew(0))})
	in := asInterim(t, rt{name: "ask_name", caps: formCaps}.send(t, s.url))
	retry := rt{id: 2, name: "ask_name", caps: formCaps, state: quoteJSON(in.RequestState), responses: `{"name":{"action":"accept","content":{"name":"Ada"}}}`}
	clk.advance(500 * time.Millisecond)
	if res := asResult(t, retry.send(t, s.url)); res.IsError || !strings.Contains(res.Content[0].Text, "Hello Ada") {
		t.Errorf("half the TTL on: %+v", res)
	}
	clk.advance(500 * time.Millisecond) // the TTL, to the nanosecond
	asResult(t, retry.send(t, s.url))
	clk.advance(time.Second)
	checkInvalidState(t, retry.send(t, s.url))
}

// TestLegacyInput_KeptCallStaysItsRound: a handler may keep its Call
// beyond the request. The 2025 ask loop runs the handler again with the
// answer; that run gets a Call of its own, so one kept from the first
// round still says what it said then (no answer, no state) and is never
// written under a goroutine that reads it.
func TestLegacyInput_KeptCallStaysItsRound(t *testing.T) {
	t.Parallel()
	f := newLegacyFixture(t, mcp.LegacyInput{})
	for _, v := range []mcp.Version{mcp.Version20250618, mcp.Version20251125} {
		session := sessionFor(t, f.a, tokAlice, v, `{"elicitation":{}}`)
		s := openCall(t, f.a, tokAlice, session, v, "keep")
		q := s.next(t)
		if got := answer(t, f.b, tokAlice, q["id"], `{"action":"accept","content":{"n":"Ann"}}`); got != 202 {
			t.Fatalf("%s: answer %d", v, got)
		}
		s.next(t)
		if got, want := <-f.answers, `first round's Call answered=false state=""`; got != want {
			t.Errorf("%s: %s, want %s", v, got, want)
		}
	}
}
