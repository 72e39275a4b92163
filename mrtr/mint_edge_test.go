package mrtr

import (
	"strings"
	"testing"
)

// TestSeal_MintEdge: the largest state Seal mints is exactly
// MaxMintBytes long and opens; a payload one byte larger is refused, for
// both rings.
func TestSeal_MintEdge(t *testing.T) {
	t.Parallel()
	for name, newRing := range map[string]func(...Key) (*Ring, error){"xchacha": NewRing, "aes": NewAESRing} {
		s := NewSealer(mustRing(t, newRing, Key{"k1", secret(1)}))
		payload := func(n int) []byte { return []byte(`{"p":"` + strings.Repeat("x", n) + `"}`) }
		largest := -1
		for n := 2000; n < 3200; n++ {
			if _, _, err := s.Seal(base, payload(n)); err != nil {
				break
			}
			largest = n
		}
		if largest < 0 {
			t.Fatalf("%s: no payload from 2000 bytes sealed", name)
		}
		state, _, err := s.Seal(base, payload(largest))
		if err != nil || len(state) > MaxMintBytes || len(state) < MaxMintBytes-3 {
			t.Errorf("%s: the largest state minted is %d bytes (%v), want within 3 of %d", name, len(state), err, MaxMintBytes)
		}
		if o, err := s.Open(base, state); err != nil || string(o.Payload) != string(payload(largest)) {
			t.Errorf("%s: the largest state does not open: %v", name, err)
		}
		if _, _, err := s.Seal(base, payload(largest+1)); err == nil {
			t.Errorf("%s: one byte more was minted", name)
		}
	}
}
