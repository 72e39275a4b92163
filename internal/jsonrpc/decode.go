package jsonrpc

import (
	"encoding/json"
	"errors"
	"strconv"
	"unsafe"
)

// ErrTooManyValues is what Decode returns when the text holds more values
// than allowed.
var ErrTooManyValues = errors.New("jsonrpc: too many values")

// Decode turns one JSON text that has already passed Validate or Parse
// into the generic form JSON Schema validators take: map[string]any,
// []any, string, json.Number, bool and nil. It counts every value and
// stops with ErrTooManyValues past maxValues (0: no bound), so the memory
// it allocates is bounded by the count, not by what the text holds.
//
// Strings and numbers without escapes share the memory of one copy of
// data made up front, instead of one allocation each.
func Decode(data []byte, maxValues int) (any, error) {
	return decode(string(data), maxValues) // one copy; values below are substrings of it
}

// DecodeShared is Decode without the copy: strings and numbers without
// escapes alias data itself. It is for text that nothing ever writes to
// again, a request body (read once into its own memory): a 500 KB argument
// is then not copied to be validated. data must never change while any
// value it returned is reachable.
func DecodeShared(data []byte, maxValues int) (any, error) {
	return decode(unsafe.String(unsafe.SliceData(data), len(data)), maxValues)
}

func decode(text string, maxValues int) (any, error) {
	d := decoder{s: text, max: maxValues}
	v := d.value()
	if d.err != nil {
		return nil, d.err
	}
	return v, nil
}

type decoder struct {
	s     string
	pos   int
	count int
	max   int
	err   error
}

func (d *decoder) ws() {
	for d.pos < len(d.s) && isWS(d.s[d.pos]) {
		d.pos++
	}
}

func (d *decoder) value() any {
	if d.err != nil {
		return nil
	}
	d.count++
	if d.max > 0 && d.count > d.max {
		d.err = ErrTooManyValues
		return nil
	}
	d.ws()
	if d.pos >= len(d.s) {
		d.err = errors.New("jsonrpc: unexpected end of JSON")
		return nil
	}
	switch c := d.s[d.pos]; c {
	case '{':
		return d.object()
	case '[':
		return d.array()
	case '"':
		return d.str()
	case 't':
		d.pos += 4
		return true
	case 'f':
		d.pos += 5
		return false
	case 'n':
		d.pos += 4
		return nil
	default:
		start := d.pos
		for d.pos < len(d.s) {
			switch d.s[d.pos] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				return json.Number(d.s[start:d.pos])
			}
			d.pos++
		}
		return json.Number(d.s[start:d.pos])
	}
}

func (d *decoder) str() string {
	start := d.pos + 1
	i := start
	escaped := false
	for i < len(d.s) && d.s[i] != '"' {
		if d.s[i] == '\\' {
			escaped = true
			i++
		}
		i++
	}
	d.pos = i + 1
	if i > len(d.s) {
		d.err = errors.New("jsonrpc: unterminated string")
		return ""
	}
	if !escaped {
		return d.s[start:i]
	}
	out, ok := unescape(nil, []byte(d.s[start:i]))
	if !ok {
		d.err = errors.New("jsonrpc: invalid escape")
		return ""
	}
	return string(out)
}

func (d *decoder) object() map[string]any {
	d.pos++ // '{'
	m := map[string]any{}
	for d.err == nil {
		d.ws()
		if d.pos < len(d.s) && d.s[d.pos] == '}' {
			d.pos++
			return m
		}
		if d.pos < len(d.s) && d.s[d.pos] == ',' {
			d.pos++
			d.ws()
		}
		if d.pos >= len(d.s) || d.s[d.pos] != '"' {
			d.err = errors.New("jsonrpc: invalid object at byte " + strconv.Itoa(d.pos))
			return nil
		}
		k := d.str()
		d.ws()
		d.pos++ // ':'
		m[k] = d.value()
	}
	return nil
}

func (d *decoder) array() []any {
	d.pos++ // '['
	a := []any{}
	for d.err == nil {
		d.ws()
		if d.pos < len(d.s) && d.s[d.pos] == ']' {
			d.pos++
			return a
		}
		if d.pos < len(d.s) && d.s[d.pos] == ',' {
			d.pos++
		}
		a = append(a, d.value())
	}
	return nil
}
