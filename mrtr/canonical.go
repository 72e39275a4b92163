package mrtr

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Canonical returns the canonical form of a JSON object: members sorted by
// name at every depth, no insignificant white space, numbers as written.
// Nil or empty input is the empty object.
func Canonical(obj []byte) ([]byte, error) {
	return appendCanonical(nil, obj)
}

// appendCanonical appends the canonical form of obj to dst.
//
// The definition of the form is what encoding/json gives when it decodes
// obj into a map (numbers kept as written) and encodes it again without
// HTML escaping: canonicalSlow. That costs a map, a boxed value and a
// string per member — 50 to 60 times the input for a document of many
// small values — so the form is computed by a single pass that copies
// tokens, decodes each escape and writes it again the way encoding/json
// would, and sorts members in place: its cost is the output, the
// positions of the members of the objects open at once, and nothing per
// value. Only input that is not one valid object nested at most
// maxCanonicalDepth deep takes the definition, which refuses it: a
// document that is not one JSON object (`null`, an object followed by a
// stray '}' or ']', white space JSON does not allow) has no canonical
// form, so that no two texts share a digest. FuzzCanonical checks that
// both agree wherever the single pass answers.
func appendCanonical(dst, obj []byte) ([]byte, error) {
	if len(trimJSONSpace(obj)) == 0 {
		return append(dst, "{}"...), nil
	}
	if out, ok := appendFast(dst, obj); ok {
		return out, nil
	}
	out, err := canonicalSlow(obj)
	if err != nil {
		return dst, err
	}
	return append(dst, out...), nil
}

// maxFastInput keeps every offset into the output within an int32 (the
// output is at most about three times the input: an invalid byte becomes
// the three bytes of U+FFFD).
const maxFastInput = 1 << 28

// appendFast is the single pass; ok is false when the input is outside
// what it handles (dst may then hold a partial copy past its length).
func appendFast(dst, obj []byte) (out []byte, ok bool) {
	if len(obj) > maxFastInput {
		return dst, false
	}
	// The output is at most the input, except where an invalid byte or
	// U+2028/U+2029 grows; sorting an object appends a sorted copy of it
	// before moving that into place, so twice the input is all the pass
	// needs: reserved at once, rather than grown by append, whose steps
	// would add up to several times the output.
	if need := 2*len(obj) + 2; cap(dst)-len(dst) < need {
		dst = slices.Grow(dst, need)
	}
	c := canonPool.Get().(*canon)
	defer c.release()
	c.in, c.pos, c.out = obj, 0, dst
	c.ws()
	if c.pos < len(c.in) && c.in[c.pos] == '{' && c.object(0) {
		c.ws()
		if c.pos == len(c.in) {
			return c.out, true
		}
	}
	return dst, false
}

// canonPool keeps the member stacks of finished passes, so that a digest
// of a small object allocates nothing.
var canonPool = sync.Pool{New: func() any { return &canon{ms: make([]member, 0, 32)} }}

// maxPooledMembers keeps the stacks of very large objects out of the pool.
const maxPooledMembers = 4096

func (c *canon) release() {
	if cap(c.ms) > maxPooledMembers {
		return
	}
	c.in, c.out, c.ms = nil, nil, c.ms[:0]
	canonPool.Put(c)
}

// canonicalSlow is the definition of the canonical form.
func canonicalSlow(obj []byte) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(obj))
	d.UseNumber()
	var v map[string]any
	if err := d.Decode(&v); err != nil || v == nil {
		return nil, errors.New("mrtr: arguments must be a JSON object")
	}
	// More reports false before a stray '}' or ']': what follows the
	// object must be JSON's white space and nothing else, or two texts
	// would share one digest.
	if len(trimJSONSpace(obj[d.InputOffset():])) != 0 {
		return nil, errors.New("mrtr: arguments must be one JSON object")
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// trimJSONSpace removes JSON's white space (RFC 8259: space, tab, LF,
// CR) from both ends of b; bytes.TrimSpace would remove more (\v, \f,
// U+0085, U+00A0), which JSON does not allow there.
func trimJSONSpace(b []byte) []byte {
	return bytes.Trim(b, " \t\r\n")
}

// maxCanonicalDepth is encoding/json's own nesting bound (its scanner
// refuses deeper input), counted from 0 at the outer object.
const maxCanonicalDepth = 10000 - 1

// canon is the single pass: it reads in from pos and appends to out. Each
// method reports false when the input is outside what it handles. ms is a
// stack of the members of the objects open at once: an object's members
// sit above those of its parents and are dropped when it closes.
type canon struct {
	in  []byte
	pos int
	out []byte
	ms  []member
}

// member is where one member of an object landed in out: its quoted name
// at [name, name+nameLen) and the whole "name":value at [name, end).
// escaped says the name's canonical text holds an escape, so it sorts by
// what it decodes to rather than by its bytes.
type member struct {
	name, end int32
	nameLen   int32
	escaped   bool
}

func (c *canon) ws() {
	for c.pos < len(c.in) {
		switch c.in[c.pos] {
		case ' ', '\t', '\n', '\r':
			c.pos++
		default:
			return
		}
	}
}

func (c *canon) value(depth int) bool {
	if c.pos >= len(c.in) {
		return false
	}
	switch b := c.in[c.pos]; {
	case b == '{':
		return c.object(depth + 1)
	case b == '[':
		return c.array(depth + 1)
	case b == '"':
		_, ok := c.str()
		return ok
	case b == 't':
		return c.literal("true")
	case b == 'f':
		return c.literal("false")
	case b == 'n':
		return c.literal("null")
	default:
		return c.number()
	}
}

func (c *canon) literal(lit string) bool {
	if !bytes.HasPrefix(c.in[c.pos:], []byte(lit)) {
		return false
	}
	c.out = append(c.out, lit...)
	c.pos += len(lit)
	return true
}

// number copies a number token that follows the JSON grammar, as written.
func (c *canon) number() bool {
	in, start := c.in, c.pos
	digits := func() int {
		n := 0
		for c.pos < len(in) && in[c.pos] >= '0' && in[c.pos] <= '9' {
			c.pos++
			n++
		}
		return n
	}
	if c.pos < len(in) && in[c.pos] == '-' {
		c.pos++
	}
	if c.pos < len(in) && in[c.pos] == '0' {
		c.pos++
	} else if digits() == 0 {
		return false
	}
	if c.pos < len(in) && in[c.pos] == '.' {
		c.pos++
		if digits() == 0 {
			return false
		}
	}
	if c.pos < len(in) && (in[c.pos] == 'e' || in[c.pos] == 'E') {
		c.pos++
		if c.pos < len(in) && (in[c.pos] == '+' || in[c.pos] == '-') {
			c.pos++
		}
		if digits() == 0 {
			return false
		}
	}
	c.out = append(c.out, in[start:c.pos]...)
	return true
}

// str appends the string token at pos as encoding/json would write the
// string it decodes: runs that need no change are copied as they are;
// each escape is decoded (a lone or broken surrogate becomes U+FFFD, as
// encoding/json decodes it) and written again the encoder's way, as is an
// invalid byte (U+FFFD) and U+2028/U+2029 (escaped). escaped reports
// whether the output may hold an escape.
func (c *canon) str() (escaped, ok bool) {
	in := c.in
	c.pos++ // opening quote
	c.out = append(c.out, '"')
	run := c.pos
	for c.pos < len(in) {
		b := in[c.pos]
		switch {
		case b == '"':
			c.out = append(c.out, in[run:c.pos]...)
			c.out = append(c.out, '"')
			c.pos++
			return escaped, true
		case b == '\\':
			c.out = append(c.out, in[run:c.pos]...)
			if !c.escape() {
				return false, false
			}
			escaped = true
			run = c.pos
		case b < 0x20:
			return false, false
		case b < utf8.RuneSelf:
			c.pos++
		default:
			r, size := utf8.DecodeRune(in[c.pos:])
			if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
				c.out = append(c.out, in[run:c.pos]...)
				escaped = c.rune(r) || escaped
				c.pos += size
				run = c.pos
				continue
			}
			c.pos += size
		}
	}
	return false, false
}

// escape decodes the escape at pos, as encoding/json's decoder does, and
// appends what its encoder writes for the result.
func (c *canon) escape() bool {
	in := c.in
	if c.pos+1 >= len(in) {
		return false
	}
	var r rune
	switch e := in[c.pos+1]; e {
	case '"', '\\', '/':
		r = rune(e)
	case 'b':
		r = '\b'
	case 'f':
		r = '\f'
	case 'n':
		r = '\n'
	case 'r':
		r = '\r'
	case 't':
		r = '\t'
	case 'u':
		r = hex4(in[c.pos:])
		if r < 0 {
			return false
		}
		c.pos += 6
		if utf16.IsSurrogate(r) {
			if pair := utf16.DecodeRune(r, hex4(in[c.pos:])); pair != unicode.ReplacementChar {
				r = pair
				c.pos += 6
			} else {
				r = unicode.ReplacementChar
			}
		}
		c.rune(r)
		return true
	default:
		return false
	}
	c.pos += 2
	c.rune(r)
	return true
}

// rune appends r as encoding/json's encoder writes it inside a string
// (without HTML escaping) and reports whether that is an escape.
func (c *canon) rune(r rune) bool {
	const hex = "0123456789abcdef"
	switch {
	case r == '"' || r == '\\':
		c.out = append(c.out, '\\', byte(r))
	case r == '\b':
		c.out = append(c.out, '\\', 'b')
	case r == '\f':
		c.out = append(c.out, '\\', 'f')
	case r == '\n':
		c.out = append(c.out, '\\', 'n')
	case r == '\r':
		c.out = append(c.out, '\\', 'r')
	case r == '\t':
		c.out = append(c.out, '\\', 't')
	case r < 0x20:
		c.out = append(c.out, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xF])
	case r == '\u2028' || r == '\u2029':
		c.out = append(c.out, '\\', 'u', '2', '0', '2', hex[r&0xF])
	default:
		c.out = utf8.AppendRune(c.out, r)
		return false
	}
	return true
}

// hex4 reads \uXXXX at the start of s, or returns -1.
func hex4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, b := range s[2:6] {
		switch {
		case b >= '0' && b <= '9':
			b -= '0'
		case b >= 'a' && b <= 'f':
			b -= 'a' - 10
		case b >= 'A' && b <= 'F':
			b -= 'A' - 10
		default:
			return -1
		}
		r = r<<4 | rune(b)
	}
	return r
}

func (c *canon) array(depth int) bool {
	if depth > maxCanonicalDepth {
		return false
	}
	c.pos++ // [
	c.out = append(c.out, '[')
	c.ws()
	if c.pos < len(c.in) && c.in[c.pos] == ']' {
		c.pos++
		c.out = append(c.out, ']')
		return true
	}
	for {
		c.ws()
		if !c.value(depth) {
			return false
		}
		c.ws()
		if c.pos >= len(c.in) {
			return false
		}
		switch c.in[c.pos] {
		case ',':
			c.pos++
			c.out = append(c.out, ',')
		case ']':
			c.pos++
			c.out = append(c.out, ']')
			return true
		default:
			return false
		}
	}
}

// object copies the members as they come, then, if they are not in order
// already or a name repeats, appends them again sorted (of a repeated
// name only the last, as encoding/json keeps it) and moves that copy into
// place.
func (c *canon) object(depth int) bool {
	if depth > maxCanonicalDepth {
		return false
	}
	c.pos++ // {
	open := len(c.out)
	c.out = append(c.out, '{')
	c.ws()
	if c.pos < len(c.in) && c.in[c.pos] == '}' {
		c.pos++
		c.out = append(c.out, '}')
		return true
	}
	base := len(c.ms)
	defer func() { c.ms = c.ms[:base] }()
	for {
		c.ws()
		if c.pos >= len(c.in) || c.in[c.pos] != '"' {
			return false
		}
		m := member{name: int32(len(c.out))}
		escaped, ok := c.str()
		if !ok {
			return false
		}
		m.nameLen, m.escaped = int32(len(c.out))-m.name, escaped
		c.ws()
		if c.pos >= len(c.in) || c.in[c.pos] != ':' {
			return false
		}
		c.pos++
		c.out = append(c.out, ':')
		c.ws()
		if !c.value(depth) {
			return false
		}
		m.end = int32(len(c.out))
		if len(c.ms) == cap(c.ms) {
			// Doubling: append's smaller steps for large slices would
			// allocate several times the final stack on the way.
			c.ms = slices.Grow(c.ms, len(c.ms))
		}
		c.ms = append(c.ms, m)
		c.ws()
		if c.pos >= len(c.in) {
			return false
		}
		if c.in[c.pos] == '}' {
			c.pos++
			break
		}
		if c.in[c.pos] != ',' {
			return false
		}
		c.pos++
		c.out = append(c.out, ',')
	}
	ms := c.ms[base:]
	// Names compare by what they decode to (encoding/json sorts the
	// decoded keys); equal names by position, so the last of a repeated
	// name ends its run.
	cmp := func(a, b member) int {
		if n := c.compareNames(a, b); n != 0 {
			return n
		}
		return int(a.name - b.name)
	}
	rewrite := !slices.IsSortedFunc(ms, cmp)
	if rewrite {
		slices.SortFunc(ms, cmp)
	}
	for i := 1; i < len(ms) && !rewrite; i++ {
		rewrite = c.compareNames(ms[i-1], ms[i]) == 0
	}
	if rewrite {
		sorted := len(c.out)
		first := true
		for i, m := range ms {
			if i+1 < len(ms) && c.compareNames(m, ms[i+1]) == 0 {
				continue // a later member of the same name wins
			}
			if !first {
				c.out = append(c.out, ',')
			}
			first = false
			c.out = append(c.out, c.out[m.name:m.end]...)
		}
		n := copy(c.out[open+1:], c.out[sorted:])
		c.out = c.out[:open+1+n]
	}
	c.out = append(c.out, '}')
	return true
}

// compareNames orders two members by their decoded names. Names without
// escapes compare as bytes; otherwise code point by code point, which is
// the order of the decoded UTF-8 (the canonical text is valid UTF-8).
func (c *canon) compareNames(a, b member) int {
	x := c.out[a.name+1 : a.name+a.nameLen-1] // without the quotes
	y := c.out[b.name+1 : b.name+b.nameLen-1]
	if !a.escaped && !b.escaped {
		return bytes.Compare(x, y)
	}
	for len(x) > 0 && len(y) > 0 {
		rx, nx := canonicalRune(x)
		ry, ny := canonicalRune(y)
		if rx != ry {
			return int(rx - ry)
		}
		x, y = x[nx:], y[ny:]
	}
	return len(x) - len(y)
}

// canonicalRune decodes the first character of canonical string text:
// one of the escapes rune writes, or a UTF-8 sequence.
func canonicalRune(s []byte) (rune, int) {
	if s[0] != '\\' {
		return utf8.DecodeRune(s)
	}
	switch s[1] {
	case 'u':
		return hex4(s), 6
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case 'n':
		return '\n', 2
	case 'r':
		return '\r', 2
	case 't':
		return '\t', 2
	}
	return rune(s[1]), 2
}
