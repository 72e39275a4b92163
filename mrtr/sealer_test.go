package mrtr

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"
)

func secret(b byte) []byte { return bytes.Repeat([]byte{b}, 32) }

func ring(t testing.TB, keys ...Key) *Ring { return mustRing(t, NewRing, keys...) }

func mustRing(t testing.TB, newRing func(...Key) (*Ring, error), keys ...Key) *Ring {
	t.Helper()
	r, err := newRing(keys...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

var base = Binding{Principal: "alice", Workspace: "w1", Audience: "https://mcp.example.com", Version: "2026-07-28",
	Method: "tools/call", Target: "emails_delete", Arguments: []byte(`{"id":"e1","opts":{"b":1,"a":2}}`)}

func TestSealOpen_RoundTrip(t *testing.T) {
	t.Parallel()
	s := NewSealer(ring(t, Key{"k1", secret(1)}))
	state, nonce, err := s.Seal(base, []byte("payload"))
	if err != nil {
		t.Fatal(err)
	}
	// Members reordered and spaced differently: the same canonical arguments.
	b := base
	b.Arguments = []byte(` { "opts" : {"a":2,"b":1}, "id":"e1" } `)
	o, err := s.Open(b, state)
	if err != nil {
		t.Fatalf("Open: %v (%s)", err, Reason(err))
	}
	// Whole seconds, the issue time rounded down and the expiry up.
	if life := o.Expires.Sub(o.IssuedAt); string(o.Payload) != "payload" || o.Nonce != nonce || life < DefaultTTL || life > DefaultTTL+time.Second {
		t.Errorf("opened %+v", o)
	}
	if strings.ContainsAny(state, "+/=") {
		t.Errorf("state is not unpadded base64url: %s", state)
	}
}

func TestOpen_EveryClaimIsBound(t *testing.T) {
	t.Parallel()
	s := NewSealer(ring(t, Key{"k1", secret(1)}))
	state, _, err := s.Seal(base, nil)
	if err != nil {
		t.Fatal(err)
	}
	change := map[string]func(*Binding){
		"principal": func(b *Binding) { b.Principal = "bob" },
		"workspace": func(b *Binding) { b.Workspace = "w2" },
		"audience":  func(b *Binding) { b.Audience = "https://other.example.com" },
		"version":   func(b *Binding) { b.Version = "2025-06-18" },
		"method":    func(b *Binding) { b.Method = "prompts/get" },
		"target":    func(b *Binding) { b.Target = "emails_get" },
		"arguments": func(b *Binding) { b.Arguments = []byte(`{"id":"e2","opts":{"b":1,"a":2}}`) },
		"number":    func(b *Binding) { b.Arguments = []byte(`{"id":"e1","opts":{"b":1.0,"a":2}}`) },
		// Field boundaries are length-prefixed: moving a character from
		// one field to the next changes the digest.
		"boundary": func(b *Binding) { b.Principal, b.Workspace = "alicew", "1" },
	}
	for name, f := range change {
		b := base
		f(&b)
		_, err := s.Open(b, state)
		if !errors.Is(err, ErrInvalid) || Reason(err) != "binding_mismatch" {
			t.Errorf("%s: %v (%s)", name, err, Reason(err))
		}
	}
}

func TestOpen_Expiry(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_800_000_000, 0)
	clock := func() time.Time { return now }
	s := NewSealer(ring(t, Key{"k1", secret(1)}), WithClock(clock), WithTTL(time.Minute), WithSkew(5*time.Second))
	state, _, _ := s.Seal(base, nil)
	for _, tc := range []struct {
		at     time.Duration
		reason string
	}{
		{0, ""}, {time.Minute, ""}, {time.Minute + 5*time.Second, ""},
		{time.Minute + 6*time.Second, "expired"}, {time.Hour, "expired"},
		{-5 * time.Second, ""}, {-6 * time.Second, "not_yet_valid"},
	} {
		at := now.Add(tc.at)
		opener := NewSealer(s.ring, WithClock(func() time.Time { return at }), WithTTL(time.Minute), WithSkew(5*time.Second))
		_, err := opener.Open(base, state)
		if Reason(err) != tc.reason {
			t.Errorf("at %v: %v (%q), want %q", tc.at, err, Reason(err), tc.reason)
		}
	}
}

// TestSealFor: a state sealed for its own lifetime expires with it, not
// with the sealer's TTL; the opener's TTL plays no part.
func TestSealFor(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_800_000_000, 0)
	s := NewSealer(ring(t, Key{"k1", secret(1)}), WithClock(func() time.Time { return now }), WithTTL(time.Minute), WithSkew(5*time.Second))
	state, _, err := s.SealFor(base, []byte("task"), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		at     time.Duration
		reason string
	}{{0, ""}, {59 * time.Minute, ""}, {time.Hour + 5*time.Second, ""}, {time.Hour + 6*time.Second, "expired"}} {
		at := now.Add(tc.at)
		o, err := NewSealer(s.ring, WithClock(func() time.Time { return at }), WithSkew(5*time.Second)).Open(base, state)
		if Reason(err) != tc.reason {
			t.Errorf("at %v: %q, want %q", tc.at, Reason(err), tc.reason)
		}
		if err == nil && (string(o.Payload) != "task" || !o.Expires.Equal(now.Add(time.Hour))) {
			t.Errorf("at %v: %+v", tc.at, o)
		}
	}
	for _, ttl := range []time.Duration{0, -time.Second} {
		if _, _, err := s.SealFor(base, nil, ttl); err == nil {
			t.Errorf("SealFor with lifetime %v: no error", ttl)
		}
	}
}

func TestOpen_EveryBitFlipIsRefused(t *testing.T) {
	t.Parallel()
	s := NewSealer(ring(t, Key{"k1", secret(1)}))
	state, _, _ := s.Seal(base, []byte("p"))
	raw, _ := base64.RawURLEncoding.DecodeString(state)
	for i := range raw {
		for bit := 0; bit < 8; bit++ {
			bad := bytes.Clone(raw)
			bad[i] ^= 1 << bit
			if _, err := s.Open(base, base64.RawURLEncoding.EncodeToString(bad)); !errors.Is(err, ErrInvalid) {
				t.Fatalf("byte %d bit %d: accepted", i, bit)
			}
		}
	}
	// A state has one spelling: base64's decoder skips CR and LF even when
	// strict, so Open refuses them before decoding.
	for _, mangled := range []string{"", "!!!", state + "A", state[:len(state)-1], state + "=", strings.ReplaceAll(state, "-", "+"),
		state[:10] + "\n" + state[10:], state + "\r\n", "\n" + state, state[:5] + "\r" + state[5:]} {
		if mangled == state {
			continue
		}
		if _, err := s.Open(base, mangled); !errors.Is(err, ErrInvalid) {
			t.Errorf("%q: accepted", mangled)
		}
	}
}

func TestOpen_OtherRingAndFormat(t *testing.T) {
	t.Parallel()
	a := NewSealer(ring(t, Key{"k1", secret(1)}))
	b := NewSealer(ring(t, Key{"k1", secret(2)}))
	c := NewSealer(ring(t, Key{"k2", secret(1)}))
	state, _, _ := a.Seal(base, nil)
	if _, err := b.Open(base, state); Reason(err) != "bad_tag" {
		t.Errorf("same id, other secret: %q", Reason(err))
	}
	if _, err := c.Open(base, state); Reason(err) != "unknown_key" {
		t.Errorf("other id: %q", Reason(err))
	}
	raw, _ := base64.RawURLEncoding.DecodeString(state)
	raw[0] = 2
	if _, err := a.Open(base, base64.RawURLEncoding.EncodeToString(raw)); Reason(err) != "bad_format" {
		t.Errorf("format 2: %q", Reason(err))
	}
}

func TestOpen_SizeLimits(t *testing.T) {
	t.Parallel()
	s := NewSealer(ring(t, Key{"k1", secret(1)}))
	if _, err := s.Open(base, strings.Repeat("A", MaxInboundBytes+1)); Reason(err) != "too_large" {
		t.Errorf("over 8 KiB: %q", Reason(err))
	}
	if _, err := s.Open(base, strings.Repeat("A", MaxInboundBytes)); Reason(err) == "too_large" {
		t.Error("exactly 8 KiB refused for size")
	}
	if _, _, err := s.Seal(base, make([]byte, 4000)); err == nil {
		t.Error("minted a state over 4 KiB")
	}
	if _, _, err := s.Seal(base, make([]byte, 2000)); err != nil {
		t.Errorf("2000-byte payload: %v", err)
	}
}

// TestRotation walks [old] -> [old,new] -> [new,old] -> [new] with states
// minted in each phase opened in the next: no retry fails until the old key
// is retired.
func TestRotation(t *testing.T) {
	t.Parallel()
	old, nw := Key{"old", secret(1)}, Key{"new", secret(2)}
	phases := []*Sealer{
		NewSealer(ring(t, old)),
		NewSealer(ring(t, old, nw)),
		NewSealer(ring(t, nw, old)),
		NewSealer(ring(t, nw)),
	}
	for i := 0; i+1 < len(phases); i++ {
		state, _, _ := phases[i].Seal(base, nil)
		if _, err := phases[i+1].Open(base, state); err != nil {
			t.Errorf("phase %d -> %d: %s", i, i+1, Reason(err))
		}
	}
	oldState, _, _ := phases[0].Seal(base, nil)
	if _, err := phases[3].Open(base, oldState); Reason(err) != "unknown_key" {
		t.Errorf("retired key still opens: %q", Reason(err))
	}
	newState, _, _ := phases[2].Seal(base, nil)
	if _, err := phases[3].Open(base, newState); err != nil {
		t.Errorf("[new,old] state in [new]: %s", Reason(err))
	}
}

func TestNewRing_Refuses(t *testing.T) {
	t.Parallel()
	for name, keys := range map[string][]Key{
		"empty":      nil,
		"short":      {{"k", make([]byte, 31)}},
		"bad id":     {{"k-1", secret(1)}},
		"long id":    {{"123456789", secret(1)}},
		"no id":      {{"", secret(1)}},
		"duplicates": {{"k", secret(1)}, {"k", secret(2)}},
	} {
		if _, err := NewRing(keys...); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestErrorIsOpaque(t *testing.T) {
	t.Parallel()
	s := NewSealer(ring(t, Key{"k1", secret(1)}))
	_, err := s.Open(base, "garbage")
	if err.Error() != "invalid or expired requestState" {
		t.Errorf("message %q leaks a reason", err.Error())
	}
}

func FuzzOpen(f *testing.F) { fuzzOpen(f, NewRing) }

// fuzzOpen checks that only the authentic state opens, for a ring kind.
func fuzzOpen(f *testing.F, newRing func(...Key) (*Ring, error)) {
	// A fresh secret per process: states minted by earlier runs or other
	// workers (kept in the fuzz cache) must not open.
	key := make([]byte, 32)
	rand.Read(key)
	s := NewSealer(mustRing(f, newRing, Key{"k1", key}))
	state, _, _ := s.Seal(base, []byte("x"))
	f.Add(state)
	f.Add("")
	f.Add("AQJrMQ")
	f.Add(state[:10] + "\n" + state[10:])
	f.Fuzz(func(t *testing.T, in string) {
		_, err := s.Open(base, in)
		// Strict base64url, with the CR and LF its decoder skips refused,
		// has one encoding per byte string, and the fuzzer
		// cannot forge an authentication tag.
		if err == nil && in != state {
			t.Fatalf("opened %q", in)
		}
		if err != nil && !errors.Is(err, ErrInvalid) {
			t.Fatalf("error %v is not ErrInvalid", err)
		}
	})
}

func BenchmarkSealOpen(b *testing.B) { benchSealOpen(b, ring(b, Key{"k1", secret(1)})) }

func benchSealOpen(b *testing.B, r *Ring) {
	s := NewSealer(r)
	b.ReportAllocs()
	for b.Loop() {
		state, _, err := s.Seal(base, []byte(`{"step":1}`))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Open(base, state); err != nil {
			b.Fatal(err)
		}
	}
}

// TestOpen_LivesItsWholeTTL: the format keeps whole seconds, and a state
// sealed between two of them still opens for its whole lifetime: its
// expiry is rounded up, never down (down, a state sealed at .9 s with a
// one-second TTL and no skew lived a tenth of a second). It is refused
// once the lifetime has passed, by less than a second more at most.
func TestOpen_LivesItsWholeTTL(t *testing.T) {
	t.Parallel()
	sealed := time.Unix(1_800_000_000, 900_000_000)
	for _, ttl := range []time.Duration{time.Second, 90 * time.Second} {
		s := NewSealer(ring(t, Key{"k1", secret(1)}), WithClock(func() time.Time { return sealed }), WithTTL(ttl), WithSkew(0))
		state, _, err := s.Seal(base, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			at     time.Duration
			reason string
		}{{0, ""}, {ttl / 2, ""}, {ttl, ""}, {ttl + time.Second, "expired"}} {
			at := sealed.Add(tc.at)
			o, err := NewSealer(s.ring, WithClock(func() time.Time { return at }), WithSkew(0)).Open(base, state)
			if Reason(err) != tc.reason {
				t.Errorf("TTL %v, at %v: %q, want %q", ttl, tc.at, Reason(err), tc.reason)
			}
			if err == nil && o.Expires.Before(sealed.Add(ttl)) {
				t.Errorf("TTL %v: expires %v, before the lifetime's end %v", ttl, o.Expires, sealed.Add(ttl))
			}
		}
	}
}
