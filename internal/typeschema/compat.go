package typeschema

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Direction says which way values flow between a given schema and a type.
type Direction int

const (
	// Input: what the given schema admits is decoded into the type, so
	// every type it admits must be one the type's schema admits.
	Input Direction = iota
	// Output: what the type encodes is checked against the given schema,
	// so every type the type's schema admits must be one it admits, and
	// what it requires the type must always write.
	Output
)

// Compatible checks a schema given for a type against the type's own
// schema: every property of the type's schema must exist in the given
// one, with a compatible type, recursively through objects and arrays.
// The error names the first field that does not fit. In the Output
// direction, shaped reports whether the type's values always have the
// members and items the given schema describes: false where the given
// schema names properties or required members of, or closes
// (additionalProperties: false), an object the type writes as a map, any
// or raw JSON, or gives items to what the type writes as no typed array:
// Compatible cannot check those.
func Compatible(given, derived []byte, d Direction) (shaped bool, err error) {
	var g, t map[string]any
	if err := json.Unmarshal(given, &g); err != nil {
		return false, fmt.Errorf("the given schema is not a JSON object: %w", err)
	}
	if err := json.Unmarshal(derived, &t); err != nil {
		return false, err
	}
	c := &compat{groot: g, troot: t, d: d, seen: map[[2]string]bool{}}
	if err := c.check(g, t, "", "#", "#"); err != nil {
		return false, err
	}
	return !c.unshaped, nil
}

type compat struct {
	groot, troot map[string]any
	d            Direction
	seen         map[[2]string]bool // pairs of $ref already being checked
	unshaped     bool               // the given schema describes members or items the type's does not
}

// resolve follows local "#/$defs/..." references (and "#").
func resolve(root, s map[string]any) (map[string]any, string) {
	ref := ""
	for range 32 {
		r, ok := s["$ref"].(string)
		if !ok {
			return s, ref
		}
		ref = r
		switch {
		case r == "#":
			s = root
		case strings.HasPrefix(r, "#/$defs/"):
			defs, _ := root["$defs"].(map[string]any)
			next, _ := defs[strings.TrimPrefix(r, "#/$defs/")].(map[string]any)
			if next == nil {
				return map[string]any{}, ref
			}
			s = next
		default:
			return map[string]any{}, ref
		}
	}
	return s, ref
}

// types is the set of JSON types s admits (nil: not said).
func types(s map[string]any) []string {
	switch v := s["type"].(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, x := range v {
			if t, ok := x.(string); ok {
				out = append(out, t)
			}
		}
		return out
	}
	if alts, ok := s["anyOf"].([]any); ok {
		var out []string
		for _, x := range alts {
			m, _ := x.(map[string]any)
			ts := types(m)
			if ts == nil {
				return nil
			}
			out = append(out, ts...)
		}
		return out
	}
	return nil
}

// within reports whether every type of sub is in super (integer is in number).
func within(sub, super []string) (string, bool) {
	for _, t := range sub {
		if !slices.Contains(super, t) && !(t == "integer" && slices.Contains(super, "number")) {
			return t, false
		}
	}
	return "", true
}

func (c *compat) check(g, t map[string]any, at, gref, tref string) error {
	g, gr := resolve(c.groot, g)
	t, tr := resolve(c.troot, t)
	if gr != "" || tr != "" {
		key := [2]string{gr + "|" + gref, tr + "|" + tref}
		if c.seen[key] {
			return nil
		}
		c.seen[key] = true
	}
	name := strings.TrimPrefix(at, ".")
	if name == "" {
		name = "(root)"
	}
	gt, tt := types(g), types(t)
	if gt != nil && tt != nil {
		sub, super := gt, tt
		if c.d == Output {
			sub, super = tt, gt
		}
		if bad, ok := within(sub, super); !ok {
			return fmt.Errorf("field %s: the given schema's type %v and the Go type's %v do not fit (%s)", name, gt, tt, bad)
		}
	}
	// A nullable value (a pointer field, mcp:"nullable") is the other
	// branch of an anyOf with null: its properties and items are there.
	if gb, tb := nonNull(g), nonNull(t); gb != nil || tb != nil {
		if gb == nil {
			gb = g
		}
		if tb == nil {
			tb = t
		}
		return c.check(gb, tb, at, gref, tref)
	}
	tprops, _ := t["properties"].(map[string]any)
	gprops, _ := g["properties"].(map[string]any)
	if t["properties"] == nil && (g["properties"] != nil || g["required"] != nil || g["additionalProperties"] == false) ||
		t["items"] == nil && g["items"] != nil {
		c.unshaped = true // members or items of a map, an any, raw JSON: not checked here
	}
	if tprops != nil && (gprops != nil || slices.Contains(gt, "object")) {
		names := make([]string, 0, len(tprops))
		for n := range tprops {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			gp, ok := gprops[n].(map[string]any)
			if !ok {
				return fmt.Errorf("field %s: the given schema has no property %q", strings.TrimPrefix(at+"."+n, "."), n)
			}
			tp, _ := tprops[n].(map[string]any)
			if err := c.check(gp, tp, at+"."+n, gref+"/"+n, tref+"/"+n); err != nil {
				return err
			}
		}
		if c.d == Output {
			treq := strs(t["required"])
			for _, r := range strs(g["required"]) {
				if !slices.Contains(treq, r) {
					return fmt.Errorf("field %s: the given schema requires it, but the Go type may leave it out (omitempty, omitzero or a pointer)", strings.TrimPrefix(at+"."+r, "."))
				}
			}
		}
	}
	if ti, ok := t["items"].(map[string]any); ok {
		if gi, ok := g["items"].(map[string]any); ok {
			if err := c.check(gi, ti, at+"[]", gref+"/[]", tref+"/[]"); err != nil {
				return err
			}
		}
	}
	return nil
}

func strs(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// structural lists the keywords that only describe a value's shape: a
// given schema using nothing else, once Compatible with a type's own,
// admits every value the type encodes, so those values need no
// validation.
var structural = map[string]bool{"type": true, "properties": true, "required": true, "items": true, "$defs": true, "$ref": true,
	"$schema": true, "description": true, "title": true, "default": true, "examples": true, "deprecated": true, "readOnly": true, "writeOnly": true}

// Structural reports whether schema (a given output schema) asserts
// nothing but types, properties and required members, and
// "additionalProperties": false: what Compatible checks in the Output
// direction, where it reports the schema shaped.
func Structural(schema []byte) bool {
	var v any
	if json.Unmarshal(schema, &v) != nil {
		return false
	}
	var walk func(v any, depth int) bool
	walk = func(v any, depth int) bool {
		s, ok := v.(map[string]any)
		if !ok || depth > 64 {
			return false
		}
		for k, sub := range s {
			switch {
			case k == "additionalProperties":
				if sub != false {
					return false
				}
			case !structural[k] && !strings.HasPrefix(k, "x-"):
				return false
			case k == "properties" || k == "$defs":
				m, _ := sub.(map[string]any)
				for _, p := range m {
					if !walk(p, depth+1) {
						return false
					}
				}
			case k == "items":
				if !walk(sub, depth+1) {
					return false
				}
			}
		}
		return true
	}
	return walk(v, 0)
}

// nonNull returns the one branch of an anyOf whose other branches are
// {"type":"null"}, nil when s is not such a union.
func nonNull(s map[string]any) map[string]any {
	alts, ok := s["anyOf"].([]any)
	if !ok {
		return nil
	}
	var branch map[string]any
	for _, x := range alts {
		m, _ := x.(map[string]any)
		if t, ok := m["type"].(string); ok && t == "null" && len(m) == 1 {
			continue
		}
		if branch != nil || m == nil {
			return nil
		}
		branch = m
	}
	return branch
}
