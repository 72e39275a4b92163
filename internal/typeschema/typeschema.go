// Package typeschema derives a JSON Schema (2020-12) from a Go type, and
// what it takes to encode a value of that type so that it always
// validates against the schema. It uses the standard library only, so the
// core module can build tool schemas from types without a dependency
// beyond the design card's. The rules are documented on the public
// package, mcp/typeschema.
package typeschema

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Schema is a type's schema, with how to encode a value of it.
type Schema struct {
	// JSON is the schema, compact, with root type "object".
	JSON []byte
	// Constrained reports keywords a value of the type may fail (enum,
	// bounds, lengths, pattern, format): only then can an encoded value
	// violate the schema, so only then is it worth validating one.
	Constrained bool
	// Addressable: a type within has a pointer-receiver MarshalJSON or
	// MarshalText, which encoding/json calls only on an addressable
	// value, and the schema says what it writes: encode a pointer.
	Addressable bool
	norm        *node // nil when encoding/json never writes a null the schema refuses
}

var (
	timeType      = reflect.TypeFor[time.Time]()
	rawType       = reflect.TypeFor[json.RawMessage]()
	numberType    = reflect.TypeFor[json.Number]()
	marshalerType = reflect.TypeFor[json.Marshaler]()
	textType      = reflect.TypeFor[encoding.TextMarshaler]()
)

// For derives the schema of t, which must be a struct, a pointer to one,
// or a map with string keys: a tool's schemas describe objects. Each
// distinct struct type is described once: a type used in more than one
// place, or within itself, is a "$defs" entry the uses "$ref", so the
// work and the schema grow with the number of distinct types, not with
// the number of paths to them.
func For(t reflect.Type) (*Schema, error) { return build(t, false) }

// ForInput is For for a type that encoding/json decodes arguments into:
// members it cannot decode into are left out, so that validation refuses
// them before decoding would. They are those of an embedded pointer to a
// struct of an unexported type: encoding/json cannot allocate it, so a
// promoted member fails to decode and a member named by its tag panics in
// reflect (it sets the unexported field).
func ForInput(t reflect.Type) (*Schema, error) { return build(t, true) }

func build(t reflect.Type, decode bool) (*Schema, error) {
	root := t
	for root.Kind() == reflect.Pointer {
		root = root.Elem()
	}
	if special(root) != nil || (root.Kind() != reflect.Struct && root.Kind() != reflect.Map) {
		return nil, fmt.Errorf("typeschema: %s is not a JSON object; a tool's schemas describe objects (use a struct or a map)", t)
	}
	g := &gen{infos: map[reflect.Type]*info{}, nodes: map[reflect.Type]*node{}, names: map[string]reflect.Type{},
		walking: map[reflect.Type]bool{}, root: root, decode: decode}
	if err := g.count(root, ""); err != nil {
		return nil, err
	}
	var b []byte
	b, err := g.schema(b, root, "", true)
	if err != nil {
		return nil, err
	}
	if len(g.pending) > 0 {
		b = append(b[:len(b)-1], `,"$defs":{`...)
		for i := 0; i < len(g.pending); i++ { // rendering a definition may add more
			t := g.pending[i]
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, g.infos[t].name)
			b = append(b, ':')
			if b, err = g.definition(b, t); err != nil {
				return nil, err
			}
		}
		b = append(b, "}}"...)
	}
	s := &Schema{JSON: b, Constrained: g.constrained, Addressable: g.addr}
	if n := g.node(root); n.dirty(map[*node]bool{}) {
		s.norm = n
	}
	return s, nil
}

type gen struct {
	infos   map[reflect.Type]*info
	nodes   map[reflect.Type]*node
	names   map[string]reflect.Type
	pending []reflect.Type // types to define under $defs, in order
	// walking: the slice, array and map types being counted, so that one
	// that holds itself with no struct between (type Tree
	// map[string]Tree) is found as a cycle, not walked forever.
	walking     map[reflect.Type]bool
	root        reflect.Type
	decode      bool // ForInput: leave out what encoding/json cannot decode into
	constrained bool
	addr        bool // see Schema.Addressable
}

// info is what the first pass learns about a struct type.
type info struct {
	fields  []field
	uses    int
	walking bool
	inDefs  bool
	name    string
}

// field is one JSON member of a struct, as encoding/json sees it.
type field struct {
	name     string
	typ      reflect.Type
	required bool
	nullPtr  bool // a pointer without omitempty/omitzero: nil is written as null
	asString bool // ,string
	desc     string
	tag      string // the mcp tag
}

// special is the fixed schema of the types encoding/json writes in a way
// of their own, nil for the others.
func special(t reflect.Type) []byte {
	switch {
	case t == timeType:
		return []byte(`{"type":"string","format":"date-time"}`)
	case t == rawType:
		return []byte(anyValue)
	case t == numberType:
		return []byte(`{"type":"number"}`)
	case t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType):
		return []byte(anyValue) // it writes what it likes
	case t.Implements(textType) || reflect.PointerTo(t).Implements(textType):
		return []byte(`{"type":"string"}`)
	}
	return nil
}

// count is the first pass: it resolves every struct type's fields once
// and counts the places each is used.
func (g *gen) count(t reflect.Type, at string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if pt := reflect.PointerTo(t); !t.Implements(marshalerType) && !t.Implements(textType) &&
		(pt.Implements(marshalerType) || pt.Implements(textType)) {
		g.addr = true
	}
	if special(t) != nil {
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		in := g.infos[t]
		if in != nil {
			in.uses++
			if in.walking || in.uses > 1 {
				in.inDefs = t != g.root
			}
			return nil
		}
		fields, err := fieldsOf(t, at, g.decode)
		if err != nil {
			return err
		}
		in = &info{fields: fields, uses: 1, walking: true}
		g.infos[t] = in
		for _, f := range fields {
			if err := g.count(f.typ, at+"."+f.name); err != nil {
				return err
			}
		}
		in.walking = false
		return nil
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			return nil
		}
		return g.countElem(t, at+"[]")
	case reflect.Map:
		if err := mapKey(t.Key()); err != nil {
			return fmt.Errorf("typeschema: %s: %w", where(at), err)
		}
		return g.countElem(t, at+"{}")
	case reflect.Chan, reflect.Func, reflect.Complex64, reflect.Complex128, reflect.UnsafePointer:
		return fmt.Errorf("typeschema: %s: %s cannot be written as JSON", where(at), t)
	}
	return nil
}

// countElem counts the element of the slice, array or map type t. A
// named one can hold itself with no struct between (type Tree
// map[string]Tree, type List []List): met again within itself it is a
// $defs entry, as a struct within itself is (the root is "#"), where
// walking on would never end.
func (g *gen) countElem(t reflect.Type, at string) error {
	if g.walking[t] {
		if t != g.root && g.infos[t] == nil {
			g.infos[t] = &info{inDefs: true}
		}
		return nil
	}
	g.walking[t] = true
	defer delete(g.walking, t)
	return g.count(t.Elem(), at)
}

func where(at string) string {
	if at == "" {
		return "the root"
	}
	return "field " + strings.TrimPrefix(at, ".")
}

func mapKey(k reflect.Type) error {
	switch {
	case k.Kind() == reflect.String, k.Implements(textType), reflect.PointerTo(k).Implements(textType):
		return nil
	}
	switch k.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return nil
	}
	return fmt.Errorf("map key type %s cannot be a JSON member name", k)
}

// fieldsOf lists t's JSON members as encoding/json chooses them: exported
// fields under their json name, "-" left out, embedded structs without a
// name flattened (a shallower field wins; two at one depth cancel unless
// exactly one is tagged).
//
// decode: t is decoded into (ForInput), and the members encoding/json
// cannot set are left out: those of an embedded pointer to a struct of an
// unexported type.
func fieldsOf(t reflect.Type, at string, decode bool) ([]field, error) {
	type cand struct {
		field
		depth  int
		tagged bool
		order  int
	}
	var all []cand
	var walk func(t reflect.Type, depth int, viaPtr bool, seen map[reflect.Type]bool) error
	walk = func(t reflect.Type, depth int, viaPtr bool, seen map[reflect.Type]bool) error {
		if seen[t] {
			return nil
		}
		seen[t] = true
		defer delete(seen, t)
		for i := range t.NumField() {
			sf := t.Field(i)
			tag := sf.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if !validName(name) {
				// encoding/json ignores such a name and uses the
				// field's own, or promotes an embedded struct's fields.
				name = ""
			}
			ft := sf.Type
			if decode && sf.Anonymous && !sf.IsExported() && ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct {
				// Nothing can be decoded into it (see ForInput).
				continue
			}
			if sf.Anonymous && name == "" {
				et := ft
				isPtr := et.Kind() == reflect.Pointer
				if isPtr {
					et = et.Elem()
				}
				if et.Kind() == reflect.Struct && special(et) == nil {
					if err := walk(et, depth+1, viaPtr || isPtr, seen); err != nil {
						return err
					}
					continue
				}
			}
			if !sf.IsExported() && !(sf.Anonymous && deref(ft).Kind() == reflect.Struct) {
				// encoding/json keeps an embedded struct of an unexported
				// type that its tag names, as a member of that name.
				continue
			}
			tagged := name != ""
			if name == "" {
				name = sf.Name
			}
			omit := hasOpt(opts, "omitempty") || hasOpt(opts, "omitzero")
			isPtr := ft.Kind() == reflect.Pointer
			c := cand{depth: depth, tagged: tagged, order: len(all)}
			c.field = field{name: name, typ: ft, required: !omit && !viaPtr, nullPtr: isPtr && !omit,
				desc: sf.Tag.Get("jsonschema"), tag: sf.Tag.Get("mcp")}
			if hasOpt(opts, "string") {
				// encoding/json quotes a field of such a kind, or an
				// unnamed pointer to one (one level: not **int, and not
				// a named pointer type).
				qt := ft
				if qt.Name() == "" && qt.Kind() == reflect.Pointer {
					qt = qt.Elem()
				}
				switch qt.Kind() {
				case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
					reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
					reflect.Float32, reflect.Float64, reflect.String:
					c.asString = true
				}
			}
			all = append(all, c)
		}
		return nil
	}
	if err := walk(t, 0, false, map[reflect.Type]bool{}); err != nil {
		return nil, err
	}
	// Resolve names as encoding/json does.
	byName := map[string][]int{}
	var names []string
	for i, c := range all {
		if byName[c.name] == nil {
			names = append(names, c.name)
		}
		byName[c.name] = append(byName[c.name], i)
	}
	var out []field
	for _, n := range names {
		idx := byName[n]
		best, count := -1, 0
		for _, i := range idx {
			c := all[i]
			switch {
			case best < 0 || c.depth < all[best].depth || (c.depth == all[best].depth && c.tagged && !all[best].tagged):
				best, count = i, 1
			case c.depth == all[best].depth && c.tagged == all[best].tagged:
				count++
			}
		}
		if count == 1 {
			out = append(out, all[best].field)
		}
	}
	for _, f := range out {
		if f.tag != "" {
			if _, err := parseTag(f.tag); err != nil {
				return nil, fmt.Errorf("typeschema: %s: mcp tag: %w", where(at+"."+f.name), err)
			}
		}
	}
	return out, nil
}

// validName reports whether encoding/json takes name from a json tag as a
// member's name: it takes letters, digits and punctuation but for the
// quote, backslash and comma characters, which it reserves.
func validName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range name {
		if !unicode.IsLetter(c) && !unicode.IsDigit(c) && !strings.ContainsRune(" !#$%&()*+-./:;<=>?@[]^_{|}~", c) {
			return false
		}
	}
	return true
}

func hasOpt(opts, want string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == want {
			return true
		}
	}
	return false
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// schema appends the schema of t. top is the root: a struct is written
// in place there, and elsewhere in place unless it is defined under $defs.
func (g *gen) schema(b []byte, t reflect.Type, at string, top bool) ([]byte, error) {
	t = deref(t)
	if s := special(t); s != nil {
		return append(b, s...), nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return append(b, `{"type":"boolean"}`...), nil
	case reflect.Int8, reflect.Int16, reflect.Int32:
		// A value outside the type's range would fail to decode: say so.
		bits := t.Bits()
		return append(b, `{"type":"integer","minimum":`+strconv.FormatInt(-1<<(bits-1), 10)+`,"maximum":`+strconv.FormatInt(1<<(bits-1)-1, 10)+`}`...), nil
	case reflect.Uint8, reflect.Uint16, reflect.Uint32:
		return append(b, `{"type":"integer","minimum":0,"maximum":`+strconv.FormatUint(1<<t.Bits()-1, 10)+`}`...), nil
	case reflect.Int, reflect.Int64:
		return append(b, `{"type":"integer"}`...), nil
	case reflect.Uint, reflect.Uint64, reflect.Uintptr:
		return append(b, `{"type":"integer","minimum":0}`...), nil
	case reflect.Float32, reflect.Float64:
		return append(b, `{"type":"number"}`...), nil
	case reflect.String:
		return append(b, `{"type":"string"}`...), nil
	case reflect.Interface:
		return append(b, anyValue...), nil
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			return append(b, `{"type":"string","contentEncoding":"base64"}`...), nil
		}
		if !top {
			if ref := g.ref(t); ref != nil {
				return append(b, ref...), nil
			}
		}
		return g.container(b, t, at)
	case reflect.Map:
		if !top {
			if ref := g.ref(t); ref != nil {
				return append(b, ref...), nil
			}
		}
		return g.container(b, t, at)
	case reflect.Struct:
		if !top {
			if ref := g.ref(t); ref != nil {
				return append(b, ref...), nil
			}
		}
		return g.object(b, t)
	}
	return nil, fmt.Errorf("typeschema: %s: %s cannot be written as JSON", where(at), t)
}

// ref is the reference to t where t is not written in place: "#" for the
// root within itself, a $defs entry for a type used more than once or
// within itself (defined once, when first referred to); nil elsewhere.
func (g *gen) ref(t reflect.Type) []byte {
	if t == g.root {
		return []byte(`{"$ref":"#"}`)
	}
	in := g.infos[t]
	if in == nil || !in.inDefs {
		return nil
	}
	if in.name == "" {
		in.name = g.defName(t)
		g.pending = append(g.pending, t)
	}
	return []byte(`{"$ref":"#/$defs/` + in.name + `"}`)
}

// definition appends the schema of t under $defs.
func (g *gen) definition(b []byte, t reflect.Type) ([]byte, error) {
	if t.Kind() == reflect.Struct {
		return g.object(b, t)
	}
	return g.container(b, t, t.Name())
}

// container appends the schema of a slice (not []byte), array or map
// type in place.
func (g *gen) container(b []byte, t reflect.Type, at string) ([]byte, error) {
	if t.Kind() == reflect.Map {
		b = append(b, `{"type":"object","additionalProperties":`...)
		b, err := g.element(b, t.Elem(), at+"{}")
		if err != nil {
			return nil, err
		}
		return append(b, '}'), nil
	}
	b = append(b, `{"type":"array","items":`...)
	b, err := g.element(b, t.Elem(), at+"[]")
	if err != nil {
		return nil, err
	}
	if t.Kind() == reflect.Array {
		n := strconv.Itoa(t.Len())
		b = append(b, `,"minItems":`+n+`,"maxItems":`+n...)
	}
	return append(b, '}'), nil
}

// element appends the schema of an array item or map value; a pointer
// there may be null (encoding/json writes nil as null and nothing can
// leave an item out).
func (g *gen) element(b []byte, t reflect.Type, at string) ([]byte, error) {
	if t.Kind() != reflect.Pointer {
		return g.schema(b, t, at, false)
	}
	s, err := g.schema(nil, t, at, false)
	if err != nil {
		return nil, err
	}
	return append(b, nullable(s)...), nil
}

// anyValue admits any JSON value. It names every type rather than being
// {}, which portability checkers flag as constraining nothing; each branch
// has one type, since some clients take only one type per schema.
const anyValue = `{"anyOf":[{"type":"object"},{"type":"array"},{"type":"string"},{"type":"number"},{"type":"boolean"},{"type":"null"}]}`

// nullable admits null besides what s admits: anyOf branches of one type
// each, never a type array, for the same clients.
func nullable(s []byte) []byte {
	if string(s) == anyValue {
		return s
	}
	return []byte(`{"anyOf":[` + string(s) + `,{"type":"null"}]}`)
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// defName names t under $defs: its Go name, made safe for a JSON pointer,
// numbered when two types share one.
func (g *gen) defName(t reflect.Type) string {
	base := unsafeName.ReplaceAllString(t.Name(), "_")
	if base == "" || base == "_" {
		base = "Object"
	}
	name := base
	for i := 2; g.names[name] != nil; i++ {
		name = base + strconv.Itoa(i)
	}
	g.names[name] = t
	return name
}

// object appends a struct's object schema.
func (g *gen) object(b []byte, t reflect.Type) ([]byte, error) {
	in := g.infos[t]
	b = append(b, `{"type":"object","properties":{`...)
	var required []string
	for i, f := range in.fields {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, f.name)
		b = append(b, ':')
		var err error
		if b, err = g.property(b, f, t.Name()+"."+f.name); err != nil {
			return nil, err
		}
		if f.required {
			required = append(required, f.name)
		}
	}
	b = append(b, '}')
	if len(required) > 0 {
		b = append(b, `,"required":[`...)
		for i, r := range required {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, r)
		}
		b = append(b, ']')
	}
	return append(b, `,"additionalProperties":false}`...), nil
}

// property appends one field's schema: its type's, with the description
// and the constraints of its tags.
func (g *gen) property(b []byte, f field, at string) ([]byte, error) {
	tg, _ := parseTag(f.tag) // checked by fieldsOf
	t := deref(f.typ)
	own, itemExtra, err := g.constraints(tg, t, f.asString)
	if err != nil {
		return nil, fmt.Errorf("typeschema: field %s: mcp tag: %w", at, err)
	}
	var s []byte
	switch {
	case f.asString:
		s = []byte(`{"type":"string"}`)
	case itemExtra != nil:
		// The item keywords go on the items: the schema of the slice is
		// written here rather than by schema.
		items, err := g.element(nil, t.Elem(), at+"[]")
		if err != nil {
			return nil, err
		}
		s = append([]byte(`{"type":"array","items":`), merge(items, itemExtra)...)
		if t.Kind() == reflect.Array {
			n := strconv.Itoa(t.Len())
			s = append(s, `,"minItems":`+n+`,"maxItems":`+n...)
		}
		s = append(s, '}')
	default:
		if s, err = g.schema(nil, f.typ, at, false); err != nil {
			return nil, err
		}
	}
	if tg.nullable || f.nullPtr {
		// encoding/json writes a nil pointer without omitempty as null
		// and decodes null into it: the schema admits what both do.
		s = nullable(s)
	}
	if f.desc != "" {
		own = append(own, `,"description":`...)
		own = appendString(own, f.desc)
	}
	return append(b, merge(s, own)...), nil
}

// merge adds members (each with a leading comma) to the object schema s.
func merge(s, members []byte) []byte {
	if len(members) == 0 {
		return s
	}
	if string(s) == "{}" {
		return append(append([]byte{'{'}, members[1:]...), '}')
	}
	return append(append(append([]byte(nil), s[:len(s)-1]...), members...), '}')
}

func appendString(b []byte, s string) []byte {
	q, _ := json.Marshal(s)
	return append(b, q...)
}
