package mcp

import (
	"net/url"
	"testing"
)

// FuzzCanonicalURI: a resource URI is a client's bytes, and its canonical
// spelling decides which registered resource it reads (resourceAt) and
// which spellings the permission rule is asked (visibleURI). Whatever the
// URI: the canonical spelling is its own canonical spelling, holds only
// bytes a URI holds as they are, and stands for the same octets — each
// escape of three characters decoded, any other "%" taken as itself, as a
// lenient reader does — so that no spelling is turned into another URI's
// (a stray "%" must not become the start of an escape). A URI already
// canonical is left as it is, and one url.PathUnescape decodes decodes to
// the same text canonicalized.
func FuzzCanonicalURI(f *testing.F) {
	for _, s := range []string{
		"v://docs/secret", "v://docs/%73ecret", "v://docs/a b", "v://docs/a%20b", "v://docs/caf\xc3\xa9",
		"v://docs/%2f%2F", "v://x?%2%41", "v://x/%%4141", "v://x/%zz", "v://x/%", "v://x/%4", "urn:%e2%82%ac",
		"v://x/\x00\x7f\xff", "v://x/{a}|^`\\", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		c := canonicalURI(uri)
		if a, b := lenientUnescape(uri), lenientUnescape(c); a != b {
			t.Fatalf("canonicalURI(%q) = %q: the octets %q became %q", uri, c, a, b)
		}
		if again := canonicalURI(c); again != c {
			t.Fatalf("canonicalURI(%q) = %q, whose canonical spelling is %q", uri, c, again)
		}
		for i := 0; i < len(c); i++ {
			if !uriByte(c[i]) {
				t.Fatalf("canonicalURI(%q) = %q holds byte %#x", uri, c, c[i])
			}
		}
		if spellingAt(uri) < 0 && c != uri {
			t.Fatalf("%q has no byte to respell, yet its canonical spelling is %q", uri, c)
		}
		if dec, err := url.PathUnescape(uri); err == nil {
			if got, err := url.PathUnescape(c); err != nil || got != dec {
				t.Fatalf("canonicalURI(%q) = %q decodes to %q (%v), the URI to %q", uri, c, got, err, dec)
			}
		}
	})
}

// lenientUnescape decodes every "%" followed by two hex digits and keeps
// any other byte, a stray "%" included, as it is.
func lenientUnescape(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	return string(b)
}
