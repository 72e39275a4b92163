package openapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/mcptest"
	"github.com/mcpdual/mcpdual/mcp/openapi"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

var eras = []mcp.Version{mcp.Version20260728, mcp.Version20250618, mcp.Version20250326}

func readSpec(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkGolden compares got with testdata/golden/name, or rewrites it.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got; go test -update rewrites it after a deliberate change):\n%s", path, diff)
	}
}

// definitions lists what srv offers, as a 2025-06-18 client sees it (the
// revision with titles and output schemas), with the report, indented.
func definitions(t *testing.T, srv *mcp.Server, report *openapi.Report) []byte {
	t.Helper()
	c := mcptest.New(mcp.NewHandler(srv, []mcp.Era{era2025.New()}), mcp.Version20250618)
	out := map[string]any{"report": report}
	for _, m := range []string{"tools/list", "resources/list", "resources/templates/list"} {
		r, err := c.Call(context.Background(), m, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Error == nil {
			out[m] = r.Result
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	var pretty bytes.Buffer
	_ = json.Indent(&pretty, b, "", "  ")
	return append(pretty.Bytes(), '\n')
}

// TestGolden registers real-world-shaped documents and holds the tool
// definitions and the report to golden files.
func TestGolden(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		spec string
		opts []openapi.Option
	}{
		"inbox": {"../../examples/inbox/openapi.yaml", nil},
		"orders-3.0": {"testdata/orders-3.0.yaml", []openapi.Option{
			openapi.WithOverride("payOrder", openapi.Override{Name: "orders_pay", Annotations: &mcp.Annotations{Destructive: true}, Description: "Pays an order; the payment settles later."}),
			openapi.WithResourceTemplate("getProduct", mcp.ResourceTemplate{URITemplate: "shop://products/{sku}"}),
		}},
		"catalog-3.1":     {"testdata/catalog-3.1.yaml", nil},
		"unsupported-3.0": {"testdata/unsupported-3.0.yaml", nil}, // skipped and listed by default
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := mcp.NewServer(mcp.Implementation{Name: name, Version: "1"})
			report, err := openapi.Register(srv, readSpec(t, tc.spec), http.NotFoundHandler(), tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, name+".json", definitions(t, srv, report))
		})
	}
}

// TestUnsupported checks that with FailUnsupported every unsupported
// construct fails registration with the operation and the JSON pointer named, all at once,
// and that nothing was registered.
func TestUnsupported(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Implementation{Name: "x", Version: "1"})
	_, err := openapi.Register(srv, readSpec(t, "testdata/unsupported-3.0.yaml"), http.NotFoundHandler(), openapi.FailUnsupported())
	if err == nil {
		t.Fatal("registered")
	}
	checkGolden(t, "unsupported-3.0.errors.txt", []byte(err.Error()+"\n"))
	// A server without tools has no tools/list.
	c := mcptest.New(mcp.NewHandler(srv, []mcp.Era{era2025.New()}), mcp.Version20250618)
	if r, err := c.Call(context.Background(), "tools/list", nil); err != nil || r.Error == nil || r.Error.Code != mcp.CodeMethodNotFound {
		t.Errorf("a failed Register registered tools: %v %s", err, r.Raw)
	}
}

// echo answers every route with what it received, as a complete tool
// result (so no output schema applies to it).
func echo(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	seen, _ := json.Marshal(map[string]string{
		"method": r.Method, "path": r.URL.EscapedPath(), "query": r.URL.RawQuery,
		"type": r.Header.Get("Content-Type"), "body": string(body),
	})
	b, _ := json.Marshal(map[string]any{"content": []map[string]string{{"type": "text", "text": string(seen)}}})
	w.Header().Set("Content-Type", mcp.ToolResultMediaType)
	w.Write(b)
}

// TestCalls calls the orders tools over HTTP in every revision and checks
// what their routes receive: method, escaped path, query and body.
func TestCalls(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/v2/", echo)
	srv := mcp.NewServer(mcp.Implementation{Name: "orders", Version: "1"})
	if _, err := openapi.Register(srv, readSpec(t, "testdata/orders-3.0.yaml"), mux); err != nil {
		t.Fatal(err)
	}
	mux.Handle("/mcp", mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}))
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)

	tests := []struct {
		tool string
		args string
		want map[string]string // nil: an isError result containing errText
		err  string
	}{
		{"listOrders", `{"limit":5,"status":["open","paid"],"filter":{"customer":"c 1"}}`,
			map[string]string{"method": "GET", "path": "/v2/orders", "query": "filter=%7B%22customer%22%3A%22c+1%22%7D&limit=5&status=open&status=paid", "type": "", "body": ""}, ""},
		{"listOrders", `{"limit":0}`, nil, "/limit"},
		{"listOrders", `{"filter":{"other":1}}`, nil, "/filter"},
		{"createOrder", `{"dryRun":true,"items":[{"sku":"A-1","quantity":2}],"note":null}`,
			map[string]string{"method": "POST", "path": "/v2/orders", "query": "dryRun=true", "type": "application/json", "body": `{"items":[{"sku":"A-1","quantity":2}],"note":null}`}, ""},
		{"createOrder", `{"items":[],"id":"x"}`, nil, "/items"},
		{"getOrder", `{"orderId":"a/b c"}`,
			map[string]string{"method": "GET", "path": "/v2/orders/a%2Fb%20c", "query": "", "type": "", "body": ""}, ""},
		{"updateOrder", `{"orderId":"o_1","note":"hi & bye","tags":["x","y"],"address":{"line1":"1 Main St","city":"Porto","country":"PT"}}`,
			map[string]string{"method": "PATCH", "path": "/v2/orders/o_1", "query": "", "type": "application/x-www-form-urlencoded",
				"body": "address=%7B%22line1%22%3A%221+Main+St%22%2C%22city%22%3A%22Porto%22%2C%22country%22%3A%22PT%22%7D&note=hi+%26+bye&tags=x&tags=y"}, ""},
		{"replaceItems", `{"orderId":"o_1","body":[{"sku":"B","quantity":1}]}`,
			map[string]string{"method": "PUT", "path": "/v2/orders/o_1/items", "query": "", "type": "application/json", "body": `[{"sku":"B","quantity":1}]`}, ""},
		{"payOrder", `{"orderId":"o_1","body":{"method":"card","token":"tok"}}`,
			map[string]string{"method": "POST", "path": "/v2/orders/o_1/payments", "query": "", "type": "application/json", "body": `{"method":"card","token":"tok"}`}, ""},
		{"payOrder", `{"orderId":"o_1","body":{"method":"cash"}}`, nil, "/body"},
		{"productExists", `{"sku":"LAMP-1"}`,
			map[string]string{"method": "HEAD", "path": "/v2/products/LAMP-1", "query": "", "type": "", "body": ""}, ""},
	}
	for _, v := range eras {
		c := mcptest.Dial(ts.URL+"/mcp", v)
		for _, tc := range tests {
			text, isError := call(t, c, tc.tool, tc.args)
			if tc.want == nil {
				if !isError || !strings.Contains(text, tc.err) {
					t.Errorf("%s %s %s: want an isError result naming %s, got %v %s", v, tc.tool, tc.args, tc.err, isError, text)
				}
				continue
			}
			if tc.tool == "productExists" {
				// A HEAD answer has no body: the route ran if the call did not fail.
				if isError {
					t.Errorf("%s %s: %s", v, tc.tool, text)
				}
				continue
			}
			var got map[string]string
			if err := json.Unmarshal([]byte(text), &got); err != nil || isError {
				t.Errorf("%s %s: %v %s", v, tc.tool, err, text)
				continue
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s %s: the route saw (-want +got):\n%s", v, tc.tool, diff)
			}
		}
	}

	// DELETE is destructive: a 2026 client confirms it, a 2025 one cannot.
	confirming := mcptest.Dial(ts.URL+"/mcp", mcp.Version20260728,
		mcptest.WithCapabilities(json.RawMessage(`{"elicitation":{}}`)),
		mcptest.WithAnswers(func(string, mcptest.InputRequest) (json.RawMessage, bool) {
			return json.RawMessage(`{"action":"accept","content":{"confirm":true}}`), true
		}))
	text, isError := call(t, confirming, "cancelOrder", `{"orderId":"o_1","reason":"stock"}`)
	if isError || !strings.Contains(text, `"method":"DELETE","path":"/v2/orders/o_1","query":"reason=stock"`) {
		t.Errorf("confirmed cancel: %v %s", isError, text)
	}
	for _, v := range eras[1:] {
		if text, isError := call(t, mcptest.Dial(ts.URL+"/mcp", v), "cancelOrder", `{"orderId":"o_1","reason":"stock"}`); !isError || !strings.Contains(text, "confirmation") {
			t.Errorf("%s cancel: %v %s", v, isError, text)
		}
	}
}

func call(t *testing.T, c *mcptest.Client, tool, args string) (string, bool) {
	t.Helper()
	r, err := c.CallTool(context.Background(), tool, json.RawMessage(args))
	if err != nil || r.Error != nil {
		t.Fatalf("%s: %v %s", tool, err, r.Raw)
	}
	var res struct {
		Content []struct{ Text string } `json:"content"`
		IsError bool                    `json:"isError"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil || len(res.Content) == 0 {
		t.Fatalf("%s: %v %s", tool, err, r.Result)
	}
	return res.Content[0].Text, res.IsError
}

// TestSelection checks the selections, their union, and the order
// WithOperations gives.
func TestSelection(t *testing.T) {
	t.Parallel()
	spec := readSpec(t, "testdata/orders-3.0.yaml")
	for name, tc := range map[string]struct {
		opts []openapi.Option
		want []string
	}{
		"all":        {nil, []string{"listOrders", "createOrder", "getOrder", "updateOrder", "cancelOrder", "replaceItems", "payOrder", "getProduct", "productExists"}},
		"tag":        {[]openapi.Option{openapi.WithTags("catalog")}, []string{"getProduct", "productExists"}},
		"path":       {[]openapi.Option{openapi.WithPaths("/orders/{orderId}")}, []string{"getOrder", "updateOrder", "cancelOrder", "replaceItems", "payOrder"}},
		"operations": {[]openapi.Option{openapi.WithOperations("productExists", "GET /orders")}, []string{"productExists", "listOrders"}},
		"union":      {[]openapi.Option{openapi.WithTags("payments"), openapi.WithOperations("getProduct")}, []string{"getProduct", "payOrder"}},
	} {
		t.Run(name, func(t *testing.T) {
			srv := mcp.NewServer(mcp.Implementation{Name: "x", Version: "1"})
			report, err := openapi.Register(srv, spec, http.NotFoundHandler(), tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range report.Tools {
				got = append(got, r.Name)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
			if len(report.Tools)+len(report.Skipped) != 9 {
				t.Errorf("%d registered + %d skipped: every operation must be accounted for", len(report.Tools), len(report.Skipped))
			}
		})
	}
}

// TestRegistrationErrors checks the errors that do not come from the
// document's constructs: options naming nothing, names already taken, a
// frozen server, and documents that are not OpenAPI 3.
func TestRegistrationErrors(t *testing.T) {
	t.Parallel()
	spec := readSpec(t, "testdata/orders-3.0.yaml")
	newServer := func() *mcp.Server { return mcp.NewServer(mcp.Implementation{Name: "x", Version: "1"}) }
	taken := newServer()
	taken.AddTool(mcp.Tool{Name: "getOrder"}, "GET /x", http.NotFoundHandler())
	frozen := newServer()
	mcp.NewHandler(frozen, []mcp.Era{era2025.New()})
	for name, tc := range map[string]struct {
		srv  *mcp.Server
		spec []byte
		opts []openapi.Option
		want string
	}{
		"unknown override":   {newServer(), spec, []openapi.Option{openapi.WithOverride("nope", openapi.Override{})}, `WithOverride names operation "nope"`},
		"override twice":     {newServer(), spec, []openapi.Option{openapi.WithOverride("getOrder", openapi.Override{}), openapi.WithOverride("get /orders/{orderId}", openapi.Override{})}, `WithOverride names operation GET /orders/{orderId} (getOrder) twice`},
		"unknown operation":  {newServer(), spec, []openapi.Option{openapi.WithOperations("GET /nope")}, `WithOperations names operation "GET /nope"`},
		"bad name":           {newServer(), spec, []openapi.Option{openapi.WithOverride("getOrder", openapi.Override{Name: "get order"})}, `GET /orders/{orderId} (getOrder): Override.Name: mcp: invalid tool name "get order"`},
		"bad scope":          {newServer(), spec, []openapi.Option{openapi.WithOverride("getOrder", openapi.Override{Scopes: []string{"a b"}})}, `GET /orders/{orderId} (getOrder): /paths/~1orders~1{orderId}/get: Override.Scopes: scope "a b" cannot be required`},
		"name taken":         {taken, spec, nil, `GET /orders/{orderId} (getOrder): mcp: tool getOrder registered twice`},
		"two with one name":  {newServer(), spec, []openapi.Option{openapi.WithOverride("createOrder", openapi.Override{Name: "x"}), openapi.WithOverride("getOrder", openapi.Override{Name: "x"})}, `POST /orders (createOrder) and GET /orders/{orderId} (getOrder) one name, "x"`},
		"frozen":             {frozen, spec, nil, `after NewHandler`},
		"resource on POST":   {newServer(), spec, []openapi.Option{openapi.WithResource("createOrder", mcp.Resource{URI: "shop://x"})}, `POST /orders (createOrder): /paths/~1orders/post: only GET operations can be read as resources`},
		"template variables": {newServer(), spec, []openapi.Option{openapi.WithResourceTemplate("getProduct", mcp.ResourceTemplate{URITemplate: "shop://p/{id}"})}, `template variable {id} is neither a path nor a query parameter`},
		"swagger":            {newServer(), []byte(`{"swagger":"2.0","info":{"title":"t","version":"1"},"paths":{}}`), nil, "not OpenAPI 3.x"},
		"dialect":            {newServer(), []byte("openapi: 3.1.0\ninfo: {title: t, version: '1'}\njsonSchemaDialect: https://json-schema.org/draft/2019-09/schema\npaths: {}\n"), nil, "/jsonSchemaDialect: only the JSON Schema 2020-12 dialect"},
		"not a document":     {newServer(), []byte(`[1, 2`), nil, "openapi: the document"},
		// Each template alone is taken; together srv refuses the second, in
		// the one Register that registers everything.
		"one template twice": {newServer(), spec, []openapi.Option{openapi.WithResourceTemplate("getProduct", mcp.ResourceTemplate{URITemplate: "shop://p/{sku}"}), openapi.WithResourceTemplate("getProduct", mcp.ResourceTemplate{URITemplate: "shop://p/{sku}"})}, "openapi: mcp: resource template shop://p/{sku} registered twice"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := openapi.Register(tc.srv, tc.spec, http.NotFoundHandler(), tc.opts...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
			if tc.srv == frozen {
				return
			}
			// Refused as a whole: the server holds what it held before (the
			// host's own getOrder, on the GET /x route, in "name taken").
			h := mcp.NewHandler(tc.srv, []mcp.Era{era2025.New()})
			ts := httptest.NewServer(h)
			defer ts.Close()
			c := mcptest.Dial(ts.URL, mcp.Version20250618)
			want := ""
			if tc.srv == taken {
				want = "getOrder"
			}
			if got := listed(t, c, "tools/list", "tools"); got != want {
				t.Errorf("after a refused Register, tools %q, want %q", got, want)
			}
			if got := listed(t, c, "resources/templates/list", "resourceTemplates"); got != "" {
				t.Errorf("after a refused Register, resource templates %q", got)
			}
		})
	}
}

// listed returns the names (or URI templates) a list method answers,
// joined by spaces; "" for a method the server does not have (it has
// nothing of that kind).
func listed(t *testing.T, c *mcptest.Client, method, member string) string {
	t.Helper()
	r, err := c.Call(context.Background(), method, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Error != nil {
		if r.Error.Code != mcp.CodeMethodNotFound {
			t.Fatalf("%s: %s", method, r.Raw)
		}
		return ""
	}
	var list map[string][]struct {
		Name        string `json:"name"`
		URITemplate string `json:"uriTemplate"`
	}
	if err := json.Unmarshal(r.Result, &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, item := range list[member] {
		if item.URITemplate != "" {
			item.Name = item.URITemplate
		}
		names = append(names, item.Name)
	}
	return strings.Join(names, " ")
}

// TestScopes checks that security requirements become RequireScopes: a
// token without scopes sees only the operations that need none (security:
// [] overrides the document's requirement), and one with orders:read
// also those that need only it.
func TestScopes(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Implementation{Name: "orders", Version: "1"})
	if _, err := openapi.Register(srv, readSpec(t, "testdata/orders-3.0.yaml"), http.NotFoundHandler()); err != nil {
		t.Fatal(err)
	}
	const resource = "http://127.0.0.1/mcp"
	a := auth.New(auth.Config{Resource: resource, Verifier: auth.VerifierFunc(func(ctx context.Context, token string, r *http.Request) (*auth.Principal, error) {
		scopes := map[string][]string{"read": {"orders:read"}, "write": {"orders:read", "orders:write"}}[token]
		return &auth.Principal{Issuer: "https://login.shop.test", Subject: "s", Audience: []string{resource}, Scopes: scopes, ExpiresAt: time.Now().Add(time.Hour)}, nil
	})})
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, mcp.WithAuth(a))
	for token, want := range map[string]string{
		"none":  "getProduct productExists",
		"read":  "listOrders getOrder getProduct productExists",
		"write": "listOrders createOrder getOrder updateOrder cancelOrder replaceItems payOrder getProduct productExists",
	} {
		c := mcptest.New(h, mcp.Version20250618, mcptest.WithHeader("Authorization", "Bearer "+token))
		r, err := c.Call(context.Background(), "tools/list", nil)
		if err != nil || r.Error != nil {
			t.Fatalf("%s: %v %s", token, err, r.Raw)
		}
		var list struct{ Tools []struct{ Name string } }
		json.Unmarshal(r.Result, &list)
		var got []string
		for _, tl := range list.Tools {
			got = append(got, tl.Name)
		}
		if strings.Join(got, " ") != want {
			t.Errorf("token %s sees %v, want %s", token, got, want)
		}
	}
}

// TestPathPrefix checks that WithPathPrefix replaces the servers' path.
func TestPathPrefix(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/internal/", echo)
	srv := mcp.NewServer(mcp.Implementation{Name: "orders", Version: "1"})
	if _, err := openapi.Register(srv, readSpec(t, "testdata/orders-3.0.yaml"), mux, openapi.WithPathPrefix("/internal/"), openapi.WithOperations("getOrder")); err != nil {
		t.Fatal(err)
	}
	c := mcptest.New(mcp.NewHandler(srv, []mcp.Era{era2025.New()}), mcp.Version20250618)
	if text, isError := call(t, c, "getOrder", `{"orderId":"o_1"}`); isError || !strings.Contains(text, `"path":"/internal/orders/o_1"`) {
		t.Errorf("%v %s", isError, text)
	}
}
