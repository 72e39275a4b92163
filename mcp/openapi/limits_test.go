package openapi_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/openapi"
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

// registerDoc registers doc on a new server: its report and error.
func registerDoc(doc string) (*openapi.Report, error) {
	return openapi.Register(mcp.NewServer(mcp.Implementation{Name: "r", Version: "1"}), []byte(doc), http.NotFoundHandler())
}

// TestDocumentDepthEdge: a document may nest 256 levels (4 × maxDepth),
// in JSON and in YAML: a value at level 256 is read, one at 257 refuses
// the document with where.
func TestDocumentDepthEdge(t *testing.T) {
	t.Parallel()
	for _, levels := range []int{256, 257} {
		// x-deep is at level 1: its arrays reach level levels.
		deep := strings.Repeat("[", levels) + strings.Repeat("]", levels)
		for _, doc := range []struct{ kind, text, where string }{
			{"JSON", oas31Head + `"paths":{},"x-deep":` + deep + `}`, "line 1"},
			{"YAML", "openapi: 3.1.0\ninfo: {title: t, version: \"1\"}\npaths: {}\nx-deep: " + deep + "\n", "line 4"},
		} {
			_, err := registerDoc(doc.text)
			want := ""
			if levels == 257 {
				want = "openapi: the document cannot be parsed: " + doc.where + ": nested too deep"
			}
			if got := fmt.Sprint(err); (want == "" && err != nil) || (want != "" && got != want) {
				t.Errorf("%s, %d levels: %v, want %q", doc.kind, levels, err, want)
			}
		}
	}
}

// TestSchemaDepthEdge: the converter takes a schema nested 64 levels
// below the one it starts from (maxDepth) and refuses the 65th, with
// where; an example value likewise. At 64 the operation is still left
// out, by the core, whose JSON bound a tool schema that deep passes: the
// reason says so, not the converter's bound.
func TestSchemaDepthEdge(t *testing.T) {
	t.Parallel()
	const core = "mcp: tool x: inputSchema: schema is not valid JSON: Invalid Request: nesting deeper than 64"
	items := func(n int) (string, string) {
		s, ptr := `{"type":"string"}`, ""
		for range n {
			s, ptr = `{"type":"array","items":`+s+`}`, ptr+"/items"
		}
		return s, ptr
	}
	// The body schema is level 0 and its property a level 1: 63 items
	// below a reach level 64.
	for levels, want := range map[int]string{64: core, 65: "/paths/~1x/post/requestBody/content/application~1json/schema/properties/a%s: the schema nests deeper than 64 levels"} {
		s, ptr := items(levels - 1)
		if strings.Contains(want, "%s") {
			want = fmt.Sprintf(want, ptr)
		}
		rep, err := registerDoc(oas31Head + `"paths":{"/x":{"post":{"operationId":"x","requestBody":{"content":{"application/json":{"schema":{"type":"object","properties":{"a":` +
			s + `}}}}},"responses":{"200":{"description":"ok"}}}}}}`)
		if err != nil || len(rep.Tools) != 0 || skippedFor(rep, "x") != want {
			t.Errorf("a schema at level %d: %v %+v, want the reason %q", levels, err, rep, want)
		}
	}
	// An example is level 0: 64 arrays inside it reach level 64.
	for levels, want := range map[int]string{64: core, 65: "/paths/~1x/get/parameters/0/example" + strings.Repeat("/0", 65) + ": nested deeper than 64 levels"} {
		ex := strings.Repeat("[", levels+1) + strings.Repeat("]", levels+1)
		rep, err := registerDoc(oas31Head + `"paths":{"/x":{"get":{"operationId":"x","parameters":[{"name":"q","in":"query","schema":{"type":"array"},"example":` +
			ex + `}],"responses":{"200":{"description":"ok"}}}}}}`)
		if err != nil || len(rep.Tools) != 0 || skippedFor(rep, "x") != want {
			t.Errorf("an example at level %d: %v %+v, want the reason %q", levels, err, rep, want)
		}
	}
}

// TestAliasExpansionEdge: a YAML document may stand, its aliases
// expanded, for 4 values per value of its own plus 100,000: exactly that
// many is read, one more refuses the document, saying the bound and the
// document's own count.
func TestAliasExpansionEdge(t *testing.T) {
	t.Parallel()
	// x-a holds k values and is named m times by x-b; x-pad holds p.
	// Of its own the document has 17 + k + m + p values (the top-level
	// mapping, info's 6, paths' 2, and each member's key, collection and
	// items); expanded, each alias stands for k+1 instead of 1, so the
	// document stands for own + m·k. The bound is 4·own + 100,000: it
	// holds exactly when m·k = 3·own + 100,000.
	doc := func(k, m, p int) (string, int, int) {
		own := 17 + k + m + p
		zeros := func(n int) string { return strings.TrimSuffix(strings.Repeat("0, ", n), ", ") }
		return "openapi: 3.1.0\ninfo: {title: t, version: \"1\"}\npaths: {}\n" +
			"x-a: &a [" + zeros(k) + "]\n" +
			"x-pad: [" + zeros(p) + "]\n" +
			"x-b: [" + strings.TrimSuffix(strings.Repeat("*a, ", m), ", ") + "]\n", own + m*k, 4*own + 100_000
	}
	at, total, limit := doc(1000, 106, 877)
	if total != limit {
		t.Fatalf("the document stands for %d, its bound is %d", total, limit)
	}
	if _, err := registerDoc(at); err != nil {
		t.Errorf("%d values at a bound of %d: %v", total, limit, err)
	}
	past, total, limit := doc(1000, 104, 212)
	if total != limit+1 {
		t.Fatalf("the document stands for %d, its bound is %d", total, limit)
	}
	want := fmt.Sprintf("openapi: /: through its aliases this value stands for more than %d values, and the document has %d of its own (line 1)", limit, (limit-100_000)/4)
	if _, err := registerDoc(past); fmt.Sprint(err) != want {
		t.Errorf("%d values at a bound of %d: %v, want %s", total, limit, err, want)
	}
}

// TestConversionBudgetEdge: converting a document may make 16 values per
// value of its own plus 100,000. A document whose operations convert
// exactly that many registers; one more value refuses it, where the bound
// was crossed, with the bound and the document's own count.
func TestConversionBudgetEdge(t *testing.T) {
	t.Parallel()
	// ops operations (one written, the others path items naming it) each
	// take Big, a body with one property whose default is an array of n
	// values: each conversion makes n+4 values (Big, its type, the
	// property, the array and its items). Of its own the document has
	// 43 + n + 4·ops + pad values (pad: an array of x-pad). The bound
	// holds exactly when ops·(n+4) = 16·own + 100,000.
	doc := func(ops, n, pad int) (string, int, int) {
		var b strings.Builder
		b.WriteString(oas31Head + `"components":{"schemas":{"Big":{"type":"object","properties":{"p":{"default":[`)
		b.WriteString(strings.TrimSuffix(strings.Repeat("0,", n), ","))
		b.WriteString(`]}}}}},"paths":{"/x0":{"post":{"requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/Big"}}}},"responses":{"200":{"description":"ok"}}}}`)
		for i := 1; i < ops; i++ {
			fmt.Fprintf(&b, `,"/x%d":{"$ref":"#/paths/~1x0"}`, i)
		}
		b.WriteString(`},"x-pad":[` + strings.TrimSuffix(strings.Repeat("0,", pad), ",") + `]}`)
		own := 43 + n + 4*ops + pad
		return b.String(), ops * (n + 4), 16*own + 100_000
	}
	at, made, limit := doc(51, 2972, 17)
	if made != limit {
		t.Fatalf("%d values made, the bound is %d", made, limit)
	}
	if rep, err := registerDoc(at); err != nil || len(rep.Tools) != 51 {
		t.Errorf("%d values made at a bound of %d: %v", made, limit, err)
	}
	past, made, limit := doc(51, 2967, 6)
	if made != limit+1 {
		t.Fatalf("%d values made, the bound is %d", made, limit)
	}
	// The last value the last operation makes is the one too many.
	want := fmt.Sprintf("openapi: /components/schemas/Big/properties/p/default/2966: converting the document's schemas and examples made more than %d values (the document has %d of its own); its aliases or references repeat too much", limit, (limit-100_000)/16)
	if _, err := registerDoc(past); fmt.Sprint(err) != want {
		t.Errorf("%d values made at a bound of %d: %v, want %s", made, limit, err, want)
	}
}

// TestToolNameEdge: a name of 128 characters is the tool's as it is; of
// 129, its first 119 and "_" and 8 hex digits of its SHA-256.
func TestToolNameEdge(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]func(string) string{
		128: func(id string) string { return id },
		129: func(id string) string { return id[:119] + "_" + hash8(id) },
	} {
		id := strings.Repeat("n", n)
		rep, err := registerDoc(oas31Head + `"paths":{"/x":{"get":{"operationId":"` + id + `","responses":{"200":{"description":"ok"}}}}}}`)
		if err != nil || len(rep.Tools) != 1 || rep.Tools[0].Name != want(id) {
			t.Errorf("an operationId of %d characters: %v %+v", n, err, rep)
		}
	}
}

// TestOutputCheck_AnswerPastBound: an answer is held for the output
// check up to 16 MiB; one byte more is refused whole, the model told why
// and shown nothing of it (the core's own bound, Limits.ResponseBytes,
// raised past it here). An answer of exactly 16 MiB is held
// (TestAnswer_BoundEdge): shown through the endpoint it costs seconds of
// copying.
func TestOutputCheck_AnswerPastBound(t *testing.T) {
	t.Parallel()
	const bound = 16 << 20
	var ran atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("GET /x", func(w http.ResponseWriter, r *http.Request) {
		ran.Add(1)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"s":"`+strings.Repeat("s", bound+1-len(`{"s":""}`))+`"}`)
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "answers", Version: "1"})
	if _, err := openapi.Register(srv, []byte(oas31Head+`"paths":{"/x":{"get":{"operationId":"x","responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object","properties":{"s":{"type":"string"}}}}}}}}}}}`), mux); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(mcp.NewHandler(srv, []mcp.Era{era2025.New()}, quiet, mcp.WithLimits(mcp.Limits{ResponseBytes: 4 * bound})))
	defer ts.Close()
	req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	const want = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"The answer of GET /x was too large to be checked against the API's OpenAPI document."}],"isError":true}}`
	if resp.StatusCode != 200 || string(body) != want || ran.Load() != 1 {
		t.Errorf("an answer of %d bytes: %d, the route ran %d times: %.300s", bound+1, resp.StatusCode, ran.Load(), body)
	}
}
