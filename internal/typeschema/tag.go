package typeschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
)

// tag is a parsed mcp struct tag: comma-separated keys, each bare or
// key=value; a backslash makes the next character literal (a comma in a
// pattern, a | in an enum value).
type tag struct {
	nullable    bool
	uniqueItems bool
	title       string
	format      string
	pattern     string
	enum        []string
	def         *string
	examples    []string
	numbers     [][2]string // minimum, maximum, exclusiveMinimum, exclusiveMaximum: keyword, value
	lengths     [][2]string // minLength, maxLength
	items       [][2]string // minItems, maxItems
}

// split cuts s at every sep not preceded by a backslash; "\\"+sep stands
// for sep itself, and every other backslash is kept as written (a pattern
// keeps its escapes).
func split(s string, sep byte) []string {
	var parts []string
	var cur strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s) && s[i+1] == sep:
			i++
			cur.WriteByte(sep)
		case c == sep:
			parts = append(parts, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	return append(parts, cur.String())
}

func parseTag(s string) (tag, error) {
	var t tag
	for _, part := range split(s, ',') {
		key, val, hasVal := strings.Cut(part, "=")
		key = strings.TrimSpace(key)
		need := func() error {
			if !hasVal {
				return fmt.Errorf("%s needs a value (%s=...)", key, key)
			}
			return nil
		}
		switch key {
		case "":
			continue
		case "nullable":
			t.nullable = true
			continue
		case "uniqueItems":
			t.uniqueItems = true
			continue
		}
		if err := need(); err != nil {
			return t, err
		}
		plain := val
		switch key {
		case "title":
			t.title = plain
		case "format":
			t.format = plain
		case "pattern":
			if _, err := regexp.Compile(plain); err != nil {
				return t, fmt.Errorf("pattern: %w", err)
			}
			t.pattern = plain
		case "enum":
			t.enum = split(val, '|')
		case "default":
			t.def = &plain
		case "example":
			t.examples = append(t.examples, plain)
		case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
			if _, err := strconv.ParseFloat(val, 64); err != nil {
				return t, fmt.Errorf("%s=%q is not a number", key, val)
			}
			t.numbers = append(t.numbers, [2]string{key, val})
		case "minLength", "maxLength", "minItems", "maxItems":
			if n, err := strconv.ParseUint(val, 10, 31); err != nil || n > 1<<30 {
				return t, fmt.Errorf("%s=%q is not a count", key, val)
			}
			if strings.HasSuffix(key, "Items") {
				t.items = append(t.items, [2]string{key, val})
			} else {
				t.lengths = append(t.lengths, [2]string{key, val})
			}
		default:
			return t, fmt.Errorf("unknown key %q (known: enum, minimum, maximum, exclusiveMinimum, exclusiveMaximum, minLength, maxLength, pattern, format, minItems, maxItems, uniqueItems, default, example, title, nullable)", key)
		}
	}
	return t, nil
}

// scalar is the JSON kind of a Go type's values, for the tag's values.
func scalar(t reflect.Type, asString bool) string {
	t = deref(t)
	if asString || special(t) != nil && string(special(t)) == `{"type":"string"}` {
		return "string"
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	}
	return ""
}

// value renders a tag's value as JSON of kind: a string as written, a
// number or boolean parsed, anything else written as JSON text.
func value(v, kind string) ([]byte, error) {
	switch kind {
	case "string":
		return appendString(nil, v), nil
	case "boolean":
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, fmt.Errorf("%q is not a boolean", v)
		}
		return strconv.AppendBool(nil, b), nil
	case "integer":
		if _, err := strconv.ParseInt(v, 10, 64); err != nil {
			if _, err := strconv.ParseUint(v, 10, 64); err != nil {
				return nil, fmt.Errorf("%q is not an integer", v)
			}
		}
		return []byte(v), nil
	case "number":
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", v)
		}
		return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
	}
	var c bytes.Buffer
	if err := json.Compact(&c, []byte(v)); err != nil {
		return nil, fmt.Errorf("%q is not JSON", v)
	}
	return c.Bytes(), nil
}

// constraints renders a field's tag as schema members (each with a
// leading comma): the value keywords on the value, and, for an array,
// the item keywords (enum, bounds, lengths, pattern, format) on its items
// through itemExtra. t is the field's type with pointers removed.
func (g *gen) constraints(tg tag, t reflect.Type, asString bool) (own, itemExtra []byte, err error) {
	target := t
	isArray := !asString && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && !(t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8) && special(t) == nil
	if isArray {
		target = t.Elem()
	}
	kind := scalar(target, asString && !isArray)
	whole := scalar(t, asString)
	add := func(dst []byte, key string, v []byte) []byte {
		dst = append(dst, ',', '"')
		dst = append(dst, key...)
		dst = append(dst, '"', ':')
		return append(dst, v...)
	}
	var on []byte // the keywords that go where the value's kind is
	if tg.enum != nil {
		if kind == "" {
			return nil, nil, fmt.Errorf("enum needs a string, number or boolean field (or a slice of them)")
		}
		list := []byte{'['}
		for i, e := range tg.enum {
			v, err := value(e, kind)
			if err != nil {
				return nil, nil, fmt.Errorf("enum: %w", err)
			}
			if i > 0 {
				list = append(list, ',')
			}
			list = append(list, v...)
		}
		on = add(on, "enum", append(list, ']'))
	}
	for _, n := range tg.numbers {
		if kind != "integer" && kind != "number" {
			return nil, nil, fmt.Errorf("%s needs a numeric field", n[0])
		}
		v, _ := value(n[1], "number")
		on = add(on, n[0], v)
	}
	for _, n := range tg.lengths {
		if kind != "string" {
			return nil, nil, fmt.Errorf("%s needs a string field", n[0])
		}
		on = add(on, n[0], []byte(n[1]))
	}
	if tg.pattern != "" {
		if kind != "string" {
			return nil, nil, fmt.Errorf("pattern needs a string field")
		}
		on = add(on, "pattern", appendString(nil, tg.pattern))
	}
	if tg.format != "" {
		if kind != "string" {
			return nil, nil, fmt.Errorf("format needs a string field")
		}
		on = add(on, "format", appendString(nil, tg.format))
	}
	if len(on) > 0 {
		g.constrained = true
	}
	if isArray {
		itemExtra = on
	} else {
		own = on
	}
	for _, n := range tg.items {
		if !isArray {
			return nil, nil, fmt.Errorf("%s needs a slice or array field", n[0])
		}
		g.constrained = true
		own = add(own, n[0], []byte(n[1]))
	}
	if tg.uniqueItems {
		if !isArray {
			return nil, nil, fmt.Errorf("uniqueItems needs a slice or array field")
		}
		g.constrained = true
		own = add(own, "uniqueItems", []byte("true"))
	}
	if tg.title != "" {
		own = add(own, "title", appendString(nil, tg.title))
	}
	if tg.def != nil {
		v, err := value(*tg.def, whole)
		if err != nil {
			return nil, nil, fmt.Errorf("default: %w", err)
		}
		own = add(own, "default", v)
	}
	if tg.examples != nil {
		list := []byte{'['}
		for i, e := range tg.examples {
			v, err := value(e, whole)
			if err != nil {
				return nil, nil, fmt.Errorf("example: %w", err)
			}
			if i > 0 {
				list = append(list, ',')
			}
			list = append(list, v...)
		}
		own = add(own, "examples", append(list, ']'))
	}
	return own, itemExtra, nil
}
