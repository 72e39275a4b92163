package mcp

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/internal/seam"
)

// TestMemoryGuard: the two phases of the in-memory guard. A claim holds a
// lease; while it is live others wait; a lapsed lease is taken over; a
// completed confirmation answers its outcome until until; expired entries
// make room; a guard full of live confirmations refuses to decide rather
// than forget one.
func TestMemoryGuard(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	g := newMemoryGuard(3)
	g.now = func() time.Time { return now }
	ctx := context.Background()
	const lease = 10 * time.Second
	claim := func(nonce string, until time.Time) (string, []byte, error) {
		return g.Claim(ctx, "caller", []byte(nonce), until, lease)
	}
	tok, out, err := claim("a", now.Add(time.Minute))
	if tok == "" || out != nil || err != nil {
		t.Fatalf("first claim: %q %q %v", tok, out, err)
	}
	if tok2, out, _ := claim("a", now.Add(time.Minute)); tok2 != "" || out != nil {
		t.Fatalf("a claim during a live lease: %q %q", tok2, out)
	}
	// Renewed before it lapses, the lease holds past its first end.
	now = now.Add(8 * time.Second)
	if held, err := g.Renew(ctx, []byte("a"), tok, lease); !held || err != nil {
		t.Fatalf("renew: %v %v", held, err)
	}
	now = now.Add(8 * time.Second)
	if tok2, _, _ := claim("a", now.Add(time.Minute)); tok2 != "" {
		t.Fatal("a renewed lease was taken over")
	}
	if held, _ := g.Renew(ctx, []byte("a"), "other", lease); held {
		t.Fatal("a foreign token renewed the lease")
	}
	// The holder dies: its lease lapses and a retry takes it over.
	now = now.Add(lease + time.Second)
	tok2, out, _ := claim("a", now.Add(time.Minute))
	if tok2 == "" || tok2 == tok || out != nil {
		t.Fatalf("after the lease lapsed: %q %q", tok2, out)
	}
	// The first holder, back from the dead, neither renews nor records.
	if held, _ := g.Renew(ctx, []byte("a"), tok, lease); held {
		t.Fatal("a lapsed token renewed")
	}
	if err := g.Complete(ctx, []byte("a"), tok, []byte(`{"stale":true}`), now.Add(time.Minute), ""); err != nil {
		t.Fatal(err)
	}
	if err := g.Complete(ctx, []byte("a"), tok2, []byte(`{"executed":true}`), now.Add(time.Minute), ""); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if tok3, out, _ := claim("a", now.Add(time.Minute)); tok3 != "" || string(out) != `{"executed":true}` {
			t.Fatalf("after completion: %q %q", tok3, out)
		}
	}
	if held, _ := g.Renew(ctx, []byte("a"), tok2, lease); held {
		t.Fatal("a completed claim renewed")
	}
	// Exactly until: the state still opens, the outcome is still there.
	until := now.Add(time.Minute)
	now = until
	if _, out, _ := claim("a", until); out == nil {
		t.Fatal("the outcome was forgotten at until")
	}
	claim("b", now.Add(time.Hour))
	claim("c", now.Add(time.Hour))
	// a is live until now; the guard is full.
	if _, _, err := claim("d", now.Add(time.Hour)); err == nil {
		t.Fatal("a full guard decided")
	}
	now = now.Add(time.Second) // a has expired: room for d
	if tok, _, err := claim("d", now.Add(time.Hour)); tok == "" || err != nil {
		t.Fatalf("after expiry: %q %v", tok, err)
	}
	if len(g.used) != 3 || len(g.order) != 3 {
		t.Errorf("entries %d, order %d", len(g.used), len(g.order))
	}
	if _, _, err := claim("", now.Add(time.Hour)); err == nil {
		t.Error("an empty nonce was claimed")
	}
}

// TestMemoryGuard_LeaseOutlivesUntil: an entry whose lease runs past until
// is kept while the lease runs, so a live call's entry is not dropped and
// claimed again.
func TestMemoryGuard_LeaseOutlivesUntil(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	g := newMemoryGuard(10)
	g.now = func() time.Time { return now }
	ctx := context.Background()
	tok, _, _ := g.Claim(ctx, "caller", []byte("a"), now.Add(time.Second), time.Minute)
	now = now.Add(30 * time.Second)
	if tok2, out, _ := g.Claim(ctx, "caller", []byte("a"), now, time.Minute); tok2 != "" || out != nil {
		t.Fatalf("a live lease past until was dropped: %q %q", tok2, out)
	}
	if held, _ := g.Renew(ctx, []byte("a"), tok, time.Minute); !held {
		t.Fatal("the live lease could not be renewed")
	}
}

// TestAlreadyRan: the answer to a retry of a confirmation that ran reads
// the recorded summary, and nothing else of what storage returns.
func TestAlreadyRan(t *testing.T) {
	f := features{Profile: &seam.Profile{OutputSchema: true}} // a revision with structured results, as 2026-07-28
	at := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
	for _, tc := range []struct{ summary, text, structured string }{
		{outcomeSummary(204, false, false, at), "the tool ran and its service answered status 204 at 2026-12-01T15:00:00Z",
			`{"outcome":"confirmation_already_used","executed":true,"status":204,"at":"2026-12-01T15:00:00Z","retryable":false}`},
		{outcomeSummary(0, false, true, at), "the tool ran and failed with an internal error at 2026-12-01T15:00:00Z",
			`{"outcome":"confirmation_already_used","executed":true,"panicked":true,"at":"2026-12-01T15:00:00Z","retryable":false}`},
		// A function tool has no status: it returned, or returned an error.
		{outcomeSummary(0, false, false, at), "the tool ran at 2026-12-01T15:00:00Z",
			`{"outcome":"confirmation_already_used","executed":true,"at":"2026-12-01T15:00:00Z","retryable":false}`},
		{outcomeSummary(0, true, false, at), "the tool ran and reported an error at 2026-12-01T15:00:00Z",
			`{"outcome":"confirmation_already_used","executed":true,"failed":true,"at":"2026-12-01T15:00:00Z","retryable":false}`},
		{`{"executed":false}`, "the tool did not run.",
			`{"outcome":"confirmation_already_used","executed":false,"retryable":false}`},
		// A record the endpoint never writes says nothing of the run: the
		// answer says its outcome is unknown, never that the tool did
		// not run (executed is null).
		{`garbage`, "its outcome is not known (the record of it cannot be read), so the tool may or may not have run.",
			`{"outcome":"confirmation_already_used","executed":null,"retryable":false}`},
		{`{"executed":true,"status":99999,"x":"\u202e"}`, "its outcome is not known", `{"outcome":"confirmation_already_used","executed":null,"retryable":false}`},
		{`{"EXECUTED":true}`, "its outcome is not known", `{"outcome":"confirmation_already_used","executed":null,"retryable":false}`},
		{`{}`, "its outcome is not known", `{"outcome":"confirmation_already_used","executed":null,"retryable":false}`},
		{`{"executed":true,"executed":false}`, "its outcome is not known", `{"outcome":"confirmation_already_used","executed":null,"retryable":false}`},
	} {
		res := alreadyRan(f, []byte(tc.summary))
		if !res.isError || !strings.Contains(string(res.content), "Not executed again (confirmation_already_used)") || !strings.Contains(string(res.content), tc.text) {
			t.Errorf("%s: text %s", tc.summary, res.content)
		}
		if unknown := strings.Contains(tc.structured, `"executed":null`); unknown && strings.Contains(string(res.content), "did not run") {
			t.Errorf("%s: an unknown outcome said the tool did not run: %s", tc.summary, res.content)
		}
		// 2025-03-26 has no structuredContent: the text alone says it.
		if plain := alreadyRan(features{Profile: &seam.Profile{}}, []byte(tc.summary)); plain.structured != nil || string(plain.content) != string(res.content) {
			t.Errorf("%s without structured results: %s %s", tc.summary, plain.content, plain.structured)
		}
		if string(res.structured) != tc.structured {
			t.Errorf("%s: structured %s, want %s", tc.summary, res.structured, tc.structured)
		}
	}
}

// TestMemoryGuard_Release (design record 019, an interrupted call): a nil outcome releases the
// holder's lease at once, and only the holder's: the next claim takes the
// confirmation over with a new token; the released token neither renews
// nor records; an outcome is never released.
func TestMemoryGuard_Release(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	g := newMemoryGuard(10)
	g.now = func() time.Time { return now }
	ctx := context.Background()
	until, lease := now.Add(time.Minute), time.Minute
	tok, _, _ := g.Claim(ctx, "caller", []byte("a"), until, lease)
	g.Complete(ctx, []byte("a"), "other", nil, until, "")
	if tok2, _, _ := g.Claim(ctx, "caller", []byte("a"), until, lease); tok2 != "" {
		t.Fatal("a foreign release freed the lease")
	}
	g.Complete(ctx, []byte("a"), tok, nil, until, "call")
	tok2, out, err := g.Claim(ctx, "caller", []byte("a"), until, lease)
	if tok2 == "" || tok2 == tok || out != nil || err != nil {
		t.Fatalf("after the release: %q %q %v", tok2, out, err)
	}
	if held, _ := g.Renew(ctx, []byte("a"), tok, lease); held {
		t.Error("the released token renewed")
	}
	if out, _ := g.LastRun(ctx, "call"); out != nil {
		t.Errorf("a release kept a run: %q", out)
	}
	g.Complete(ctx, []byte("a"), tok, []byte(`{"stale":true}`), until, "")
	g.Complete(ctx, []byte("a"), tok2, []byte(`{"executed":true}`), until, "")
	g.Complete(ctx, []byte("a"), tok2, nil, until, "")
	if _, out, _ := g.Claim(ctx, "caller", []byte("a"), until, lease); string(out) != `{"executed":true}` {
		t.Errorf("outcome %q", out)
	}
	if g.owners["caller"] != 1 || len(g.used) != 1 {
		t.Errorf("counts: %v %d", g.owners, len(g.used))
	}
}

// TestMemoryGuard_LastRun (design record 025, the last run): a run is kept under its call
// for LastRunTTL, the latest replacing an earlier one (whoever held the
// lease: the route ran); an outcome with no call is no run. The record is
// bounded as the claims are: per caller its oldest go, and when full the
// caller holding the most loses its oldest, never a small caller.
func TestMemoryGuard_LastRun(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	g := newMemoryGuard(5)
	g.perOwner = 3
	g.now = func() time.Time { return now }
	ctx := context.Background()
	until, lease := now.Add(time.Hour), time.Minute
	n := 0
	run := func(owner, call, outcome string) {
		t.Helper()
		n++
		nonce := []byte(strconv.Itoa(n))
		tok, _, err := g.Claim(ctx, owner, nonce, until, lease)
		if err != nil {
			// The claims' own caps are not under test: make room.
			g.used, g.order, g.owners = map[string]*memoryClaim{}, nil, map[string]int{}
			tok, _, _ = g.Claim(ctx, owner, nonce, until, lease)
		}
		g.Complete(ctx, nonce, tok, []byte(outcome), until, call)
	}
	last := func(call string) string {
		out, err := g.LastRun(ctx, call)
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	run("alice", "c1", `{"executed":true,"status":200,"at":1}`)
	if got := last("c1"); got != `{"executed":true,"status":200,"at":1}` {
		t.Fatalf("c1: %q", got)
	}
	run("alice", "c1", `{"executed":true,"status":204,"at":2}`)
	if got := last("c1"); got != `{"executed":true,"status":204,"at":2}` || len(g.runOwners["alice"]) != 1 {
		t.Errorf("the latest run: %q, alice holds %v", got, g.runOwners["alice"])
	}
	// A completion that lost its lease still ran.
	tok, _, _ := g.Claim(ctx, "alice", []byte("x"), until, lease)
	g.Complete(ctx, []byte("x"), tok+"-taken-over", []byte(`{"executed":true,"at":3}`), until, "c2")
	if last("c2") == "" {
		t.Error("a run whose lease was taken over is not kept")
	}
	run("alice", "", `{"executed":false}`)
	if len(g.runs) != 2 {
		t.Errorf("runs %v", g.runs)
	}
	// alice's cap is 3: her oldest goes.
	run("alice", "c3", `{"executed":true}`)
	run("alice", "c4", `{"executed":true}`)
	if last("c1") != "" || last("c2") == "" || last("c4") == "" {
		t.Errorf("per caller: alice %v", g.runOwners["alice"])
	}
	// Full at 5: alice holds the most and loses her oldest; bob keeps his.
	run("bob", "b1", `{"executed":true}`)
	run("carol", "k1", `{"executed":true}`)
	run("carol", "k2", `{"executed":true}`)
	if len(g.runs) != 5 || last("c2") != "" || last("b1") == "" || last("k2") == "" {
		t.Errorf("full: %v", g.runOwners)
	}
	// Past LastRunTTL a run is gone, and expired runs make room first.
	now = now.Add(LastRunTTL + time.Second)
	if last("k2") != "" {
		t.Error("a run outlived LastRunTTL")
	}
	run("dave", "d1", `{"executed":true}`)
	if len(g.runs) != 1 || last("d1") == "" {
		t.Errorf("after expiry: %v", g.runOwners)
	}
}

// TestRanBefore: what a question says of a run read back from storage:
// when and how it went, from checked fields only; nothing for what is no
// run.
func TestRanBefore(t *testing.T) {
	at := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
	const head = "Note: this call, with the same arguments, already ran at 2026-12-01T15:00:00Z"
	const tail = ". Confirm only if it should run again."
	for _, tc := range []struct{ summary, want string }{
		{outcomeSummary(200, false, false, at), head + " and its service answered status 200" + tail},
		{outcomeSummary(0, false, false, at), head + tail},
		{outcomeSummary(0, true, false, at), head + " and reported an error" + tail},
		{outcomeSummary(0, false, true, at), head + " and failed with an internal error" + tail},
		{`{"executed":true}`, "Note: this call, with the same arguments, already ran" + tail},
		{`{"executed":true,"at":99999999999999}`, "Note: this call, with the same arguments, already ran" + tail},
		{`{"executed":false}`, ""},
		{`garbage`, ""},
		{`{"executed":true,"status":1000}`, ""},
		{"", ""},
	} {
		var summary []byte
		if tc.summary != "" {
			summary = []byte(tc.summary)
		}
		if got := ranBefore(summary); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.summary, got, tc.want)
		}
	}
}
