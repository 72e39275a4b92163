package headers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
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
	var walk func(node any, path []string, reachable bool) error
	walk = func(node any, path []string, reachable bool) error {
		switch n := node.(type) {
		case []any:
			for _, e := range n {
				if err := walk(e, path, false); err != nil {
					return err
				}
			}
		case map[string]any:
			if raw, ok := n[annotation]; ok {
				p, err := checkAnnotation(raw, n, path, reachable)
				if err != nil {
					return err
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
						if err := walk(props[name], next, reachable); err != nil {
							return err
						}
					}
					continue
				}
				if err := walk(v, path, false); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(schema, nil, true); err != nil {
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
// case-sensitive), numbers numerically (so "42" matches 42.0), booleans as
// the lowercase literals. Objects, arrays and null never match.
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
		b, err := strconv.ParseFloat(string(body), 64)
		if err != nil {
			return false
		}
		h, err := strconv.ParseFloat(header, 64)
		if err != nil || strings.ContainsAny(header, " \t") {
			return false
		}
		return h == b && math.Abs(h) <= maxSafeInteger && h == math.Trunc(h)
	default:
		return false
	}
}
