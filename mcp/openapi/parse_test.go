package openapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestParseJSON_Allocations: reading JSON costs each object or array its
// node and one slice of its members, and a short string the document
// repeats (a key, a type name) nothing after its first time: no copy of
// its bytes, no node, no grown slice. GitHub's document peaked 15 MB
// lower for it (design record 031).
func TestParseJSON_Allocations(t *testing.T) {
	const n = 500
	doc := []byte(`{"items":[` + strings.TrimSuffix(strings.Repeat(`{"type":"string","format":"date-time","minLength":1,"x":[true,null]},`, n), ",") + `]}`)
	allocs := testing.AllocsPerRun(5, func() {
		if _, _, err := parseJSON(doc); err != nil {
			t.Fatal(err)
		}
	})
	// Per item: the object's node and members, the array's node and
	// members. Shared: every key and scalar, made once.
	if perItem := allocs / n; perItem > 4.1 {
		t.Errorf("%.0f allocations, %.2f an item; want at most 4", allocs, perItem)
	}
	root, _, err := parseJSON(doc)
	if err != nil {
		t.Fatal(err)
	}
	items := root.Content[1].Content
	if len(items) != n || len(items[0].Content) != 8 || items[0].Content[0] != items[n-1].Content[0] || items[0].Content[1].Value != "string" {
		t.Fatalf("tree: %d items, first %+v", len(items), items[0])
	}
}

// FuzzParseJSON: the reader's tree holds what encoding/json decodes, for
// every text both take (the reader refuses duplicate keys, text that is
// not UTF-8 and nesting past its bound), and the reader takes no text that is not JSON. Shared
// scalar nodes and members gathered on a stack must change nothing.
func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,1,"x","x",true,true,null],"b":{"a":1.5,"c":"x"},"c":[]}`,
		`[{"type":"string"},{"type":"string","x":{"type":"string"}},"string",-0,1e3]`, `{"a\"b":"\u00e9","é":"\n"}`, `[[[[]]],{}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		n, _, err := parseJSON(doc)
		if !json.Valid(doc) {
			if err == nil {
				t.Fatalf("%q: not JSON, taken", doc)
			}
			return
		}
		if _, dup := errors.AsType[*docError](err); dup || !utf8.Valid(doc) || err != nil && strings.Contains(err.Error(), "nested too deep") {
			return
		}
		if err != nil {
			t.Fatalf("%q: %v", doc, err)
		}
		d := json.NewDecoder(bytes.NewReader(doc))
		d.UseNumber()
		var want any
		if err := d.Decode(&want); err != nil {
			t.Fatal(err)
		}
		if got := generic(n); !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: read %#v, encoding/json %#v", doc, got, want)
		}
	})
}

// generic is a node as encoding/json decodes it with UseNumber.
func generic(n *node) any {
	switch n.Kind {
	case mappingNode:
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			m[n.Content[i].Value] = generic(n.Content[i+1])
		}
		return m
	case sequenceNode:
		l := []any{}
		for _, e := range n.Content {
			l = append(l, generic(e))
		}
		return l
	}
	switch n.Tag {
	case "!!str":
		return n.Value
	case "!!bool":
		return n.Value == "true"
	case "!!null":
		return nil
	}
	return json.Number(n.Value)
}
