package era2026

import (
	"bytes"
	"testing"

	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/mrtr"
)

// TestStateRoom_TheSealersOwnBound: the room the era tells the core
// (seam.Profile.StateRoom) is exactly the largest plaintext its sealer
// seals into a requestState, for a key id of one character and of eight,
// with either algorithm: a plaintext of that size seals, one a byte
// larger does not. The core refuses a larger state as the handler's bug
// before the era is asked; a room a byte too large would leave a state
// to the era's failure to seal, a byte too small refuse one it seals.
func TestStateRoom_TheSealersOwnBound(t *testing.T) {
	t.Parallel()
	secret := bytes.Repeat([]byte{0x5a, 0xc3}, mrtr.MinSecretBytes/2)
	for name, newRing := range map[string]func(...mrtr.Key) (*mrtr.Ring, error){"xchacha": mrtr.NewRing, "aes": mrtr.NewAESRing} {
		for _, id := range []string{"k", "k2345678"} {
			ring, err := newRing(mrtr.Key{ID: id, Secret: secret})
			if err != nil {
				t.Fatal(err)
			}
			s := mrtr.NewSealer(ring)
			var room int
			for _, p := range New(WithSealer(s)).Seam().Profiles() {
				room = p.StateRoom
			}
			b := seam.Binding{Principal: "alice", Method: "tools/call", Target: "pick", Arguments: []byte(`{"pad":1}`)}
			if _, _, err := s.Seal(b, make([]byte, room)); err != nil || room < 2<<10 {
				t.Errorf("%s, key id %q: a plaintext of the room, %d bytes, does not seal: %v", name, id, room, err)
			}
			if _, _, err := s.Seal(b, make([]byte, room+1)); err == nil {
				t.Errorf("%s, key id %q: a plaintext of %d bytes, past the room, seals", name, id, room+1)
			}
		}
	}
}
