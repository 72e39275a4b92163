package openapi

import "testing"

// fuzzRead reads spec as Register does (load, then every operation's
// tool) and checks what must hold whatever the bytes: no panic, a
// conversion that stays within its bound, and a refusal only as an
// error.
func fuzzRead(t *testing.T, spec []byte) {
	doc, err := load(spec)
	if err != nil {
		return
	}
	r := &registrar{doc: doc}
	for _, o := range doc.operations() {
		r.buildTool(o, Override{}) // an operation's own refusal is its report's
	}
	// buildTool wraps its errors in a located problem, so the budget's
	// state is what is checked: once it ran out, Register must refuse the
	// document, naming where.
	if doc.left < 0 && (doc.over == "" || doc.tooLarge() == nil) {
		t.Fatal("out of budget with no place named")
	}
	if doc.left < -int(doc.limit()) {
		t.Fatalf("the conversion went on past its bound: %d left of %d", doc.left, doc.limit())
	}
}

// FuzzReadJSON reads JSON documents (the package's own reader).
func FuzzReadJSON(f *testing.F) {
	f.Add([]byte(`{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{"/x/{id}":{"get":{"parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"integer"}}],"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/A"}}}}}}}},"components":{"schemas":{"A":{"type":"object","properties":{"a":{"$ref":"#/components/schemas/A"},"b":{"type":"string","readOnly":true}}}}}}`))
	f.Add([]byte(`{"openapi":"3.0.3","paths":{"/x":{"post":{"security":[],"security":[],"requestBody":{"content":{"application/json":{"schema":{"type":"array","items":{"nullable":true}}}}}}}}}`))
	f.Add([]byte(`{"a":"\u00e9\"","b":[1.5e3,-0,true,null,{}]}`))
	f.Fuzz(func(t *testing.T, spec []byte) {
		if len(spec) > 0 && spec[0] != '{' {
			return // the YAML target's
		}
		fuzzRead(t, spec)
	})
}

// FuzzReadYAML reads YAML documents (go-yaml, copied into nodes), with
// aliases.
func FuzzReadYAML(f *testing.F) {
	// Small seeds: the fuzzer minimizes each new input it finds, which
	// takes long from a whole test document.
	f.Add([]byte("openapi: 3.0.3\npaths:\n  /x/{id}:\n    delete:\n      parameters: [{name: id, in: path, required: true, schema: {type: string}}]\n      security: [{o: [admin]}]\n      responses: {\"204\": {description: gone}}\n"))
	f.Add([]byte("openapi: 3.1.0\npaths:\n  /x:\n    get:\n      parameters: [{name: q, in: query, schema: &s {type: array, items: {allOf: [*s]}}, example: &e [a, *e]}]\n"))
	f.Add([]byte("openapi: 3.1.0\ncomponents: {schemas: {a: &a {type: object}, b: &b {allOf: [*a, *a, *a]}, c: {allOf: [*b, *b, *b]}}}\npaths: {/x: {post: {requestBody: {content: {application/json: {schema: *b}}}}}}\n"))
	f.Add([]byte("a: 1\na: 2\n"))
	f.Fuzz(func(t *testing.T, spec []byte) {
		fuzzRead(t, spec)
	})
}
