package mrtr

import (
	"bytes"
	"encoding/base64"
	"errors"
	"testing"
	"time"
)

func aesRing(t testing.TB, keys ...Key) *Ring { return mustRing(t, NewAESRing, keys...) }

// TestAES runs the sealer's properties on an AES-256-GCM ring: round trip,
// every claim bound, every bit flip refused, expiry, rotation, and no
// crossing between the two algorithms under one key id.
func TestAES(t *testing.T) {
	t.Parallel()
	s := NewSealer(aesRing(t, Key{"k1", secret(1)}))
	state, nonce, err := s.Seal(base, []byte("payload"))
	if err != nil {
		t.Fatal(err)
	}
	o, err := s.Open(base, state)
	if err != nil || string(o.Payload) != "payload" || o.Nonce != nonce {
		t.Fatalf("round trip: %v %+v", Reason(err), o)
	}
	other := base
	other.Principal = "bob"
	if _, err := s.Open(other, state); Reason(err) != "binding_mismatch" {
		t.Errorf("other principal: %q", Reason(err))
	}
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
	// Same id and secret, other algorithm: refused both ways.
	x := NewSealer(ring(t, Key{"k1", secret(1)}))
	if _, err := x.Open(base, state); !errors.Is(err, ErrInvalid) {
		t.Error("an XChaCha ring opened an AES state")
	}
	xs, _, _ := x.Seal(base, nil)
	if _, err := s.Open(base, xs); !errors.Is(err, ErrInvalid) {
		t.Error("an AES ring opened an XChaCha state")
	}
	// Two states of one payload differ (fresh salt and nonce).
	again, _, _ := s.Seal(base, []byte("payload"))
	if again == state {
		t.Error("two seals gave the same state")
	}
	// Expiry and rotation.
	now := time.Now()
	clocked := NewSealer(aesRing(t, Key{"old", secret(1)}, Key{"new", secret(2)}), WithClock(func() time.Time { return now }))
	st, _, _ := clocked.Seal(base, nil)
	now = now.Add(DefaultTTL + DefaultSkew + time.Second)
	if _, err := clocked.Open(base, st); Reason(err) != "expired" {
		t.Errorf("expired: %q", Reason(err))
	}
	rotated := NewSealer(aesRing(t, Key{"new", secret(2)}, Key{"old", secret(1)}))
	fresh, _, _ := NewSealer(aesRing(t, Key{"old", secret(1)}, Key{"new", secret(2)})).Seal(base, nil)
	if _, err := rotated.Open(base, fresh); err != nil {
		t.Errorf("rotation [old,new] -> [new,old]: %s", Reason(err))
	}
	if _, err := NewSealer(aesRing(t, Key{"new", secret(2)})).Open(base, fresh); Reason(err) != "unknown_key" {
		t.Errorf("retired key: %q", Reason(err))
	}
	if _, _, err := s.Seal(base, make([]byte, 4000)); err == nil {
		t.Error("minted a state over 4 KiB")
	}
}

func FuzzOpenAES(f *testing.F) { fuzzOpen(f, NewAESRing) }

func BenchmarkSealOpenAES(b *testing.B) { benchSealOpen(b, aesRing(b, Key{"k1", secret(1)})) }
