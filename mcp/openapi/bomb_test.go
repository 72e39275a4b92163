package openapi_test

import (
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/openapi"
)

// allocated returns the bytes f allocates. The tests that use it are not
// parallel, so that little else allocates meanwhile.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// aliasLevels writes n levels of anchors, each level naming the one
// below it width times: the last stands for width^n copies of the first.
func aliasLevels(indent, first string, n, width int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%sl0: &l0 %s\n", indent, first)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%sl%d: &l%d {allOf: [%s]}\n", indent, i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d,", i-1), width), ","))
	}
	return b.String()
}

// TestAliasBombs checks that documents whose aliases stand for millions
// of values (a schema, an example) are refused, with where, for what
// reading them costs: a few MB, where they cost hundreds of MB (and, a
// few levels more, all the memory there is) before.
func TestAliasBombs(t *testing.T) {
	schemaBomb := "openapi: 3.1.0\ninfo: {title: t, version: \"1\"}\ncomponents:\n  schemas:\n" +
		aliasLevels("    ", "{type: object, properties: {a: {type: string}, b: {type: integer}}}", 7, 8) +
		"paths:\n  /x:\n    post:\n      operationId: x\n      requestBody: {content: {application/json: {schema: *l7}}}\n      responses: {\"200\": {description: ok}}\n"
	exampleBomb := "openapi: 3.1.0\ninfo: {title: t, version: \"1\"}\nx-values:\n" +
		strings.ReplaceAll(aliasLevels("  ", "[aaaaaaaa, bbbbbbbb, cccccccc]", 7, 8), "{allOf: [", "[") +
		"paths:\n  /x:\n    get:\n      operationId: x\n      parameters: [{name: q, in: query, schema: {type: string}, example: *l7}]\n      responses: {\"200\": {description: ok}}\n"
	exampleBomb = strings.ReplaceAll(exampleBomb, "]}\n", "]\n")
	for _, tc := range []struct{ name, spec, want string }{
		{"schema", schemaBomb, "openapi: /components/schemas/l5/allOf: through its aliases this value stands for more than 100532 values, and the document has 133 of its own (line 10)"},
		{"example", exampleBomb, "openapi: /x-values/l5: through its aliases this value stands for more than 100452 values, and the document has 113 of its own (line 9)"},
	} {
		if len(tc.spec) > 1024 {
			t.Fatalf("%s: %d bytes", tc.name, len(tc.spec))
		}
		var err error
		n := allocated(func() {
			_, err = openapi.Register(mcp.NewServer(mcp.Implementation{Name: "r", Version: "1"}), []byte(tc.spec), http.NotFoundHandler())
		})
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || !strings.Contains(err.Error(), "(line ") {
			t.Errorf("%s (%d bytes): %v, want %s…", tc.name, len(tc.spec), err, tc.want)
		}
		t.Logf("%s (%d bytes): %v; %d kB allocated", tc.name, len(tc.spec), err, n>>10)
		if n > 16<<20 {
			t.Errorf("%s (%d bytes): refusing it allocated %d MB", tc.name, len(tc.spec), n>>20)
		}
	}
}

// TestReferenceBomb checks the bound on what converting a document makes
// whatever its aliases: a JSON document in which each of 2,000
// operations takes a body of 1,000 properties, through one $ref, would
// make tool schemas of 4 M values from 10 k; it is refused, with the
// operation where the bound was reached, before it costs much.
func TestReferenceBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"openapi":"3.1.0","info":{"title":"t","version":"1"},"components":{"schemas":{"Big":{"type":"object","properties":{`)
	for i := range 1000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%d":{"type":"string"}`, i)
	}
	b.WriteString(`}}}},"paths":{`)
	for i := range 2000 {
		if i > 0 {
			b.WriteByte(',')
		}
		if i == 0 {
			b.WriteString(`"/x0":{"post":{"requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/Big"}}}},"responses":{"200":{"description":"ok"}}}}`)
			continue
		}
		fmt.Fprintf(&b, `"/x%d":{"$ref":"#/paths/~1x0"}`, i)
	}
	b.WriteString(`}}`)
	var err error
	n := allocated(func() {
		_, err = openapi.Register(mcp.NewServer(mcp.Implementation{Name: "r", Version: "1"}), []byte(b.String()), http.NotFoundHandler())
	})
	t.Logf("%d bytes: %v; %d MB allocated", b.Len(), err, n>>20)
	const want = "openapi: /components/schemas/Big/properties/p149: converting the document's schemas and examples made more than 292592 values (the document has 12037 of its own); its aliases or references repeat too much"
	if err == nil || err.Error() != want {
		t.Errorf("%v, want %s", err, want)
	}
	if n > 256<<20 {
		t.Errorf("refusing it allocated %d MB", n>>20)
	}
}

// TestDuplicateKeys checks that a key written twice in one object refuses
// the document, in YAML and in JSON, with where: readers disagree on which
// one counts (a JavaScript reader takes the last), so a second security
// requirement would otherwise be lost, or a second operation kept.
func TestDuplicateKeys(t *testing.T) {
	t.Parallel()
	const yamlSecurity = `openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /admin:
    post:
      operationId: admin
      security: []
      security: [{o: [admin]}]
      responses: {"200": {description: ok}}
`
	const yamlMethod = `openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /x:
    get: {operationId: one, responses: {"200": {description: ok}}}
    get: {operationId: two, responses: {"200": {description: ok}}}
`
	const jsonSecurity = `{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{"/admin":{"post":{"operationId":"admin","security":[],"security":[{"o":["admin"]}],"responses":{"200":{"description":"ok"}}}}}}`
	const jsonMethod = `{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{"/x":{"get":{"operationId":"one","responses":{"200":{"description":"ok"}}},
	"get":{"operationId":"two","responses":{"200":{"description":"ok"}}}}}}`
	// Many keys: the index that replaces the scan.
	var many strings.Builder
	many.WriteString(`{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{},"components":{"schemas":{"s":{"type":"object","properties":{`)
	for i := range 40 {
		fmt.Fprintf(&many, `"p%d":{},`, i)
	}
	many.WriteString(`"p7":{}}}}}}`)
	for _, tc := range []struct{ name, spec, want string }{
		{"yaml security", yamlSecurity, `openapi: /paths/~1admin/post: the key "security" appears twice (line 8)`},
		{"yaml method", yamlMethod, `openapi: /paths/~1x: the key "get" appears twice (line 6)`},
		{"json security", jsonSecurity, `openapi: /paths/~1admin/post: the key "security" appears twice (offset 117)`},
		{"json method", jsonMethod, `openapi: /paths/~1x: the key "get" appears twice (offset 140)`},
		{"json many keys", many.String(), `openapi: /components/schemas/s/properties: the key "p7" appears twice (offset 475)`},
		{"yaml top level", "openapi: 3.1.0\nopenapi: 3.0.0\n", `openapi: /: the key "openapi" appears twice (line 2)`},
	} {
		_, err := openapi.Register(mcp.NewServer(mcp.Implementation{Name: "r", Version: "1"}), []byte(tc.spec), http.NotFoundHandler())
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v, want %s", tc.name, err, tc.want)
		}
	}
}
