package mrtr

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"
)

// maxKeysFileBytes bounds what LoadKeys reads from a file: a ring of a
// few keys is some hundred bytes, and a path pointing at a large file by
// mistake must not be read whole.
const maxKeysFileBytes = 64 << 10

// minDistinctBytes is the fewest distinct byte values ParseKeys accepts in
// a secret. 32 random bytes hold about 30; fewer than 16 happens by chance
// with a probability far below 2^-100, while placeholders (32 zero bytes,
// "AAAA...="), repeated patterns and short passwords padded out fall
// under it.
const minDistinctBytes = 16

// ParseKeys reads a key ring from its text form, the one a fleet keeps in
// its configuration:
//
//	id:secret[,id:secret...]
//
// Entries are separated by commas, the sealing key first; white space
// around an entry, an id or a secret is ignored; inside a secret it is
// refused (base64 would skip a line break). An id is 1 to 8
// characters from A-Z, a-z, 0-9, different for each entry. A secret is
// exactly 32 random bytes in base64, standard or URL-safe alphabet, with
// or without padding, such as the output of
//
//	head -c 32 /dev/urandom | base64
//
// The keys come back in order, ready for NewRing or NewAESRing. An error
// names the entry by its position, and its id once the id is valid, but
// never quotes a secret or text that could be one: ParseKeys also refuses
// the same secret under two ids, and a secret with fewer than 16 distinct
// byte values, which no random secret has (a placeholder of zeros, a
// padded password).
func ParseKeys(text string) ([]Key, error) {
	keys, err := parseKeys(text)
	if err != nil {
		return nil, fmt.Errorf("mrtr: key ring: %w", err)
	}
	return keys, nil
}

func parseKeys(text string) ([]Key, error) {
	if strings.TrimSpace(text) == "" {
		return nil, errors.New("no keys")
	}
	if strings.HasPrefix(strings.TrimSpace(text), "\uFEFF") {
		// An editor's byte-order mark, before the first id: said as such,
		// rather than as an id of one character too many.
		return nil, errors.New("the text starts with a byte-order mark (U+FEFF); write it without one")
	}
	entries := strings.Split(text, ",")
	keys := make([]Key, 0, len(entries))
	for i, entry := range entries {
		k, err := parseKey(entry)
		if err != nil {
			return nil, fmt.Errorf("entry %d of %d: %w", i+1, len(entries), err)
		}
		for _, prev := range keys {
			switch {
			case prev.ID == k.ID:
				return nil, fmt.Errorf("entry %d of %d: key id %q appears twice", i+1, len(entries), k.ID)
			case bytes.Equal(prev.Secret, k.Secret):
				return nil, fmt.Errorf("keys %q and %q have the same secret; each key needs its own random bytes", prev.ID, k.ID)
			}
		}
		keys = append(keys, k)
	}
	return keys, nil
}

func parseKey(entry string) (Key, error) {
	entry = strings.TrimSpace(entry)
	if entry == "" {
		return Key{}, errors.New("empty (a comma too many?)")
	}
	id, secret, ok := strings.Cut(entry, ":")
	if !ok {
		return Key{}, errors.New("want id:secret, found no colon")
	}
	id, secret = strings.TrimSpace(id), strings.TrimSpace(secret)
	if !validID(id) {
		// The text before the colon may be a secret written the wrong way
		// round: say what is wrong with it, never what it is.
		return Key{}, fmt.Errorf("the key id before the colon must be 1 to 8 characters from A-Z a-z 0-9 (it has %d characters)", utf8.RuneCountInString(id))
	}
	raw, err := decodeSecret(secret)
	if err != nil {
		return Key{}, fmt.Errorf("key %q: %w", id, err)
	}
	if len(raw) != MinSecretBytes {
		return Key{}, fmt.Errorf("key %q: the secret decodes to %d bytes; it must be exactly %d random bytes", id, len(raw), MinSecretBytes)
	}
	if distinct(raw) < minDistinctBytes {
		return Key{}, fmt.Errorf("key %q: the secret does not look random (%d distinct byte values); use %d random bytes", id, distinct(raw), MinSecretBytes)
	}
	return Key{ID: id, Secret: raw}, nil
}

// decodeSecret accepts base64 in either alphabet, padded or not: the
// usual tools print the standard padded form, and some stores keep the
// URL-safe one. Padding, when present, must be right.
func decodeSecret(s string) ([]byte, error) {
	if s == "" {
		return nil, errors.New("the secret after the colon is empty")
	}
	// base64 skips line breaks, so a secret broken across lines (or two
	// entries one line each, the comma forgotten, of which the second
	// then failed as base64 for its colon) would be read as one; a
	// space inside is as surely a mistake.
	if strings.ContainsAny(s, " \t\r\n\v\f") {
		return nil, errors.New("the secret holds white space (a line break?); write it on one line, entries separated by commas")
	}
	urlSafe := strings.ContainsAny(s, "-_")
	var enc *base64.Encoding
	switch padded := strings.HasSuffix(s, "="); {
	case urlSafe && padded:
		enc = base64.URLEncoding
	case urlSafe:
		enc = base64.RawURLEncoding
	case padded:
		enc = base64.StdEncoding
	default:
		enc = base64.RawStdEncoding
	}
	raw, err := enc.Strict().DecodeString(s)
	if err != nil {
		// base64's error quotes nothing but an offset; a generic message
		// is as useful and cannot leak.
		return nil, errors.New("the secret is not valid base64")
	}
	return raw, nil
}

func distinct(b []byte) int {
	var seen [256]bool
	n := 0
	for _, c := range b {
		if !seen[c] {
			seen[c] = true
			n++
		}
	}
	return n
}

// LoadKeys reads a key ring in the text form of ParseKeys from the
// environment variable env or, when that is not set, from the file named
// by the variable env+"_FILE" (the convention of container secrets, which
// keeps the keys out of the process environment). For
// LoadKeys("INBOX_STATE_KEYS"):
//
//	INBOX_STATE_KEYS='k2:...,k1:...'        the ring itself
//	INBOX_STATE_KEYS_FILE=/run/secrets/keys  a file holding it
//
// It returns nil and no error when neither variable is set: the caller
// decides what no configuration means (era2026 without WithSealer seals
// with a random key of its own process, and says so in the log). A
// variable that is set but empty, both variables set, an unreadable file
// or a ring ParseKeys refuses is an error naming the variable, so a
// replica that was meant to share a ring never starts with one of its own.
// It panics on an empty env, a programming error rather than a
// configuration one.
func LoadKeys(env string) ([]Key, error) {
	if env == "" {
		panic("mrtr: LoadKeys needs the name of an environment variable")
	}
	fileEnv := env + "_FILE"
	text, inline := os.LookupEnv(env)
	path, fromFile := os.LookupEnv(fileEnv)
	switch {
	case inline && fromFile:
		return nil, fmt.Errorf("mrtr: both %s and %s are set; set one", env, fileEnv)
	case inline && strings.TrimSpace(text) == "":
		return nil, fmt.Errorf("mrtr: %s is set but empty", env)
	case inline:
		keys, err := parseKeys(text)
		if err != nil {
			return nil, fmt.Errorf("mrtr: %s: %w", env, err)
		}
		return keys, nil
	case fromFile && path == "":
		return nil, fmt.Errorf("mrtr: %s is set but empty", fileEnv)
	case fromFile:
		b, err := readLimited(path)
		if err != nil {
			return nil, fmt.Errorf("mrtr: %s: %w", fileEnv, err)
		}
		keys, err := parseKeys(string(b))
		if err != nil {
			return nil, fmt.Errorf("mrtr: %s (%s): %w", fileEnv, path, err)
		}
		return keys, nil
	}
	return nil, nil
}

func readLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxKeysFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxKeysFileBytes {
		return nil, fmt.Errorf("the file is larger than %d KiB; a key ring is a few hundred bytes", maxKeysFileBytes>>10)
	}
	return b, nil
}
