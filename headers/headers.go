package headers

import (
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"unicode/utf8"
)

// Header names, in canonical form. Lookups through http.Header are
// case-insensitive, as RFC 9110 requires of field names.
const (
	ProtocolVersion = "Mcp-Protocol-Version"
	Method          = "Mcp-Method"
	Name            = "Mcp-Name"
	// ParamPrefix starts the name of every header carrying a tool argument
	// annotated with "x-mcp-header" (2026-07-28).
	ParamPrefix = "Mcp-Param-"
	// SessionID is named so that it can be ignored on purpose: a stateless
	// server never mints, reads or echoes it.
	SessionID = "Mcp-Session-Id"
)

const (
	sentinelPrefix = "=?base64?"
	sentinelSuffix = "?="
)

// Errors returned by Get and Decode. They name no value, so they are safe to
// put in a response.
var (
	ErrMissing   = errors.New("missing")
	ErrDuplicate = errors.New("sent more than once")
	ErrInvalid   = errors.New("invalid characters")
	ErrEncoding  = errors.New("invalid base64 encoding")
)

// Get returns the single value of header name with surrounding spaces and
// tabs removed. HTTP/1.1 parsing trims them already; HTTP/2 does not, and
// the spec requires " foo " to be accepted as "foo". A header sent twice is
// ErrDuplicate: Header.Get would silently pick the first. The name is
// looked up as given, then in canonical form: the constants here are
// canonical already, and net/http canonicalizes what it reads, so the
// usual lookup costs no canonicalization. (A map built by hand with keys
// not in canonical form may answer for a name that is not either, such
// as a declared Mcp-Param-userId; net/http never builds one.)
func Get(h http.Header, name string) (string, error) {
	vs, ok := h[name]
	if !ok {
		vs = h.Values(name)
	}
	switch len(vs) {
	case 0:
		return "", ErrMissing
	case 1:
		return trimSpaceTab(vs[0]), nil
	default:
		return "", ErrDuplicate
	}
}

// trimSpaceTab is strings.Trim(v, " \t") without building the cut set on
// every call.
func trimSpaceTab(v string) string {
	for len(v) > 0 && (v[0] == ' ' || v[0] == '\t') {
		v = v[1:]
	}
	for len(v) > 0 && (v[len(v)-1] == ' ' || v[len(v)-1] == '\t') {
		v = v[:len(v)-1]
	}
	return v
}

// Decode returns the value a Mcp-Name or Mcp-Param-* header stands for. A
// value wrapped in the case-sensitive sentinel =?base64?…?= is decoded as
// standard, padded base64 of UTF-8 bytes; anything else is a literal that
// must be visible ASCII (spaces and tabs allowed inside).
func Decode(v string) (string, error) {
	if strings.HasPrefix(v, sentinelPrefix) && strings.HasSuffix(v, sentinelSuffix) {
		// "=?base64?=" starts with the prefix and ends with the suffix,
		// sharing its "?": the rule makes it a sentinel, and Encode
		// wraps it as one, yet it has no text inside. Taken as a literal
		// it would stand for itself here and for nothing to an
		// intermediary applying the rule: it is refused.
		if len(v) < len(sentinelPrefix)+len(sentinelSuffix) {
			return "", ErrEncoding
		}
		inner := v[len(sentinelPrefix) : len(v)-len(sentinelSuffix)]
		// The standard decoder skips CR and LF; a header value cannot hold
		// them, but a value built in-process could, so refuse them here.
		if strings.ContainsAny(inner, "\r\n") {
			return "", ErrEncoding
		}
		b, err := base64.StdEncoding.Strict().DecodeString(inner)
		if err != nil || !utf8.Valid(b) {
			return "", ErrEncoding
		}
		return string(b), nil
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if (c < 0x20 && c != '\t') || c >= 0x7f {
			return "", ErrInvalid
		}
	}
	return v, nil
}

// Encode renders s as a header value: as is when it is safe as a plain
// value, otherwise wrapped in the base64 sentinel. Values that themselves
// look like the sentinel are always wrapped.
func Encode(s string) string {
	if plainSafe(s) {
		return s
	}
	return sentinelPrefix + base64.StdEncoding.EncodeToString([]byte(s)) + sentinelSuffix
}

func plainSafe(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == ' ' || s[0] == '\t' || s[len(s)-1] == ' ' || s[len(s)-1] == '\t' {
		return false
	}
	if strings.HasPrefix(s, sentinelPrefix) && strings.HasSuffix(s, sentinelSuffix) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\t') || c >= 0x7f {
			return false
		}
	}
	return true
}
