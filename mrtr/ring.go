package mrtr

import (
	"crypto/cipher"
	"errors"
	"fmt"

	"golang.org/x/crypto/chacha20poly1305"
)

// MinSecretBytes is the shortest secret a Key accepts.
const MinSecretBytes = 32

// Key is one secret of a key ring. ID names it inside every state it
// seals, so the ring can find it again: 1 to 8 characters from A-Z, a-z,
// 0-9. Secret must hold at least 32 random bytes; only its first 32 are
// used, as the XChaCha20-Poly1305 key.
type Key struct {
	ID     string
	Secret []byte
}

// Ring is an ordered set of keys: the first seals, all of them open. It is
// immutable and safe for concurrent use.
type Ring struct {
	keys []ringKey
}

type ringKey struct {
	id   string
	aead cipher.AEAD
}

// NewRing returns a ring of keys, the first being the one that seals.
func NewRing(keys ...Key) (*Ring, error) {
	if len(keys) == 0 {
		return nil, errors.New("mrtr: a ring needs at least one key")
	}
	r := &Ring{}
	seen := map[string]bool{}
	for _, k := range keys {
		if !validID(k.ID) {
			return nil, fmt.Errorf("mrtr: key id %q: use 1-8 characters from A-Z a-z 0-9", k.ID)
		}
		if seen[k.ID] {
			return nil, fmt.Errorf("mrtr: key id %q appears twice", k.ID)
		}
		seen[k.ID] = true
		if len(k.Secret) < MinSecretBytes {
			return nil, fmt.Errorf("mrtr: key %q: the secret needs at least %d bytes", k.ID, MinSecretBytes)
		}
		aead, err := chacha20poly1305.NewX(k.Secret[:chacha20poly1305.KeySize])
		if err != nil {
			return nil, err
		}
		r.keys = append(r.keys, ringKey{id: k.ID, aead: aead})
	}
	return r, nil
}

func validID(id string) bool {
	if len(id) == 0 || len(id) > 8 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func (r *Ring) find(id string) (cipher.AEAD, bool) {
	for _, k := range r.keys {
		if k.id == id {
			return k.aead, true
		}
	}
	return nil, false
}
