package openapi

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// direction says which side of the exchange a schema describes: OpenAPI's
// readOnly properties are never sent in a request, and writeOnly ones are
// never answered.
type direction int

const (
	request direction = iota
	response
)

// converter turns the schemas of one tool's input or output into one JSON
// Schema 2020-12 document. Every schema a $ref names is copied once into
// the document's $defs and the $ref rewritten to point there, so the tool
// schema resolves offline, without the OpenAPI document around it.
type converter struct {
	doc   *document
	dir   direction
	names map[string]string // JSON pointer of a copied schema -> its $defs name
	taken map[string]bool
	queue []queued
	// refused lists the readOnly properties each request object refuses
	// (see refuse), for the body whose properties become arguments.
	refused map[*object][]string
}

type queued struct {
	name, ptr string
	node      *node
}

func (d *document) converter(dir direction) *converter {
	return &converter{doc: d, dir: dir, names: map[string]string{}, taken: map[string]bool{}}
}

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

var (
	// keywords30 is the OpenAPI 3.0 Schema Object: anything else in a 3.0
	// schema (except x- extensions) is an error rather than a keyword
	// that would suddenly mean something under JSON Schema 2020-12.
	keywords30 = set("title", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
		"maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxProperties",
		"minProperties", "required", "enum", "type", "allOf", "oneOf", "anyOf", "not", "items", "properties",
		"additionalProperties", "description", "format", "default", "nullable", "discriminator", "readOnly",
		"writeOnly", "xml", "externalDocs", "example", "deprecated", "$ref")
	oneSchema  = set("items", "not", "additionalProperties", "contains", "propertyNames", "if", "then", "else", "unevaluatedItems", "unevaluatedProperties", "contentSchema")
	schemaList = set("allOf", "anyOf", "oneOf", "prefixItems")
	schemaMap  = set("properties", "patternProperties", "dependentSchemas", "$defs")
	// OpenAPI's own annotations, which JSON Schema has no use for.
	openAPIOnly = set("discriminator", "xml", "externalDocs")
	// Keywords that change how references resolve, which the copy into
	// $defs cannot preserve.
	unsupported31 = map[string]string{
		"$id":            "changes the base URI of the references below it",
		"$dynamicRef":    "resolves at validation time",
		"$dynamicAnchor": "resolves at validation time",
	}
	// Kept next to a $ref in OpenAPI 3.0, where the other keywords beside a
	// $ref have no effect.
	refAnnotations30 = set("$ref", "description", "title")
)

const dialect2020 = "https://json-schema.org/draft/2020-12/schema"

// schema converts the schema node n, found at JSON pointer ptr.
func (c *converter) schema(n *node, ptr string, depth int) (any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("%s: the schema nests deeper than %d levels", ptr, maxDepth)
	}
	if n == nil {
		return nil, fmt.Errorf("%s: missing schema", ptr)
	}
	if err := c.doc.spend(ptr); err != nil {
		return nil, err
	}
	if n.Kind == scalarNode && n.Tag == "!!bool" {
		if c.doc.v30 {
			return nil, fmt.Errorf("%s: a boolean schema needs OpenAPI 3.1", ptr)
		}
		return scalar(n, ptr)
	}
	if n.Kind != mappingNode {
		return nil, fmt.Errorf("%s: a schema must be an object", ptr)
	}
	_, hasRef := member(n, "$ref")
	out := newObject()
	var example any
	var nullable, exclMin, exclMax bool
	var dropped map[string]bool
	var refused []string // readOnly properties of a request
	for i := 0; i+1 < len(n.Content); i += 2 {
		key := n.Content[i].Value
		val := n.Content[i+1]
		at := ptr + "/" + pointerEscape(key)
		switch {
		case strings.HasPrefix(key, "x-"):
			// Vendor extensions are for OpenAPI tooling; the one the MCP
			// library reads is kept.
			if key == "x-mcp-header" {
				v, err := c.doc.value(val, at, depth)
				if err != nil {
					return nil, err
				}
				out.set(key, v)
			}
		case openAPIOnly[key]:
		case c.doc.v30 && hasRef && !refAnnotations30[key]:
			return nil, fmt.Errorf("%s: OpenAPI 3.0 ignores %q next to a $ref; wrap the $ref in allOf to combine them", at, key)
		case c.doc.v30 && !keywords30[key]:
			return nil, fmt.Errorf("%s: %q is not a keyword of OpenAPI 3.0 schemas", at, key)
		case !c.doc.v30 && unsupported31[key] != "":
			return nil, fmt.Errorf("%s: %q is not supported: it %s", at, key, unsupported31[key])
		case key == "$ref":
			if val.Kind != scalarNode {
				return nil, fmt.Errorf("%s: $ref must be a string", at)
			}
			target, err := c.ref(val.Value, at)
			if err != nil {
				return nil, err
			}
			out.set(key, encodeString(target))
		case key == "$schema":
			if val.Value != dialect2020 {
				return nil, fmt.Errorf("%s: only the JSON Schema 2020-12 dialect is supported, not %q", at, val.Value)
			}
		case key == "nullable":
			if !c.doc.v30 {
				return nil, fmt.Errorf("%s: nullable is OpenAPI 3.0; in 3.1 add \"null\" to the type", at)
			}
			nullable = val.Value == "true"
		case c.doc.v30 && (key == "exclusiveMinimum" || key == "exclusiveMaximum"):
			if val.Tag != "!!bool" {
				return nil, fmt.Errorf("%s: in OpenAPI 3.0 %s is a boolean", at, key)
			}
			if key == "exclusiveMinimum" {
				exclMin = val.Value == "true"
			} else {
				exclMax = val.Value == "true"
			}
		case c.doc.v30 && key == "type" && val.Kind != scalarNode:
			return nil, fmt.Errorf("%s: in OpenAPI 3.0 type is one string; use nullable or oneOf", at)
		case key == "example":
			v, err := c.doc.value(val, at, depth)
			if err != nil {
				return nil, err
			}
			example = v
		case key == "additionalProperties" && val.Kind == scalarNode && val.Tag == "!!bool":
			b, err := scalar(val, at) // a boolean in OpenAPI 3.0 too
			if err != nil {
				return nil, err
			}
			out.set(key, b)
		case oneSchema[key]:
			s, err := c.schema(val, at, depth+1)
			if err != nil {
				return nil, err
			}
			if key == "items" {
				s = asObject(s)
			}
			out.set(key, s)
		case schemaList[key]:
			if val.Kind != sequenceNode {
				return nil, fmt.Errorf("%s: %s must be an array of schemas", at, key)
			}
			arr := make([]any, 0, len(val.Content))
			for j, item := range val.Content {
				s, err := c.schema(item, at+"/"+strconv.Itoa(j), depth+1)
				if err != nil {
					return nil, err
				}
				arr = append(arr, asObject(s))
			}
			out.set(key, arr)
		case schemaMap[key]:
			if val.Kind != mappingNode {
				return nil, fmt.Errorf("%s: %s must be an object of schemas", at, key)
			}
			m := newObject()
			for j := 0; j+1 < len(val.Content); j += 2 {
				name := val.Content[j].Value
				child := val.Content[j+1]
				hide := false
				if key == "properties" {
					var err error
					if hide, err = c.hidden(child, at+"/"+pointerEscape(name)); err != nil {
						return nil, err
					}
				}
				if hide {
					if dropped == nil {
						dropped = map[string]bool{}
					}
					dropped[name] = true
					if c.dir == request {
						refused = append(refused, name)
					}
					continue
				}
				s, err := c.schema(child, at+"/"+pointerEscape(name), depth+1)
				if err != nil {
					return nil, err
				}
				m.set(name, asObject(s))
			}
			out.set(key, m)
		default:
			v, err := c.doc.value(val, at, depth)
			if err != nil {
				return nil, err
			}
			out.set(key, v)
		}
	}
	if dropped != nil {
		if req, ok := out.get("required"); ok {
			if arr, ok := req.([]any); ok {
				kept := []any{}
				for _, r := range arr {
					if s, _ := str(r); !dropped[s] {
						kept = append(kept, r)
					}
				}
				if len(kept) == 0 {
					out.del("required")
				} else {
					out.set("required", kept)
				}
			}
		}
	}
	if len(refused) > 0 {
		refuse(out, refused)
		if c.refused == nil {
			c.refused = map[*object][]string{}
		}
		c.refused[out] = refused
	}
	if example != nil {
		if ex, ok := out.get("examples"); ok {
			if arr, ok := ex.([]any); ok {
				out.set("examples", append(arr, example))
			}
		} else {
			out.set("examples", []any{example})
		}
	}
	// OpenAPI 3.0's boolean exclusiveMinimum/Maximum modify minimum and
	// maximum; JSON Schema 2020-12 carries the bound itself.
	bound := func(excl bool, plain, exclusive string) {
		if v, ok := out.get(plain); ok && excl {
			out.rename(plain, exclusive, v)
		}
	}
	bound(exclMin, "minimum", "exclusiveMinimum")
	bound(exclMax, "maximum", "exclusiveMaximum")
	if nullable {
		t, ok := out.get("type")
		if !ok {
			// Without a type, 3.0's nullable adds null to nothing; the
			// author meant null to be accepted, and accepting it is the
			// safe reading for both requests and answers.
			return objectOf("anyOf", []any{out, objectOf("type", encodeString("null"))}), nil
		}
		out.set("type", []any{t, encodeString("null")})
		if e, ok := out.get("enum"); ok {
			if arr, ok := e.([]any); ok && !containsNull(arr) {
				out.set("enum", append(arr, json.RawMessage("null")))
			}
		}
	}
	return out, nil
}

// asObject writes a boolean schema where clients expect an object (a
// property's schema, items, a member of allOf, anyOf, oneOf or
// prefixItems, a $defs entry) as the object that means the same: MCP
// types them as objects, and a client that checks that (the TypeScript
// SDK does) refuses the whole tools/list answer over one boolean.
func asObject(s any) any {
	raw, ok := s.(json.RawMessage)
	switch {
	case !ok:
		return s
	case string(raw) == "true":
		return newObject()
	case string(raw) == "false":
		return objectOf("not", newObject())
	}
	return s
}

// refuse makes schema out refuse the properties names (readOnly ones a
// caller sends anyway): each is left out of properties and matched by a
// pattern of its exact name whose schema nothing passes, so input
// validation refuses it before the route (an open object would pass it
// on) and says where ("/$schema: 'not' failed"). The pattern is an
// object, where "properties": {"$schema": false} was a boolean that
// clients refused (record 023).
func refuse(out *object, names []string) {
	pp, ok := out.get("patternProperties")
	m, isObj := pp.(*object)
	if !ok {
		m, isObj = newObject(), true
		out.set("patternProperties", m)
	}
	var rest *object // patterns the document's own patternProperties has
	for _, name := range names {
		pat := "^" + regexp.QuoteMeta(name) + "$"
		if _, taken := m.get(pat); !isObj || taken {
			if rest == nil {
				rest = newObject()
			}
			rest.set(pat, objectOf("not", newObject()))
			continue
		}
		m.set(pat, objectOf("not", newObject()))
	}
	if rest != nil {
		all, _ := out.get("allOf")
		arr, _ := all.([]any)
		out.set("allOf", append(arr, objectOf("patternProperties", rest)))
	}
}

func objectOf(k string, v any) *object {
	o := newObject()
	o.set(k, v)
	return o
}

func containsNull(arr []any) bool {
	for _, v := range arr {
		if raw, ok := v.(json.RawMessage); ok && string(raw) == "null" {
			return true
		}
	}
	return false
}

// hidden reports whether a property is left out in c's direction: a
// readOnly one in a request, a writeOnly one in an answer. A property
// whose $ref chain does not end within maxDepth references is refused:
// the flag may stand past where the chain was given up, and a readOnly
// property taken for a plain one would be sent.
func (c *converter) hidden(n *node, ptr string) (bool, error) {
	flag := "readOnly"
	if c.dir == response {
		flag = "writeOnly"
	}
	for i := 0; n != nil; i++ {
		if v, ok := member(n, flag); ok && v.Value == "true" {
			return true, nil
		}
		ref, ok := member(n, "$ref")
		if !ok {
			return false, nil
		}
		if i == maxDepth {
			return false, fmt.Errorf("%s: the $ref chain does not end", ptr)
		}
		n, _, _ = c.doc.resolve(ref.Value)
	}
	return false, nil
}

var defName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// ref copies the schema ref names into $defs (once) and returns the
// rewritten reference.
func (c *converter) ref(ref, at string) (string, error) {
	target, tptr, err := c.doc.resolve(ref)
	if err != nil {
		return "", fmt.Errorf("%s: %v", at, err)
	}
	name, ok := c.names[tptr]
	if !ok {
		base, isComponent := strings.CutPrefix(tptr, "/components/schemas/")
		if !isComponent || strings.Contains(base, "/") {
			base = strings.Trim(tptr, "/")
		}
		base = defName.ReplaceAllString(pointerUnescape(base), "_")
		name = base
		for i := 2; c.taken[name]; i++ {
			name = base + "_" + strconv.Itoa(i)
		}
		c.taken[name] = true
		c.names[tptr] = name
		c.queue = append(c.queue, queued{name: name, ptr: tptr, node: target})
	}
	return "#/$defs/" + name, nil
}

// inline converts the schema at n with its own keywords at the top: a
// root that is only a $ref is replaced by what it names (MCP needs a
// root "type": "object", and a path wildcard a "type" of its own).
func (c *converter) inline(n *node, ptr string) (*object, error) {
	for i := 0; ; i++ {
		ref, ok := member(n, "$ref")
		if !ok || n.Kind != mappingNode || len(n.Content) != 2 {
			break
		}
		if i == maxDepth {
			return nil, fmt.Errorf("%s: the $ref chain does not end", ptr)
		}
		target, tptr, err := c.doc.resolve(ref.Value)
		if err != nil {
			return nil, fmt.Errorf("%s/$ref: %v", ptr, err)
		}
		n, ptr = target, tptr
	}
	s, err := c.schema(n, ptr, 0)
	if err != nil {
		return nil, err
	}
	o, ok := s.(*object)
	if !ok {
		o = newObject()
		if isTrue(s) {
			return o, nil
		}
		o.set("not", newObject()) // the false schema
	}
	return o, nil
}

// defs converts every schema copied so far, and those they reference,
// and returns them as a $defs object (nil when there are none).
func (c *converter) defs() (*object, error) {
	if len(c.queue) == 0 {
		return nil, nil
	}
	out := newObject()
	for i := 0; i < len(c.queue); i++ {
		q := c.queue[i]
		s, err := c.schema(q.node, q.ptr, 0)
		if err != nil {
			return nil, err
		}
		out.set(q.name, asObject(s))
	}
	return out, nil
}

// mayBeObject reports whether the schema at n, which declares no single
// type, lets an object through: it has properties, or one of its allOf,
// anyOf or oneOf branches is or may be an object.
func (c *converter) mayBeObject(n *node, depth int) bool {
	if depth > maxDepth {
		return false
	}
	for n := range c.doc.chain(n) {
		if _, ok := member(n, "properties"); ok {
			return true
		}
		for _, k := range []string{"allOf", "anyOf", "oneOf"} {
			list, ok := member(n, k)
			if !ok || list.Kind != sequenceNode {
				continue
			}
			for _, b := range list.Content {
				if t := c.typeOf(b); t == "object" || (t == "" && c.mayBeObject(b, depth+1)) {
					return true
				}
			}
		}
	}
	return false
}

// arrayBehind returns the items of an array that the schema at n, which
// declares no single type, lets through behind allOf, anyOf or oneOf (3.1
// writes an array that may be null as anyOf an array and null); ok is
// false when no branch is or may be an array. items is nil when that
// array names none.
func (c *converter) arrayBehind(n *node, depth int) (items *node, ok bool) {
	if depth > maxDepth {
		return nil, false
	}
	for n := range c.doc.chain(n) {
		for _, k := range []string{"allOf", "anyOf", "oneOf"} {
			list, found := member(n, k)
			if !found || list.Kind != sequenceNode {
				continue
			}
			for _, b := range list.Content {
				switch c.typeOf(b) {
				case "array":
					return c.itemsOf(b), true
				case "":
					if items, ok := c.arrayBehind(b, depth+1); ok {
						return items, true
					}
				}
			}
		}
	}
	return nil, false
}

// itemsOf returns the items of the array schema at n, following a root
// $ref chain (nil when it names none).
func (c *converter) itemsOf(n *node) *node {
	for n := range c.doc.chain(n) {
		if items, ok := member(n, "items"); ok {
			return items
		}
	}
	return nil
}

// kindOf is the type a parameter or form field is sent as: the type the
// schema at n declares, else an object or an array one of its allOf,
// anyOf or oneOf branches lets through ("" when none), and for an array
// its items.
func (c *converter) kindOf(n *node) (typ string, items *node) {
	switch typ = c.typeOf(n); {
	case typ == "array":
		return typ, c.itemsOf(n)
	case typ != "":
		return typ, nil
	case c.mayBeObject(n, 0):
		return "object", nil
	}
	if items, ok := c.arrayBehind(n, 0); ok {
		return "array", items
	}
	return "", nil
}

// typeOf returns the type the schema at n declares, following a root
// $ref chain ("" when it declares none, or several).
func (c *converter) typeOf(n *node) string {
	for n := range c.doc.chain(n) {
		if t, ok := member(n, "type"); ok {
			if t.Kind == scalarNode {
				return t.Value
			}
			// 3.1: ["string", "null"] and the like.
			types := []string{}
			for _, v := range t.Content {
				if v.Value != "null" {
					types = append(types, v.Value)
				}
			}
			if len(types) == 1 {
				return types[0]
			}
			return ""
		}
	}
	return ""
}
