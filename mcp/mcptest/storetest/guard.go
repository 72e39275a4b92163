package storetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"sync"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/mcp"
)

// Intervals of the suite, chosen so that a slow machine cannot make a
// check flake: what must lapse is given shortLease and looked at after
// lapse has passed, what must hold is given longLease.
const (
	shortLease = 50 * time.Millisecond
	lapse      = 4 * shortLease
	longLease  = 10 * time.Minute
	// renewFrom is the lease a renewal test starts from: the renewal
	// itself must land within it, so it is seconds, not milliseconds.
	renewFrom = 3 * time.Second
)

// ReplayGuard runs the contract of mcp.ReplayGuard against the guards
// open returns, one new store per subtest (the subtests run in parallel):
//
//   - single use: the first Claim of a nonce holds its lease; others,
//     whatever their caller key, get neither token nor outcome while it
//     lives; after Complete every Claim, on any replica, gets the outcome;
//     concurrent Claims grant one lease; an empty nonce is an error.
//   - lease: Renew extends it for its holder only, and not after it
//     lapsed; a lapsed lease is taken over with a new token, and the late
//     holder neither renews nor overwrites the new holder's live lease.
//   - Complete: an outcome replaces the holder's lease, never another's
//     live lease or an outcome; a nil outcome releases the holder's lease
//     (the next Claim runs at once) and records no run; a foreign token
//     changes nothing.
//   - until: an outcome is remembered at least until the later of the
//     Claim's and the Complete's until, and a lease holds while it lives
//     even past until.
//   - last run: Complete with a call keeps the outcome under it, read by
//     LastRun on any replica, the latest replacing an earlier one whoever
//     held the lease; no run for a nil outcome, another call or "" ; and,
//     with a controlled clock, kept for mcp.LastRunTTL and not after.
//   - nonces and calls are independent of each other.
func ReplayGuard(t *testing.T, open func(t *testing.T) Fleet[mcp.ReplayGuard]) {
	t.Helper()
	ctx := context.Background()
	run := func(name string, f func(t *testing.T, fl Fleet[mcp.ReplayGuard], clock Clock, controlled bool)) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fl := open(t)
			clock, controlled := check(t, fl)
			f(t, fl, clock, controlled)
		})
	}

	run("SingleUse", func(t *testing.T, fl Fleet[mcp.ReplayGuard], clock Clock, _ bool) {
		a, b := replica(fl, 0), replica(fl, 1)
		n, until := newNonce(), clock.Now().Add(time.Hour)
		tok := mustClaim(t, a, "alice", n, until, longLease)
		for _, caller := range []string{"alice", "bob", ""} {
			wantNeither(t, "a claim by "+quote(caller)+" during the live lease", b, caller, n, until)
		}
		complete(t, a, n, tok, `{"executed":true,"status":200}`, until, "")
		for i := range 2 * len(fl.Replicas) {
			wantOutcome(t, "a claim after completion", replica(fl, i), []string{"alice", "bob"}[i%2], n, until, `{"executed":true,"status":200}`)
		}
		if held, err := a.Renew(ctx, n, tok, longLease); held || err != nil {
			t.Errorf("Renew of a completed confirmation: held %v, err %v; want false, nil", held, err)
		}
		if tok, out, err := a.Claim(ctx, "alice", nil, until, longLease); err == nil {
			t.Errorf("Claim of an empty nonce: token %q, outcome %q, no error", tok, out)
		}
	})

	run("ConcurrentClaims", func(t *testing.T, fl Fleet[mcp.ReplayGuard], clock Clock, _ bool) {
		n, until := newNonce(), clock.Now().Add(time.Hour)
		var mu sync.Mutex
		var tokens []string
		var wg sync.WaitGroup
		for i := range 24 {
			wg.Go(func() {
				tok, out, err := replica(fl, i).Claim(ctx, "alice", n, until, longLease)
				if err != nil || out != nil {
					t.Errorf("racing Claim: outcome %q, err %v", out, err)
				}
				if tok != "" {
					mu.Lock()
					tokens = append(tokens, tok)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if len(tokens) != 1 {
			t.Errorf("%d of 24 racing Claims of one nonce hold its lease, want 1", len(tokens))
		}
	})

	run("RenewByHolder", func(t *testing.T, fl Fleet[mcp.ReplayGuard], clock Clock, _ bool) {
		a, b := replica(fl, 0), replica(fl, 1)
		n, until := newNonce(), clock.Now().Add(time.Hour)
		tok := mustClaim(t, a, "alice", n, until, renewFrom)
		if held, err := b.Renew(ctx, n, "not-"+tok, longLease); held || err != nil {
			t.Errorf("Renew with a foreign token: held %v, err %v; want false, nil", held, err)
		}
		if held, err := b.Renew(ctx, n, tok, longLease); !held || err != nil {
			t.Fatalf("Renew by the holder, on another replica: held %v, err %v; want true, nil", held, err)
		}
		clock.Sleep(renewFrom + lapse)
		wantNeither(t, "a claim past the first lease's end, after a renewal", a, "alice", n, until)
		if held, err := a.Renew(ctx, n, tok, longLease); !held || err != nil {
			t.Errorf("a second Renew by the holder: held %v, err %v; want true, nil", held, err)
		}
		if held, err := a.Renew(ctx, newNonce(), tok, longLease); held || err != nil {
			t.Errorf("Renew of a nonce nobody claimed: held %v, err %v; want false, nil", held, err)
		}
	})

	run("LeaseLapses", func(t *testing.T, fl Fleet[mcp.ReplayGuard], clock Clock, _ bool) {
		a, b := replica(fl, 0), replica(fl, 1)
		n, until := newNonce(), clock.Now().Add(time.Hour)
		dead := mustClaim(t, a, "alice", n, until, shortLease)
		clock.Sleep(lapse)
		// The holder died: nobody renewed, and the lease is no longer its.
		if held, err := a.Renew(ctx, n, dead, longLease); held || err != nil {
			t.Errorf("Renew of a lapsed lease: held %v, err %v; want false, nil", held, err)
		}
		tok := mustClaim(t, b, "alice", n, until, longLease)
		if tok == dead {
			t.Fatalf("the takeover got the lapsed holder's token %q", tok)
		}
		// Back from the dead, the first holder changes nothing.
		if held, err := a.Renew(ctx, n, dead, longLease); held || err != nil {
			t.Errorf("Renew by the lapsed holder after a takeover: held %v, err %v; want false, nil", held, err)
		}
		complete(t, a, n, dead, `{"late":true}`, until, "")
		wantNeither(t, "a claim after the lapsed holder completed over the new live lease", a, "alice", n, until)
		complete(t, a, n, dead, "", until, "")
		wantNeither(t, "a claim after the lapsed holder released the new live lease", b, "alice", n, until)
		complete(t, b, n, tok, `{"executed":true}`, until, "")
		wantOutcome(t, "a claim after the new holder completed", a, "alice", n, until, `{"executed":true}`)
	})

	run("Complete", func(t *testing.T, fl Fleet[mcp.ReplayGuard], clock Clock, _ bool) {
		a, b := replica(fl, 0), replica(fl, 1)
		n, until := newNonce(), clock.Now().Add(time.Hour)
		tok := mustClaim(t, a, "alice", n, until, longLease)
		complete(t, b, n, "not-"+tok, `{"forged":true}`, until, "")
		wantNeither(t, "a claim after a foreign token completed", b, "alice", n, until)
		complete(t, b, n, "not-"+tok, "", until, "")
		wantNeither(t, "a claim after a foreign token released", b, "alice", n, until)
		complete(t, b, n, tok, `{"executed":true,"status":204}`, until, "")
		// An outcome is final: neither a second outcome nor a release by
		// its holder changes it.
		complete(t, a, n, tok, `{"executed":true,"status":500}`, until, "")
		complete(t, a, n, tok, "", until, "")
		wantOutcome(t, "a claim after later Completes of a recorded confirmation", a, "bob", n, until, `{"executed":true,"status":204}`)
	})

	run("Release", func(t *testing.T, fl Fleet[mcp.ReplayGuard], clock Clock, _ bool) {
		a, b := replica(fl, 0), replica(fl, 1)
		n, until := newNonce(), clock.Now().Add(time.Hour)
		call := callName("released")
		tok := mustClaim(t, a, "alice", n, until, longLease)
		// Interrupted: no outcome, so no run, and the lease is free now,
		// not when it would have lapsed.
		complete(t, a, n, tok, "", until, call)
		tok2 := mustClaim(t, b, "alice", n, until, longLease)
		if tok2 == tok {
			t.Errorf("the claim after a release got the released token %q", tok)
		}
		if held, err := a.Renew(ctx, n, tok, longLease); held || err != nil {
			t.Errorf("Renew of a released token: held %v, err %v; want false, nil", held, err)
		}
		if out, err := b.LastRun(ctx, call); out != nil || err != nil {
			t.Errorf("LastRun after a release: %q, %v; want no run", out, err)
		}
		// The released holder cannot take back the new holder's lease.
		complete(t, a, n, tok, `{"stale":true}`, until, "")
		wantNeither(t, "a claim after the released holder completed", a, "alice", n, until)
		complete(t, b, n, tok2, `{"executed":true}`, until, "")
		wantOutcome(t, "a claim after the second holder completed", a, "alice", n, until, `{"executed":true}`)
	})

	run("EmptyOutcomeReleases", func(t *testing.T, fl Fleet[mcp.ReplayGuard], clock Clock, _ bool) {
		a, b := replica(fl, 0), replica(fl, 1)
		n, until := newNonce(), clock.Now().Add(time.Hour)
		call := callName("empty")
		tok := mustClaim(t, a, "alice", n, until, longLease)
		// An empty, non-nil outcome is no outcome either: every guard
		// reads it as a release, never as a recorded result.
		if err := a.Complete(ctx, n, tok, []byte{}, until, call); err != nil {
			t.Fatalf("Complete: %v", err)
		}
		if tok2 := mustClaim(t, b, "alice", n, until, longLease); tok2 == tok {
			t.Errorf("the claim after an empty outcome got the released token %q", tok)
		}
		if out, err := b.LastRun(ctx, call); out != nil || err != nil {
			t.Errorf("LastRun after an empty outcome: %q, %v; want no run", out, err)
		}
	})

	run("Until", func(t *testing.T, fl Fleet[mcp.ReplayGuard], clock Clock, _ bool) {
		a, b := replica(fl, 0), replica(fl, 1)
		// Complete's until outlives the Claim's: the outcome is kept to
		// the later one.
		n := newNonce()
		tok := mustClaim(t, a, "alice", n, clock.Now().Add(shortLease), longLease)
		complete(t, a, n, tok, `{"executed":true}`, clock.Now().Add(time.Hour), "")
		clock.Sleep(lapse)
		wantOutcome(t, "a claim past the Claim's until, before the Complete's", b, "alice", n, clock.Now().Add(time.Hour), `{"executed":true}`)
		// A lease holds while it lives, even once until has passed.
		late := newNonce()
		mustClaim(t, a, "alice", late, clock.Now().Add(-time.Second), longLease)
		clock.Sleep(lapse)
		wantNeither(t, "a claim during a live lease whose until has passed", b, "alice", late, clock.Now())
	})

	run("LastRun", func(t *testing.T, fl Fleet[mcp.ReplayGuard], clock Clock, controlled bool) {
		a, b := replica(fl, 0), replica(fl, 1)
		until := clock.Now().Add(time.Hour)
		call, other := callName("ran"), callName("other")
		for _, c := range []string{call, ""} {
			if out, err := b.LastRun(ctx, c); out != nil || err != nil {
				t.Errorf("LastRun(%q) before any run: %q, %v; want nil, nil", c, out, err)
			}
		}
		n := newNonce()
		tok := mustClaim(t, a, "alice", n, until, longLease)
		complete(t, a, n, tok, `{"executed":true,"status":200,"at":1}`, until, call)
		wantRun(t, "after a run, on another replica", b, call, `{"executed":true,"status":200,"at":1}`)
		wantRun(t, "another call", a, other, "")
		// A second confirmation of the same call: its run replaces the
		// first, even though its lease was taken over (it ran all the
		// same).
		n2 := newNonce()
		tok2 := mustClaim(t, b, "alice", n2, until, longLease)
		complete(t, b, n2, "not-"+tok2, `{"executed":true,"status":204,"at":2}`, until, call)
		wantRun(t, "after a second run whose lease was taken over", a, call, `{"executed":true,"status":204,"at":2}`)
		// An outcome with no call is no run.
		n3 := newNonce()
		tok3 := mustClaim(t, a, "alice", n3, until, longLease)
		complete(t, a, n3, tok3, `{"executed":false}`, until, "")
		wantRun(t, "after an outcome with no call", b, call, `{"executed":true,"status":204,"at":2}`)
		if !controlled {
			return // the store's own tests check the time-to-live it sets
		}
		clock.Sleep(mcp.LastRunTTL - time.Second)
		wantRun(t, "just before LastRunTTL", b, call, `{"executed":true,"status":204,"at":2}`)
		clock.Sleep(2 * time.Second)
		wantRun(t, "past LastRunTTL", b, call, "")
	})

	run("Independent", func(t *testing.T, fl Fleet[mcp.ReplayGuard], clock Clock, _ bool) {
		a, b := replica(fl, 0), replica(fl, 1)
		until := clock.Now().Add(time.Hour)
		n1, n2 := newNonce(), newNonce()
		t1 := mustClaim(t, a, "alice", n1, until, longLease)
		t2 := mustClaim(t, b, "alice", n2, until, longLease)
		if t1 == t2 {
			t.Errorf("two nonces got one token %q", t1)
		}
		complete(t, a, n1, t1, `{"executed":true,"n":1}`, until, callName("one"))
		wantNeither(t, "the other nonce, after the first completed", a, "alice", n2, until)
		complete(t, b, n2, t2, `{"executed":true,"n":2}`, until, callName("two"))
		wantOutcome(t, "the first nonce", b, "alice", n1, until, `{"executed":true,"n":1}`)
		wantOutcome(t, "the second nonce", a, "alice", n2, until, `{"executed":true,"n":2}`)
		wantRun(t, "the first call", b, callName("one"), `{"executed":true,"n":1}`)
		wantRun(t, "the second call", a, callName("two"), `{"executed":true,"n":2}`)
	})
}

func newNonce() []byte {
	b := make([]byte, 16)
	rand.Read(b)
	return b
}

// callName is a call's name as the endpoint makes them: 43 URL-safe
// characters (a base64url SHA-256).
func callName(seed string) string {
	sum := sha256.Sum256([]byte(seed))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

func quote(caller string) string {
	if caller == "" {
		return "no caller"
	}
	return "caller " + caller
}

func mustClaim(t *testing.T, g mcp.ReplayGuard, caller string, n []byte, until time.Time, lease time.Duration) string {
	t.Helper()
	tok, out, err := g.Claim(context.Background(), caller, n, until, lease)
	if tok == "" || out != nil || err != nil {
		t.Fatalf("Claim: token %q, outcome %q, err %v; want a token", tok, out, err)
	}
	return tok
}

func wantNeither(t *testing.T, what string, g mcp.ReplayGuard, caller string, n []byte, until time.Time) {
	t.Helper()
	if tok, out, err := g.Claim(context.Background(), caller, n, until, longLease); tok != "" || out != nil || err != nil {
		t.Errorf("%s: token %q, outcome %q, err %v; want neither (another call holds the lease)", what, tok, out, err)
	}
}

func wantOutcome(t *testing.T, what string, g mcp.ReplayGuard, caller string, n []byte, until time.Time, want string) {
	t.Helper()
	if tok, out, err := g.Claim(context.Background(), caller, n, until, longLease); tok != "" || !bytes.Equal(out, []byte(want)) || err != nil {
		t.Errorf("%s: token %q, outcome %q, err %v; want the outcome %s", what, tok, out, err, want)
	}
}

// complete calls Complete; outcome "" is nil (a release).
func complete(t *testing.T, g mcp.ReplayGuard, n []byte, tok, outcome string, until time.Time, call string) {
	t.Helper()
	var o []byte
	if outcome != "" {
		o = []byte(outcome)
	}
	if err := g.Complete(context.Background(), n, tok, o, until, call); err != nil {
		t.Fatalf("Complete: %v", err)
	}
}

// wantRun checks LastRun; want "" is no run.
func wantRun(t *testing.T, what string, g mcp.ReplayGuard, call, want string) {
	t.Helper()
	out, err := g.LastRun(context.Background(), call)
	if err != nil {
		t.Fatalf("LastRun %s: %v", what, err)
	}
	if (want == "" && out != nil) || (want != "" && string(out) != want) {
		t.Errorf("LastRun %s: %q, want %q", what, out, want)
	}
}
