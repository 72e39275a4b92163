package jsonrpc

import (
	"strings"
	"testing"
)

// TestParse_DepthEdge: nesting of exactly DefaultMaxDepth levels (the
// root object counts as one) is read; one more is refused as too_deep,
// with arrays and with objects.
func TestParse_DepthEdge(t *testing.T) {
	t.Parallel()
	// root {} is level 1, params {} level 2; n nested values below it.
	arrays := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	objects := func(n int) string { return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) }
	for name, nest := range map[string]func(int) string{"arrays": arrays, "objects": objects} {
		body := func(n int) []byte {
			return []byte(`{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":` + nest(n) + `}}`)
		}
		at := DefaultMaxDepth - 2
		if _, err := Parse(body(at), DefaultMaxDepth); err != nil {
			t.Errorf("%s: %d levels refused: %v", name, DefaultMaxDepth, err)
		}
		if err := Validate(body(at), DefaultMaxDepth); err != nil {
			t.Errorf("%s: Validate, %d levels refused: %v", name, DefaultMaxDepth, err)
		}
		_, err := Parse(body(at+1), DefaultMaxDepth)
		if err == nil || err.Reason != "too_deep" || err.Kind != Invalid {
			t.Errorf("%s: %d levels: %v, want too_deep", name, DefaultMaxDepth+1, err)
		}
	}
}

// TestParse_IDEdge: an id of MaxIDBytes bytes on the wire (string or
// integer) is kept byte-exact; one more byte is invalid_id.
func TestParse_IDEdge(t *testing.T) {
	t.Parallel()
	for _, id := range []string{
		`"` + strings.Repeat("i", MaxIDBytes-2) + `"`,
		strings.Repeat("9", MaxIDBytes),
		"-" + strings.Repeat("9", MaxIDBytes-1),
	} {
		body := []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
		m, err := Parse(body, DefaultMaxDepth)
		if err != nil || string(m.ID) != id {
			t.Errorf("id of %d bytes: %v", len(id), err)
		}
		long := id[:1] + "9" + id[1:]
		if id[0] == '"' {
			long = `"i` + id[1:]
		}
		body = []byte(`{"jsonrpc":"2.0","id":` + long + `,"method":"ping"}`)
		if _, err := Parse(body, DefaultMaxDepth); err == nil || err.Reason != "invalid_id" || err.ID != nil {
			t.Errorf("id of %d bytes: %+v, want invalid_id without an id", len(long), err)
		}
	}
}
