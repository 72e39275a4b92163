package storetest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/mcp"
)

// SessionStore runs the contract of mcp.SessionStore against the stores
// open returns, one new store per subtest (the subtests run in parallel),
// writes on one replica read on another:
//
//   - state: Subscribe, Unsubscribe and SetLevel change what Load returns,
//     on every replica; a uri subscribed twice is held once; removing
//     what is not held is no error; an unknown session has nothing.
//   - bound: a Subscribe past max is not ok and changes nothing, a held
//     uri is ok whatever max, the level does not count, and racing
//     Subscribes leave max at most.
//   - until: a session is kept until the latest until given for it, and
//     not after; an until already past keeps nothing.
//   - arguments: a session key that is not 43 URL-safe characters, an
//     empty or 2049-byte uri, an empty or 17-byte level are refused and
//     change nothing.
//   - sessions are independent of each other.
func SessionStore(t *testing.T, open func(t *testing.T) Fleet[mcp.SessionStore]) {
	t.Helper()
	ctx := context.Background()
	run := func(name string, f func(t *testing.T, fl Fleet[mcp.SessionStore], clock Clock)) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fl := open(t)
			clock, _ := check(t, fl)
			f(t, fl, clock)
		})
	}

	run("State", func(t *testing.T, fl Fleet[mcp.SessionStore], clock Clock) {
		a, b := replica(fl, 0), replica(fl, 1)
		s, until := newSession(), clock.Now().Add(longLease)
		wantSession(t, "an unknown session", b, s, nil, "")
		sub(t, a, s, "test://a", 8, until, true)
		sub(t, b, s, "test://b", 8, until, true)
		sub(t, a, s, "test://a", 8, until, true)
		wantSession(t, "after two subscriptions", b, s, []string{"test://a", "test://b"}, "")
		if err := b.SetLevel(ctx, s, "debug", until); err != nil {
			t.Fatal(err)
		}
		wantSession(t, "after SetLevel", a, s, []string{"test://a", "test://b"}, "debug")
		if err := a.SetLevel(ctx, s, "warning", until); err != nil {
			t.Fatal(err)
		}
		if err := a.Unsubscribe(ctx, s, "test://a"); err != nil {
			t.Fatal(err)
		}
		for _, uri := range []string{"test://a", "test://never"} {
			if err := b.Unsubscribe(ctx, s, uri); err != nil {
				t.Errorf("Unsubscribe of %s, not held: %v", uri, err)
			}
		}
		if err := b.Unsubscribe(ctx, newSession(), "test://a"); err != nil {
			t.Errorf("Unsubscribe on an unknown session: %v", err)
		}
		wantSession(t, "after Unsubscribe and a second SetLevel", b, s, []string{"test://b"}, "warning")
		// A level alone makes a session; URIs are kept byte for byte.
		l := newSession()
		if err := b.SetLevel(ctx, l, "info", until); err != nil {
			t.Fatal(err)
		}
		odd := "kobana://ws-1/emails/ü?x=1&y=%2F#frag " + strings.Repeat("z", 100)
		sub(t, b, l, odd, 8, until, true)
		wantSession(t, "a session that set its level first", a, l, []string{odd}, "info")
	})

	run("Bound", func(t *testing.T, fl Fleet[mcp.SessionStore], clock Clock) {
		a, b := replica(fl, 0), replica(fl, 1)
		s, until := newSession(), clock.Now().Add(longLease)
		if err := a.SetLevel(ctx, s, "info", until); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			sub(t, replica(fl, i), s, fmt.Sprintf("test://%d", i), 3, until, true)
		}
		sub(t, b, s, "test://3", 3, until, false)
		sub(t, a, s, "test://1", 3, until, true)
		wantSession(t, "at the bound", b, s, []string{"test://0", "test://1", "test://2"}, "info")
		if err := b.Unsubscribe(ctx, s, "test://0"); err != nil {
			t.Fatal(err)
		}
		sub(t, a, s, "test://3", 3, until, true)
		sub(t, a, s, "test://4", 2, until, false)
		wantSession(t, "after a place was freed", b, s, []string{"test://1", "test://2", "test://3"}, "info")
	})

	run("ConcurrentBound", func(t *testing.T, fl Fleet[mcp.SessionStore], clock Clock) {
		s, until := newSession(), clock.Now().Add(longLease)
		var ok atomic.Int64
		var wg sync.WaitGroup
		for i := range 24 {
			wg.Go(func() {
				added, err := replica(fl, i).Subscribe(ctx, s, fmt.Sprintf("test://%d", i), 5, until)
				if err != nil {
					t.Error(err)
				}
				if added {
					ok.Add(1)
				}
			})
		}
		wg.Wait()
		uris, _, err := replica(fl, 0).Load(ctx, s)
		if n := ok.Load(); n != 5 || len(uris) != 5 || err != nil {
			t.Errorf("24 racing Subscribes with max 5: %d ok, %d held (%v); want 5 and 5", n, len(uris), err)
		}
	})

	run("Until", func(t *testing.T, fl Fleet[mcp.SessionStore], clock Clock) {
		a, b := replica(fl, 0), replica(fl, 1)
		now := clock.Now()
		short, long := newSession(), newSession()
		sub(t, a, short, "test://short", 8, now.Add(shortLease), true)
		if err := a.SetLevel(ctx, short, "debug", now.Add(shortLease)); err != nil {
			t.Fatal(err)
		}
		sub(t, a, long, "test://long", 8, now.Add(longLease), true)
		// A later until extends the session; an earlier one does not
		// shorten it. The extension must reach the store before the
		// short until passes, or there is nothing left to extend: on a
		// loaded machine two calls to a networked store can take longer
		// than shortLease, so the case starts again, with a new session,
		// until they did not (a store that is always that slow fails).
		var extended string
		for attempt := 1; ; attempt++ {
			extended = newSession()
			start := clock.Now()
			sub(t, a, extended, "test://x", 8, start.Add(shortLease), true)
			if err := b.SetLevel(ctx, extended, "info", start.Add(longLease)); err != nil {
				t.Fatal(err)
			}
			if clock.Now().Sub(start) < shortLease/2 {
				break
			}
			if attempt == 5 {
				t.Fatalf("a Subscribe and a SetLevel took %v or more, five times: the suite's short lease (%v) cannot be tested against this store",
					shortLease/2, shortLease)
			}
		}
		sub(t, b, extended, "test://y", 8, now.Add(shortLease), true)
		past := newSession()
		if _, err := a.Subscribe(ctx, past, "test://past", 8, now.Add(-time.Second)); err != nil {
			t.Fatal(err)
		}
		if err := a.SetLevel(ctx, past, "info", now.Add(-time.Second)); err != nil {
			t.Fatal(err)
		}
		wantSession(t, "a session whose until was past", b, past, nil, "")
		clock.Sleep(lapse)
		wantSession(t, "past its until", b, short, nil, "")
		wantSession(t, "within its until", b, long, []string{"test://long"}, "")
		wantSession(t, "extended by a later until", a, extended, []string{"test://x", "test://y"}, "info")
		// What lapsed starts afresh.
		sub(t, a, short, "test://again", 8, clock.Now().Add(longLease), true)
		wantSession(t, "a lapsed session written again", b, short, []string{"test://again"}, "")
	})

	run("Arguments", func(t *testing.T, fl Fleet[mcp.SessionStore], clock Clock) {
		a := replica(fl, 0)
		s, until := newSession(), clock.Now().Add(longLease)
		badKeys := []string{"", "a-raw-session-id", s + "A", s[:42] + "=", s[:42] + "/", strings.Repeat("é", 21) + "a"}
		for _, k := range badKeys {
			if _, err := a.Subscribe(ctx, k, "test://a", 8, until); err == nil {
				t.Errorf("Subscribe with session key %q: no error", k)
			}
			if err := a.SetLevel(ctx, k, "info", until); err == nil {
				t.Errorf("SetLevel with session key %q: no error", k)
			}
			if err := a.Unsubscribe(ctx, k, "test://a"); err == nil {
				t.Errorf("Unsubscribe with session key %q: no error", k)
			}
			if _, _, err := a.Load(ctx, k); err == nil {
				t.Errorf("Load with session key %q: no error", k)
			}
		}
		long := "test://" + strings.Repeat("u", 2048-len("test://"))
		sub(t, a, s, long, 8, until, true)
		for _, uri := range []string{"", long + "u"} {
			if _, err := a.Subscribe(ctx, s, uri, 8, until); err == nil {
				t.Errorf("Subscribe of a %d-byte URI: no error", len(uri))
			}
			if err := a.Unsubscribe(ctx, s, uri); err == nil {
				t.Errorf("Unsubscribe of a %d-byte URI: no error", len(uri))
			}
		}
		if err := a.SetLevel(ctx, s, strings.Repeat("l", 16), until); err != nil {
			t.Errorf("SetLevel of 16 bytes: %v", err)
		}
		for _, level := range []string{"", strings.Repeat("l", 17)} {
			if err := a.SetLevel(ctx, s, level, until); err == nil {
				t.Errorf("SetLevel of %d bytes: no error", len(level))
			}
		}
		wantSession(t, "after the refused calls", replica(fl, 1), s, []string{long}, strings.Repeat("l", 16))
	})

	run("Isolated", func(t *testing.T, fl Fleet[mcp.SessionStore], clock Clock) {
		a, b := replica(fl, 0), replica(fl, 1)
		s1, s2, until := newSession(), newSession(), clock.Now().Add(longLease)
		sub(t, a, s1, "test://one", 1, until, true)
		sub(t, b, s2, "test://two", 1, until, true)
		if err := b.SetLevel(ctx, s2, "error", until); err != nil {
			t.Fatal(err)
		}
		wantSession(t, "session 1", b, s1, []string{"test://one"}, "")
		wantSession(t, "session 2", a, s2, []string{"test://two"}, "error")
	})
}

// newSession returns a session key as the endpoint makes them: the
// base64url SHA-256 of an id.
func newSession() string {
	h := sha256.Sum256([]byte(rand.Text()))
	return base64.RawURLEncoding.EncodeToString(h[:])
}

func sub(t *testing.T, s mcp.SessionStore, session, uri string, max int, until time.Time, want bool) {
	t.Helper()
	ok, err := s.Subscribe(context.Background(), session, uri, max, until)
	if err != nil || ok != want {
		t.Errorf("Subscribe(%.40q, max %d): ok %v, err %v; want ok %v", uri, max, ok, err, want)
	}
}

func wantSession(t *testing.T, what string, s mcp.SessionStore, session string, uris []string, level string) {
	t.Helper()
	got, l, err := s.Load(context.Background(), session)
	if err != nil {
		t.Errorf("%s: Load: %v", what, err)
		return
	}
	slices.Sort(got)
	want := slices.Clone(uris)
	slices.Sort(want)
	if !slices.Equal(got, want) || l != level {
		t.Errorf("%s: Load: uris %.200q, level %q; want %.200q, %q", what, got, l, want, level)
	}
}
