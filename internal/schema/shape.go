package schema

import (
	"errors"
	"slices"
	"strconv"
)

// Objects checks a decoded schema document (from Decode) for a boolean
// where MCP clients expect a schema object: a property's schema, items,
// a member of allOf, anyOf, oneOf or prefixItems, a $defs entry. JSON
// Schema allows true and false there, but MCP's schema types them as
// objects, and a client that checks (the TypeScript SDK does) refuses a
// whole tools/list answer over one of them. Elsewhere (additionalProperties,
// not, if, ...) a boolean is fine. The error names where, as
// "properties.x: a property schema must be an object".
func Objects(doc any) error {
	if objectsOK(doc) {
		return nil // the usual case, found without the ordered walk's lookups
	}
	return objects(doc, "")
}

// objectsOK is objects without the error: one pass over each object's
// members instead of a lookup of every keyword that may hold a schema,
// which made this check 8% of registering GitHub's document.
func objectsOK(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return true
	}
	for k, s := range m {
		switch k {
		case "items":
			if _, isBool := s.(bool); isBool {
				return false
			}
			fallthrough
		case "not", "additionalProperties", "contains", "propertyNames", "if", "then", "else", "unevaluatedItems", "unevaluatedProperties", "contentSchema":
			if !objectsOK(s) {
				return false
			}
		case "allOf", "anyOf", "oneOf", "prefixItems":
			list, _ := s.([]any)
			for _, e := range list {
				if _, isBool := e.(bool); isBool || !objectsOK(e) {
					return false
				}
			}
		case "properties", "$defs", "definitions", "patternProperties", "dependentSchemas":
			sub, _ := s.(map[string]any)
			strict := k == "properties" || k == "$defs" || k == "definitions"
			for _, e := range sub {
				if _, isBool := e.(bool); isBool && strict || !objectsOK(e) {
					return false
				}
			}
		}
	}
	return true
}

// Subschemas of one schema, a list of them, or a map of them; only
// these are walked, so that a value (a default, an example, an enum
// member) that looks like a schema is not read as one.
var (
	oneSub  = []string{"items", "not", "additionalProperties", "contains", "propertyNames", "if", "then", "else", "unevaluatedItems", "unevaluatedProperties", "contentSchema"}
	listSub = []string{"allOf", "anyOf", "oneOf", "prefixItems"}
	mapSub  = []string{"properties", "patternProperties", "dependentSchemas", "$defs", "definitions"}
)

func objects(v any, at string) error {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	for _, k := range oneSub {
		s, ok := m[k]
		if !ok {
			continue
		}
		if _, isBool := s.(bool); isBool && k == "items" {
			return errors.New(join(at, k) + ": items must be an object")
		}
		if err := objects(s, join(at, k)); err != nil {
			return err
		}
	}
	for _, k := range listSub {
		list, _ := m[k].([]any)
		for i, s := range list {
			here := join(at, k) + "[" + strconv.Itoa(i) + "]"
			if _, isBool := s.(bool); isBool {
				return errors.New(here + ": a member of " + k + " must be an object")
			}
			if err := objects(s, here); err != nil {
				return err
			}
		}
	}
	for _, k := range mapSub {
		sub, _ := m[k].(map[string]any)
		names := make([]string, 0, len(sub))
		for name := range sub {
			names = append(names, name)
		}
		slices.Sort(names) // the first problem in a stable order
		for _, name := range names {
			s := sub[name]
			here := join(at, k) + "." + name
			if _, isBool := s.(bool); isBool {
				switch k {
				case "properties":
					return errors.New(here + ": a property schema must be an object")
				case "$defs", "definitions":
					return errors.New(here + ": a " + k + " entry must be an object")
				}
			}
			if err := objects(s, here); err != nil {
				return err
			}
		}
	}
	return nil
}

func join(at, k string) string {
	if at == "" {
		return k
	}
	return at + "." + k
}
