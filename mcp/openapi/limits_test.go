package openapi_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/mcp"
)

// The converter's bounds at their edges: at each bound a document is
// converted as it would be far below it, and one past it the operation
// (or the document) is refused with where and why.

// quiet drops the handler's log (era2026's warning of a process key).
var quiet = mcp.WithLogger(slog.New(slog.DiscardHandler))

const oas31Head = `{"openapi":"3.1.0","info":{"title":"t","version":"1"},`

// refChain writes components of kind, c0 to c{refs-1}, each a reference
// to the next, the last end: a reference to c0 is the first of refs+1
// references before end.
func refChain(kind string, refs int, end string) string {
	var b strings.Builder
	b.WriteString(`"components":{"` + kind + `":{`)
	for i := range refs {
		fmt.Fprintf(&b, `"c%d":{"$ref":"#/components/%s/c%d"},`, i, kind, i+1)
	}
	fmt.Fprintf(&b, `"c%d":%s}}`, refs, end)
	return b.String()
}

// TestRefChainEdge: a reference is followed through at most 64
// references, wherever it stands — a request body's schema, a parameter,
// a request body, a response, a path item, a property — and a 65th is
// refused: the operation is left out with where the chain was given up
// (a response's is noted and the tool keeps no output schema). A readOnly
// property at the end of the longest chain followed is still left out of
// the request; one past it, the operation is refused rather than the
// property let through.
func TestRefChainEdge(t *testing.T) {
	t.Parallel()
	object := `{"type":"object","properties":{"w":{"type":"string"}}}`
	for _, c := range []struct {
		name, kind, end, paths string
		// want is what the listed tool holds at 64 references.
		want string
		// refused is the reason of the operation's refusal at 65 ("": none;
		// then gone is what the tool lacks there).
		refused, gone string
	}{
		{"schema", "schemas", object,
			`"/x":{"post":{"operationId":"x","requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/c0"}}}},"responses":{"200":{"description":"ok"}}}}`,
			`"properties":{"w":{"type":"string"}}`, "/components/schemas/c63: the $ref chain does not end", ""},
		{"parameter", "parameters", `{"name":"q","in":"query","schema":{"type":"string"}}`,
			`"/x":{"get":{"operationId":"x","parameters":[{"$ref":"#/components/parameters/c0"}],"responses":{"200":{"description":"ok"}}}}`,
			`"properties":{"q":{"type":"string"}}`, "/paths/~1x/get/parameters/0: the $ref chain at /components/parameters/c63 does not end", ""},
		{"request body", "requestBodies", `{"content":{"application/json":{"schema":` + object + `}}}`,
			`"/x":{"post":{"operationId":"x","requestBody":{"$ref":"#/components/requestBodies/c0"},"responses":{"200":{"description":"ok"}}}}`,
			`"properties":{"w":{"type":"string"}}`, "/paths/~1x/post/requestBody: the $ref chain at /components/requestBodies/c63 does not end", ""},
		{"response", "responses", `{"description":"ok","content":{"application/json":{"schema":` + object + `}}}`,
			`"/x":{"get":{"operationId":"x","responses":{"200":{"$ref":"#/components/responses/c0"}}}}`,
			`"outputSchema":{"type":"object","properties":{"w":{"type":"string"}}}`, "", `"outputSchema"`},
		{"path item", "pathItems", `{"get":{"operationId":"x","responses":{"200":{"description":"ok"}}}}`,
			`"/x":{"$ref":"#/components/pathItems/c0"}`, `"name":"x"`, "", ""},
		{"readOnly property", "schemas", `{"type":"string","readOnly":true}`,
			`"/x":{"post":{"operationId":"x","requestBody":{"content":{"application/json":{"schema":{"type":"object","properties":{"ro":{"$ref":"#/components/schemas/c0"},"w":{"type":"string"}}}}}},"responses":{"200":{"description":"ok"}}}}`,
			`"properties":{"w":{"type":"string"}},"patternProperties":{"^ro$":{"not":{}}}`,
			"/paths/~1x/post/requestBody/content/application~1json/schema/properties/ro: the $ref chain does not end", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, refs := range []int{64, 65} {
				// A reference to c0, then refs-1 of the chain's own.
				doc := oas31Head + refChain(c.kind, refs-1, c.end) + `,"paths":{` + c.paths + `}}`
				rep, client := register(t, doc, http.NotFoundHandler(), quiet)
				listed := ""
				if len(rep.Tools) > 0 {
					r, err := client.Call(context.Background(), "tools/list", nil)
					if err != nil || r.Error != nil {
						t.Fatalf("%d references: tools/list %v %+v", refs, err, r)
					}
					listed = string(r.Result)
				}
				switch {
				case refs == 64:
					if len(rep.Tools) != 1 || !strings.Contains(listed, c.want) || len(rep.Tools[0].Notes) != 0 {
						t.Errorf("%d references: want a tool with %s, no note: %+v %.600s", refs, c.want, rep, listed)
					}
				case c.refused != "":
					if len(rep.Tools) != 0 || skippedFor(rep, "x") != c.refused {
						t.Errorf("%d references: want the operation refused with %q: %+v", refs, c.refused, rep)
					}
				case c.gone == "":
					// A path item past the bound has no operations to
					// name: they are dropped without a Skipped entry
					// (record 023 leaves it so).
					if len(rep.Tools) != 0 {
						t.Errorf("%d references: want no tool: %+v", refs, rep)
					}
				default:
					if len(rep.Tools) != 1 || strings.Contains(listed, c.gone) || len(rep.Tools[0].Notes) != 1 ||
						!strings.Contains(rep.Tools[0].Notes[0], "does not end") {
						t.Errorf("%d references: want a tool without %s, saying why: %+v %.600s", refs, c.gone, rep, listed)
					}
				}
			}
		})
	}
}
