package schema

import (
	"encoding/json"
	"testing"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
)

// vouches: the quick check answers "conforms" for the usual shapes, so a
// call that conforms does not pay for decoding its arguments. If it
// stopped answering, nothing would be wrong but the cost (the allocation
// budgets in package mcp would catch that too).
var vouches = []struct{ doc, value string }{
	{`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`, `{"text":"hello-mcp"}`},
	{`{"type":"object","properties":{"owner":{"type":"string","description":"d"},"per_page":{"type":"integer","minimum":1,"maximum":100,"default":30},"state":{"type":"string","enum":["open","closed","all"]}},"required":["owner"],"additionalProperties":false}`,
		`{"owner":"o","per_page":100,"state":"closed"}`},
	{`{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string","minLength":1,"maxLength":3}},"n":{"type":["number","null"],"exclusiveMinimum":-1.25,"exclusiveMaximum":2}},"maxProperties":2}`,
		`{"tags":["a","ééé"],"n":1.5}`},
	{`{"type":"object","additionalProperties":{"type":"boolean"},"properties":{"x":{"const":null}}}`, `{"x":null,"y":true,"z":false}`},
	{`{"type":"object"}`, `{"anything":[1,{"a":"\u0000"}]}`},
	{`{"type":"object","properties":{"id":{"type":"string","format":"email"}}}`, `{"id":"not an email"}`},
	{`{}`, `[1,2]`},
}

// refuses: values the quick check must not vouch for: some do not
// conform, the rest it cannot judge without decoding (an escape where a
// length counts, 1.0 for an integer, a number past 15 digits).
var refuses = []struct{ doc, value string }{
	{`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`, `{}`},
	{`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`, `{"text":5}`},
	{`{"type":"object","properties":{"a":{"type":"integer"}}}`, `{"a":1.0}`},
	{`{"type":"object","properties":{"a":{"type":"integer"}}}`, `{"a":1e2}`},
	{`{"type":"object","properties":{"a":{"type":"integer","maximum":5}}}`, `{"a":6}`},
	{`{"type":"object","properties":{"a":{"type":"number","maximum":5}}}`, `{"a":4.99999999999999999}`},
	{`{"type":"object","properties":{"a":{"type":"number","exclusiveMinimum":0}}}`, `{"a":0}`},
	{`{"type":"object","properties":{"a":{"type":"string","maxLength":1}}}`, `{"a":"\u00e9"}`},
	{`{"type":"object","properties":{"a":{"type":"string","maxLength":1}}}`, `{"a":"ab"}`},
	{`{"type":"object","properties":{"a":{"enum":["x","y"]}}}`, `{"a":"\u0078"}`},
	{`{"type":"object","properties":{"a":{"enum":["x","y"]}}}`, `{"a":"z"}`},
	{`{"type":"object","additionalProperties":false,"properties":{"a":{}}}`, `{"a":1,"b":2}`},
	{`{"type":"object","additionalProperties":{"type":"string"}}`, `{"b":2}`},
	{`{"type":"array","items":{"type":"string"},"minItems":2}`, `["a"]`},
	{`{"type":"array","items":{"type":"string"}}`, `["a",1]`},
	{`{"type":"object","minProperties":1}`, `{}`},
	{`{"type":"object","properties":{"a":{"type":"string","pattern":"^a"}}}`, `{"a":"a"}`}, // pattern: no quick check
	{`{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{}}}`, `{"a":1}`},
	{`{"type":"object","properties":{"a":{"enum":[1,2]}}}`, `{"a":1}`}, // numbers compare by value: no quick check
	{`{"type":"object","properties":{"a":{"enum":["x"],"const":"y"}}}`, `{"a":"x"}`},
}

func TestQuick_Vouches(t *testing.T) {
	t.Parallel()
	for _, c := range vouches {
		s := compiled(t, c.doc)
		if !s.Conforms([]byte(c.value)) {
			t.Errorf("%s: does not vouch for %s", c.doc, c.value)
		}
		checkQuick(t, s, c.doc, c.value)
	}
}

func TestQuick_Refuses(t *testing.T) {
	t.Parallel()
	for _, c := range refuses {
		s := compiled(t, c.doc)
		if s.Conforms([]byte(c.value)) {
			t.Errorf("%s: vouches for %s", c.doc, c.value)
		}
	}
}

// TestQuick_Allocations: vouching allocates nothing once the check is
// built.
func TestQuick_Allocations(t *testing.T) {
	s := compiled(t, vouches[1].doc)
	v := []byte(vouches[1].value)
	s.Conforms(v)
	if n := testing.AllocsPerRun(100, func() { s.Conforms(v) }); n != 0 {
		t.Errorf("%v allocations, want 0", n)
	}
}

func compiled(t *testing.T, doc string) *Schema {
	t.Helper()
	s, err := Compile([]byte(doc))
	if err != nil {
		t.Fatalf("%s: %v", doc, err)
	}
	return s
}

// checkQuick fails when the quick check vouches for a value the compiled
// schema refuses.
func checkQuick(t *testing.T, s *Schema, doc, value string) {
	t.Helper()
	if jsonrpc.Validate([]byte(value), jsonrpc.DefaultMaxDepth) != nil || !s.Conforms([]byte(value)) {
		return
	}
	v, err := Decode([]byte(value), 0)
	if err != nil {
		t.Fatalf("%s: %v", value, err)
	}
	if errs := s.Validate(v, 0); errs != nil {
		t.Errorf("quick check vouched for %s against %s; the compiler says %q", value, doc, errs)
	}
}

// FuzzQuick holds the quick check to the compiled schema: a schema drawn
// from the keywords it knows (and a few it does not), a value from the
// fuzzer; whatever the quick check vouches for, the compiler's
// validator accepts.
func FuzzQuick(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3}, `{"a":"x","b":1}`)
	f.Add([]byte{4, 9, 17, 33, 5}, `{"a":[1.5,"\u00e9"],"c":null}`)
	f.Add([]byte{7, 7, 7, 2, 200, 13}, `{"a":1.0,"b":"ab"}`)
	f.Add([]byte{1, 14, 3, 8, 21, 90}, `["x",true,{"a":-0}]`)
	for _, c := range vouches {
		f.Add([]byte(c.doc), c.value)
	}
	f.Fuzz(func(t *testing.T, seed []byte, value string) {
		g := &gen{seed: seed}
		doc, err := json.Marshal(g.schema(0))
		if err != nil {
			t.Fatal(err)
		}
		s, err := Compile(doc)
		if err != nil {
			return
		}
		checkQuick(t, s, string(doc), value)
	})
}

// gen draws a schema from fuzz bytes.
type gen struct {
	seed []byte
	i    int
}

func (g *gen) next() int {
	if g.i >= len(g.seed) {
		return 0
	}
	g.i++
	return int(g.seed[g.i-1])
}

var (
	genNames   = []string{"a", "b", "c", "é", "a\u0000"}
	genTypes   = []string{"object", "array", "string", "number", "integer", "boolean", "null"}
	genNumbers = []json.Number{"0", "1", "-1", "2.5", "10", "-0.5", "100000000000000", "1e3", "0.1"}
	genLits    = []any{"x", "y", "é", "", true, false, nil, json.Number("1")}
)

func (g *gen) schema(depth int) map[string]any {
	m := map[string]any{}
	for n := g.next() % 5; n > 0; n-- {
		switch g.next() % 16 {
		case 0:
			m["type"] = genTypes[g.next()%len(genTypes)]
		case 1:
			m["type"] = []any{genTypes[g.next()%len(genTypes)], genTypes[g.next()%len(genTypes)]}
		case 2:
			if depth < 3 {
				props := map[string]any{}
				for k := g.next()%3 + 1; k > 0; k-- {
					props[genNames[g.next()%len(genNames)]] = g.schema(depth + 1)
				}
				m["properties"] = props
			}
		case 3:
			req := []any{}
			seen := map[string]bool{}
			for k := g.next() % 3; k > 0; k-- {
				if n := genNames[g.next()%len(genNames)]; !seen[n] {
					seen[n] = true
					req = append(req, n)
				}
			}
			m["required"] = req
		case 4:
			switch g.next() % 3 {
			case 0:
				m["additionalProperties"] = false
			case 1:
				m["additionalProperties"] = true
			default:
				if depth < 3 {
					m["additionalProperties"] = g.schema(depth + 1)
				}
			}
		case 5:
			if depth < 3 {
				m["items"] = g.schema(depth + 1)
			}
		case 6:
			var list []any
			for k := g.next()%3 + 1; k > 0; k-- {
				list = append(list, genLits[g.next()%len(genLits)])
			}
			m["enum"] = list
		case 7:
			m["const"] = genLits[g.next()%len(genLits)]
		case 8:
			m[[]string{"minLength", "maxLength"}[g.next()%2]] = g.next() % 4
		case 9:
			m[[]string{"minItems", "maxItems", "minProperties", "maxProperties"}[g.next()%4]] = g.next() % 4
		case 10, 11:
			m[[]string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}[g.next()%4]] = genNumbers[g.next()%len(genNumbers)]
		case 12:
			m["format"] = []string{"email", "date-time", "uuid"}[g.next()%3]
		case 13:
			m["description"] = "d"
		case 14:
			m["pattern"] = "^x"
		case 15:
			m["multipleOf"] = json.Number("2")
		}
	}
	return m
}
