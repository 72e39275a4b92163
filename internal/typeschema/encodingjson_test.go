package typeschema

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/internal/schema"
)

// conforms reports the violations of v, encoded by s, against s's schema.
func conforms(t *testing.T, s *Schema, v any) []string {
	t.Helper()
	compiled, err := schema.Compile(s.JSON)
	if err != nil {
		t.Fatalf("%s: %v", s.JSON, err)
	}
	b, err := s.Encode(v)
	if err != nil {
		t.Fatal(err)
	}
	decoded, err := schema.Decode(b, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, v := range compiled.Validate(decoded, 5) {
		out = append(out, string(b)+": "+v)
	}
	return out
}

// admits reports whether the schema of s admits the JSON text doc.
func admits(t *testing.T, s *Schema, doc string) bool {
	t.Helper()
	compiled, err := schema.Compile(s.JSON)
	if err != nil {
		t.Fatalf("%s: %v", s.JSON, err)
	}
	decoded, err := schema.Decode([]byte(doc), 0)
	if err != nil {
		t.Fatal(err)
	}
	return compiled.Validate(decoded, 1) == nil
}

type (
	jsonTree  map[string]jsonTree
	jsonList  []jsonList
	listOfPtr []*listOfPtr
	withTrees struct {
		Tree  jsonTree  `json:"tree"`
		List  jsonList  `json:"list"`
		Again jsonTree  `json:"again"`
		Ptrs  listOfPtr `json:"ptrs"`
	}
)

// TestFor_SelfContainingContainers: a named map or slice type can hold
// itself with no struct between (a tree of names, nested lists). Walking
// its element type never ended: registering a tool with such a type hung,
// its memory growing, instead of returning. It is a $defs entry now (the
// root "#"), and what the type encodes validates.
func TestFor_SelfContainingContainers(t *testing.T) {
	s, err := For(reflect.TypeFor[withTrees]())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"tree":{"$ref":"#/$defs/jsonTree"}`, `"again":{"$ref":"#/$defs/jsonTree"}`,
		`"jsonTree":{"type":"object","additionalProperties":{"$ref":"#/$defs/jsonTree"}}`,
		`"jsonList":{"type":"array","items":{"$ref":"#/$defs/jsonList"}}`,
		`"listOfPtr":{"type":"array","items":{"anyOf":[{"$ref":"#/$defs/listOfPtr"},{"type":"null"}]}}`} {
		if !strings.Contains(string(s.JSON), want) {
			t.Errorf("schema %s lacks %s", s.JSON, want)
		}
	}
	v := withTrees{Tree: jsonTree{"a": {"b": nil, "c": {}}}, List: jsonList{nil, {{}, nil}}, Ptrs: listOfPtr{nil, &listOfPtr{nil}}}
	if bad := conforms(t, s, v); bad != nil {
		t.Error(bad)
	}
	if admits(t, s, `{"tree":{"a":{"b":1}},"list":[],"again":{},"ptrs":[]}`) {
		t.Errorf("schema %s admits a number deep in the tree", s.JSON)
	}

	root, err := For(reflect.TypeFor[jsonTree]())
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"type":"object","additionalProperties":{"$ref":"#"}}`; string(root.JSON) != want {
		t.Errorf("root %s, want %s", root.JSON, want)
	}
	if bad := conforms(t, root, jsonTree{"a": {"b": nil}}); bad != nil {
		t.Error(bad)
	}
}

type hidden struct {
	X int `json:"x"`
}

type (
	promotedThroughPointer struct {
		*hidden
		Y int `json:"y"`
	}
	namedPointerEmbed struct {
		*hidden `json:"in,omitempty"`
		Y       int `json:"y"`
	}
)

// TestForInput_UnexportedEmbeddedPointer: encoding/json cannot allocate
// an embedded pointer to a struct of an unexported type while decoding.
// A promoted member of it fails to decode; a member its tag names panics
// in reflect. The input schema leaves them out, so validation refuses
// them; the output schema keeps them, as encoding/json writes them.
func TestForInput_UnexportedEmbeddedPointer(t *testing.T) {
	for _, tc := range []struct {
		typ    reflect.Type
		member string
		doc    string
	}{
		{reflect.TypeFor[promotedThroughPointer](), "x", `{"x":1,"y":2}`},
		{reflect.TypeFor[namedPointerEmbed](), "in", `{"in":{"x":1},"y":2}`},
	} {
		in, err := ForInput(tc.typ)
		if err != nil {
			t.Fatal(err)
		}
		if admits(t, in, tc.doc) {
			t.Errorf("%s: the input schema %s admits %s, which encoding/json cannot decode", tc.typ, in.JSON, tc.doc)
		}
		if !admits(t, in, `{"y":2}`) {
			t.Errorf("%s: the input schema %s refuses {\"y\":2}", tc.typ, in.JSON)
		}
		out, err := For(tc.typ)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(out.JSON), `"`+tc.member+`":`) {
			t.Errorf("%s: the output schema %s lacks %q, which encoding/json writes", tc.typ, out.JSON, tc.member)
		}
	}
	// Exported or not a pointer: decodable, kept.
	type exportedPtr struct {
		*Exported
	}
	if in, _ := ForInput(reflect.TypeFor[exportedPtr]()); !admits(t, in, `{"z":1}`) {
		t.Errorf("an exported embedded pointer's member is left out: %s", in.JSON)
	}
	if in, _ := ForInput(reflect.TypeFor[taggedEmbed]()); !admits(t, in, `{"inner":{"x":1},"a":2}`) {
		t.Errorf("an unexported embedded struct named by its tag is left out: %s", in.JSON)
	}
}

// Exported is embedded by pointer in TestForInput_UnexportedEmbeddedPointer.
type Exported struct {
	Z int `json:"z"`
}

// TestFor_JSONTagNamesEncodingJSONIgnores: encoding/json takes no member
// name from a tag holding a quote or a backslash; it uses the field's
// name (and promotes an embedded struct's fields). The schema named the
// member after the tag: the output never validated, and a valid input
// never reached the field.
func TestFor_JSONTagNamesEncodingJSONIgnores(t *testing.T) {
	// The malformed tags are the point of the test.
	type odd struct {
		//lint:ignore SA5008 encoding/json ignores this tag name, as the schema must
		Quote int `json:"it's"`
		//lint:ignore SA5008 encoding/json ignores this tag name, as the schema must
		Slash int `json:"a\\b,omitempty"`
		//lint:ignore SA5008 encoding/json ignores this tag name, as the schema must
		point `json:"\"p\""`
		Fine  int `json:"a-b c"`
	}
	s, err := For(reflect.TypeFor[odd]())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(odd{})
	if string(b) != `{"Quote":0,"x":0,"y":0,"a-b c":0}` {
		t.Fatalf("encoding/json wrote %s", b)
	}
	if bad := conforms(t, s, odd{}); bad != nil {
		t.Errorf("schema %s: %v", s.JSON, bad)
	}
	var back odd
	if err := json.Unmarshal([]byte(`{"Quote":1,"Slash":2,"x":3,"a-b c":4}`), &back); err != nil || back != (odd{1, 2, point{3, 0}, 4}) {
		t.Fatalf("encoding/json read %+v, %v", back, err)
	}
	if !admits(t, s, `{"Quote":1,"Slash":2,"x":3,"y":0,"a-b c":4}`) {
		t.Errorf("schema %s refuses what encoding/json reads", s.JSON)
	}
}

// TestFor_StringOptionOneUnnamedPointer: encoding/json quotes a ,string
// field of a scalar kind or of an unnamed pointer to one, and nothing
// deeper: a **int is written as a number.
func TestFor_StringOptionOneUnnamedPointer(t *testing.T) {
	type quoted struct {
		P *int `json:"p,string"`
		//lint:ignore SA5008 a ,string on a **int is what the test pins: encoding/json ignores it
		PP **int `json:"pp,string"`
	}
	s, err := For(reflect.TypeFor[quoted]())
	if err != nil {
		t.Fatal(err)
	}
	n := 3
	pn := &n
	v := quoted{P: pn, PP: &pn}
	if b, _ := json.Marshal(v); string(b) != `{"p":"3","pp":3}` {
		t.Fatalf("encoding/json wrote %s", b)
	}
	if bad := conforms(t, s, v); bad != nil {
		t.Errorf("schema %s: %v", s.JSON, bad)
	}
}
