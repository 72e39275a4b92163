package schema

import "testing"

// TestObjects_FastPass: the one-pass check agrees with the ordered walk
// that names the problem, for a boolean and an object in every place a
// subschema may be, at the root and nested.
func TestObjects_FastPass(t *testing.T) {
	t.Parallel()
	var docs []string
	wrap := func(k, s string) []string {
		return []string{`{"` + k + `":` + s + `}`, `{"` + k + `":[` + s + `]}`, `{"` + k + `":{"x":` + s + `}}`}
	}
	for _, k := range append(append(append([]string{}, oneSub...), listSub...), mapSub...) {
		for _, s := range []string{`true`, `false`, `{}`, `{"type":"string"}`, `{"properties":{"y":true}}`, `{"not":true}`} {
			docs = append(docs, wrap(k, s)...)
			for _, inner := range wrap(k, s) {
				docs = append(docs, `{"properties":{"p":`+inner+`}}`, `{"allOf":[`+inner+`]}`, `{"default":`+inner+`}`)
			}
		}
	}
	bad := 0
	for _, doc := range docs {
		v, err := Decode([]byte(doc), 0)
		if err != nil {
			t.Fatal(err)
		}
		err = objects(v, "")
		if objectsOK(v) != (err == nil) {
			t.Errorf("%s: one pass %v, walk %v", doc, objectsOK(v), err)
		}
		if err != nil {
			bad++
		}
	}
	if bad == 0 || bad == len(docs) {
		t.Errorf("%d of %d refused: the cases tell nothing apart", bad, len(docs))
	}
}
