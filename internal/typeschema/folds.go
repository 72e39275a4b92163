package typeschema

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
)

// Folds finds the members of a value that encoding/json, decoding it into
// a type, would take for a field named otherwise: it matches member names
// case-insensitively (Unicode's simple folding: ſ for s, the Kelvin sign
// for k). A schema given for the type that admits members it does not name
// would let such a member ("PATH") set the field whose constraints it
// declares ("path") unchecked.
type Folds struct{ root *fold }

type fold struct {
	fields map[string]*fold // a struct's members, by exact name
	names  [][]byte         // the same names
	elem   *fold            // items, map values
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// NewFolds returns the Folds of t, nil when t can hold no struct that
// encoding/json decodes member by member.
func NewFolds(t reflect.Type) *Folds {
	f := (&folder{seen: map[reflect.Type]*fold{}}).of(t)
	if f == nil {
		return nil
	}
	return &Folds{f}
}

type folder struct{ seen map[reflect.Type]*fold }

func (g *folder) of(t reflect.Type) *fold {
	t = deref(t)
	if f, ok := g.seen[t]; ok {
		return f
	}
	pt := reflect.PointerTo(t)
	if pt.Implements(unmarshalerType) || pt.Implements(textUnmarshalerType) {
		return nil // it decodes itself
	}
	switch t.Kind() {
	case reflect.Struct:
		f := &fold{fields: map[string]*fold{}}
		g.seen[t] = f
		fields, _ := fieldsOf(t, "", true) // their tags were read by For
		for _, fl := range fields {
			f.names = append(f.names, []byte(fl.name))
			if fl.asString {
				f.fields[fl.name] = nil
			} else {
				f.fields[fl.name] = g.of(fl.typ)
			}
		}
		return f
	case reflect.Slice, reflect.Array, reflect.Map:
		// Within itself (type T []struct{ Kids T }) the element's fold
		// must reach this one: a nil placeholder would leave the members
		// of the nested structs unchecked.
		f := &fold{}
		g.seen[t] = f
		if f.elem = g.of(t.Elem()); f.elem == nil {
			g.seen[t] = nil
			return nil
		}
		return f
	}
	return nil
}

// Find returns the path of the first member of value (valid JSON) that
// encoding/json would decode into a field whose name differs from the
// member's, "" when there is none. It allocates only for what it finds
// and for member names with escapes.
func (f *Folds) Find(value []byte) string {
	if f == nil {
		return ""
	}
	i := space(value, 0)
	if i >= len(value) {
		return ""
	}
	p, _ := f.root.scan(value, i)
	return p
}

func space(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// end returns where the value at i ends.
func end(b []byte, i int) int {
	switch b[i] {
	case '"':
		for i++; i < len(b); i++ {
			switch b[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
		return len(b)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = end(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
		i++
	}
	return i
}

// scan looks for a folded member in the value at i, and returns its path
// and where the value ends.
func (n *fold) scan(b []byte, i int) (string, int) {
	if n == nil || (b[i] != '{' && b[i] != '[') {
		return "", end(b, i)
	}
	open := b[i]
	i = space(b, i+1)
	for idx := 0; i < len(b) && b[i] != '}' && b[i] != ']'; idx++ {
		var key []byte
		child := n.elem
		if open == '{' {
			kEnd := end(b, i)
			key = b[i+1 : kEnd-1]
			if bytes.IndexByte(key, '\\') >= 0 {
				var name string
				_ = json.Unmarshal(b[i:kEnd], &name)
				key = []byte(name)
			}
			i = space(b, space(b, kEnd)+1) // past ':'
			if n.fields != nil {
				c, ok := n.fields[string(key)]
				if !ok {
					for _, name := range n.names {
						if bytes.EqualFold(key, name) {
							return string(key), end(b, i)
						}
					}
				}
				child = c
			}
		}
		p, e := child.scan(b, i)
		if p != "" {
			switch {
			case open == '[':
				return "[" + strconv.Itoa(idx) + "]" + dot(p), e
			default:
				return string(key) + dot(p), e
			}
		}
		i = space(b, e)
		if i < len(b) && b[i] == ',' {
			i = space(b, i+1)
		}
	}
	return "", i + 1
}

func dot(p string) string {
	if p[0] == '[' {
		return p
	}
	return "." + p
}
