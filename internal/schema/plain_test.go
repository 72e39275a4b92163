package schema

import (
	"strings"
	"sync"
	"testing"
)

// generated is the kind of document mcp/openapi and typeschema write: it
// must take the deferred path, or registering a large API compiles
// every schema again (design record 031).
var generated = []string{
	`{"type":"object"}`,
	`{"type":"object","properties":{"owner":{"type":"string","description":"The account owner."},"per_page":{"type":"integer","minimum":1,"maximum":100,"default":30},"state":{"type":"string","enum":["open","closed","all"]}},"required":["owner"],"additionalProperties":false}`,
	`{"type":"object","properties":{"body":{"$ref":"#/$defs/issue"}},"required":["body"],"$defs":{"issue":{"type":"object","properties":{"title":{"type":["string","integer"]},"labels":{"type":"array","items":{"anyOf":[{"type":"string"},{"$ref":"#/$defs/label"}]},"uniqueItems":true},"milestone":{"type":["string","integer","null"]}}},"label":{"type":"object","properties":{"name":{"type":"string","pattern":"^[a-z-]+$","minLength":1,"maxLength":50}},"deprecated":true}}}`,
	`{"type":"object","properties":{"id":{"type":"string","format":"uuid","x-mcp-header":"Id","readOnly":true},"n":{"type":"number","multipleOf":0.5,"exclusiveMinimum":-1.25}},"patternProperties":{"^x-":{}},"dependentRequired":{"a":["b","c"]},"examples":[{"id":"x"}],"$comment":"c","const":{"any":[1,2]}}`,
	`{"type":"object","properties":{"v":{"oneOf":[true,{"not":{"type":"null"}}],"if":{"minProperties":1},"then":{"maxProperties":3},"else":false,"contentMediaType":"text/plain","contentEncoding":"base64"},"w":{"type":"array","prefixItems":[{"type":"string"}],"contains":{"type":"string"},"minContains":1,"unevaluatedItems":false}},"unevaluatedProperties":false,"propertyNames":{"maxLength":20}}`,
}

func TestPlain_Generated(t *testing.T) {
	t.Parallel()
	c := NewCache()
	for _, doc := range generated {
		s, v, err := c.Compile([]byte(doc))
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		if s.s != nil {
			t.Errorf("compiled at registration, not on first use: %s", doc)
		}
		if v == nil {
			t.Errorf("no decoded document: %s", doc)
		}
		eager, err := Compile([]byte(doc))
		if err != nil || eager.s == nil {
			t.Fatalf("%s: eager %v", doc, err)
		}
	}
}

// TestCache_RefusesAtRegistration: what the compiler refuses, the cache
// refuses when it is handed the document, deferred or not; each case
// breaks one of the rules plain checks, most of them inside a property so
// that only a walk of the whole document finds them.
func TestCache_RefusesAtRegistration(t *testing.T) {
	t.Parallel()
	in := func(s string) string { return `{"type":"object","properties":{"a":` + s + `}}` }
	for name, doc := range map[string]string{
		"not json":                      `{`,
		"not object":                    `[]`,
		"network ref":                   `{"$ref":"https://example.com/s.json"}`,
		"file ref":                      `{"$ref":"file:///etc/passwd"}`,
		"bad type":                      `{"type":"nope"}`,
		"bad dialect":                   `{"$schema":"https://example.com/unknown-dialect"}`,
		"type a number":                 in(`{"type":7}`),
		"type list empty":               in(`{"type":[]}`),
		"type list repeated":            in(`{"type":["string","string"]}`),
		"type list unknown":             in(`{"type":["string","text"]}`),
		"pattern":                       in(`{"type":"string","pattern":"(unclosed"}`),
		"pattern not a string":          in(`{"pattern":5}`),
		"patternProperties name":        in(`{"patternProperties":{"[z-a]":{}}}`),
		"patternProperties value":       in(`{"patternProperties":{"^a":3}}`),
		"ref to a missing def":          in(`{"$ref":"#/$defs/missing"}`),
		"ref into a missing def":        `{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"y":{}}}`,
		"ref by pointer elsewhere":      in(`{"$ref":"#/properties/zzz"}`),
		"ref not a string":              in(`{"$ref":1}`),
		"def not a schema":              `{"type":"object","$defs":{"x":3}}`,
		"defs not an object":            `{"type":"object","$defs":[]}`,
		"property not a schema":         in(`3`),
		"properties not an object":      `{"type":"object","properties":[]}`,
		"items a list":                  in(`{"type":"array","items":[{"type":"string"}]}`),
		"items a string":                in(`{"items":"string"}`),
		"allOf empty":                   in(`{"allOf":[]}`),
		"anyOf member not a schema":     in(`{"anyOf":[{},1]}`),
		"oneOf not a list":              in(`{"oneOf":{}}`),
		"prefixItems empty":             in(`{"prefixItems":[]}`),
		"not a number":                  in(`{"not":0}`),
		"minLength negative":            in(`{"minLength":-1}`),
		"minLength fraction":            in(`{"minLength":1.5}`),
		"maxItems a string":             in(`{"maxItems":"3"}`),
		"maximum a string":              in(`{"maximum":"3"}`),
		"exclusiveMinimum a bool":       in(`{"exclusiveMinimum":true}`),
		"multipleOf zero":               in(`{"multipleOf":0}`),
		"multipleOf negative":           in(`{"multipleOf":-2}`),
		"required repeated":             in(`{"required":["x","x"]}`),
		"required not strings":          in(`{"required":[1]}`),
		"required a string":             in(`{"required":"x"}`),
		"dependentRequired not strings": in(`{"dependentRequired":{"x":[1]}}`),
		"dependentRequired a list":      in(`{"dependentRequired":["x"]}`),
		"uniqueItems a string":          in(`{"uniqueItems":"yes"}`),
		"deprecated a number":           in(`{"deprecated":1}`),
		"description a number":          in(`{"description":1}`),
		"title null":                    in(`{"title":null}`),
		"format a bool":                 in(`{"format":true}`),
		"enum an object":                in(`{"enum":{}}`),
		"examples a string":             in(`{"examples":"x"}`),
		"comment a number":              in(`{"$comment":1}`),
		"id with a fragment":            in(`{"$id":"#x"}`),
		"anchor invalid":                in(`{"$anchor":"1x"}`),
		"dynamicRef unresolvable":       in(`{"$dynamicRef":"https://example.com/x#meta"}`),
		"definitions not schemas":       `{"type":"object","definitions":{"x":3}}`,
		"dependencies not schemas":      in(`{"dependencies":{"x":3}}`),
		"vocabulary invalid":            `{"type":"object","$vocabulary":{"not a uri":true}}`,
		"deep":                          in(in(in(`{"allOf":[{"properties":{"b":{"items":{"pattern":"("}}}}]}`))),
	} {
		if _, _, err := NewCache().Compile([]byte(doc)); err == nil {
			t.Errorf("%s: %s taken", name, doc)
		}
		if _, err := Compile([]byte(doc)); err == nil {
			t.Errorf("%s: the compiler accepts %s: the case tests nothing", name, doc)
		}
	}
}

// TestPlain_Sound: every document plain lets through compiles. The
// documents are the ones above, the generated ones and their parts, and
// the fuzz corpus (FuzzPlain runs it with random ones).
func TestPlain_Sound(t *testing.T) {
	t.Parallel()
	for _, doc := range append(generated, soundSeeds...) {
		checkSound(t, []byte(doc))
	}
}

var soundSeeds = []string{
	`{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/a"}}}`,
	`{"$defs":{"a~b":{}},"$ref":"#/$defs/a~b"}`,
	`{"$defs":{"a b":{}},"$ref":"#/$defs/a%20b"}`,
	`{"properties":{"a":{"$defs":{"x":{}},"$ref":"#/$defs/x"}}}`,
	`{"minimum":1e400}`,
	`{"minLength":1.0}`,
	`{"minLength":99999999999999999999}`,
	`{"multipleOf":1e-400}`,
	`{"pattern":"\\p{Greek}+"}`,
	`{"pattern":"(?<name>x)"}`,
	`{"pattern":"a{1001}"}`,
	`{"patternProperties":{"":{}}}`,
	`{"x-anything":{"$ref":"https://example.com"},"enum":[]}`,
	`{"additionalItems":3}`,
	`{"items":{"$id":"https://example.com/a"}}`,
	`{"type":["string","integer","null","number","object","array","boolean"]}`,
}

func checkSound(t *testing.T, doc []byte) {
	t.Helper()
	s, _, err := NewCache().Compile(doc)
	if err != nil {
		return
	}
	if _, err := Compile(doc); err != nil {
		t.Errorf("%s: taken, but the compiler refuses it: %v", doc, err)
		return
	}
	s.once.Do(s.compile)
	if s.err != nil || s.s == nil {
		t.Errorf("%s: taken, but does not compile on first use: %v", doc, s.err)
	}
}

func FuzzPlain(f *testing.F) {
	for _, doc := range append(generated, soundSeeds...) {
		f.Add(doc)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		checkSound(t, []byte(doc))
	})
}

// TestSchema_FirstUse: a deferred schema validates as the same document
// compiled at once does, from many goroutines at the first call (run
// with -race), and is compiled once.
func TestSchema_FirstUse(t *testing.T) {
	t.Parallel()
	doc := []byte(generated[2])
	lazy, _, err := NewCache().Compile(doc)
	if err != nil {
		t.Fatal(err)
	}
	eager, err := Compile(doc)
	if err != nil {
		t.Fatal(err)
	}
	values := []string{
		`{"body":{"title":"x","labels":["a",{"name":"bug"}]}}`,
		`{"body":{"title":1.5}}`,
		`{"body":{"labels":[{"name":"Bug"},{"name":""}]}}`,
		`{}`,
	}
	var wg sync.WaitGroup
	got := make([][]string, 8*len(values))
	for i := range got {
		wg.Go(func() {
			v, _ := Decode([]byte(values[i%len(values)]), 0)
			got[i] = lazy.Validate(v, 10)
		})
	}
	wg.Wait()
	first := lazy.s
	for i, g := range got {
		v, _ := Decode([]byte(values[i%len(values)]), 0)
		want := eager.Validate(v, 10)
		if strings.Join(g, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: deferred %q, at once %q", values[i%len(values)], g, want)
		}
	}
	if i := len(values) - 1; got[i] == nil || got[0] != nil {
		t.Errorf("nothing told apart: %q", got[:len(values)])
	}
	v, _ := Decode([]byte(values[0]), 0)
	lazy.Validate(v, 10)
	if lazy.s != first {
		t.Error("compiled twice")
	}
}

// TestSchema_FirstUseFails: were a document plain lets through not to
// compile after all, its calls are refused, never let through unchecked.
func TestSchema_FirstUseFails(t *testing.T) {
	t.Parallel()
	s := &Schema{doc: `{"type":"object","properties":{"a":{"pattern":"("}}}`}
	v, _ := Decode([]byte(`{"a":"x"}`), 0)
	got := s.Validate(v, 10)
	if len(got) != 1 || !strings.HasPrefix(got[0], "the schema does not compile: ") || len(got[0]) > maxMessage+len("…") {
		t.Errorf("violations = %q", got)
	}
}

// TestCache_Decoded: a hit returns the decoded document; a small one is
// kept from its second use on (a shared id argument is decoded once), a
// large one is not kept at all.
func TestCache_Decoded(t *testing.T) {
	t.Parallel()
	c := NewCache()
	small := []byte(`{"type":"object","properties":{"id":{"type":"string"}}}`)
	large := []byte(`{"type":"object","description":"` + strings.Repeat("x", keepDecoded) + `"}`)
	for _, doc := range [][]byte{small, large} {
		s, v1, err := c.Compile(doc)
		if err != nil {
			t.Fatal(err)
		}
		if s.decoded != nil {
			t.Errorf("%.30s: decoded kept on first use", doc)
		}
		s2, v2, err := c.Compile(doc)
		if err != nil || s2 != s {
			t.Fatalf("%.30s: not a hit (%v)", doc, err)
		}
		if m1, m2 := v1.(map[string]any), v2.(map[string]any); m1["type"] != "object" || m2["type"] != "object" {
			t.Errorf("%.30s: decoded %v, %v", doc, m1, m2)
		}
		if kept := s.decoded != nil; kept != (len(doc) <= keepDecoded) {
			t.Errorf("%d bytes: decoded kept %v", len(doc), kept)
		}
	}
}
