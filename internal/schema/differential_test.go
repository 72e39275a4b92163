package schema

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// reference compiles doc and decodes value the way a plain user of
// jsonschema/v6 would (its own UnmarshalJSON, a fresh 2020-12 compiler),
// independent of this package's cache, plain check, quick check and
// decoder: what the differential tests hold them to.
func reference(t *testing.T, doc, value string) (accepts, ok bool) {
	t.Helper()
	d, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
	if err != nil {
		return false, false
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("urn:reference", d); err != nil {
		return false, false
	}
	s, err := c.Compile("urn:reference")
	if err != nil {
		return false, false
	}
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(value))
	if err != nil {
		t.Fatalf("reference cannot decode %s: %v", value, err)
	}
	return s.Validate(v) == nil, true
}

// differ checks one schema and one value (a text the envelope scanner
// takes, as every argument is) through every path a call's arguments
// take: the quick check may only vouch for what the reference accepts,
// and the full validation, deferred or eager, must agree with it both
// ways. It returns what went wrong, "" when nothing did.
func differ(t *testing.T, doc, value string) string {
	t.Helper()
	if jsonrpc.Validate([]byte(value), jsonrpc.DefaultMaxDepth) != nil {
		return ""
	}
	if _, err := Decode([]byte(value), 0); errors.Is(err, jsonrpc.ErrNumberTooLarge) {
		// Refused with its own message before validation, by design
		// (design record 011), so never validated here; nor can the
		// reference read every such number: an exponent past int64
		// (90E7199254740993) makes jsonschema/v6's numValidate compare a
		// nil big.Rat and panic.
		return ""
	}
	want, ok := reference(t, doc, value)
	if !ok {
		if _, err := Compile([]byte(doc)); err == nil {
			return "compiles here but not in the reference"
		}
		return ""
	}
	eager, err := Compile([]byte(doc))
	if errors.Is(err, jsonrpc.ErrNumberTooLarge) {
		return "" // refused at registration by design (design record 011)
	}
	if err != nil {
		return "refused here, compiled by the reference: " + err.Error()
	}
	lazy, _, err := NewCache().Compile([]byte(doc))
	if err != nil {
		return "refused by the cache: " + err.Error()
	}
	for _, s := range []*Schema{eager, lazy} {
		if s.Conforms([]byte(value)) && !want {
			return "the quick check vouches for a value the reference refuses"
		}
		v, err := Decode([]byte(value), 0)
		if err != nil {
			return "Decode: " + err.Error()
		}
		if got := s.Validate(v, 0) == nil; got != want {
			return "Validate says " + map[bool]string{true: "valid", false: "invalid"}[got] +
				", the reference " + map[bool]string{true: "valid", false: "invalid"}[want]
		}
	}
	return ""
}

// differential pairs each reach a corner where a fast path could part
// from the compiler: keywords the quick check knows next to ones it does
// not, numbers at the edges of exact comparison, escapes where a length
// or a name counts.
var differential = []struct{ doc, value string }{
	{`{"type":"integer"}`, `1.0`},
	{`{"type":"integer"}`, `-0`},
	{`{"type":"integer"}`, `1e2`},
	{`{"type":"integer"}`, `1E400`},
	{`{"type":"number"}`, `1e400`},
	{`{"type":"number","maximum":1e400}`, `1`},
	{`{"type":"number","minimum":0}`, `-0`},
	{`{"type":"number","exclusiveMinimum":0}`, `-0.0`},
	{`{"type":"number","exclusiveMaximum":0.3}`, `0.30000000000000001`},
	{`{"type":"number","maximum":100000000000000}`, `100000000000000.5`},
	{`{"type":"number","maximum":0.1}`, `0.1000000000000001`},
	{`{"type":"number","multipleOf":0.1}`, `0.3`},
	{`{"type":"integer","multipleOf":3}`, `9007199254740993`},
	{`{"const":1}`, `1.0`},
	{`{"enum":[1,"1"]}`, `1.00`},
	{`{"enum":["a"]}`, `"\u0061"`},
	{`{"const":"é"}`, `"e\u0301"`},
	{`{"const":{"a":1}}`, `{"a":1.0}`},
	{`{"const":[1,2]}`, `[1,2.0]`},
	{`{"type":"string","maxLength":1}`, `"😀"`},
	{`{"type":"string","maxLength":1}`, `"\ud83d\ude00"`},
	{`{"type":"string","minLength":2}`, `"\ud83d\ude00"`},
	{`{"type":"string","minLength":2}`, `"😀"`},
	{`{"type":"string","maxLength":1}`, `"e\u0301"`},
	{`{"type":"string","pattern":"^.$"}`, `"😀"`},
	{`{"type":"string","pattern":"^\\p{L}+$"}`, `"é"`},
	{`{"type":"string","format":"email"}`, `"not an email"`},
	{`{"type":"string","format":"date-time"}`, `"yesterday"`},
	{`{"properties":{"a":{"type":"string"}},"additionalProperties":true}`, `{"\u0061":5}`},
	{`{"properties":{"a\u0000":{"type":"string"}}}`, `{"a\u0000":5}`},
	{`{"required":["a"]}`, `{"\u0061":null}`},
	{`{"properties":{"é":{"type":"string"}},"additionalProperties":false}`, `{"\u00e9":""}`},
	{`{"properties":{"é":{"type":"string"}},"additionalProperties":false}`, `{"e\u0301":""}`},
	{`{"maxProperties":1}`, `{"a":1,"b":2}`},
	{`{"minProperties":2}`, `{"a":1}`},
	{`{"dependentRequired":{"a":["b"]}}`, `{"a":1}`},
	{`{"type":"array","items":{"type":"integer"},"minItems":1,"maxItems":2}`, `[1,2.0]`},
	{`{"type":"array","prefixItems":[{"type":"string"}],"items":false}`, `["a",1]`},
	{`{"type":"array","uniqueItems":true}`, `[1,1.0]`},
	{`{"type":"array","uniqueItems":true}`, `[{"a":1,"b":2},{"b":2,"a":1}]`},
	{`{"type":"array","uniqueItems":true}`, `["\u0061","a"]`},
	{`{"anyOf":[{"type":"string"},{"type":"integer"}]}`, `1.5`},
	{`{"oneOf":[{"type":"number"},{"type":"integer"}]}`, `1`},
	{`{"allOf":[{"minimum":1},{"maximum":2}]}`, `3`},
	{`{"not":{"type":"null"}}`, `null`},
	{`{"if":{"type":"string"},"then":{"minLength":2},"else":{"type":"integer"}}`, `"a"`},
	{`{"$defs":{"n":{"type":"integer"}},"properties":{"a":{"$ref":"#/$defs/n"}}}`, `{"a":1.5}`},
	{`{"$defs":{"n":{"type":"integer"}},"$ref":"#/$defs/n","maximum":3}`, `4`},
	{`{"properties":{"a":{"type":"boolean"}}}`, `{"a":"true"}`},
	{`{"type":["null","boolean"]}`, `0`},
}

func TestDifferential_AgreesWithCompiler(t *testing.T) {
	t.Parallel()
	for _, c := range differential {
		if msg := differ(t, c.doc, c.value); msg != "" {
			t.Errorf("%s against %s: %s", c.value, c.doc, msg)
		}
	}
}

// FuzzDifferential draws a schema over most of 2020-12's validation and
// applicator keywords and a value from the fuzzer, and holds every path
// of this package to the reference (see differ). Its seed corpus, under
// testdata/fuzz, runs with every go test.
func FuzzDifferential(f *testing.F) {
	for _, c := range differential {
		f.Add([]byte{}, c.value)
	}
	f.Add([]byte{1, 16, 0, 3}, `{"a":1,"b":"x"}`)
	f.Add([]byte{2, 17, 1, 4, 22, 2}, `[1,"\u00e9",null]`)
	f.Add([]byte{3, 2, 1, 9, 0, 5, 6, 25, 8}, `{"a":{"b":[true]},"c":-0}`)
	f.Fuzz(func(t *testing.T, seed []byte, value string) {
		if len(seed) > 256 || len(value) > 4096 {
			return
		}
		g := &gen{seed: seed}
		var doc []byte
		if len(seed) == 0 {
			// An empty seed replays the fixed pairs' values against each
			// fixed schema.
			for _, c := range differential {
				if msg := differ(t, c.doc, value); msg != "" {
					t.Errorf("%s against %s: %s", value, c.doc, msg)
				}
			}
			return
		}
		doc, err := json.Marshal(g.wide(0))
		if err != nil {
			t.Fatal(err)
		}
		if msg := differ(t, string(doc), value); msg != "" {
			t.Errorf("%s against %s: %s", value, doc, msg)
		}
	})
}

var (
	wideNumbers = []json.Number{"0", "1", "-1", "2.5", "0.1", "-0", "3", "100000000000000", "0.30000000000000001", "1e2", "1.0", "9007199254740993"}
	wideLits    = []any{"x", "a", "é", "😀", "", true, false, nil, json.Number("1"), json.Number("1.0"),
		map[string]any{"a": json.Number("1")}, []any{json.Number("1"), "x"}}
	widePatterns = []string{"^x", "^.$", "^[a-z]*$", "é", "^\\p{L}*$"}
	wideFormats  = []string{"email", "date-time", "uuid", "ipv4", "regex", "unknown-format"}
)

// wide draws a schema from fuzz bytes over the keywords the task names:
// the quick check's own and the ones that must keep it out.
func (g *gen) wide(depth int) map[string]any {
	m := map[string]any{}
	sub := func() any {
		if depth >= 3 {
			return map[string]any{}
		}
		if g.next()%8 == 0 {
			return g.next()%2 == 0
		}
		return g.wide(depth + 1)
	}
	list := func() []any {
		var l []any
		for k := g.next()%2 + 1; k > 0; k-- {
			l = append(l, g.wide(depth+1))
		}
		return l
	}
	for n := g.next() % 6; n > 0; n-- {
		switch k := g.next() % 28; k {
		case 0:
			m["type"] = genTypes[g.next()%len(genTypes)]
		case 1:
			m["type"] = []any{genTypes[g.next()%len(genTypes)], genTypes[(g.next()%6+1+g.next())%len(genTypes)]}
		case 2:
			if depth < 3 {
				props := map[string]any{}
				for k := g.next()%3 + 1; k > 0; k-- {
					props[genNames[g.next()%len(genNames)]] = g.wide(depth + 1)
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
			m["additionalProperties"] = sub()
		case 5:
			m["items"] = sub()
		case 6:
			if depth < 3 {
				m["prefixItems"] = list()
			}
		case 7:
			var l []any
			for k := g.next()%3 + 1; k > 0; k-- {
				l = append(l, wideLits[g.next()%len(wideLits)])
			}
			m["enum"] = l
		case 8:
			m["const"] = wideLits[g.next()%len(wideLits)]
		case 9:
			m[[]string{"minLength", "maxLength"}[g.next()%2]] = g.next() % 4
		case 10:
			m[[]string{"minItems", "maxItems", "minProperties", "maxProperties"}[g.next()%4]] = g.next() % 4
		case 11, 12:
			m[[]string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}[g.next()%4]] = wideNumbers[g.next()%len(wideNumbers)]
		case 13:
			m["multipleOf"] = []json.Number{"2", "0.1", "0.5", "3"}[g.next()%4]
		case 14:
			m["pattern"] = widePatterns[g.next()%len(widePatterns)]
		case 15:
			m["format"] = wideFormats[g.next()%len(wideFormats)]
		case 16:
			m["uniqueItems"] = g.next()%2 == 0
		case 17, 18, 19:
			if depth < 3 {
				m[[]string{"anyOf", "oneOf", "allOf"}[k-17]] = list()
			}
		case 20:
			m["not"] = sub()
		case 21:
			m["if"], m["then"], m["else"] = sub(), sub(), sub()
		case 22:
			if depth < 2 {
				m["$defs"] = map[string]any{"d": g.wide(depth + 1)}
				m["$ref"] = "#/$defs/d"
			}
		case 23:
			m["dependentRequired"] = map[string]any{genNames[g.next()%len(genNames)]: []any{genNames[g.next()%len(genNames)]}}
		case 24:
			m["description"] = "d"
		case 25:
			m["default"] = wideLits[g.next()%len(wideLits)]
		case 26:
			m["contains"] = sub()
		case 27:
			m["propertyNames"] = sub()
		}
	}
	return m
}
