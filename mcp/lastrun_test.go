package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mrtr"
)

// question is the message of a confirmation's elicitation.
func question(t *testing.T, in interim) string {
	t.Helper()
	var q struct {
		Params struct{ Message string }
	}
	if err := json.Unmarshal(in.InputRequests["confirm"], &q); err != nil || q.Params.Message == "" {
		t.Fatalf("no question: %s", in.InputRequests["confirm"])
	}
	return q.Params.Message
}

var ranNote = regexp.MustCompile(`^Note: this call, with the same arguments, already ran at 20\d\d-\d\d-\d\dT\d\d:\d\d:\d\dZ and its service answered status 200\. ` +
	`Confirm only if it should run again\. Confirm "Delete an item": `)

// TestLastRun_Question (design record 025, the last run): once a confirmed call ran, the
// next question for the same call — a new confirmation, as a 2025 client
// asks after a lost stream, or a model calling again — says when it ran
// and what its route answered, so the user decides knowing it; the
// question of another call (other arguments, as written differently or
// not) says nothing of it. A shared guard (Redis's) does the same for
// every replica.
func TestLastRun_Question(t *testing.T) {
	t.Parallel()
	keys := ring(t, "k1")
	shared := mcp.NewMemoryGuardForTest(100)
	a := newMRTRServer(t, mrtrConfig{sealer: mrtr.NewSealer(keys), guard: struct{ mcp.ReplayGuard }{shared}})
	b := newMRTRServer(t, mrtrConfig{sealer: mrtr.NewSealer(keys), guard: struct{ mcp.ReplayGuard }{shared}, shared: a})
	first := confirmRound1(t, a.url, "delete_item", "x")
	if q := question(t, first); strings.HasPrefix(q, "Note:") {
		t.Fatalf("a first question: %q", q)
	}
	if res := asResult(t, confirmRound2("", "delete_item", "x", first.RequestState, accept).send(t, a.url)); res.IsError {
		t.Fatalf("the confirmed call: %+v", res)
	}
	again := confirmRound1(t, b.url, "delete_item", "x")
	if q := question(t, again); !ranNote.MatchString(q) {
		t.Errorf("the next question on another replica: %q", q)
	}
	// The same arguments written another way are the same call.
	spaced := asInterim(t, rt{name: "delete_item", args: `{ "id" : "x" }`, caps: formCaps}.send(t, a.url))
	if q := question(t, spaced); !ranNote.MatchString(q) {
		t.Errorf("the same arguments, spaced: %q", q)
	}
	if q := question(t, confirmRound1(t, a.url, "delete_item", "y")); strings.HasPrefix(q, "Note:") {
		t.Errorf("another call's question: %q", q)
	}
	// The user confirms again, knowing: it runs (a new confirmation).
	if res := asResult(t, confirmRound2("", "delete_item", "x", again.RequestState, accept).send(t, b.url)); res.IsError {
		t.Errorf("confirmed again: %+v", res)
	}
	if n := a.executed.Load(); n != 2 {
		t.Errorf("ran %d times, want 2", n)
	}
}

// TestLastRun_DefaultGuard: the in-memory guard keeps the record for its
// process; without a guard there is none, and nothing is said.
func TestLastRun_DefaultGuard(t *testing.T) {
	t.Parallel()
	s := newMRTRServer(t, mrtrConfig{})
	in := confirmRound1(t, s.url, "delete_item", "x")
	asResult(t, confirmRound2("", "delete_item", "x", in.RequestState, accept).send(t, s.url))
	if q := question(t, confirmRound1(t, s.url, "delete_item", "x")); !ranNote.MatchString(q) {
		t.Errorf("with the default guard: %q", q)
	}
	off := newMRTRServer(t, mrtrConfig{handler: []mcp.HandlerOption{mcp.WithoutReplayGuard("the route deduplicates")}})
	in = confirmRound1(t, off.url, "delete_item", "x")
	asResult(t, confirmRound2("", "delete_item", "x", in.RequestState, accept).send(t, off.url))
	if q := question(t, confirmRound1(t, off.url, "delete_item", "x")); strings.HasPrefix(q, "Note:") {
		t.Errorf("without a guard: %q", q)
	}
}

// downGuard cannot answer LastRun (Redis down).
type downGuard struct{ mcp.ReplayGuard }

func (downGuard) LastRun(context.Context, string) ([]byte, error) {
	return nil, errors.New("i/o timeout")
}

// TestLastRun_GuardDown: when the guard cannot say whether the call ran,
// nothing is asked (503, as a Claim that fails), rather than a question
// the user would answer without knowing.
func TestLastRun_GuardDown(t *testing.T) {
	t.Parallel()
	s := newMRTRServer(t, mrtrConfig{guard: downGuard{mcp.NewMemoryGuardForTest(10)}})
	r := rt{name: "delete_item", args: `{"id":"x"}`, caps: formCaps}.send(t, s.url)
	if r.status != http.StatusServiceUnavailable || errorReason(r) != "replay_guard_unavailable" || r.header.Get("Retry-After") == "" {
		t.Errorf("%d %s", r.status, r.raw)
	}
	if !strings.Contains(s.log.String(), "mcp: replay guard failed") {
		t.Errorf("log:\n%s", s.log)
	}
}

// TestLegacyInput_LostStream (design record 025, the last run): a 2025 client's stream is
// lost after the tool ran (the client never reads the result); it calls
// again, and the new question — another confirmation, with another key —
// says that the call already ran, so the user decides knowing it.
func TestLegacyInput_LostStream(t *testing.T) {
	t.Parallel()
	f := newLegacyFixture(t, mcp.LegacyInput{})
	v := mcp.Version20250618
	session := sessionFor(t, f.a, tokAlice, v, `{"elicitation":{}}`)
	s := openCall(t, f.a, tokAlice, session, v, "purge")
	q := s.next(t)
	if msg := q["params"].(map[string]any)["message"].(string); strings.HasPrefix(msg, "Note:") {
		t.Fatalf("the first question: %q", msg)
	}
	if got := answer(t, f.a, tokAlice, q["id"], acceptConfirm); got != 202 {
		t.Fatalf("answer: %d", got)
	}
	<-f.idemKeys // the tool ran
	s.cancel()   // and the stream is lost before its result is read
	deadline := time.Now().Add(5 * time.Second)
	var msg string
	for {
		again := openCall(t, f.a, tokAlice, session, v, "purge")
		msg = again.next(t)["params"].(map[string]any)["message"].(string)
		again.cancel()
		// The first call records its run once its tool returned, which
		// the test only knows happened.
		if strings.HasPrefix(msg, "Note:") || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	want := regexp.MustCompile(`^Note: this call, with the same arguments, already ran at 20\d\d-\d\d-\d\dT\d\d:\d\d:\d\dZ\. Confirm only if it should run again\. Confirm "purge": `)
	if !want.MatchString(msg) {
		t.Errorf("the next question: %q", msg)
	}
	// Another replica's in-memory guard knows nothing of it (the README
	// says so: replicas share Redis for this).
	other := openCall(t, f.b, tokAlice, sessionFor(t, f.b, tokAlice, v, `{"elicitation":{}}`), v, "purge")
	if msg := other.next(t)["params"].(map[string]any)["message"].(string); strings.HasPrefix(msg, "Note:") {
		t.Errorf("another process's question: %q", msg)
	}
	other.cancel()
	if n := f.executed.Load(); n != 1 {
		t.Errorf("executed %d times, want 1", n)
	}
}
