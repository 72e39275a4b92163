package typeschema

import (
	"encoding/json"
	"reflect"
)

// node says how encoding/json's output for a type is made to validate
// against the type's schema: a nil slice, map or []byte is written as
// null where the schema says array, object or string. A nil pointer field
// without omitempty stays null: its schema admits null.
type node struct {
	kind    byte   // 'a' array, 'm' map, 's' struct, 0 anything else
	nullTo  string // what a null becomes here ("" keeps it)
	elem    *node  // items, map values
	members map[string]*node
}

// node builds (once per type) the normalizer of t.
func (g *gen) node(t reflect.Type) *node {
	t = deref(t)
	if n, ok := g.nodes[t]; ok {
		return n
	}
	n := &node{}
	g.nodes[t] = n
	if special(t) != nil {
		return n
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			n.nullTo = `""`
			return n
		}
		n.kind, n.elem = 'a', g.node(t.Elem())
		if t.Kind() == reflect.Slice {
			n.nullTo = "[]"
		}
	case reflect.Map:
		n.kind, n.nullTo, n.elem = 'm', "{}", g.node(t.Elem())
	case reflect.Struct:
		n.kind = 's'
		n.members = map[string]*node{}
		for _, f := range g.infos[t].fields {
			tg, _ := parseTag(f.tag)
			m := g.node(f.typ)
			if tg.nullable || f.nullPtr || f.asString {
				// null is admitted as it is (or ,string writes no null).
				m = &node{kind: m.kind, elem: m.elem, members: m.members}
			}
			n.members[f.name] = m
		}
	}
	return n
}

// dirty reports whether a value of n's type can ever need fixing.
func (n *node) dirty(seen map[*node]bool) bool {
	if seen[n] {
		return false
	}
	seen[n] = true
	if n.nullTo != "" {
		return true
	}
	if n.elem != nil && n.elem.dirty(seen) {
		return true
	}
	for _, m := range n.members {
		if m.dirty(seen) {
			return true
		}
	}
	return false
}

// Encode encodes v (a value of the schema's type) as JSON that validates
// against the schema's types: nil slices and maps as empty (a nil pointer
// member stays null, which its schema admits).
func (s *Schema) Encode(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil || s.norm == nil {
		return b, err
	}
	out, _ := s.norm.fix(make([]byte, 0, len(b)+16), b, 0)
	return out, nil
}

// fix appends the value of b at i, fixed for n, and returns where it
// ends. b is encoding/json's output: compact and valid.
func (n *node) fix(dst, b []byte, i int) ([]byte, int) {
	if n == nil {
		end := skip(b, i)
		return append(dst, b[i:end]...), end
	}
	switch b[i] {
	case 'n':
		if n.nullTo != "" {
			return append(dst, n.nullTo...), i + 4
		}
		return append(dst, "null"...), i + 4
	case '[':
		if n.kind != 'a' {
			break
		}
		dst = append(dst, '[')
		i++
		for first := true; b[i] != ']'; first = false {
			if !first {
				dst = append(dst, ',')
				i++ // ','
			}
			dst, i = n.elem.fix(dst, b, i)
		}
		return append(dst, ']'), i + 1
	case '{':
		if n.kind != 'm' && n.kind != 's' {
			break
		}
		dst = append(dst, '{')
		i++
		wrote := false
		for first := true; b[i] != '}'; first = false {
			if !first {
				i++ // ','
			}
			kEnd := skip(b, i)
			key := b[i:kEnd]
			vAt := kEnd + 1 // ':'
			m := n.elem
			if n.kind == 's' {
				name := string(key[1 : len(key)-1])
				if len(key) > 2 && containsByte(key, '\\') {
					_ = json.Unmarshal(key, &name)
				}
				m = n.members[name]
			}
			if wrote {
				dst = append(dst, ',')
			}
			wrote = true
			dst = append(dst, key...)
			dst = append(dst, ':')
			dst, i = m.fix(dst, b, vAt)
		}
		return append(dst, '}'), i + 1
	}
	end := skip(b, i)
	return append(dst, b[i:end]...), end
}

func containsByte(b []byte, c byte) bool {
	for _, x := range b {
		if x == c {
			return true
		}
	}
	return false
}

// skip returns where the value at i ends, in compact valid JSON.
func skip(b []byte, i int) int {
	switch b[i] {
	case '"':
		for i++; ; i++ {
			switch b[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
	case '{', '[':
		depth := 0
		for ; ; i++ {
			switch b[i] {
			case '"':
				i = skip(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
	}
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']':
			return i
		}
		i++
	}
	return i
}
