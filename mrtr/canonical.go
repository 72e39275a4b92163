package mrtr

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
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
// string per member, on every round of a confirmed call, so the common
// case takes a single pass that copies tokens as they are and sorts
// members in place. It gives up, and the definition runs instead, on
// anything whose re-encoding would differ from its input: escapes other
// than \" \\ \n \r \t, names with any escape, U+2028 and U+2029, invalid
// UTF-8, duplicate names, deep nesting, anything but one valid object.
// FuzzCanonical checks that both agree wherever the fast pass answers.
func appendCanonical(dst, obj []byte) ([]byte, error) {
	if len(bytes.TrimSpace(obj)) == 0 {
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

// appendFast is the single pass; ok is false when the input is outside
// what it handles (dst may then hold a partial copy past its length).
func appendFast(dst, obj []byte) (out []byte, ok bool) {
	c := canon{in: obj, out: dst}
	c.ws()
	if c.pos < len(c.in) && c.in[c.pos] == '{' && c.object(0) {
		c.ws()
		if c.pos == len(c.in) {
			return c.out, true
		}
	}
	return dst, false
}

// canonicalSlow is the definition of the canonical form.
func canonicalSlow(obj []byte) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(obj))
	d.UseNumber()
	var v map[string]any
	if err := d.Decode(&v); err != nil {
		return nil, errors.New("mrtr: arguments must be a JSON object")
	}
	if d.More() {
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

// maxCanonicalDepth bounds the fast pass's recursion; deeper input takes
// the slow path, which has its own bound.
const maxCanonicalDepth = 64

// canon is the fast pass: it reads in from pos and appends to out. Each
// method reports false when the input is outside what it handles.
type canon struct {
	in  []byte
	pos int
	out []byte
}

// member is where one member of an object landed in out: its quoted name
// at [name, colon) and the whole "name":value at [name, end).
type member struct{ name, colon, end int }

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
		return c.str(false)
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

// str copies a string token whose re-encoding is itself. A name (isName)
// may hold no escape at all, so that its bytes are the name and sort as
// the name does.
func (c *canon) str(isName bool) bool {
	in, start := c.in, c.pos
	c.pos++
	for c.pos < len(in) {
		b := in[c.pos]
		switch {
		case b == '"':
			c.pos++
			c.out = append(c.out, in[start:c.pos]...)
			return true
		case b == '\\':
			if isName || c.pos+1 >= len(in) {
				return false
			}
			switch in[c.pos+1] {
			case '"', '\\', 'n', 'r', 't':
				c.pos += 2
			default:
				return false
			}
		case b < 0x20:
			return false
		case b < utf8.RuneSelf:
			c.pos++
		default:
			r, size := utf8.DecodeRune(in[c.pos:])
			if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
				return false
			}
			c.pos += size
		}
	}
	return false
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
// already, appends them again sorted and moves that copy into place.
func (c *canon) object(depth int) bool {
	if depth > maxCanonicalDepth {
		return false
	}
	c.pos++ // {
	open := len(c.out)
	c.out = append(c.out, '{')
	var small [8]member
	ms := small[:0]
	c.ws()
	if c.pos < len(c.in) && c.in[c.pos] == '}' {
		c.pos++
		c.out = append(c.out, '}')
		return true
	}
	for {
		c.ws()
		if c.pos >= len(c.in) || c.in[c.pos] != '"' {
			return false
		}
		m := member{name: len(c.out)}
		if !c.str(true) {
			return false
		}
		m.colon = len(c.out)
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
		m.end = len(c.out)
		ms = append(ms, m)
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
	name := func(m member) []byte { return c.out[m.name+1 : m.colon-1] } // without the quotes
	cmp := func(a, b member) int { return bytes.Compare(name(a), name(b)) }
	inOrder := slices.IsSortedFunc(ms, cmp)
	if !inOrder {
		slices.SortFunc(ms, cmp)
	}
	for i := 1; i < len(ms); i++ {
		if bytes.Equal(name(ms[i-1]), name(ms[i])) {
			// encoding/json keeps the last of duplicate names.
			return false
		}
	}
	if !inOrder {
		sorted := len(c.out)
		for i, m := range ms {
			if i > 0 {
				c.out = append(c.out, ',')
			}
			c.out = append(c.out, c.out[m.name:m.end]...)
		}
		n := copy(c.out[open+1:], c.out[sorted:])
		c.out = c.out[:open+1+n]
	}
	c.out = append(c.out, '}')
	return true
}
