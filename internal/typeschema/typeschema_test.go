package typeschema

import (
	"encoding/json"
	"net/netip"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/internal/schema"
)

type point struct {
	X int `json:"x"`
	Y int `json:"y"`
}

type base struct {
	ID      string `json:"id"`
	Created string `json:"created"`
}

type extra struct {
	Note string `json:"note"`
}

type tree struct {
	Name     string  `json:"name"`
	Children []*tree `json:"children,omitempty"`
}

type custom struct{}

func (custom) MarshalJSON() ([]byte, error) { return []byte(`"c"`), nil }

// TestFor pins the schema of each kind of field.
func TestFor(t *testing.T) {
	for _, tc := range []struct {
		name string
		typ  reflect.Type
		want string
	}{
		{"scalars", reflect.TypeFor[struct {
			B bool    `json:"b"`
			I int8    `json:"i"`
			U uint    `json:"u"`
			W uint16  `json:"w,omitempty"`
			F float64 `json:"f"`
			S string  `json:"s,omitempty"`
			N int     `json:"n,string"`
			x int
		}](), `{"type":"object","properties":{"b":{"type":"boolean"},"i":{"type":"integer","minimum":-128,"maximum":127},"u":{"type":"integer","minimum":0},"w":{"type":"integer","minimum":0,"maximum":65535},"f":{"type":"number"},"s":{"type":"string"},"n":{"type":"string"}},"required":["b","i","u","f","n"],"additionalProperties":false}`},
		// encoding/json writes a nil pointer without omitempty as null
		// and decodes null into it: required, and null admitted. With
		// omitempty or omitzero nil is left out: optional, never null.
		{"pointers without omitempty are required and nullable", reflect.TypeFor[struct {
			P *string `json:"p"`
			Q *point  `json:"q"`
			N *int    `json:"n,string"`
			O *string `json:"o,omitempty"`
			Z *bool   `json:"z,omitzero"`
		}](), `{"type":"object","properties":{"p":{"anyOf":[{"type":"string"},{"type":"null"}]},"q":{"anyOf":[{"type":"object","properties":{"x":{"type":"integer"},"y":{"type":"integer"}},"required":["x","y"],"additionalProperties":false},{"type":"null"}]},"n":{"anyOf":[{"type":"string"},{"type":"null"}]},"o":{"type":"string"},"z":{"type":"boolean"}},"required":["p","q","n"],"additionalProperties":false}`},
		{"slices are arrays, never null unless asked", reflect.TypeFor[struct {
			L []string    `json:"l"`
			M []string    `json:"m" mcp:"nullable"`
			A [2]int      `json:"a"`
			P []*point    `json:"p,omitempty"`
			R []byte      `json:"r"`
			T []time.Time `json:"t"`
		}](), `{"type":"object","properties":{"l":{"type":"array","items":{"type":"string"}},"m":{"anyOf":[{"type":"array","items":{"type":"string"}},{"type":"null"}]},"a":{"type":"array","items":{"type":"integer"},"minItems":2,"maxItems":2},"p":{"type":"array","items":{"anyOf":[{"type":"object","properties":{"x":{"type":"integer"},"y":{"type":"integer"}},"required":["x","y"],"additionalProperties":false},{"type":"null"}]}},"r":{"type":"string","contentEncoding":"base64"},"t":{"type":"array","items":{"type":"string","format":"date-time"}}},"required":["l","m","a","r","t"],"additionalProperties":false}`},
		{"maps, raw JSON, interfaces, marshalers", reflect.TypeFor[struct {
			M map[string]int       `json:"m"`
			K map[int]bool         `json:"k"`
			R json.RawMessage      `json:"r"`
			A any                  `json:"a"`
			C custom               `json:"c"`
			T netip.Addr           `json:"t"`
			N json.Number          `json:"n"`
			X map[string]*struct{} `json:"x"`
		}](), `{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"integer"}},"k":{"type":"object","additionalProperties":{"type":"boolean"}},"r":{"anyOf":[{"type":"object"},{"type":"array"},{"type":"string"},{"type":"number"},{"type":"boolean"},{"type":"null"}]},"a":{"anyOf":[{"type":"object"},{"type":"array"},{"type":"string"},{"type":"number"},{"type":"boolean"},{"type":"null"}]},"c":{"anyOf":[{"type":"object"},{"type":"array"},{"type":"string"},{"type":"number"},{"type":"boolean"},{"type":"null"}]},"t":{"type":"string"},"n":{"type":"number"},"x":{"type":"object","additionalProperties":{"anyOf":[{"type":"object","properties":{},"additionalProperties":false},{"type":"null"}]}}},"required":["m","k","r","a","c","t","n","x"],"additionalProperties":false}`},
		{"embedded structs are flattened, through a pointer optional", reflect.TypeFor[struct {
			base
			*extra
			Created int `json:"created"` // shallower: wins over base's
		}](), `{"type":"object","properties":{"id":{"type":"string"},"created":{"type":"integer"},"note":{"type":"string"}},"required":["id","created"],"additionalProperties":false}`},
		{"a type used twice is defined once", reflect.TypeFor[struct {
			From point   `json:"from"`
			To   point   `json:"to"`
			Via  []point `json:"via"`
		}](), `{"type":"object","properties":{"from":{"$ref":"#/$defs/point"},"to":{"$ref":"#/$defs/point"},"via":{"type":"array","items":{"$ref":"#/$defs/point"}}},"required":["from","to","via"],"additionalProperties":false,"$defs":{"point":{"type":"object","properties":{"x":{"type":"integer"},"y":{"type":"integer"}},"required":["x","y"],"additionalProperties":false}}}`},
		{"a recursive root refers to itself", reflect.TypeFor[tree](),
			`{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"anyOf":[{"$ref":"#"},{"type":"null"}]}}},"required":["name"],"additionalProperties":false}`},
		{"a recursive field type is defined", reflect.TypeFor[struct {
			Root tree `json:"root"`
		}](), `{"type":"object","properties":{"root":{"$ref":"#/$defs/tree"}},"required":["root"],"additionalProperties":false,"$defs":{"tree":{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"anyOf":[{"$ref":"#/$defs/tree"},{"type":"null"}]}}},"required":["name"],"additionalProperties":false}}}`},
		{"tags", reflect.TypeFor[struct {
			Status string   `json:"status" jsonschema:"Where it is" mcp:"enum=draft|sent|a\\|b,default=draft,title=Status"`
			Limit  int      `json:"limit,omitempty" mcp:"minimum=1,maximum=100,example=20,example=50"`
			Ratio  float64  `json:"ratio" mcp:"exclusiveMinimum=0,exclusiveMaximum=1.5"`
			Code   string   `json:"code" mcp:"pattern=^[A-Z]{2\\,3}$,minLength=2,maxLength=3,format=iso"`
			Tags   []string `json:"tags" mcp:"enum=x|y,maxItems=3,minItems=1,uniqueItems,default=[\"x\"]"`
			On     bool     `json:"on" mcp:"default=true"`
		}](), `{"type":"object","properties":{"status":{"type":"string","enum":["draft","sent","a|b"],"title":"Status","default":"draft","description":"Where it is"},"limit":{"type":"integer","minimum":1,"maximum":100,"examples":[20,50]},"ratio":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1.5},"code":{"type":"string","minLength":2,"maxLength":3,"pattern":"^[A-Z]{2,3}$","format":"iso"},"tags":{"type":"array","items":{"type":"string","enum":["x","y"]},"maxItems":3,"minItems":1,"uniqueItems":true,"default":["x"]},"on":{"type":"boolean","default":true}},"required":["status","ratio","code","tags","on"],"additionalProperties":false}`},
		{"a map root", reflect.TypeFor[map[string]float64](), `{"type":"object","additionalProperties":{"type":"number"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := For(tc.typ)
			if err != nil {
				t.Fatal(err)
			}
			if string(s.JSON) != tc.want {
				t.Errorf("got\n%s\nwant\n%s", s.JSON, tc.want)
			}
			if _, err := schema.Compile(s.JSON); err != nil {
				t.Errorf("does not compile: %v", err)
			}
		})
	}
}

// TestFor_Refuses: types and tags that cannot be a tool's schema.
func TestFor_Refuses(t *testing.T) {
	for _, tc := range []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[[]point](), "not a JSON object"},
		{reflect.TypeFor[string](), "not a JSON object"},
		{reflect.TypeFor[time.Time](), "not a JSON object"},
		{reflect.TypeFor[struct{ F func() }](), "field F: func() cannot be written as JSON"},
		{reflect.TypeFor[struct{ C complex128 }](), "cannot be written as JSON"},
		{reflect.TypeFor[struct{ M map[point]int }](), "map key type"},
		{reflect.TypeFor[struct {
			S string `mcp:"minimum=1"`
		}](), "minimum needs a numeric field"},
		{reflect.TypeFor[struct {
			S string `mcp:"minItems=1"`
		}](), "minItems needs a slice or array field"},
		{reflect.TypeFor[struct {
			N int `mcp:"enum=a|b"`
		}](), `enum: "a" is not an integer`},
		{reflect.TypeFor[struct {
			N int `mcp:"default=x"`
		}](), `default: "x" is not an integer`},
		{reflect.TypeFor[struct {
			S string `mcp:"color=red"`
		}](), `unknown key "color"`},
		{reflect.TypeFor[struct {
			S string `mcp:"pattern=("`
		}](), "pattern:"},
		{reflect.TypeFor[struct {
			S string `mcp:"maxLength=-1"`
		}](), "is not a count"},
		{reflect.TypeFor[struct {
			P point `mcp:"format=x"`
		}](), "format needs a string field"},
		{reflect.TypeFor[struct {
			S string `mcp:"format"`
		}](), "format needs a value"},
	} {
		if _, err := For(tc.typ); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.typ, err, tc.want)
		}
	}
}

// Eight types, each with eight fields of the next (the last of integers):
// 8^7 paths to the last type, which inlining would write out each time.
type (
	deep0 struct{ A, B, C, D, E, F, G, H deep1 }
	deep1 struct{ A, B, C, D, E, F, G, H deep2 }
	deep2 struct{ A, B, C, D, E, F, G, H deep3 }
	deep3 struct{ A, B, C, D, E, F, G, H deep4 }
	deep4 struct{ A, B, C, D, E, F, G, H deep5 }
	deep5 struct{ A, B, C, D, E, F, G, H deep6 }
	deep6 struct{ A, B, C, D, E, F, G, H deep7 }
	deep7 struct{ A, B, C, D, E, F, G, H int }
)

// TestFor_Linear: the work and the schema grow with the distinct types,
// not with the paths to them.
func TestFor_Linear(t *testing.T) {
	var s *Schema
	allocs := testing.AllocsPerRun(5, func() {
		var err error
		if s, err = For(reflect.TypeFor[deep0]()); err != nil {
			t.Fatal(err)
		}
	})
	if n := strings.Count(string(s.JSON), `"type":"object"`); n != 8 {
		t.Errorf("%d object schemas, want 8 (one per type): %s", n, s.JSON)
	}
	if len(s.JSON) > 4096 || allocs > 2000 {
		t.Errorf("%d bytes of schema, %.0f allocations: more than the 8 types need", len(s.JSON), allocs)
	}
	if _, err := schema.Compile(s.JSON); err != nil {
		t.Error(err)
	}
}

type encoded struct {
	Tags   []string          `json:"tags"`
	Meta   map[string]string `json:"meta"`
	Raw    []byte            `json:"raw"`
	Ptr    *point            `json:"ptr"`
	Kept   []string          `json:"kept" mcp:"nullable"`
	Points []*point          `json:"points"`
	Nested []encodedInner    `json:"nested"`
	Any    any               `json:"any"`
	Grid   [][]int           `json:"grid"`
	Keyed  map[string][]int  `json:"keyed"`
	Omit   []string          `json:"omit,omitempty"`
}

type encodedInner struct {
	List []int `json:"list"`
	Ptr  *int  `json:"ptr"`
}

// TestEncode: what encoding/json writes as null where the schema says
// otherwise is fixed, and the result validates.
func TestEncode(t *testing.T) {
	s, err := For(reflect.TypeFor[encoded]())
	if err != nil {
		t.Fatal(err)
	}
	compiled, err := schema.Compile(s.JSON)
	if err != nil {
		t.Fatal(err)
	}
	one := 1
	for _, tc := range []struct {
		in   encoded
		want string
	}{
		{encoded{}, `{"tags":[],"meta":{},"raw":"","ptr":null,"kept":null,"points":[],"nested":[],"any":null,"grid":[],"keyed":{}}`},
		{encoded{Tags: []string{"a"}, Ptr: &point{1, 2}, Points: []*point{nil, {3, 4}}, Nested: []encodedInner{{}, {List: []int{1}, Ptr: &one}},
			Grid: [][]int{nil, {1}}, Keyed: map[string][]int{"k": nil}, Omit: []string{"o"}},
			`{"tags":["a"],"meta":{},"raw":"","ptr":{"x":1,"y":2},"kept":null,"points":[null,{"x":3,"y":4}],"nested":[{"list":[],"ptr":null},{"list":[1],"ptr":1}],"any":null,"grid":[[],[1]],"keyed":{"k":[]},"omit":["o"]}`},
	} {
		b, err := s.Encode(tc.in)
		if err != nil || string(b) != tc.want {
			t.Errorf("got %s (%v)\nwant %s", b, err, tc.want)
			continue
		}
		v, _ := schema.Decode(b, 0)
		if violations := compiled.Validate(v, 10); violations != nil {
			t.Errorf("%s: %v", b, violations)
		}
	}
	// A type whose output never needs fixing is encoded as it is.
	plain, _ := For(reflect.TypeFor[point]())
	if plain.norm != nil {
		t.Error("point needs no fixing")
	}
}

// TestCompatible: a given schema must have every property of the type's
// with a type that fits the direction values flow.
func TestCompatible(t *testing.T) {
	derived, _ := For(reflect.TypeFor[struct {
		ID    string   `json:"id"`
		N     int      `json:"n"`
		F     float64  `json:"f"`
		Where point    `json:"where"`
		Tags  []string `json:"tags,omitempty"`
	}]())
	for _, tc := range []struct {
		given string
		d     Direction
		want  string // "" for compatible
	}{
		{`{"type":"object","properties":{"id":{"type":"string","format":"uuid"},"n":{"type":"integer"},"f":{"type":"integer"},"where":{"type":"object","properties":{"x":{"type":"integer"},"y":{"type":"integer"}}},"tags":{"type":"array","items":{"type":"string"}}}}`, Input, ""},
		{`{"type":"object","properties":{"id":{},"n":{},"f":{},"where":{},"tags":{}}}`, Input, ""},
		{`{"type":"object","properties":{"id":{"type":"string"},"n":{"type":"number"},"f":{},"where":{},"tags":{}}}`, Input, "field n"},
		{`{"type":"object","properties":{"id":{"type":"string"},"n":{},"f":{"type":"integer"},"where":{},"tags":{}}}`, Output, "field f"},
		{`{"type":"object","properties":{"id":{},"n":{},"f":{},"where":{"type":"object","properties":{"x":{"type":"string"},"y":{}}},"tags":{}}}`, Input, "field where.x"},
		{`{"type":"object","properties":{"id":{},"n":{},"f":{},"where":{"$ref":"#/$defs/p"},"tags":{}},"$defs":{"p":{"type":"object","properties":{"x":{}}}}}`, Input, `field where.y: the given schema has no property "y"`},
		{`{"type":"object","properties":{"id":{},"n":{},"f":{},"where":{},"tags":{"type":"array","items":{"type":"integer"}}}}`, Input, "field tags[]"},
		{`{"type":"object","properties":{"id":{},"n":{},"f":{},"where":{},"tags":{}},"required":["tags"]}`, Output, "field tags: the given schema requires it"},
		{`{"type":"object","properties":{"id":{},"n":{},"f":{},"where":{},"tags":{}},"required":["tags"]}`, Input, ""},
		{`{"type":"object","properties":{"n":{},"f":{},"where":{},"tags":{}}}`, Input, `field id: the given schema has no property "id"`},
	} {
		_, err := Compatible([]byte(tc.given), derived.JSON, tc.d)
		if (tc.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.given, err, tc.want)
		}
	}
}

// TestCompatible_Shaped: a given output schema that names the members
// of, or closes, an object the type writes as a map is not known to hold
// for the type's values, which must then be validated.
func TestCompatible_Shaped(t *testing.T) {
	derived, _ := For(reflect.TypeFor[struct {
		M     map[string]int  `json:"m"`
		P     *map[string]int `json:"p"`
		Where point           `json:"where"`
		Q     *point          `json:"q"`
		A     any             `json:"a"`
		L     []int           `json:"l"`
	}]())
	for _, tc := range []struct {
		given  string
		shaped bool
	}{
		{`{"type":"object","properties":{"m":{"type":"object"},"p":{},"where":{"type":"object","properties":{"x":{},"y":{}},"required":["x"],"additionalProperties":false},` +
			`"q":{"anyOf":[{"type":"object","properties":{"x":{},"y":{}},"additionalProperties":false},{"type":"null"}]},"a":{},"l":{"type":"array","items":{"type":"integer"}}},"additionalProperties":false}`, true},
		{`{"type":"object","properties":{"m":{"type":"object","additionalProperties":false},"p":{},"where":{},"q":{},"a":{},"l":{}}}`, false},
		{`{"type":"object","properties":{"m":{"type":"object","properties":{"a":{"type":"string"}}},"p":{},"where":{},"q":{},"a":{},"l":{}}}`, false},
		{`{"type":"object","properties":{"m":{},"p":{"anyOf":[{"type":"object","additionalProperties":false},{"type":"null"}]},"where":{},"q":{},"a":{},"l":{}}}`, false},
		{`{"type":"object","properties":{"m":{},"p":{},"where":{},"q":{},"a":{"properties":{"k":{"type":"string"}}},"l":{}}}`, false},
		{`{"type":"object","properties":{"m":{},"p":{},"where":{},"q":{},"a":{"required":["k"]},"l":{}}}`, false},
		{`{"type":"object","properties":{"m":{},"p":{},"where":{},"q":{},"a":{"items":{"type":"string"}},"l":{}}}`, false},
	} {
		shaped, err := Compatible([]byte(tc.given), derived.JSON, Output)
		if err != nil || shaped != tc.shaped {
			t.Errorf("%s: shaped %v %v, want %v", tc.given, shaped, err, tc.shaped)
		}
	}
}

func TestStructural(t *testing.T) {
	for s, want := range map[string]bool{
		`{"type":"object","properties":{"a":{"type":"string","description":"d"},"b":{"type":"array","items":{"$ref":"#/$defs/x"}}},"required":["a"],"additionalProperties":false,"$defs":{"x":{"type":"integer"}}}`: true,
		`{"type":"object","properties":{"a":{"type":"string","maxLength":3}}}`:       false,
		`{"type":"object","properties":{"b":{"type":"array","items":{"enum":[1]}}}}`: false,
		`{"type":"object","additionalProperties":{"type":"string"}}`:                 false,
		`{"type":"object","$defs":{"x":{"type":"string","pattern":"a"}}}`:            false,
		`{"type":"object","properties":{"a":{"x-mcp-header":"A","type":"string"}}}`:  true,
		`{"type":"object","allOf":[{"type":"object"}]}`:                              false,
		`not json`: false,
	} {
		if got := Structural([]byte(s)); got != want {
			t.Errorf("%s: %v, want %v", s, got, want)
		}
	}
}

// FuzzEncode: whatever value of a type with every nullable shape (nil
// slices, maps, pointers, recursion) the input decodes to, its encoding
// is valid JSON that validates against the type's schema.
func FuzzEncode(f *testing.F) {
	type fuzzed struct {
		encoded
		Tree  tree              `json:"tree"`
		Trees map[string]*tree  `json:"trees"`
		Raw   json.RawMessage   `json:"raw2"`
		Lists [][]*encodedInner `json:"lists"`
	}
	s, err := For(reflect.TypeFor[fuzzed]())
	if err != nil {
		f.Fatal(err)
	}
	compiled, err := schema.Compile(s.JSON)
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{`{}`, `{"tags":null,"points":[null,{"x":1,"y":2}],"nested":[{"list":null}]}`,
		`{"tree":{"name":"a","children":[null,{"name":"b","children":null}]},"trees":{"k":null,"l":{"name":"\u0026"}}}`,
		`{"lists":[null,[null,{"list":[1]}]],"keyed":{"a":null},"raw2":{"x":[null]},"any":[null]}`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var v fuzzed
		if json.Unmarshal([]byte(in), &v) != nil {
			return
		}
		b, err := s.Encode(v)
		if err != nil {
			return // a value encoding/json refuses (an invalid RawMessage)
		}
		if !json.Valid(b) {
			t.Fatalf("invalid JSON %s", b)
		}
		decoded, err := schema.Decode(b, 0)
		if err != nil {
			t.Fatal(err)
		}
		if violations := compiled.Validate(decoded, 5); violations != nil {
			t.Fatalf("%s: %v", b, violations)
		}
	})
}

// TestPointerNull: what encoding/json does with a pointer field without
// omitempty (decodes null into nil, encodes nil as null) is what its
// schema admits; leaving the field out is refused, since the type always
// writes it.
func TestPointerNull(t *testing.T) {
	type in struct {
		Name *string `json:"name"`
		At   *point  `json:"at"`
		Opt  *string `json:"opt,omitempty"`
	}
	s, err := For(reflect.TypeFor[in]())
	if err != nil {
		t.Fatal(err)
	}
	compiled, err := schema.Compile(s.JSON)
	if err != nil {
		t.Fatal(err)
	}
	for doc, ok := range map[string]bool{
		`{"name":null,"at":null}`:                              true,
		`{"name":"a","at":{"x":1,"y":2}}`:                      true,
		`{"name":"a","at":{"x":1,"y":2},"opt":"o"}`:            true,
		`{"name":"a"}`:                                         false, // at is required
		`{}`:                                                   false,
		`{"name":1,"at":null}`:                                 false,
		`{"name":null,"at":{"x":1}}`:                           false,
		`{"name":null,"at":null,"opt":null}`:                   false, // omitempty: never written as null
		`{"name":null,"at":{"x":1,"y":2,"z":3}}`:               false,
		`{"name":"a","at":null,"opt":"o","extra":true}`:        false,
		`{"name":"\u00e9","at":{"x":-1,"y":9007199254740991}}`: true,
	} {
		var v in
		if ok && json.Unmarshal([]byte(doc), &v) != nil {
			t.Fatalf("%s: encoding/json refuses a document the test expects valid", doc)
		}
		d, _ := schema.Decode([]byte(doc), 0)
		if got := compiled.Validate(d, 10) == nil; got != ok {
			t.Errorf("%s: valid %v, want %v", doc, got, ok)
		}
	}
	// Encoding a nil pointer writes null, and it validates.
	b, err := s.Encode(in{})
	if err != nil || string(b) != `{"name":null,"at":null}` {
		t.Fatalf("Encode(zero) = %s, %v", b, err)
	}
	d, _ := schema.Decode(b, 0)
	if v := compiled.Validate(d, 10); v != nil {
		t.Errorf("%s: %v", b, v)
	}
	// A given schema is still checked through the null union: at's
	// properties are compared, and an output schema refusing null does
	// not fit a type that writes it.
	for _, tc := range []struct {
		given string
		d     Direction
		want  string
	}{
		{`{"type":"object","properties":{"name":{},"at":{"type":"object","properties":{"x":{"type":"string"},"y":{}}},"opt":{}}}`, Input, "field at.x"},
		{`{"type":"object","properties":{"name":{},"at":{"anyOf":[{"type":"object","properties":{"x":{}}},{"type":"null"}]},"opt":{}}}`, Input, `field at.y: the given schema has no property "y"`},
		{`{"type":"object","properties":{"name":{"type":"string"},"at":{},"opt":{}}}`, Output, "field name"},
		{`{"type":"object","properties":{"name":{"type":"string"},"at":{},"opt":{}}}`, Input, ""},
		{`{"type":"object","properties":{"name":{"anyOf":[{"type":"string"},{"type":"null"}]},"at":{},"opt":{}},"required":["name","at"]}`, Output, ""},
	} {
		_, err := Compatible([]byte(tc.given), s.JSON, tc.d)
		if (tc.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.given, err, tc.want)
		}
	}
}

// TestNoBooleanSubschemas checks that no schema made from a Go type holds
// a boolean where a client expects a schema object (MCP's schema types a
// property's schema, items and the members of anyOf as objects, and the
// TypeScript SDK refuses a tools/list answer with a boolean there):
// interfaces, raw JSON, marshalers, nested and recursive types all come
// out as objects; additionalProperties false is the one boolean.
func TestNoBooleanSubschemas(t *testing.T) {
	type node struct {
		Next  *node                      `json:"next,omitempty"`
		Items []node                     `json:"items"`
		Any   any                        `json:"any"`
		PAny  *any                       `json:"pany"`
		List  []any                      `json:"list"`
		Grid  [][]any                    `json:"grid"`
		Tuple [2]any                     `json:"tuple"`
		Map   map[string]any             `json:"map"`
		Raw   json.RawMessage            `json:"raw"`
		Raws  map[string]json.RawMessage `json:"raws"`
		When  time.Time                  `json:"when"`
		Empty struct{}                   `json:"empty"`
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[node](), reflect.TypeFor[map[string]any](), reflect.TypeFor[map[string][]any]()} {
		s, err := For(typ)
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		if err := json.Unmarshal(s.JSON, &doc); err != nil {
			t.Fatal(err)
		}
		var walk func(v any, at string)
		walk = func(v any, at string) {
			switch v := v.(type) {
			case map[string]any:
				for k, c := range v {
					if _, isBool := c.(bool); isBool && k != "additionalProperties" {
						t.Errorf("%s: %s is a boolean in %s", typ, at+"/"+k, s.JSON)
					}
					walk(c, at+"/"+k)
				}
			case []any:
				for i, c := range v {
					if _, isBool := c.(bool); isBool {
						t.Errorf("%s: %s/%d is a boolean in %s", typ, at, i, s.JSON)
					}
					walk(c, at+"/"+strconv.Itoa(i))
				}
			}
		}
		walk(doc, "")
		if err := schema.Objects(doc); err != nil {
			t.Errorf("%s: %v", typ, err)
		}
	}
}
