package openapi_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/mcptest"
	"github.com/mcpdual/mcpdual/mcp/openapi"
)

// The tests below use testdata/thirdparty-3.0.yaml, shaped like documents
// nobody here wrote (GitHub's): operationIds with slashes, an operation
// without one, two ids that become one name, a 200-character id, number,
// boolean and integer-or-string path parameters, a body property named
// like a path parameter, a readOnly property, and alternative security
// requirements.

func hash8(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}

func registerThirdParty(t *testing.T, h http.Handler, opts ...openapi.Option) (*mcp.Server, *openapi.Report) {
	t.Helper()
	srv := mcp.NewServer(mcp.Implementation{Name: "third", Version: "1"})
	report, err := openapi.Register(srv, readSpec(t, "testdata/thirdparty-3.0.yaml"), h, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return srv, report
}

func TestNames(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("very_long-", 20) + "op"
	_, report := registerThirdParty(t, http.NotFoundHandler())
	var got []string
	notes := map[string][]string{}
	for _, r := range report.Tools {
		got = append(got, r.Name)
		notes[r.Name] = r.Notes
	}
	want := []string{"repos_get", "repos_delete", "issues_create", "issues_add-label", "activity_star", "get_items_n_flag",
		"actions_delete-workflow", "a_b", "a_b_" + hash8("GET /a/two"), long[:119] + "_" + hash8(long), "maybe_public", "search", "customers_create", "notes_create"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("names (-want +got):\n%s", diff)
	}
	// The first alternative needs no scopes (an API key): none are
	// required, and the note says which alternative was taken.
	if n := notes["maybe_public"]; len(n) != 1 || n[0] != "security: the first of 2 alternative requirements is required (scopes: none); Override.Scopes chooses others" {
		t.Errorf("security note without scopes: %q", n)
	}
	if n := notes[want[8]]; len(n) != 1 || n[0] != `named "`+want[8]+`": "a_b" is the name of GET /a/one (a/b)` {
		t.Errorf("collision note: %q", n)
	}
	if n := notes["repos_get"]; len(n) != 1 || !strings.Contains(n[0], "the first of 2 alternative requirements is required (scopes: repo)") {
		t.Errorf("security note: %q", n)
	}
	if n := notes["issues_create"]; len(n) != 2 || n[0] != `body property "owner" is the argument "body_owner": a parameter has its name` {
		t.Errorf("rename note: %q", n)
	}

	// The same document registers to the same names every time.
	_, again := registerThirdParty(t, http.NotFoundHandler())
	for i := range again.Tools {
		if again.Tools[i].Name != got[i] {
			t.Errorf("second run: %s, first: %s", again.Tools[i].Name, got[i])
		}
	}

	// WithNamer decides, "" falls back to the rule, Override.Name wins,
	// and a namer's collision is told apart like the rule's.
	_, report = registerThirdParty(t, http.NotFoundHandler(),
		openapi.WithNamer(func(op openapi.Operation) string {
			switch {
			case op.OperationID == "repos/get":
				return "getRepo"
			case op.OperationID == "repos/delete":
				return "dropRepo"
			case op.Method == "GET" && op.Path == "/a/two":
				return "getRepo"
			}
			return ""
		}),
		openapi.WithOverride("repos/delete", openapi.Override{Name: "removeRepository"}))
	got = got[:0]
	for _, r := range report.Tools {
		got = append(got, r.Name)
	}
	want = []string{"getRepo", "removeRepository", "issues_create", "issues_add-label", "activity_star", "get_items_n_flag",
		"actions_delete-workflow", "a_b", "getRepo_" + hash8("GET /a/two"), long[:119] + "_" + hash8(long), "maybe_public", "search", "customers_create", "notes_create"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("names with WithNamer (-want +got):\n%s", diff)
	}

	srv := mcp.NewServer(mcp.Implementation{Name: "x", Version: "1"})
	_, err := openapi.Register(srv, readSpec(t, "testdata/thirdparty-3.0.yaml"), http.NotFoundHandler(),
		openapi.WithNamer(func(openapi.Operation) string { return "no spaces please" }))
	if err == nil || !strings.Contains(err.Error(), `GET /repos/{owner}/{repo} (repos/get): WithNamer's name: mcp: invalid tool name "no spaces please"`) {
		t.Errorf("invalid namer name: %v", err)
	}
}

// result is a CallToolResult as a test reads it.
type result struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	Structured json.RawMessage `json:"structuredContent"`
	IsError    bool            `json:"isError"`
}

func callResult(t *testing.T, c *mcptest.Client, tool, args string) result {
	t.Helper()
	r, err := c.CallTool(context.Background(), tool, json.RawMessage(args))
	if err != nil || r.Error != nil {
		t.Fatalf("%s: %v %s", tool, err, r.Raw)
	}
	var res result
	if err := json.Unmarshal(r.Result, &res); err != nil || len(res.Content) == 0 {
		t.Fatalf("%s: %v %s", tool, err, r.Result)
	}
	return res
}

// confirming is a 2026-07-28 client that accepts every confirmation and
// records the questions it was asked.
func confirming(h http.Handler) (*mcptest.Client, func() []string) {
	var mu sync.Mutex
	var asked []string
	c := mcptest.New(h, mcp.Version20260728,
		mcptest.WithCapabilities(json.RawMessage(`{"elicitation":{}}`)),
		mcptest.WithAnswers(func(_ string, req mcptest.InputRequest) (json.RawMessage, bool) {
			var p struct{ Message string }
			_ = json.Unmarshal(req.Params, &p)
			mu.Lock()
			asked = append(asked, p.Message)
			mu.Unlock()
			return json.RawMessage(`{"action":"accept","content":{"confirm":true}}`), true
		}))
	return c, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), asked...)
	}
}

func TestThirdPartyCalls(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/", echo)
	srv, _ := registerThirdParty(t, mux)
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()})

	tests := []struct {
		tool, args string
		want       map[string]string
	}{
		{"get_items_n_flag", `{"n":1.5,"flag":true,"q":"x y"}`,
			map[string]string{"method": "GET", "path": "/items/1.5/true", "query": "q=x+y", "type": "", "body": ""}},
		{"get_items_n_flag", `{"n":-2e3,"flag":false}`,
			map[string]string{"method": "GET", "path": "/items/-2e3/false", "query": "", "type": "", "body": ""}},
		{"issues_create", `{"owner":"octo","repo":"hello","title":"Bug","body_owner":"alice"}`,
			map[string]string{"method": "POST", "path": "/repos/octo/hello/issues", "query": "", "type": "application/json", "body": `{"title":"Bug","owner":"alice"}`}},
		// No request body in the document: none is sent (not "{}").
		{"activity_star", `{"owner":"octo","repo":"hello"}`,
			map[string]string{"method": "PUT", "path": "/repos/octo/hello/star", "query": "", "type": "", "body": ""}},
		// Query and form encodings other than the library's own.
		{"search", `{"ids":[1,2],"tags":["a","b c"],"filter":{"status":"open","range":{"gte":5}},"created":{"gte":10},"expand":["x","y"]}`,
			map[string]string{"method": "GET", "path": "/search", "type": "", "body": "",
				"query": "created%5Bgte%5D=10&expand%5B0%5D=x&expand%5B1%5D=y&filter%5Brange%5D%5Bgte%5D=5&filter%5Bstatus%5D=open&ids=1%2C2&tags=a%7Cb+c"}},
		{"search", `{"created":10,"ids":[3]}`,
			map[string]string{"method": "GET", "path": "/search", "type": "", "body": "", "query": "created=10&ids=3"}},
		{"customers_create", `{"name":"n","metadata":{"k":"v w"},"expand":["a"],"items":[{"price":"p","quantity":2}],"codes":["x","y"]}`,
			map[string]string{"method": "POST", "path": "/customers", "query": "", "type": "application/x-www-form-urlencoded",
				"body": "codes=x%2Cy&expand%5B0%5D=a&items%5B0%5D%5Bprice%5D=p&items%5B0%5D%5Bquantity%5D=2&metadata%5Bk%5D=v+w&name=n"}},
		// A wildcard media type admits JSON.
		{"notes_create", `{"text":"hi"}`,
			map[string]string{"method": "POST", "path": "/notes", "query": "", "type": "application/json", "body": `{"text":"hi"}`}},
		{"issues_add-label", `{"owner":"octo","repo":"hello","body_repo":"other","color":"red"}`,
			map[string]string{"method": "POST", "path": "/repos/octo/hello/labels", "query": "", "type": "application/x-www-form-urlencoded", "body": "color=red&repo=other"}},
	}
	for _, v := range []mcp.Version{mcp.Version20260728, mcp.Version20250618} {
		c := mcptest.New(h, v)
		for _, tc := range tests {
			res := callResult(t, c, tc.tool, tc.args)
			var got map[string]string
			if err := json.Unmarshal([]byte(res.Content[0].Text), &got); err != nil || res.IsError {
				t.Errorf("%s %s: %v %s", v, tc.tool, err, res.Content[0].Text)
				continue
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s %s: the route saw (-want +got):\n%s", v, tc.tool, diff)
			}
		}
		// A readOnly property is refused before the route.
		res := callResult(t, c, "issues_create", `{"owner":"octo","repo":"hello","title":"Bug","id":7}`)
		if !res.IsError || !strings.Contains(res.Content[0].Text, "/id") {
			t.Errorf("%s: a readOnly property was not refused: %+v", v, res)
		}
	}

	// Destructive operations confirm with what they change.
	c, asked := confirming(h)
	for _, tc := range []struct{ tool, args, path string }{
		{"repos_delete", `{"owner":"octo","repo":"hello"}`, "/repos/octo/hello"},
		{"actions_delete-workflow", `{"workflow_id":42}`, "/workflows/42"},
		{"actions_delete-workflow", `{"workflow_id":"ci.yml"}`, "/workflows/ci.yml"},
	} {
		res := callResult(t, c, tc.tool, tc.args)
		if res.IsError || !strings.Contains(res.Content[0].Text, `"method":"DELETE","path":"`+tc.path+`"`) {
			t.Errorf("%s: %+v", tc.tool, res)
		}
	}
	want := []string{
		`Confirm "Delete a repository" (DELETE /repos/{owner}/{repo}) for owner "octo", repo "hello": this changes or deletes data and may not be undoable.`,
		`Confirm "Delete a workflow" (DELETE /workflows/{workflow_id}) for workflow_id "42": this changes or deletes data and may not be undoable.`,
		`Confirm "Delete a workflow" (DELETE /workflows/{workflow_id}) for workflow_id "ci.yml": this changes or deletes data and may not be undoable.`,
	}
	if diff := cmp.Diff(want, asked()); diff != "" {
		t.Errorf("confirmation questions (-want +got):\n%s", diff)
	}
}

func TestConfirmQuestion(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/", echo)
	srv, _ := registerThirdParty(t, mux,
		openapi.WithConfirm(func(op openapi.Operation, args map[string]any) string {
			if op.OperationID != "repos/delete" {
				return "" // the default question
			}
			return "Really delete " + mcp.Quote(args["owner"].(string)+"/"+args["repo"].(string)) + "?"
		}),
		// An override's own ConfirmWith still wins.
		openapi.WithOverride("issues/create", openapi.Override{
			Annotations: &mcp.Annotations{Destructive: true},
			Options: []mcp.ItemOption{mcp.ConfirmWith(func(context.Context, *mcp.Call) (string, error) {
				return "Open an issue?", nil
			})},
		}),
		openapi.WithOverride("issues/add-label", openapi.Override{Annotations: &mcp.Annotations{Destructive: true}}))
	c, asked := confirming(mcp.NewHandler(srv, []mcp.Era{era2026.New()}))
	callResult(t, c, "repos_delete", `{"owner":"octo","repo":"he\"llo"}`)
	callResult(t, c, "actions_delete-workflow", `{"workflow_id":7}`)
	callResult(t, c, "issues_create", `{"owner":"octo","repo":"hello","title":"Bug"}`)
	// A long value is cut by mcp.Quote, which says so; the required
	// title is a key field when short.
	callResult(t, c, "issues_add-label", `{"owner":"`+strings.Repeat("o", 100)+`","repo":"r","color":"red"}`)
	want := []string{
		`Really delete "octo/he\u{0022}llo"?`,
		`Confirm "Delete a workflow" (DELETE /workflows/{workflow_id}) for workflow_id "7": this changes or deletes data and may not be undoable.`,
		`Open an issue?`,
		`Confirm "issues_add-label" (POST /repos/{owner}/{repo}/labels) for owner "` + strings.Repeat("o", 48) + `…` + strings.Repeat("o", 24) + `" (28 characters not shown), repo "r": this changes or deletes data and may not be undoable.`,
	}
	if diff := cmp.Diff(want, asked()); diff != "" {
		t.Errorf("confirmation questions (-want +got):\n%s", diff)
	}
}

func TestOutputSchemas(t *testing.T) {
	t.Parallel()
	var answer string
	var mu sync.Mutex
	mux := http.NewServeMux()
	mux.HandleFunc("GET /repos/{owner}/{repo}", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(answer))
	})
	const good, drifted = `{"id":1,"name":"hello"}`, `{"id":"secret-value","full_name":"octo/hello"}`
	for _, mode := range []openapi.OutputMode{openapi.OutputStrict, openapi.OutputLenient, openapi.OutputOff} {
		srv, _ := registerThirdParty(t, mux, openapi.WithOutputSchemas(mode), openapi.WithOperations("repos/get"))
		h := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()})
		for _, v := range []mcp.Version{mcp.Version20260728, mcp.Version20250618} {
			c := mcptest.New(h, v)
			list, err := c.Call(context.Background(), "tools/list", nil)
			if err != nil {
				t.Fatal(err)
			}
			if has := strings.Contains(string(list.Result), `"outputSchema"`); has != (mode != openapi.OutputOff) {
				t.Errorf("mode %d %s: outputSchema listed: %v", mode, v, has)
			}

			mu.Lock()
			answer = good
			mu.Unlock()
			res := callResult(t, c, "repos_get", `{"owner":"octo","repo":"hello"}`)
			wantStructured := good
			if mode == openapi.OutputOff {
				wantStructured = ""
			}
			if res.IsError || res.Content[0].Text != good || string(res.Structured) != wantStructured {
				t.Errorf("mode %d %s: a matching answer gave %+v", mode, v, res)
			}

			mu.Lock()
			answer = drifted
			mu.Unlock()
			res = callResult(t, c, "repos_get", `{"owner":"octo","repo":"hello"}`)
			switch mode {
			case openapi.OutputStrict:
				if !res.IsError || len(res.Content) != 1 || res.Structured != nil ||
					res.Content[0].Text != "The answer of GET /repos/{owner}/{repo} did not match the output schema of the API's OpenAPI document, so it is not shown. The API may have changed; retrying will not help." {
					t.Errorf("strict %s: %+v", v, res)
				}
			case openapi.OutputLenient:
				if res.IsError || len(res.Content) != 2 || res.Content[0].Text != drifted || res.Structured != nil ||
					!strings.HasPrefix(res.Content[1].Text, "Note: this answer of GET /repos/{owner}/{repo} does not match the output schema") {
					t.Errorf("lenient %s: %+v", v, res)
				}
			case openapi.OutputOff:
				if res.IsError || len(res.Content) != 1 || res.Content[0].Text != drifted || res.Structured != nil {
					t.Errorf("off %s: %+v", v, res)
				}
			}
		}
		// A 2025-03-26 client is told of no output schema: it gets the
		// answer as text, whatever the mode.
		mu.Lock()
		answer = drifted
		mu.Unlock()
		res := callResult(t, mcptest.New(h, mcp.Version20250326), "repos_get", `{"owner":"octo","repo":"hello"}`)
		if res.IsError || len(res.Content) != 1 || res.Content[0].Text != drifted {
			t.Errorf("mode %d 2025-03-26: %+v", mode, res)
		}
	}
}

// TestMismatchLog checks that a drifted answer is logged once per tool,
// with the violations and without the answer's data. It changes
// slog.Default, so it does not run in parallel.
func TestMismatchLog(t *testing.T) {
	var buf syncBuffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	defer slog.SetDefault(old)

	mux := http.NewServeMux()
	mux.HandleFunc("GET /repos/{owner}/{repo}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":"secret-value"}`))
	})
	for _, mode := range []openapi.OutputMode{openapi.OutputStrict, openapi.OutputLenient} {
		buf.Reset()
		srv, _ := registerThirdParty(t, mux, openapi.WithOutputSchemas(mode), openapi.WithOperations("repos/get"))
		c := mcptest.New(mcp.NewHandler(srv, []mcp.Era{era2025.New()}), mcp.Version20250618)
		for range 3 {
			callResult(t, c, "repos_get", `{"owner":"octo","repo":"hello"}`)
		}
		log := buf.String()
		if n := strings.Count(log, "does not match the output schema"); n != 1 || !strings.Contains(log, "tool=repos_get") ||
			!strings.Contains(log, "violations=") || strings.Contains(log, "secret-value") {
			t.Errorf("mode %d: logged %d times:\n%s", mode, n, log)
		}
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func (s *syncBuffer) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.Reset()
}

// TestPathUnion checks that a path parameter given as a oneOf or anyOf of
// one-type alternatives gets those types, each once, as its own type, and
// that srv, not this package, decides which types fill a route wildcard:
// a union with an object is skipped with the core's reason.
func TestPathUnion(t *testing.T) {
	t.Parallel()
	const spec = `openapi: 3.1.0
info: {title: unions, version: "1"}
paths:
  /a/{id}:
    get:
      operationId: twoStrings
      parameters:
        - {name: id, in: path, required: true, schema: {oneOf: [{type: string, format: uuid}, {type: string, pattern: "^[a-z]+$"}]}}
      responses: {"200": {description: ok}}
  /b/{id}:
    get:
      operationId: idOrName
      parameters:
        - {name: id, in: path, required: true, schema: {anyOf: [{type: integer}, {type: string}]}}
      responses: {"200": {description: ok}}
  /c/{id}:
    get:
      operationId: objectOrString
      parameters:
        - {name: id, in: path, required: true, schema: {oneOf: [{type: object}, {type: string}]}}
      responses: {"200": {description: ok}}
`
	srv := mcp.NewServer(mcp.Implementation{Name: "unions", Version: "1"})
	report, err := openapi.Register(srv, []byte(spec), http.HandlerFunc(echo))
	if err != nil {
		t.Fatal(err)
	}
	want := []openapi.Skipped{{Operation: "GET /c/{id}", OperationID: "objectOrString",
		Reason: "mcp: tool objectOrString: route wildcard {id} must be a required string, integer, number or boolean property of inputSchema"}}
	if diff := cmp.Diff(want, report.Skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	c := mcptest.New(mcp.NewHandler(srv, []mcp.Era{era2025.New()}), mcp.Version20250618)
	r, err := c.Call(context.Background(), "tools/list", nil)
	if err != nil || r.Error != nil {
		t.Fatalf("%v %s", err, r.Raw)
	}
	var list struct {
		Tools []struct {
			Name        string
			InputSchema struct {
				Properties map[string]struct{ Type any }
			}
		}
	}
	if err := json.Unmarshal(r.Result, &list); err != nil {
		t.Fatal(err)
	}
	got := map[string]any{}
	for _, tl := range list.Tools {
		got[tl.Name] = tl.InputSchema.Properties["id"].Type
	}
	wantTypes := map[string]any{"twoStrings": []any{"string"}, "idOrName": []any{"integer", "string"}}
	if diff := cmp.Diff(wantTypes, got); diff != "" {
		t.Errorf("path parameter types (-want +got):\n%s", diff)
	}
	// The one-type union fills the wildcard like a string.
	const id = "6f1c2b1e-0b7a-4c1e-9a57-3d2c1b0a9f8e"
	if text, isError := call(t, c, "twoStrings", `{"id":"`+id+`"}`); isError || !strings.Contains(text, `"path":"/a/`+id+`"`) {
		t.Errorf("twoStrings: %v %s", isError, text)
	}
}
