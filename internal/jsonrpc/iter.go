package jsonrpc

import (
	"bytes"
	"strconv"
	"unicode/utf8"
)

// Iter walks the members of a JSON object that has already passed Validate
// or Parse. It does no validation of its own, so it must never see
// unchecked bytes.
type Iter struct {
	data []byte
	pos  int
}

// NewIter returns an iterator over the members of obj; obj that is not an
// object yields nothing.
func NewIter(obj []byte) Iter {
	obj = trimWS(obj)
	if len(obj) == 0 || obj[0] != '{' {
		return Iter{}
	}
	return Iter{data: obj, pos: 1}
}

// Next returns the next member's unescaped name and raw value.
func (it *Iter) Next() (key, value []byte, ok bool) {
	d := it.data
	it.ws()
	if it.pos >= len(d) || d[it.pos] == '}' {
		return nil, nil, false
	}
	if d[it.pos] == ',' {
		it.pos++
		it.ws()
	}
	kStart := it.pos
	it.skipString()
	key = d[kStart+1 : it.pos-1]
	if bytes.IndexByte(key, '\\') >= 0 {
		key, _ = unescape(nil, key)
	}
	it.ws()
	it.pos++ // ':'
	it.ws()
	vStart := it.pos
	it.skipValue()
	return key, d[vStart:it.pos], true
}

// NextAt is Next as offsets into Data: the member's name, as written
// (escapes included, and escaped reports one), between k0 and k1, its
// value between v0 and v1. It allocates nothing.
func (it *Iter) NextAt() (k0, k1, v0, v1 int, escaped, ok bool) {
	d := it.data
	it.ws()
	if it.pos >= len(d) || d[it.pos] == '}' {
		return 0, 0, 0, 0, false, false
	}
	if d[it.pos] == ',' {
		it.pos++
		it.ws()
	}
	k0 = it.pos + 1
	it.skipString()
	k1 = it.pos - 1
	escaped = bytes.IndexByte(d[k0:k1], '\\') >= 0
	it.ws()
	it.pos++ // ':'
	it.ws()
	v0 = it.pos
	it.skipValue()
	return k0, k1, v0, it.pos, escaped, true
}

// trimWS drops the white space before a value: a loop, where
// bytes.TrimLeft with a cutset builds its set on every call.
func trimWS(b []byte) []byte {
	for len(b) > 0 && isWS(b[0]) {
		b = b[1:]
	}
	return b
}

// Data is the object the offsets of NextAt count into: NewIter's, from
// its opening brace.
func (it *Iter) Data() []byte { return it.data }

func (it *Iter) ws() {
	for it.pos < len(it.data) && isWS(it.data[it.pos]) {
		it.pos++
	}
}

func (it *Iter) skipString() {
	d := it.data
	i := it.pos + 1
	for {
		// The next quote ends the string unless an escape takes it: the
		// escapes before it are found with IndexByte (vectorised) within
		// the span up to it, so no byte is searched twice. Searching for
		// the quote again after every escape read a string of n escapes
		// n times over.
		q := bytes.IndexByte(d[i:], '"')
		if q < 0 {
			tally(len(d) - i)
			it.pos = len(d)
			return
		}
		tally(q + 1)
		end := i + q
		for i <= end {
			e := bytes.IndexByte(d[i:end], '\\')
			if e < 0 {
				tally(end - i)
				it.pos = end + 1
				return
			}
			tally(e + 1)
			i += e + 2 // an escape and the byte it escapes
		}
		// The escape took the quote at end: look for the next one.
	}
}

// searched, when a test sets it, adds up the bytes skipString's searches
// cover: the work of a walk, counted without a clock. Nil otherwise.
var searched *int

func tally(n int) {
	if searched != nil {
		*searched += n
	}
}

func (it *Iter) skipValue() {
	d := it.data
	if it.pos >= len(d) {
		return
	}
	switch d[it.pos] {
	case '"':
		it.skipString()
	case '{', '[':
		depth := 0
		for it.pos < len(d) {
			switch d[it.pos] {
			case '"':
				it.skipString()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					it.pos++
					return
				}
			}
			it.pos++
		}
	default:
		for it.pos < len(d) {
			switch d[it.pos] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				return
			}
			it.pos++
		}
	}
}

// Lookup returns the raw value of member key in a validated object.
func Lookup(obj []byte, key string) ([]byte, bool) {
	it := NewIter(obj)
	for {
		k, v, ok := it.Next()
		if !ok {
			return nil, false
		}
		if string(k) == key {
			return v, true
		}
	}
}

// String decodes a raw, validated JSON string value. It reports false when
// raw is not a string.
func String(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return string(body), true
	}
	out, ok := unescape(nil, body)
	return string(out), ok
}

// AppendUnquoted appends the text of raw, a validated JSON string value,
// to dst: String without an allocation of its own, for a caller that
// reads many strings through one buffer. It reports false when raw is not
// a string.
func AppendUnquoted(dst, raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return dst, false
	}
	return unescape(dst, raw[1:len(raw)-1])
}

// StringIs reports whether the raw, validated JSON value is the string s,
// without copying it when it holds no escape.
func StringIs(raw []byte, s string) bool {
	if len(raw) < 2 || raw[0] != '"' {
		return false
	}
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return string(body) == s
	}
	out, ok := unescape(nil, body)
	return ok && string(out) == s
}

// IsNull reports whether raw is the JSON literal null.
func IsNull(raw []byte) bool { return string(raw) == "null" }

// AppendString appends s to dst as a JSON string. It escapes only what JSON
// requires plus U+2028/U+2029, and replaces invalid UTF-8 with U+FFFD so the
// output is always valid.
func AppendString(dst []byte, s string) []byte { return appendQuoted(dst, s, utf8.DecodeRuneInString) }

// AppendEscaped is AppendString for text in bytes (a route's answer),
// without a copy and without the quotes, so a text may be written in
// pieces: each piece must end where a character ends (CutText).
func AppendEscaped(dst []byte, b []byte) []byte { return appendEscaped(dst, b, utf8.DecodeRune) }

// CutText returns the length of the first piece of b to quote on its own:
// at most max bytes (max >= 4), cut before a byte that starts a character,
// so that quoting the pieces gives what quoting b whole does. b may be a
// string: an echo of a client's name is cut with it, no copy made, and
// b[:CutText(b, max)] is b itself when it is short enough.
func CutText[S ~string | ~[]byte](b S, max int) int {
	if len(b) <= max {
		return len(b)
	}
	// A character's later bytes are 10xxxxxx, and there are at most three:
	// back up to the byte that starts the character at max. Four of them
	// in a row belong to no character, and max is then a cut as good as any.
	cont := func(c byte) bool { return c&0xC0 == 0x80 }
	n := max
	for i := 0; i < 3 && cont(b[n]); i++ {
		n--
	}
	if cont(b[n]) {
		return max
	}
	return n
}

func appendQuoted[S ~string | ~[]byte](dst []byte, s S, decode func(S) (rune, int)) []byte {
	dst = append(dst, '"')
	dst = appendEscaped(dst, s, decode)
	return append(dst, '"')
}

func appendEscaped[S ~string | ~[]byte](dst []byte, s S, decode func(S) (rune, int)) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, `\u00`...)
				dst = append(dst, hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := decode(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\u202`...)
			dst = append(dst, hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(dst, s[start:]...)
}

const hexDigits = "0123456789abcdef"

// AppendInt appends n as a JSON number.
func AppendInt(dst []byte, n int64) []byte { return strconv.AppendInt(dst, n, 10) }

// Member is one member of a validated object: its unescaped name and raw
// value.
type Member struct {
	Key, Value []byte
}

// Members appends the members of a validated object to dst, in order, so
// that a caller doing several lookups scans the object once.
func Members(obj []byte, dst []Member) []Member {
	it := NewIter(obj)
	for {
		k, v, ok := it.Next()
		if !ok {
			return dst
		}
		dst = append(dst, Member{k, v})
	}
}

// Object renders a JSON object of string members, in the order given:
// name, value, name, value.
func Object(fields ...string) []byte {
	b := []byte{'{'}
	for i := 0; i+1 < len(fields); i += 2 {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, fields[i])
		b = append(b, ':')
		b = AppendString(b, fields[i+1])
	}
	return append(b, '}')
}

// IsObject reports whether v, a value the scanner accepted, is an object.
func IsObject(v []byte) bool { return len(v) > 0 && v[0] == '{' }

// Elems walks the elements of a JSON array that has already passed
// Validate or Parse; like Iter, it does no validation of its own.
type Elems struct{ it Iter }

// NewElems returns an iterator over the elements of arr; arr that is not
// an array yields nothing.
func NewElems(arr []byte) Elems {
	arr = trimWS(arr)
	if len(arr) == 0 || arr[0] != '[' {
		return Elems{}
	}
	return Elems{Iter{data: arr, pos: 1}}
}

// Next returns the next element's raw value.
func (e *Elems) Next() ([]byte, bool) {
	it := &e.it
	d := it.data
	it.ws()
	if it.pos >= len(d) || d[it.pos] == ']' {
		return nil, false
	}
	if d[it.pos] == ',' {
		it.pos++
		it.ws()
	}
	start := it.pos
	it.skipValue()
	return d[start:it.pos], true
}
