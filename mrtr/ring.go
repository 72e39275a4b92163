package mrtr

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"

	"golang.org/x/crypto/chacha20poly1305"
)

// MinSecretBytes is the shortest secret a Key accepts.
const MinSecretBytes = 32

// Key is one secret of a key ring. ID names it inside every state it
// seals, so the ring can find it again: 1 to 8 characters from A-Z, a-z,
// 0-9. Secret must hold at least 32 random bytes; only its first 32 are
// used (as the XChaCha20-Poly1305 key, or as the HKDF secret of the
// AES-256-GCM keys).
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
	id  string
	alg algorithm
}

// algorithm seals and opens the bytes after a state's header. Each key of
// a ring has one; the key id in the header selects it.
type algorithm interface {
	// seal appends what Open needs (IV or salt) and the ciphertext to dst.
	seal(dst, plaintext, aad []byte) ([]byte, error)
	open(sealed, aad []byte) ([]byte, error)
}

// xchacha is XChaCha20-Poly1305 with a random 24-byte IV per state: no
// practical limit on how many states one key seals.
type xchacha struct{ aead cipher.AEAD }

func (x xchacha) seal(dst, plaintext, aad []byte) ([]byte, error) {
	iv := make([]byte, chacha20poly1305.NonceSizeX)
	if _, err := rand.Read(iv); err != nil {
		return nil, err
	}
	return x.aead.Seal(append(dst, iv...), iv, plaintext, aad), nil
}

func (x xchacha) open(sealed, aad []byte) ([]byte, error) {
	if len(sealed) < chacha20poly1305.NonceSizeX+chacha20poly1305.Overhead {
		return nil, errShort
	}
	// The state's bytes are the caller's own copy: decrypt in place.
	ct := sealed[chacha20poly1305.NonceSizeX:]
	return x.aead.Open(ct[:0], sealed[:chacha20poly1305.NonceSizeX], ct, aad)
}

// aesGCM is AES-256-GCM for deployments that may use FIPS 140-3 approved
// algorithms only. Each state gets its own key, derived with HKDF-SHA256
// from the secret and a random 16-byte salt, so the 2^32-messages-per-key
// bound of random GCM nonces never binds a busy fleet; the GCM nonce is
// random too (cipher.NewGCMWithRandomNonce, allowed in FIPS-only mode).
type aesGCM struct{ secret []byte }

const aesSaltBytes = 16

var aesInfo = "mcpdual/mrtr/aes-256-gcm/v1"

func (a aesGCM) cipher(salt []byte) (cipher.AEAD, error) {
	key, err := hkdf.Key(sha256.New, a.secret, salt, aesInfo, 32)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCMWithRandomNonce(block)
}

func (a aesGCM) seal(dst, plaintext, aad []byte) ([]byte, error) {
	salt := make([]byte, aesSaltBytes)
	if _, err := rand.Read(salt); err != nil {
		return nil, err
	}
	g, err := a.cipher(salt)
	if err != nil {
		return nil, err
	}
	return g.Seal(append(dst, salt...), nil, plaintext, aad), nil
}

func (a aesGCM) open(sealed, aad []byte) ([]byte, error) {
	if len(sealed) < aesSaltBytes+12+16 {
		return nil, errShort
	}
	g, err := a.cipher(sealed[:aesSaltBytes])
	if err != nil {
		return nil, err
	}
	return g.Open(nil, nil, sealed[aesSaltBytes:], aad)
}

var errShort = errors.New("mrtr: sealed state too short")

// NewRing returns a ring of XChaCha20-Poly1305 keys, the first being the
// one that seals. It returns an error, naming the key by its id, for no
// key at all, an id that is not 1 to 8 characters from A-Z, a-z, 0-9, an
// id given twice, or a secret shorter than MinSecretBytes.
func NewRing(keys ...Key) (*Ring, error) {
	return newRing(keys, func(secret []byte) (algorithm, error) {
		aead, err := chacha20poly1305.NewX(secret[:chacha20poly1305.KeySize])
		return xchacha{aead}, err
	})
}

// NewAESRing returns a ring of AES-256-GCM keys, for deployments limited
// to FIPS 140-3 approved algorithms; otherwise it behaves like NewRing.
// Both kinds produce states of the same layout, and a key id names one
// algorithm: a ring must not be switched between kinds under the same ids
// while states are in flight (they would be refused as tampered).
func NewAESRing(keys ...Key) (*Ring, error) {
	return newRing(keys, func(secret []byte) (algorithm, error) {
		return aesGCM{secret: append([]byte(nil), secret[:32]...)}, nil
	})
}

func newRing(keys []Key, alg func(secret []byte) (algorithm, error)) (*Ring, error) {
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
		a, err := alg(k.Secret)
		if err != nil {
			return nil, err
		}
		r.keys = append(r.keys, ringKey{id: k.ID, alg: a})
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

func (r *Ring) find(id string) (algorithm, bool) {
	for _, k := range r.keys {
		if k.id == id {
			return k.alg, true
		}
	}
	return nil, false
}
