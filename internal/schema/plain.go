package schema

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
)

// plain reports whether doc, a decoded schema document with no
// "$schema", is one the compiler is known to accept: every keyword of
// JSON Schema 2020-12 in it has a value the 2020-12 metaschema allows,
// every pattern compiles, and every "$ref" names an entry of the root's
// "$defs". Such a document is compiled on first use instead of at
// registration (see Cache.Compile), which is what makes registering a
// large API cheap: the metaschema check and the compilation were most of
// it.
//
// The check is conservative, not a metaschema validator: whatever it does
// not know to be fine (an "$id", an anchor, a "$dynamicRef", a remote or
// JSON-pointer "$ref", the pre-2020 "definitions", "dependencies" and
// "additionalItems", a number with an exponent, an integer written as
// 1.0) makes it answer false, and the document is then compiled at once,
// so a schema that does not compile is always refused at registration,
// with the compiler's own error. TestPlain_Sound holds plain ⇒ compiles.
// Keywords outside 2020-12 (annotations such as "x-mcp-header") are
// ignored by the compiler and here alike.
func plain(doc map[string]any, patterns map[string]bool) bool {
	if _, ok := doc["$schema"]; ok {
		return false
	}
	defs, _ := doc["$defs"].(map[string]any)
	p := plainCheck{defs: defs, patterns: patterns}
	return p.schema(doc)
}

type plainCheck struct {
	defs     map[string]any  // the root's $defs, what a $ref may name
	patterns map[string]bool // patterns already seen to compile, or not
}

// schema checks a value where a schema must be: an object or a boolean.
func (p *plainCheck) schema(v any) bool {
	switch v := v.(type) {
	case bool:
		return true
	case map[string]any:
		return p.object(v)
	}
	return false
}

func (p *plainCheck) object(m map[string]any) bool {
	for k, v := range m {
		if !p.keyword(k, v) {
			return false
		}
	}
	return true
}

// keyword checks one member of a schema object against what the 2020-12
// metaschema (core, applicator, unevaluated, validation, meta-data,
// format-annotation, content) says of it.
func (p *plainCheck) keyword(k string, v any) bool {
	switch k {
	// Subschemas.
	case "items", "contains", "additionalProperties", "propertyNames", "if", "then", "else", "not",
		"unevaluatedItems", "unevaluatedProperties", "contentSchema":
		return p.schema(v)
	case "prefixItems", "allOf", "anyOf", "oneOf":
		list, ok := v.([]any)
		if !ok || len(list) == 0 {
			return false
		}
		for _, s := range list {
			if !p.schema(s) {
				return false
			}
		}
		return true
	case "properties", "dependentSchemas", "$defs":
		return p.schemaMap(v, false)
	case "patternProperties":
		return p.schemaMap(v, true)

	// Core.
	case "$ref":
		s, ok := v.(string)
		if !ok {
			return false
		}
		name, ok := strings.CutPrefix(s, "#/$defs/")
		if !ok || !defName(name) {
			return false
		}
		_, ok = p.defs[name] // checked as a schema where the root's $defs is
		return ok
	case "$comment":
		return isString(v)
	case "$schema", "$id", "$anchor", "$dynamicRef", "$dynamicAnchor", "$vocabulary",
		"$recursiveRef", "$recursiveAnchor", "definitions", "dependencies", "additionalItems":
		return false

	// Validation.
	case "type":
		return types(v)
	case "enum", "examples":
		_, ok := v.([]any)
		return ok
	case "multipleOf":
		n, ok := v.(json.Number)
		if !ok || !plainNumber(n) {
			return false
		}
		f, err := strconv.ParseFloat(string(n), 64)
		return err == nil && f > 0
	case "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum":
		n, ok := v.(json.Number)
		return ok && plainNumber(n)
	case "maxLength", "minLength", "maxItems", "minItems", "maxContains", "minContains", "maxProperties", "minProperties":
		n, ok := v.(json.Number)
		return ok && count(n)
	case "pattern":
		s, ok := v.(string)
		return ok && p.compiles(s)
	case "uniqueItems", "deprecated", "readOnly", "writeOnly":
		_, ok := v.(bool)
		return ok
	case "required":
		return stringSet(v)
	case "dependentRequired":
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		for _, list := range m {
			if !stringSet(list) {
				return false
			}
		}
		return true

	// Meta-data, format, content.
	case "title", "description", "format", "contentEncoding", "contentMediaType":
		return isString(v)
	}
	return true // "const", "default" (any value) and keywords outside 2020-12
}

// schemaMap checks an object of schemas; with patterns, its names must
// compile as regular expressions.
func (p *plainCheck) schemaMap(v any, patterns bool) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for name, s := range m {
		if patterns && !p.compiles(name) {
			return false
		}
		if !p.schema(s) {
			return false
		}
	}
	return true
}

// compiles reports whether the compiler's regular expression engine (Go's
// regexp, its default) accepts s, remembering the answer: an API repeats
// its patterns.
func (p *plainCheck) compiles(s string) bool {
	ok, seen := p.patterns[s]
	if !seen {
		_, err := regexp.Compile(s)
		ok = err == nil
		p.patterns[s] = ok
	}
	return ok
}

// defName reports whether a $defs name needs no escaping in a JSON
// pointer or a URI fragment, so that "#/$defs/"+name names it as written.
func defName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

var simpleTypes = map[string]bool{"array": true, "boolean": true, "integer": true, "null": true, "number": true, "object": true, "string": true}

// types checks "type": one simple type, or a non-empty list of distinct ones.
func types(v any) bool {
	switch v := v.(type) {
	case string:
		return simpleTypes[v]
	case []any:
		if len(v) == 0 || len(v) > len(simpleTypes) {
			return false
		}
		for i, t := range v {
			s, ok := t.(string)
			if !ok || !simpleTypes[s] {
				return false
			}
			for _, u := range v[:i] {
				if u == s {
					return false
				}
			}
		}
		return true
	}
	return false
}

// stringSet checks a list of distinct strings ("required").
func stringSet(v any) bool {
	list, ok := v.([]any)
	if !ok {
		return false
	}
	var seen map[string]bool
	for i, e := range list {
		s, ok := e.(string)
		if !ok {
			return false
		}
		if len(list) <= 16 {
			for _, u := range list[:i] {
				if u == s {
					return false
				}
			}
			continue
		}
		if seen == nil {
			seen = make(map[string]bool, len(list))
		}
		if seen[s] {
			return false
		}
		seen[s] = true
	}
	return true
}

// plainNumber reports whether n is a number without an exponent and of
// a sensible length: what the compiler reads as an exact rational, at no
// cost worth mentioning.
func plainNumber(n json.Number) bool {
	s := string(n)
	if len(s) == 0 || len(s) > 40 {
		return false
	}
	s = strings.TrimPrefix(s, "-")
	digits, dot := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case '0' <= c && c <= '9':
			digits++
		case c == '.' && !dot && digits > 0:
			dot = true
		default:
			return false
		}
	}
	return digits > 0 && s[len(s)-1] != '.'
}

// count reports whether n is a non-negative integer written in digits
// alone and fits an int.
func count(n json.Number) bool {
	s := string(n)
	if len(s) == 0 || len(s) > 18 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isString(v any) bool {
	_, ok := v.(string)
	return ok
}
