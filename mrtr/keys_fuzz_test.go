package mrtr

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"
	"unicode"
)

// FuzzParseKeys reads key ring texts. Whatever the text, ParseKeys does
// not panic, and its error never quotes a secret or text that could be
// one (no run of 12 or more characters of the text without white space, a
// comma or a colon: an id, which an error may name, has at most 8). A
// ring it returns is one NewRing and NewAESRing take — at least one key,
// ids of 1 to 8 letters or digits each once, secrets of 32 bytes with 16
// distinct values each once — and every secret was written exactly as
// base64 writes 32 bytes, in one of the four forms ParseKeys documents,
// with no line break inside (which base64 decoders skip): any other
// spelling is refused. Written again in each form, the ring reads back
// the same.
func FuzzParseKeys(f *testing.F) {
	for _, text := range []string{
		"k2:YhJ9WgWGUbYxkcpz6qkFqMMFaMFCAZA0KJ6T1lrDdxc=,k1:/+Dw0F2kbC5uYLtYKfbn4G25uJCR/CcYHmqoWoFdRpo=",
		" k2 : YhJ9WgWGUbYxkcpz6qkFqMMFaMFCAZA0KJ6T1lrDdxc , k1:_-Dw0F2kbC5uYLtYKfbn4G25uJCR_CcYHmqoWoFdRpo= ",
		"k1:YhJ9WgWGUbYxkcpz6qkFqMMFaMFCAZA0KJ6T1lrDdxc=\n",
		"k1:YhJ9WgWGUbYxkcpz6qkF\nqMMFaMFCAZA0KJ6T1lrDdxc=",
		"k1:YhJ9WgWGUbYxkcpz6qkF\r\nqMMFaMFCAZA0KJ6T1lrDdxc=",
		"k2:YhJ9WgWGUbYxkcpz6qkFqMMFaMFCAZA0",
		"k2:YhJ9WgWGUbYxkcpz6qkFqMMFaMFCAZA0KJ6T1lrDdxc=,k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
		"k1:YhJ9WgWGUbYxkcpz6qkFqMMFaMFCAZA0KJ6T1lrDdxc=,k1:/+Dw0F2kbC5uYLtYKfbn4G25uJCR/CcYHmqoWoFdRpo=",
		"YhJ9WgWGUbYxkcpz6qkFqMMFaMFCAZA0KJ6T1lrDdxc=:k1",
		"k1:YhJ9WgWGUbYxkcpz6qkFqMMFaMFCAZA0KJ6T1lrDdxd=",
		"k1:YhJ9WgWGUbYxkcpz6qkFqMMFaMFCAZA0KJ6T1lrDdxc=,",
		"", ",", ":", "k1:", "toolongid:YhJ9WgWGUbYxkcpz6qkFqMMFaMFCAZA0KJ6T1lrDdxc=",
	} {
		f.Add(text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		keys, err := ParseKeys(text)
		if err != nil {
			msg := err.Error()
			for _, run := range strings.FieldsFunc(text, func(r rune) bool { return unicode.IsSpace(r) || r == ',' || r == ':' }) {
				if len(run) >= 12 && strings.Contains(msg, run) {
					t.Errorf("the error quotes %q of the text: %s", run, msg)
				}
			}
			return
		}
		if len(keys) == 0 {
			t.Fatal("no keys and no error")
		}
		if _, err := NewRing(keys...); err != nil {
			t.Errorf("NewRing refuses what ParseKeys returned: %v", err)
		}
		if _, err := NewAESRing(keys...); err != nil {
			t.Errorf("NewAESRing refuses what ParseKeys returned: %v", err)
		}
		entries := strings.Split(text, ",")
		if len(entries) != len(keys) {
			t.Fatalf("%d entries read as %d keys", len(entries), len(keys))
		}
		forms := []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding}
		for i, k := range keys {
			if len(k.Secret) != MinSecretBytes || distinct(k.Secret) < minDistinctBytes || !validID(k.ID) {
				t.Errorf("key %d: id %q, %d bytes, %d distinct", i, k.ID, len(k.Secret), distinct(k.Secret))
			}
			for _, prev := range keys[:i] {
				if prev.ID == k.ID || bytes.Equal(prev.Secret, k.Secret) {
					t.Errorf("keys %q and %q share an id or a secret", prev.ID, k.ID)
				}
			}
			// Exactly as base64 writes the bytes, nothing inside: the
			// decoder skips line breaks, and a secret broken across lines
			// is refused (TestParseKeys_Refuses).
			_, written, _ := strings.Cut(entries[i], ":")
			written = strings.TrimSpace(written)
			spelled := false
			for _, enc := range forms {
				spelled = spelled || enc.EncodeToString(k.Secret) == written
			}
			if !spelled {
				t.Errorf("key %q: the secret %q is not how base64 writes its bytes", k.ID, written)
			}
		}
		for _, enc := range forms {
			var b strings.Builder
			for i, k := range keys {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(k.ID + ":" + enc.EncodeToString(k.Secret))
			}
			again, err := ParseKeys(b.String())
			if err != nil || len(again) != len(keys) {
				t.Fatalf("written again: %v", err)
			}
			for i := range keys {
				if again[i].ID != keys[i].ID || !bytes.Equal(again[i].Secret, keys[i].Secret) {
					t.Errorf("written again, key %d reads as %q", i, again[i].ID)
				}
			}
		}
	})
}
