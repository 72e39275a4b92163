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

// MaxNumberDigits and MaxNumberExponent bound the numbers Decode hands a
// validator: JSON Schema validators compare numbers exactly (as big.Rat),
// and building one from a 500,000-digit number takes over half a second,
// from 1e999999 a twentieth of one, while past an exponent of a million
// big.Rat fails and the validator dereferences its nil result. No tool's
// argument needs more than these: a float64 has 17 significant digits
// and exponents within ±324, an int64 19 digits.
const (
	MaxNumberDigits   = 400
	MaxNumberExponent = 400
)

// ErrNumberTooLarge is what Decode returns for a number past
// MaxNumberDigits or MaxNumberExponent.
var ErrNumberTooLarge = errors.New("jsonrpc: a number with more than " + strconv.Itoa(MaxNumberDigits) +
	" digits or an exponent beyond ±" + strconv.Itoa(MaxNumberExponent))

// Decode turns one JSON text that has already passed Validate or Parse
// into the generic form JSON Schema validators take: map[string]any,
// []any, string, json.Number, bool and nil. It counts every value and
// stops with ErrTooManyValues past maxValues (0: no bound), so the memory
// it allocates is bounded by the count, not by what the text holds; and
// it refuses a number a validator could not compare cheaply
// (ErrNumberTooLarge).
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
	scan:
		for d.pos < len(d.s) {
			switch d.s[d.pos] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				break scan
			}
			d.pos++
		}
		n := d.s[start:d.pos]
		if !numberBounded(n) {
			d.err = ErrNumberTooLarge
			return nil
		}
		return json.Number(n)
	}
}

// NumberBounded reports whether raw, a JSON number, is one Decode takes:
// at most MaxNumberDigits digits before its exponent and an exponent
// within ±MaxNumberExponent.
func NumberBounded(raw []byte) bool {
	return numberBounded(unsafe.String(unsafe.SliceData(raw), len(raw)))
}

func numberBounded(n string) bool {
	digits, i := 0, 0
	for ; i < len(n) && n[i] != 'e' && n[i] != 'E'; i++ {
		if '0' <= n[i] && n[i] <= '9' {
			digits++
		}
	}
	if digits > MaxNumberDigits {
		return false
	}
	exp := 0
	for i++; i < len(n); i++ {
		if c := n[i]; '0' <= c && c <= '9' {
			if exp = exp*10 + int(c-'0'); exp > MaxNumberExponent {
				return false
			}
		}
	}
	return true
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
