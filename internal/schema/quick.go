package schema

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
)

// A quick check answers "valid" for a value in the raw bytes of the
// request, without decoding it into Go values, for the schemas tools
// usually have: typed properties, required names, additionalProperties,
// items, enums of literals, length, count and range bounds. Decoding the
// arguments and running the compiled schema over them was 11 of a route
// call's 31 allocations and a fifth of its time (design record 034).
//
// A value may repeat a member name (a function's own MarshalJSON may
// write one twice): every occurrence is checked, and only bounds that a
// repetition makes stricter are known (maxProperties, not minProperties),
// so the answer stays sound.
//
// It is a shortcut, never a judge: it says true only when the value
// certainly conforms, and false both when it does not and when it cannot
// tell (an escape in a string it must measure, a number it cannot compare
// exactly, 1.0 where an integer is wanted). On false the caller runs the
// full validation, which decides and words the violations. A document
// with any keyword outside that set has no quick check at all. FuzzQuick
// holds it to the compiled schema: whatever it accepts, the compiler's
// validator accepts too.
type quick struct {
	types     uint8 // the JSON types allowed (typeObject...), 0: any
	props     []quickProp
	byName    map[string]*quick // props by name, when there are many
	required  []string
	addl      *quick // additionalProperties as a schema, nil: any value
	addlFalse bool   // additionalProperties: false
	items     *quick
	enum      [][]byte // raw literals the value must be one of, when hasEnum
	hasEnum   bool

	minLen, maxLen     int // -1: no bound
	minItems, maxItems int
	maxProps           int
	num                [4]float64 // minimum, maximum, exclusiveMinimum, exclusiveMaximum
	hasNum             [4]bool
}

type quickProp struct {
	name string
	q    *quick
}

const (
	typeObject uint8 = 1 << iota
	typeArray
	typeString
	typeNumber
	typeInteger
	typeBoolean
	typeNull
)

var typeBits = map[string]uint8{
	"object": typeObject, "array": typeArray, "string": typeString, "number": typeNumber,
	"integer": typeInteger, "boolean": typeBoolean, "null": typeNull,
}

// manyProps is how many properties a schema has before they are looked
// up in a map rather than in order.
const manyProps = 12

// maxRequired bounds the required names a quick check tracks (a bit each).
const maxRequired = 64

// newQuick returns the quick check of a decoded schema document, or nil
// when it uses a keyword the check does not know.
func newQuick(doc any, depth int) *quick {
	m, ok := doc.(map[string]any)
	if !ok || depth > 32 {
		return nil
	}
	q := &quick{minLen: -1, maxLen: -1, minItems: -1, maxItems: -1, maxProps: -1}
	for k, v := range m {
		var ok bool
		switch k {
		case "title", "description", "default", "examples", "$comment", "deprecated", "readOnly", "writeOnly", "format":
			// Annotations: the compiler asserts no format (the
			// 2020-12 default), so none of these decides validity.
			ok = true
		case "type":
			ok = q.setTypes(v)
		case "properties":
			ok = q.setProps(v, depth)
		case "required":
			ok = q.setRequired(v)
		case "additionalProperties":
			switch v := v.(type) {
			case bool:
				q.addlFalse, ok = !v, true
			default:
				q.addl = newQuick(v, depth+1)
				ok = q.addl != nil
			}
		case "items":
			q.items = newQuick(v, depth+1)
			ok = q.items != nil
		case "enum":
			list, isList := v.([]any)
			ok = isList && q.setEnum(list)
		case "const":
			ok = q.setEnum([]any{v})
		case "minLength":
			q.minLen, ok = bound(v)
		case "maxLength":
			q.maxLen, ok = bound(v)
		case "minItems":
			q.minItems, ok = bound(v)
		case "maxItems":
			q.maxItems, ok = bound(v)
		case "maxProperties":
			q.maxProps, ok = bound(v)
		case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
			i := map[string]int{"minimum": 0, "maximum": 1, "exclusiveMinimum": 2, "exclusiveMaximum": 3}[k]
			n, isNum := v.(json.Number)
			q.num[i], ok = exact(string(n))
			ok = ok && isNum
			q.hasNum[i] = true
		}
		if !ok {
			return nil
		}
	}
	return q
}

func (q *quick) setTypes(v any) bool {
	switch v := v.(type) {
	case string:
		q.types = typeBits[v]
		return q.types != 0
	case []any:
		for _, e := range v {
			s, _ := e.(string)
			b := typeBits[s]
			if b == 0 {
				return false
			}
			q.types |= b
		}
		return q.types != 0
	}
	return false
}

func (q *quick) setProps(v any, depth int) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for name, sub := range m {
		p := newQuick(sub, depth+1)
		if p == nil {
			return false
		}
		q.props = append(q.props, quickProp{name, p})
	}
	if len(q.props) > manyProps {
		q.byName = make(map[string]*quick, len(q.props))
		for _, p := range q.props {
			q.byName[p.name] = p.q
		}
	}
	return true
}

func (q *quick) setRequired(v any) bool {
	list, ok := v.([]any)
	if !ok || len(list) > maxRequired {
		return false
	}
	for _, e := range list {
		s, ok := e.(string)
		if !ok {
			return false
		}
		q.required = append(q.required, s)
	}
	return true
}

// setEnum keeps the literals a value may be: strings without escapes,
// booleans and null, compared byte for byte. A number or a container
// (compared by value, 1 == 1.0) leaves the document without a check.
func (q *quick) setEnum(list []any) bool {
	if q.hasEnum {
		return false // both enum and const: rare, left to the compiler
	}
	q.hasEnum = true
	for _, e := range list {
		switch e := e.(type) {
		case string:
			raw := jsonrpc.AppendString(nil, e)
			if bytes.IndexByte(raw[1:len(raw)-1], '\\') >= 0 {
				return false
			}
			q.enum = append(q.enum, raw)
		case bool:
			q.enum = append(q.enum, []byte(strconv.FormatBool(e)))
		case nil:
			q.enum = append(q.enum, []byte("null"))
		default:
			return false
		}
	}
	return true
}

// bound reads a non-negative integer keyword.
func bound(v any) (int, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return -1, false
	}
	i, err := strconv.Atoi(string(n))
	return i, err == nil && i >= 0
}

// exact reads a number whose float64 orders exactly as the decimal does
// against any other such number: at most 15 digits, no exponent. Two
// decimals of 15 significant digits or fewer round to distinct float64s
// in the same order, so comparisons between them are exact.
func exact(s string) (float64, bool) {
	if len(s) == 0 || len(s) > 16 || strings.ContainsAny(s, "eE") {
		return 0, false
	}
	digits := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			digits++
		}
	}
	if digits > 15 {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil && !math.IsInf(f, 0)
}

// valid reports whether raw, JSON the envelope scanner has validated,
// certainly conforms.
func (q *quick) valid(raw []byte) bool {
	var t uint8
	switch raw[0] {
	case '{':
		t = typeObject
	case '[':
		t = typeArray
	case '"':
		t = typeString
	case 't', 'f':
		t = typeBoolean
	case 'n':
		t = typeNull
	default:
		t = typeNumber
		if !bytes.ContainsAny(raw, ".eE") {
			t |= typeInteger
		}
	}
	if q.types != 0 && q.types&t == 0 {
		// An integer written 1.0 is an integer to the compiler; the
		// full check decides.
		return false
	}
	if q.hasEnum && !q.inEnum(raw) {
		return false
	}
	switch {
	case t == typeObject:
		return q.object(raw)
	case t == typeArray:
		return q.array(raw)
	case t == typeString:
		return q.str(raw)
	case t&typeNumber != 0:
		// A number Decode would refuse is not vouched for: the full
		// check refuses it, as it decides whatever is left to it.
		return jsonrpc.NumberBounded(raw) && q.number(raw)
	}
	return true
}

func (q *quick) inEnum(raw []byte) bool {
	for _, e := range q.enum {
		if bytes.Equal(e, raw) {
			return true
		}
	}
	return false
}

func (q *quick) str(raw []byte) bool {
	if q.minLen < 0 && q.maxLen < 0 {
		return true
	}
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') >= 0 {
		return false
	}
	n := utf8.RuneCount(body)
	return (q.minLen < 0 || n >= q.minLen) && (q.maxLen < 0 || n <= q.maxLen)
}

func (q *quick) number(raw []byte) bool {
	if q.hasNum == [4]bool{} {
		return true
	}
	f, ok := exact(string(raw))
	if !ok {
		return false
	}
	return (!q.hasNum[0] || f >= q.num[0]) && (!q.hasNum[1] || f <= q.num[1]) &&
		(!q.hasNum[2] || f > q.num[2]) && (!q.hasNum[3] || f < q.num[3])
}

func (q *quick) array(raw []byte) bool {
	n := 0
	it := jsonrpc.NewElems(raw)
	for {
		v, ok := it.Next()
		if !ok {
			break
		}
		n++
		if q.items != nil && !q.items.valid(v) {
			return false
		}
	}
	return (q.minItems < 0 || n >= q.minItems) && (q.maxItems < 0 || n <= q.maxItems)
}

func (q *quick) object(raw []byte) bool {
	var seen uint64 // the required names present, a bit each
	n := 0
	it := jsonrpc.NewIter(raw)
	for {
		k, v, ok := it.Next()
		if !ok {
			break
		}
		n++
		for i, r := range q.required {
			if r == string(k) {
				seen |= 1 << i
			}
		}
		if p := q.prop(k); p != nil {
			if !p.valid(v) {
				return false
			}
			continue
		}
		if q.addlFalse || q.addl != nil && !q.addl.valid(v) {
			return false
		}
	}
	return seen == uint64(1)<<len(q.required)-1 && (q.maxProps < 0 || n <= q.maxProps)
}

func (q *quick) prop(name []byte) *quick {
	if q.byName != nil {
		return q.byName[string(name)]
	}
	for i := range q.props {
		if q.props[i].name == string(name) {
			return q.props[i].q
		}
	}
	return nil
}
