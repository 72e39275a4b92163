package openapi_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/openapi"
	"github.com/pb33f/go-yaml"
)

// toJSON renders a YAML document as JSON in the same order, the way a
// generator would write it.
func toJSON(t *testing.T, n *yaml.Node, b *bytes.Buffer) {
	t.Helper()
	switch n.Kind {
	case yaml.DocumentNode:
		toJSON(t, n.Content[0], b)
	case yaml.AliasNode:
		toJSON(t, n.Alias, b)
	case yaml.MappingNode:
		b.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(n.Content[i].Value)
			b.Write(k)
			b.WriteByte(':')
			toJSON(t, n.Content[i+1], b)
		}
		b.WriteByte('}')
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			toJSON(t, c, b)
		}
		b.WriteByte(']')
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!int", "!!float", "!!bool", "!!null":
			if !json.Valid([]byte(n.Value)) {
				t.Fatalf("line %d: %q is not JSON", n.Line, n.Value)
			}
			b.WriteString(n.Value)
		default:
			s, _ := json.Marshal(n.Value)
			b.Write(s)
		}
	}
}

// TestReaders checks that a document registers the same whether it is
// written in YAML or in JSON (compact, or indented as generated documents
// are): the two readers (go-yaml, and the package's own JSON reader) give
// the same tools, schemas, notes and skipped operations.
func TestReaders(t *testing.T) {
	t.Parallel()
	for _, path := range []string{"testdata/orders-3.0.yaml", "testdata/catalog-3.1.yaml", "testdata/unsupported-3.0.yaml",
		"testdata/thirdparty-3.0.yaml", "../../examples/inbox/openapi.yaml"} {
		spec := readSpec(t, path)
		var doc yaml.Node
		if err := yaml.Unmarshal(spec, &doc); err != nil {
			t.Fatal(err)
		}
		var compact bytes.Buffer
		toJSON(t, &doc, &compact)
		var indented bytes.Buffer
		if err := json.Indent(&indented, compact.Bytes(), "", "  "); err != nil {
			t.Fatal(err)
		}
		var want []byte
		for i, s := range [][]byte{spec, compact.Bytes(), indented.Bytes()} {
			srv := mcp.NewServer(mcp.Implementation{Name: "r", Version: "1"})
			report, err := openapi.Register(srv, s, http.NotFoundHandler())
			if err != nil {
				t.Fatalf("%s (form %d): %v", path, i, err)
			}
			got := definitions(t, srv, report)
			if i == 0 {
				want = got
				continue
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("%s: the JSON form %d registers differently (-yaml +json):\n%s", path, i, diff)
			}
		}
	}
}

// TestReaderInput checks what the JSON reader takes and refuses.
func TestReaderInput(t *testing.T) {
	t.Parallel()
	const head = `{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{"/x/{id}":{"get":{"operationId":"x","summary":`
	const tail = `,"parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"integer","maximum":12345678901234567890,"default":1.50}}],"responses":{"200":{"description":"ok"}}}}}}`
	for _, tc := range []struct {
		name, spec, want string
	}{
		{"escapes", head + `"caf\u00e9 \"quoted\" \ud83d\ude00 a\/b\n"` + tail, `"title":"café \"quoted\" 😀 a/b\n"`},
		{"numbers as written", head + `"n"` + tail, `"maximum":12345678901234567890,"default":1.50`},
		{"whitespace", strings.ReplaceAll(head+`"w"`+tail, ",", " ,\n\t "), `"title":"w"`},
	} {
		srv := mcp.NewServer(mcp.Implementation{Name: "r", Version: "1"})
		report, err := openapi.Register(srv, []byte(tc.spec), http.NotFoundHandler())
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got := string(definitions(t, srv, report)); !strings.Contains(strings.Join(strings.Fields(got), ""), strings.ReplaceAll(tc.want, " ", "")) {
			t.Errorf("%s: %s not in\n%s", tc.name, tc.want, got)
		}
	}
	for _, tc := range []struct{ name, spec, want string }{
		{"truncated", head, "the document cannot be parsed"},
		{"not an object", `["openapi"]`, "the document is not an object"},
		{"deep", `{"openapi":"3.1.0","x":` + strings.Repeat("[", 300) + strings.Repeat("]", 300) + `}`, "the document cannot be parsed"},
	} {
		_, err := openapi.Register(mcp.NewServer(mcp.Implementation{Name: "r", Version: "1"}), []byte(tc.spec), http.NotFoundHandler())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestAliasLoop checks that a YAML alias that contains itself (legal
// YAML, but no JSON value: expanding it never ends) refuses the document,
// located, before anything walks it.
func TestAliasLoop(t *testing.T) {
	t.Parallel()
	spec := `openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /x:
    get:
      operationId: loop
      parameters:
        - {name: q, in: query, schema: {type: array}, example: &a [*a, *a]}
      responses: {"200": {description: ok}}
`
	_, err := openapi.Register(mcp.NewServer(mcp.Implementation{Name: "r", Version: "1"}), []byte(spec), http.NotFoundHandler())
	if want := "openapi: /paths/~1x/get/parameters/0/example/0: an alias names a value that contains it (line 8)"; err == nil || err.Error() != want {
		t.Errorf("%v, want %s", err, want)
	}
}
