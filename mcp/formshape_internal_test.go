package mcp

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// TestFormShape_SpecSchemas: every requestedSchema shape the
// 2025-06-18, 2025-11-25 and 2026-07-28 schemas define is accepted.
func TestFormShape_SpecSchemas(t *testing.T) {
	props := []string{
		`{"type":"string","title":"T","description":"D","minLength":3,"maxLength":50,"format":"email","default":"a@b.c"}`,
		`{"type":"string","format":"date-time"}`,
		`{"type":"number","minimum":0,"maximum":100,"default":50}`,
		`{"type":"integer","default":5}`,
		`{"type":"boolean","default":false}`,
		`{"type":"boolean","default":true}`,
		`{"type":"string","enum":["Red","Green"],"default":"Red"}`,
		`{"type":"string","enum":["r","g"],"enumNames":["Red","Green"]}`,
		`{"type":"string","oneOf":[{"const":"#f00","title":"Red"},{"const":"#0f0","title":"Green"}],"default":"#f00"}`,
		`{"type":"array","minItems":1,"maxItems":2,"items":{"type":"string","enum":["Red","Green"]},"default":["Red"]}`,
		`{"type":"array","items":{"anyOf":[{"const":"#f00","title":"Red"},{"const":"#0f0","title":"Green"}]},"default":["#f00"]}`,
	}
	for _, p := range props {
		schema := json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"p":` + p + `},"required":["p"]}`)
		r := ElicitForm("k", "Please", schema)
		if r.err != nil {
			t.Errorf("%s: refused: %v", p, r.err)
			continue
		}
		// And compiled, as it is when asked, so that answers can be
		// checked against it.
		var forms formCache
		if _, err := forms.asked(r.form); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// TestFormKeywords_OnlyWhatChecks: what a state carries of a form is its
// validation keywords: titles, descriptions, defaults, examples and
// enumNames go, at every level a schema sits (a property, a multi-select's
// items, a titled choice); a property named like an annotation is a name
// and stays, as do format (asserted by drafts before 2019-09) and
// keywords the walk does not know. A document with a reference is kept
// whole, since a reference may point into an annotation's value.
func TestFormKeywords_OnlyWhatChecks(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{`{"type":"object","title":"T","description":"D","properties":{` +
			`"title":{"type":"string","title":"Title","description":"The title.","default":"x","examples":["y"],"format":"email","minLength":1},` +
			`"size":{"type":"string","enum":["s","m"],"enumNames":["Small","Medium"],"$comment":"c"},` +
			`"colour":{"type":"string","oneOf":[{"const":"r","title":"Red"},{"const":"b","title":"Blue"}],"default":"r"},` +
			`"tags":{"type":"array","items":{"anyOf":[{"const":"a","title":"A"}]},"default":["a"],"x-note":{"title":"kept"}}},` +
			`"required":["title"]}`,
			`{"properties":{"colour":{"oneOf":[{"const":"r"},{"const":"b"}],"type":"string"},` +
				`"size":{"enum":["s","m"],"type":"string"},` +
				`"tags":{"items":{"anyOf":[{"const":"a"}]},"type":"array","x-note":{"title":"kept"}},` +
				`"title":{"format":"email","minLength":1,"type":"string"}},"required":["title"],"type":"object"}`},
		{`{"type":"object","properties":{"a":{"$ref":"#/$defs/n","title":"A"}},"$defs":{"n":{"type":"string","title":"N"}}}`,
			`{"$defs":{"n":{"title":"N","type":"string"}},"properties":{"a":{"$ref":"#/$defs/n","title":"A"}},"type":"object"}`},
		{`{"type":"object","properties":{"n":{"type":"string","pattern":"^<a&b>$"}}}`,
			`{"properties":{"n":{"pattern":"^\u003ca\u0026b\u003e$","type":"string"}},"type":"object"}`},
	} {
		got, err := formKeywords([]byte(c.doc))
		if err != nil || string(got) != c.want {
			t.Errorf("%s:\n got %s %v\nwant %s", c.doc, got, err, c.want)
		}
	}
}

// TestFormCache_Bounded: the memo of compiled forms holds at most
// maxFormSchemas documents, each of at most maxCachedForm bytes: a
// handler that builds a new form per call (an enum of the user's data)
// costs a compilation per call, never memory without end.
func TestFormCache_Bounded(t *testing.T) {
	var c formCache
	for i := range 3 * maxFormSchemas {
		c.put([]byte(`{"type":"object","properties":{"n":{"type":"string","maxLength":`+strconv.Itoa(i)+`}}}`), formEntry{})
		if len(c.m) > maxFormSchemas {
			t.Fatalf("%d documents held after %d", len(c.m), i+1)
		}
	}
	big := []byte(`{"type":"object","properties":{"n":{"type":"string","pattern":"` + strings.Repeat("a", maxCachedForm) + `"}}}`)
	c.put(big, formEntry{})
	if _, ok := c.get(big); ok {
		t.Error("a document over the bound was kept")
	}
	small := []byte(`{"type":"object"}`)
	c.put(small, formEntry{keywords: small})
	if e, ok := c.get(small); !ok || string(e.keywords) != string(small) {
		t.Error("a document put was not found")
	}
}
