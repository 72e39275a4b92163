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
// §6.2.2): an encoded letter, digit or "-._~" decoded, and every other
// escape's hex digits upper case. A template matches any spelling and its
// route gets the decoded values, so "v://docs/%73ecret" reads what
// "v://docs/secret" reads: the registry and the permission rule must see
// both as one (resourceAt, visibleURI). A "%" not followed by two hex
// digits is left as it is (a template match refuses it).
func canonicalURI(uri string) string {
	i := strings.IndexByte(uri, '%')
	if i < 0 {
		return uri
	}
	b := make([]byte, 0, len(uri))
	b = append(b, uri[:i]...)
	for ; i < len(uri); i++ {
		c := uri[i]
		if c != '%' || i+2 >= len(uri) || !isHex(uri[i+1]) || !isHex(uri[i+2]) {
			b = append(b, c)
			continue
		}
		v := unhex(uri[i+1])<<4 | unhex(uri[i+2])
		if 'a' <= v && v <= 'z' || 'A' <= v && v <= 'Z' || '0' <= v && v <= '9' || v == '-' || v == '.' || v == '_' || v == '~' {
			b = append(b, v)
		} else {
			b = append(b, '%', upperHex[v>>4], upperHex[v&15])
		}
		i += 2
	}
	return string(b)
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
