package mcp

import (
	"fmt"
	"net/url"
	"strings"
)

// maxURIBytes bounds a URI a client may ask to read.
const maxURIBytes = 2048

func checkURI(s string) error {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return err
	case u.Scheme == "":
		return fmt.Errorf("not an absolute URI")
	case u.Fragment != "" || strings.ContainsAny(s, " \t\r\n"):
		return fmt.Errorf("a resource URI has no fragment or white space")
	case len(s) > maxURIBytes:
		return fmt.Errorf("longer than %d bytes", maxURIBytes)
	}
	return nil
}

// canonicalURI is uri with its percent-encoding normalized (RFC 3986
// §6.2.2): an encoded letter, digit or "-._~" decoded, every other
// escape's hex digits upper case, and every byte a URI may not hold as it
// is (a space, a control, a byte of a non-ASCII character, or one of
// the quote, angle brackets, backslash, caret, backquote, braces and bar)
// encoded. A template matches any spelling and its route gets
// the decoded values, so "v://docs/%73ecret" reads what "v://docs/secret"
// reads and "v://docs/a b" what "v://docs/a%20b" reads: the registry and
// the permission rule must see each pair as one (resourceAt, visibleURI).
// A "%" not followed by two hex digits is left as it is (a template match
// refuses it), and an escape right after such a stray "%" (or after it
// and one hex digit) stays encoded even when it stands for an unreserved
// hex digit: decoded, it would complete the stray "%" into an escape, and
// "v://x?%2%41" would be respelled "v://x?%2A", another URI's octets,
// reading a resource registered under that URI.
func canonicalURI(uri string) string {
	i := spellingAt(uri)
	if i < 0 {
		return uri
	}
	b := make([]byte, 0, len(uri)+8)
	b = append(b, uri[:i]...)
	for ; i < len(uri); i++ {
		c := uri[i]
		if !uriByte(c) {
			b = append(b, '%', upperHex[c>>4], upperHex[c&15])
			continue
		}
		if c != '%' || i+2 >= len(uri) || !isHex(uri[i+1]) || !isHex(uri[i+2]) {
			b = append(b, c)
			continue
		}
		v := unhex(uri[i+1])<<4 | unhex(uri[i+2])
		if unreserved(v) && !(isHex(v) && strayEnd(b)) {
			b = append(b, v)
		} else {
			b = append(b, '%', upperHex[v>>4], upperHex[v&15])
		}
		i += 2
	}
	return string(b)
}

// spellingAt returns the index of uri's first byte that canonicalURI may
// change (a "%" or a byte a URI does not hold as it is), -1 when uri is
// its own canonical spelling.
func spellingAt(uri string) int {
	for i := 0; i < len(uri); i++ {
		if c := uri[i]; c == '%' || !uriByte(c) {
			return i
		}
	}
	return -1
}

// strayEnd reports whether the spelling b ends in a "%" that starts no
// escape yet, alone or with one hex digit after it: a hex digit appended
// would make one. A "%" b holds starts a three-character escape or is a
// stray one, so a "%" in either of the last two bytes is a stray.
func strayEnd(b []byte) bool {
	n := len(b)
	return n >= 1 && b[n-1] == '%' || n >= 2 && b[n-2] == '%' && isHex(b[n-1])
}

// unreserved reports whether c is an RFC 3986 unreserved character: a
// letter, a digit or "-._~".
func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

// uriByte reports whether c may stand as it is in a URI (RFC 3986 §2:
// unreserved, reserved, and "%" for its escapes).
func uriByte(c byte) bool {
	if c <= ' ' || c >= 0x7f {
		return false
	}
	switch c {
	case '"', '<', '>', '\\', '^', '`', '{', '|', '}':
		return false
	}
	return true
}

const upperHex = "0123456789ABCDEF"

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}
