package headers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Param is one tool argument mirrored into a Mcp-Param-* header by an
// "x-mcp-header" annotation in the tool's inputSchema.
type Param struct {
	// Header is the full header name, "Mcp-Param-" plus the annotation.
	Header string
	// Path is the chain of property names from the arguments object to the
	// annotated property.
	Path []string
	// Type is the property's JSON Schema type: string, integer or boolean.
	Type string
}

const annotation = "x-mcp-header"

// maxSafeInteger is 2^53-1, the largest integer every JSON peer reads exactly.
const maxSafeInteger = 1<<53 - 1

// ParseAnnotations finds every "x-mcp-header" annotation in a tool's
// inputSchema (decoded by encoding/json) and checks the 2026-07-28 rules:
// a non-empty RFC 9110 token, unique ignoring case, on a string, integer or
// boolean property reachable from the root through "properties" only. The
// result is sorted by header name.
func ParseAnnotations(schema map[string]any) ([]Param, error) {
	var (
		out  []Param
		seen = map[string]bool{}
	)
	// clash names two properties on the way that differ only in case:
	// encoding/json, which tools decode with, may take either for the
	// other, so the header could not say which one it mirrors.
	var walk func(node any, path []string, reachable bool, clash string) error
	walk = func(node any, path []string, reachable bool, clash string) error {
		switch n := node.(type) {
		case []any:
			for _, e := range n {
				if err := walk(e, path, false, clash); err != nil {
					return err
				}
			}
		case map[string]any:
			if raw, ok := n[annotation]; ok {
				p, err := checkAnnotation(raw, n, path, reachable)
				if err != nil {
					return err
				}
				if clash != "" {
					return fmt.Errorf("%s %q: properties %s on its path differ only in case; a decoder that ignores case may take either",
						annotation, p.Header[len(ParamPrefix):], clash)
				}
				key := strings.ToLower(p.Header)
				if seen[key] {
					return fmt.Errorf("%s %q is used twice (names are compared ignoring case)", annotation, p.Header[len(ParamPrefix):])
				}
				seen[key] = true
				out = append(out, p)
			}
			keys := make([]string, 0, len(n))
			for k := range n {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				v := n[k]
				if k == "properties" {
					props, ok := v.(map[string]any)
					if !ok {
						continue
					}
					names := make([]string, 0, len(props))
					for name := range props {
						names = append(names, name)
					}
					sort.Strings(names)
					for _, name := range names {
						next := append(append([]string(nil), path...), name)
						c := clash
						for _, other := range names {
							if c == "" && other != name && strings.EqualFold(other, name) {
								c = strconv.Quote(name) + " and " + strconv.Quote(other)
							}
						}
						if err := walk(props[name], next, reachable, c); err != nil {
							return err
						}
					}
					continue
				}
				if err := walk(v, path, false, clash); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(schema, nil, true, ""); err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Header < out[j].Header })
	return out, nil
}

func checkAnnotation(raw any, prop map[string]any, path []string, reachable bool) (Param, error) {
	name, ok := raw.(string)
	if !ok || name == "" {
		return Param{}, fmt.Errorf("%s must be a non-empty string", annotation)
	}
	for i := 0; i < len(name); i++ {
		if !isTchar(name[i]) {
			return Param{}, fmt.Errorf("%s %q: only RFC 9110 token characters are allowed", annotation, name)
		}
	}
	if !reachable || len(path) == 0 {
		return Param{}, fmt.Errorf("%s %q: must sit on a property reached from the root through \"properties\" only", annotation, name)
	}
	typ, _ := prop["type"].(string)
	switch typ {
	case "string", "integer", "boolean":
	default:
		return Param{}, fmt.Errorf("%s %q: the property's type must be string, integer or boolean", annotation, name)
	}
	return Param{Header: ParamPrefix + name, Path: path, Type: typ}, nil
}

func isTchar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// Match reports whether a decoded header value stands for the raw JSON
// value body carries for the argument. Strings compare exactly (values are
// case-sensitive), integers numerically (so "42" matches 42.0): both must
// be spelled as JSON numbers and stand exactly for the same integer within
// ±(2^53-1), so that an intermediary reading the header as JSON sees the
// value the tool gets. Booleans compare as the lowercase literals.
// Objects, arrays, null and numbers that are not integers never match.
func Match(header string, body []byte) bool {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return false
	}
	switch c := body[0]; {
	case c == '"':
		var s string
		if json.Unmarshal(body, &s) != nil {
			return false
		}
		return s == header
	case c == 't' || c == 'f':
		return string(body) == header
	case c == '-' || (c >= '0' && c <= '9'):
		b, ok := integerOf(string(body))
		if !ok {
			return false
		}
		h, ok := integerOf(header)
		return ok && h == b
	default:
		return false
	}
}

// integerOf returns the integer the JSON number s stands for exactly, when
// it is one within ±(2^53-1): "42", "42.0", "4.2e1" and "-0" are, "42.5",
// "+42", "042", "42." and "0x2A" are not (the last four are no JSON
// number). It works on the digits, never through a float, which would
// round 42.000000000000001 to 42.
func integerOf(s string) (int64, bool) {
	i, neg := 0, false
	if i < len(s) && s[i] == '-' {
		neg = true
		i++
	}
	start := i
	switch {
	case i < len(s) && s[i] == '0':
		i++
	default:
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	if i == start {
		return 0, false
	}
	intPart, frac := s[start:i], ""
	if i < len(s) && s[i] == '.' {
		i++
		f := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == f {
			return 0, false
		}
		frac = s[f:i]
	}
	exp := 0
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		e := i
		for i < len(s) && isDigit(s[i]) {
			if exp = exp*10 + int(s[i]-'0'); exp > 1<<20 {
				// No integer within 2^53 needs it, unless a fraction of as
				// many digits cancels it, which no body within the 1 MiB
				// limit holds and Decode refuses anyway: refused, rather
				// than capped into a false match.
				return 0, false
			}
			i++
		}
		if i == e {
			return 0, false
		}
		if eneg {
			exp = -exp
		}
	}
	if i != len(s) {
		return 0, false
	}
	// The value is digits × 10^shift.
	digits := strings.TrimLeft(intPart+frac, "0")
	if digits == "" {
		return 0, true // zero, however spelled
	}
	shift := exp - len(frac)
	trimmed := strings.TrimRight(digits, "0")
	shift += len(digits) - len(trimmed)
	digits = trimmed
	if shift < 0 || len(digits)+shift > 16 { // a fraction, or past 2^53 (16 digits)
		return 0, false
	}
	n, err := strconv.ParseInt(digits+strings.Repeat("0", shift), 10, 64)
	if err != nil || n > maxSafeInteger {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
