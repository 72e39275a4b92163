package mcptest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
)

// ours is how mcpdual's own servers run the kit: strict, with no
// deviation declared (2025-03-26 batches are served by default).
var ours = []RunOption{Strict()}

// failures runs the battery and returns "check: detail" for every
// violation it found, whatever its level, deviations included.
func failures(h http.Handler, opts ...RunOption) []string {
	var out []string
	for _, r := range Check(h, opts...) {
		if r.Status == Failed || r.Status == Warned {
			for _, d := range r.Details {
				out = append(out, r.Check+": "+d)
			}
		}
	}
	return out
}

// failed reports whether check is among the failures.
func failed(f []string, check string) bool {
	for _, line := range f {
		if strings.HasPrefix(line, check+":") {
			return true
		}
	}
	return false
}

// TestRun_CatchesBrokenServers: each way of breaking a rule fails the
// check that covers it, and a correct server fails none.
func TestRun_CatchesBrokenServers(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"})
	good := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()})
	if f := failures(good, ours...); len(f) != 0 {
		t.Fatalf("a correct server fails: %v", f)
	}
	breakages := map[string]http.Handler{
		"profile/no-session": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Mcp-Session-Id", "abc")
			good.ServeHTTP(w, r)
		}),
		"profile/get-405": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				w.WriteHeader(http.StatusOK)
				return
			}
			good.ServeHTTP(w, r)
		}),
		"profile/batch-refused": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.ContentLength > 0 && r.Header.Get("Mcp-Method") == "" {
				buf := make([]byte, 1)
				r.Body.Read(buf)
				if buf[0] == '[' {
					w.Header().Set("Content-Type", "application/json")
					w.Write([]byte(`[]`))
					return
				}
				r.Body = http.MaxBytesReader(w, multiReader(buf, r), 1<<20)
			}
			good.ServeHTTP(w, r)
		}),
	}
	for check, h := range breakages {
		if f := failures(h, ours...); !failed(f, check) {
			t.Errorf("breaking %s went unnoticed; failures: %v", check, f)
		}
	}
}

// ordersServer is a small orders service. route picks the handler each
// tool's route runs, so a test can misroute one.
func ordersServer(list, get http.Handler) http.Handler {
	srv := mcp.NewServer(mcp.Implementation{Name: "orders", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "orders_list", InputSchema: json.RawMessage(`{"type":"object"}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"orders":{"type":"array"}},"required":["orders"]}`),
		Annotations:  mcp.Annotations{ReadOnly: true}}, "GET /orders", list)
	srv.AddTool(mcp.Tool{Name: "orders_get", InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`),
		Annotations: mcp.Annotations{ReadOnly: true}}, "GET /orders/{id}", get)
	srv.AddTool(mcp.Tool{Name: "orders_create", InputSchema: json.RawMessage(`{"type":"object"}`)}, "POST /orders", list)
	return mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()})
}

func jsonRoute(status int, body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	})
}

// rewrite passes every response of h through f.
func rewrite(h http.Handler, f func(hdr http.Header, body []byte) []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		body := f(rec.Header(), rec.Body.Bytes())
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(rec.Code)
		w.Write(body)
	})
}

// TestRun_CatchesBrokenServices: the breakages a real service showed,
// each caught with a message that says what is wrong.
func TestRun_CatchesBrokenServices(t *testing.T) {
	examples := WithToolExamples(map[string]any{"orders_list": map[string]any{}, "orders_get": map[string]string{"id": "o-1"}})
	good := ordersServer(jsonRoute(200, `{"orders":[]}`), jsonRoute(200, `{"id":"o-1"}`))
	if f := failures(good, append(ours, examples)...); len(f) != 0 {
		t.Fatalf("a correct server fails: %v", f)
	}
	cases := []struct {
		name  string
		h     http.Handler
		opts  []RunOption
		check string
		says  string
	}{
		// The list tool runs the create handler (chi's routing state of
		// the outer POST leaked into the in-process request).
		{"misrouted", ordersServer(jsonRoute(201, `{"id":"new"}`), jsonRoute(200, `{"id":"o-1"}`)), []RunOption{examples},
			"tools/read-only-examples", "orders_list answered isError"},
		// The host's own auth middleware refuses the in-process call.
		{"identity", ordersServer(jsonRoute(200, `{"orders":[]}`), jsonRoute(401, `{"error":"unauthorized"}`)), []RunOption{examples},
			"tools/read-only-examples", `unauthorized`},
		// A read-only tool nobody gave an example for.
		{"no example", good, []RunOption{WithToolExamples(map[string]any{"orders_list": map[string]any{}})},
			"tools/read-only-examples", `"orders_get" has no example`},
		// A server that answers GET with an event stream it holds open
		// must fail within the timeout, not hang the run.
		{"stream held open", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(http.StatusOK)
				w.(http.Flusher).Flush() // as net/http, the headers leave with a flush
				<-r.Context().Done()
				return
			}
			good.ServeHTTP(w, r)
		}), nil, "profile/get-405", "HTTP 200"},
		{"annotation types", rewrite(good, func(_ http.Header, b []byte) []byte {
			return bytes.ReplaceAll(b, []byte(`"readOnlyHint":true`), []byte(`"readOnlyHint":"true"`))
		}), nil, "tools/list", "annotation readOnlyHint is string"},
		{"content type", rewrite(good, func(h http.Header, b []byte) []byte {
			if h.Get("Content-Type") == "application/json" {
				h.Set("Content-Type", "text/html")
			}
			return b
		}), nil, "http/response-content-type", `Content-Type "text/html"`},
		{"ttlMs", rewrite(good, func(_ http.Header, b []byte) []byte {
			return bytes.ReplaceAll(b, []byte(`"ttlMs":0`), []byte(`"ttlMs":-5`))
		}), nil, "2026-07-28/lists", "ttlMs -5"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := failures(tc.h, append(tc.opts, ours...)...)
			if !failed(f, tc.check) {
				t.Fatalf("%s went unnoticed; failures: %v", tc.check, f)
			}
			said := false
			for _, line := range f {
				said = said || (strings.HasPrefix(line, tc.check+":") && strings.Contains(line, tc.says))
				if strings.Contains(line, "mcptest: mcptest:") || strings.Contains(line, "0xc") {
					t.Errorf("garbled failure: %s", line)
				}
			}
			if !said {
				t.Errorf("%s failed without saying %q: %v", tc.check, tc.says, f)
			}
		})
	}
}

// TestRun_NoDoubledPrefix: a client error in a check is reported once.
func TestRun_NoDoubledPrefix(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"})
	good := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()})
	broken := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Content-Type") == "text/plain" {
			w.Write([]byte("not json"))
			return
		}
		good.ServeHTTP(w, r)
	})
	f := failures(broken, ours...)
	if !failed(f, "profile/content-type-required") {
		t.Fatalf("failures: %v", f)
	}
	for _, line := range f {
		if strings.Contains(line, "mcptest: mcptest:") {
			t.Errorf("doubled prefix: %s", line)
		}
	}
}

func multiReader(first []byte, r *http.Request) io.ReadCloser {
	return io.NopCloser(io.MultiReader(bytes.NewReader(first), r.Body))
}

// goodServer is a correct dual-era server with one read-only tool.
func goodServer() http.Handler {
	srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "regional", InputSchema: json.RawMessage(`{"type":"object","properties":{"where":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}}}`)},
		"GET /r", jsonRoute(200, `"ok"`))
	srv.AddTool(mcp.Tool{Name: "hello", InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: mcp.Annotations{ReadOnly: true}},
		"GET /hello", jsonRoute(200, `"hi"`))
	return mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()})
}

// noBatchServer is goodServer refusing every batch (mcp.WithoutBatches),
// as the reference server's contract asks.
func noBatchServer() http.Handler {
	srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "hello", InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: mcp.Annotations{ReadOnly: true}},
		"GET /hello", jsonRoute(200, `"hi"`))
	return mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, mcp.WithoutBatches())
}

// replace swaps old for new in every response body of h.
func replace(h http.Handler, old, new string) http.Handler {
	return rewrite(h, func(_ http.Header, b []byte) []byte { return bytes.ReplaceAll(b, []byte(old), []byte(new)) })
}

// onRequest lets f change each request (its body read into b) before h.
func onRequest(h http.Handler, f func(r *http.Request, b []byte)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(b))
		f(r, b)
		h.ServeHTTP(w, r)
	})
}

// status returns the status of each check.
func statuses(h http.Handler, opts ...RunOption) map[string]Result {
	out := map[string]Result{}
	for _, r := range Check(h, opts...) {
		out[r.Check] = r
	}
	return out
}

// TestCheck_CatchesMustViolations: each way of breaking a MUST fails its
// check at the default level, with a detail that says what is wrong.
func TestCheck_CatchesMustViolations(t *testing.T) {
	good := goodServer()
	// A server with a resource template and a prompt, for the checks of
	// those features (goodServer has neither).
	srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"})
	srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "t://notes/{id}", Name: "note"}, "GET /notes/{id}", jsonRoute(200, `"n"`))
	srv.AddPrompt(mcp.Prompt{Name: "summarize"}, func(context.Context, map[string]string) (*mcp.PromptResult, error) {
		return &mcp.PromptResult{}, nil
	})
	features := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()})
	cases := []struct {
		check string
		h     http.Handler
		says  string
	}{
		{"2025-06-18/id-echoed", replace(good, `9007199254740993`, `9007199254740992`), "id 9007199254740993 echoed as 9007199254740992"},
		{"2026-07-28/id-echoed", replace(good, `"id-é"`, `"id-e"`), `id "id-é" echoed as "id-e"`},
		{"2025-06-18/ping", replace(good, `"result":{}`, `"result":[]`), "want an empty result"},
		{"2026-07-28/method-not-found", rewrite(good, func(h http.Header, b []byte) []byte {
			return bytes.ReplaceAll(b, []byte(`-32601`), []byte(`-32603`))
		}), "error code -32603, want -32601"},
		{"2026-07-28/unsupported-version", replace(good, `"requested":"v999.0.0"`, `"asked":"v999.0.0"`), "want supported (a non-empty list) and requested"},
		{"2026-07-28/header-mismatch", onRequest(good, func(r *http.Request, b []byte) {
			var m struct{ Method string }
			if json.Unmarshal(b, &m) == nil && r.Header.Get("Mcp-Method") != "" {
				r.Header.Set("Mcp-Method", m.Method) // the server never sees a mismatch
			}
		}), "Mcp-Method tools/list for server/discover: got HTTP 200"},
		{"2026-07-28/missing-meta", onRequest(good, func(r *http.Request, b []byte) {
			if bytes.Contains(b, []byte(`"id":31`)) {
				r.Body = io.NopCloser(strings.NewReader(`{"jsonrpc":"2.0","id":31,"method":"server/discover","params":{` + meta2026 + `}}`))
			}
		}), "no clientCapabilities in _meta: got HTTP 200"},
		{"2026-07-28/discover", replace(good, `"cacheScope":"private"`, `"cacheScope":"shared"`), `cacheScope "shared"`},
		{"2025-06-18/unknown-method", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			if bytes.Contains(b, []byte("mcptest/no-such-method")) && r.Header.Get("Mcp-Method") == "" {
				http.Error(w, "not handled", http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(b))
			good.ServeHTTP(w, r)
		}), `got HTTP 400 "not handled"`},
		{"2025-06-18/unsupported-header-version", onRequest(good, func(r *http.Request, _ []byte) {
			if r.Header.Get("MCP-Protocol-Version") == "1999-01-01" {
				r.Header.Del("MCP-Protocol-Version")
			}
		}), "want 400 Bad Request"},
		{"2025-06-18/initialize", replace(good, `"serverInfo"`, `"server"`), "serverInfo needs name and version"},
		{"http/get", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				w.Write([]byte("<html>"))
				return
			}
			good.ServeHTTP(w, r)
		}), "want text/event-stream or 405"},
		{"http/405-allow", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				w.WriteHeader(http.StatusMethodNotAllowed)
				return
			}
			good.ServeHTTP(w, r)
		}), "without an Allow header"},
		{"2025-06-18/notification", rewrite(good, func(h http.Header, b []byte) []byte {
			if len(b) == 0 {
				return []byte(`{"jsonrpc":"2.0","result":{}}`)
			}
			return b
		}), "202 with a body"},
		{"tools/unknown-tool", rewrite(good, func(_ http.Header, b []byte) []byte {
			if !bytes.Contains(b, []byte("mcptest_no_such_tool")) {
				return b
			}
			var m struct{ ID json.RawMessage }
			json.Unmarshal(b, &m)
			return []byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"content":[]}}`)
		}), "want a JSON-RPC error or a result with isError true"},
		{"2026-07-28/notification", rewrite(good, func(h http.Header, b []byte) []byte {
			if len(b) == 0 {
				return []byte(`{"jsonrpc":"2.0","result":{}}`)
			}
			return b
		}), "notifications/cancelled: 202 with a body"},
		{"http/session-id", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Mcp-Session-Id", "two words")
			good.ServeHTTP(w, r)
		}), `Mcp-Session-Id "two words" has a byte outside visible ASCII`},
		{"resources/list", replace(features, `"uriTemplate"`, `"template"`), "a template needs uriTemplate and name"},
		{"prompts/list", replace(features, `"name":"summarize"`, `"title":"summarize"`), "a prompt needs a name"},
		{"2026-07-28/resource-not-found", rewrite(features, func(_ http.Header, b []byte) []byte {
			return bytes.ReplaceAll(b, []byte(`-32602`), []byte(`-32603`))
		}), "error code -32603, want -32602"},
		{"tools/list", replace(good, `"type":"object"`, `"type":"array"`), `inputSchema must be an object schema`},
		{"2026-07-28/tool-schemas", replace(good, `"inputSchema":{"type":"object"}`, `"inputSchema":{"type":"object","minProperties":"two"}`), "does not compile"},
		{"2026-07-28/lists", replace(good, `"ttlMs":0`, `"ttlMs":1.5`), "ttlMs 1.5, want an integer"},
		{"2026-07-28/param-headers", onRequest(good, func(r *http.Request, b []byte) {
			r.Header.Del("Mcp-Param-Region") // as if the server never saw it
			r.Body = io.NopCloser(bytes.NewReader(bytes.ReplaceAll(b, []byte(`"region":"mcptest-a"`), []byte(`"region":null`))))
		}), `tool "regional" with Mcp-Param-Region: mcptest-b for an argument of mcptest-a: got HTTP 200`},
		{"2026-07-28/base64-name", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasPrefix(r.Header.Get("Mcp-Name"), "=?base64?") { // compared as sent
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				io.WriteString(w, `{"jsonrpc":"2.0","id":27,"error":{"code":-32020,"message":"header mismatch"}}`)
				return
			}
			good.ServeHTTP(w, r)
		}), `Mcp-Name =?base64?cmVnaW9uYWw=?= (the Base64 form of "regional") refused as a mismatch`},
	}
	for _, tc := range cases {
		t.Run(tc.check, func(t *testing.T) {
			r := statuses(tc.h)[tc.check]
			if r.Status != Failed || r.Level != Must {
				t.Fatalf("%s: %s at level %s, want a MUST failure: %v", tc.check, r.Status, r.Level, r.Details)
			}
			if !strings.Contains(strings.Join(r.Details, "\n"), tc.says) {
				t.Errorf("%s does not say %q: %v", tc.check, tc.says, r.Details)
			}
			if !strings.HasPrefix(r.String(), "MUST ("+r.Source+"): ") {
				t.Errorf("String() = %q", r.String())
			}
		})
	}
}

// TestCheck_OpenAnswers: answers the specification allows pass every
// MUST at the default level; only the profile's checks note them, and
// Strict makes those fail.
func TestCheck_OpenAnswers(t *testing.T) {
	good := goodServer()
	stream := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush() // as net/http, the headers leave with a flush
			<-r.Context().Done()     // held open until the client leaves
			return
		}
		w.Header().Set("Mcp-Session-Id", "s-1")
		rec := httptest.NewRecorder()
		good.ServeHTTP(rec, r)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Del("Cache-Control")
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	})
	start := time.Now()
	got := statuses(stream)
	if d := time.Since(start); d > time.Second {
		t.Errorf("the run took %v: a held-open GET must not be waited out", d)
	}
	for name, r := range got {
		if r.Status == Failed {
			t.Errorf("%s failed: %v", name, r.Details)
		}
	}
	for _, name := range []string{"profile/get-405", "profile/no-session", "profile/no-store"} {
		if got[name].Status != Warned {
			t.Errorf("%s: %s, want warned", name, got[name].Status)
		}
	}
	if got["http/get"].Status != Passed {
		t.Errorf("http/get: %s %v", got["http/get"].Status, got["http/get"].Details)
	}
	strict := statuses(stream, Strict())
	if strict["profile/get-405"].Status != Failed || strict["profile/no-store"].Status != Failed {
		t.Errorf("Strict: %s, %s; want both failed", strict["profile/get-405"].Status, strict["profile/no-store"].Status)
	}

	// An unknown tool answered as a result with isError.
	isError := rewrite(good, func(h http.Header, b []byte) []byte {
		if bytes.Contains(b, []byte(`-32602`)) && bytes.Contains(b, []byte("mcptest_no_such_tool")) {
			var m struct{ ID json.RawMessage }
			json.Unmarshal(b, &m)
			return []byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"content":[{"type":"text","text":"no such tool"}],"isError":true}}`)
		}
		return b
	})
	got = statuses(isError)
	for _, name := range []string{"tools/unknown-tool", "tools/unknown-tool-code"} {
		if got[name].Status != Passed {
			t.Errorf("isError: %s %s %v", name, got[name].Status, got[name].Details)
		}
	}
	if got["profile/unknown-tool-in-band"].Status != Warned {
		t.Errorf("isError: profile/unknown-tool-in-band %s", got["profile/unknown-tool-in-band"].Status)
	}
}

// TestCheck_GetWithoutHeaders: a GET that never answers fails the MUST
// within the short wait, not DefaultTimeout.
func TestCheck_GetWithoutHeaders(t *testing.T) {
	defer func(d time.Duration) { getWait = d }(getWait)
	getWait = 100 * time.Millisecond
	good := goodServer()
	silent := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			<-r.Context().Done()
			return
		}
		good.ServeHTTP(w, r)
	})
	start := time.Now()
	r := statuses(silent)["http/get"]
	if r.Status != Failed || !strings.Contains(strings.Join(r.Details, ""), "no response headers within 100ms") {
		t.Errorf("http/get: %s %v", r.Status, r.Details)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %v", d)
	}
}

// batching answers a JSON array by serving each member through h.
func batching(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var msgs []json.RawMessage
		if json.Unmarshal(b, &msgs) != nil {
			r.Body = io.NopCloser(bytes.NewReader(b))
			h.ServeHTTP(w, r)
			return
		}
		var out []json.RawMessage
		for _, m := range msgs {
			sub := r.Clone(r.Context())
			sub.Body, sub.ContentLength = io.NopCloser(bytes.NewReader(m)), int64(len(m))
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, sub)
			out = append(out, bytes.TrimSpace(rec.Body.Bytes()))
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(out)
	})
}

// TestCheck_Deviation: a declared deviation reports the violation without
// failing, and fails once the server meets the rule.
func TestCheck_Deviation(t *testing.T) {
	dev := Deviation("2025-03-26/batch", "refused on purpose")
	r := statuses(noBatchServer(), dev)["2025-03-26/batch"]
	if r.Status != Deviated || r.Reason != "refused on purpose" || len(r.Details) == 0 {
		t.Errorf("declared: %+v", r)
	}
	if r := statuses(noBatchServer())["2025-03-26/batch"]; r.Status != Failed {
		t.Errorf("undeclared: %+v", r)
	}
	if r := statuses(goodServer())["2025-03-26/batch"]; r.Status != Passed {
		t.Errorf("a default mcpdual server, which answers batches: %+v", r)
	}
	if r := statuses(batching(noBatchServer()))["2025-03-26/batch"]; r.Status != Passed {
		t.Errorf("a server that answers batches: %+v", r)
	}
	r = statuses(goodServer(), dev)["2025-03-26/batch"]
	if r.Status != Failed || !strings.Contains(r.Details[0], "remove mcptest.Deviation") {
		t.Errorf("stale declaration: %+v", r)
	}
}

// TestCheck_RevisionsAndSkip: Revisions leaves out other revisions'
// checks, Skip the named ones, each with the reason.
func TestCheck_RevisionsAndSkip(t *testing.T) {
	got := statuses(goodServer(), Revisions(mcp.Version20260728), Skip("2026-07-28/lists"))
	if r := got["2025-06-18/ping"]; r.Status != Skipped || !strings.Contains(r.Reason, "Revisions") {
		t.Errorf("2025-06-18/ping: %+v", r)
	}
	if r := got["2026-07-28/lists"]; r.Status != Skipped || !strings.Contains(r.Reason, "Skip") {
		t.Errorf("2026-07-28/lists: %+v", r)
	}
	if r := got["2026-07-28/discover"]; r.Status != Passed {
		t.Errorf("2026-07-28/discover: %+v", r)
	}
}

// TestCheck_RevisionsNamingNoRevision: Revisions naming a revision no
// check exercises (a typo) left out every revision's checks, and the run
// passed on the endpoint's rows alone; it fails, naming the value and the
// revisions there are, and the revision named right still runs.
func TestCheck_RevisionsNamingNoRevision(t *testing.T) {
	got := statuses(goodServer(), Revisions("2026-7-28", mcp.Version20260728))
	r := got["mcptest/revisions"]
	want := `mcptest.Revisions("2026-7-28") names no revision of the battery (2025-03-26, 2025-06-18, 2026-07-28)`
	if r.Status != Failed || r.Level != Must || len(r.Details) != 1 || !strings.Contains(r.Details[0], want) {
		t.Errorf("mcptest/revisions: %s at level %s %q; want one MUST failure saying %s", r.Status, r.Level, r.Details, want)
	}
	if r := got["2026-07-28/discover"]; r.Status != Passed {
		t.Errorf("2026-07-28/discover: %+v", r)
	}
	if _, ok := statuses(goodServer(), Revisions(mcp.Version20250618))["mcptest/revisions"]; ok {
		t.Errorf("Revisions(2025-06-18) names a revision of the battery, and fails")
	}
}

// TestCheckURL_NothingListening: when no answer came at all, the failure
// says why (here the connection refused), not only "no response".
func TestCheckURL_NothingListening(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL + "/mcp"
	srv.Close() // the port is free: nothing listens
	got := CheckURL(url)
	want := `server/discover (no response: Post "` + url + `": dial tcp`
	if len(got) != 1 || got[0].Check != "endpoint/answers" || got[0].Status != Failed || !strings.Contains(got[0].Details[0], want) || !strings.Contains(got[0].Details[0], `initialize (no response: Post "`+url) {
		t.Errorf("%+v; want endpoint/answers failed saying %s", got, want)
	}
}

// TestCheck_Nothing: an endpoint that serves neither era is one failure,
// which says so, and asks for credentials when the endpoint wants them.
func TestCheck_Nothing(t *testing.T) {
	for _, tc := range []struct {
		h    http.Handler
		says string
	}{
		{http.NotFoundHandler(), "answers neither server/discover (HTTP 404"},
		{http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusUnauthorized) }), "it wants credentials"},
	} {
		got := Check(tc.h)
		if len(got) != 1 || got[0].Status != Failed || got[0].Check != "endpoint/answers" || !strings.Contains(got[0].Details[0], tc.says) {
			t.Errorf("%+v", got)
		}
	}
}

// TestCheck_Sessions: a 2025 server that issues a session and requires it
// afterwards passes every MUST: the kit sends the session back, as a
// client must.
func TestCheck_Sessions(t *testing.T) {
	stateful := sessionServer()
	for name, r := range statuses(stateful) {
		if r.Status == Failed {
			t.Errorf("%s: %v", name, r.Details)
		}
	}
}

// TestCheck_InputRequired: interim results are checked against the
// client's declared capabilities, and the call must end complete.
func TestCheck_InputRequired(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "ask", InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: mcp.Annotations{ReadOnly: true}},
		"GET /ask", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			call := mcp.CallFromContext(r.Context())
			if _, ok := call.Elicitation("name"); ok || !call.CanRequestInput() {
				w.Write([]byte(`"hi"`))
				return
			}
			call.RequireInput(nil, mcp.ElicitForm("name", "Name?", json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)))
		}))
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()})
	examples := WithToolExamples(map[string]any{"ask": map[string]any{}})
	answers := WithClientOptions(WithCapabilities(json.RawMessage(`{"elicitation":{}}`)),
		WithAnswers(func(string, InputRequest) (json.RawMessage, bool) {
			return json.RawMessage(`{"action":"accept","content":{"name":"Ada"}}`), true
		}))
	if r := statuses(h, examples, answers)["2026-07-28/input-required"]; r.Status != Passed {
		t.Errorf("answered: %+v", r)
	}
	unanswered := WithClientOptions(WithCapabilities(json.RawMessage(`{"elicitation":{}}`)))
	if r := statuses(h, examples, unanswered)["2026-07-28/input-required"]; r.Status != Failed || !strings.Contains(r.Details[0], `resultType "input_required"`) {
		t.Errorf("unanswered: %+v", r)
	}
	// A server asking for elicitation from a client that declared none.
	// The client declares no capability, but the server is told it did.
	noCaps := onRequest(h, func(r *http.Request, b []byte) {
		r.Body = io.NopCloser(bytes.NewReader(bytes.ReplaceAll(b, []byte(`clientCapabilities":{}`), []byte(`clientCapabilities":{"elicitation":{}}`))))
	})
	if r := statuses(noCaps, examples)["2026-07-28/input-required"]; r.Status != Failed || !strings.Contains(strings.Join(r.Details, " "), "needs the elicitation capability, which the client did not declare") {
		t.Errorf("undeclared capability: %+v", r)
	}
}

// sessionServer issues a session on a 2025 initialize and requires it on
// every later 2025 request.
func sessionServer() http.Handler {
	good := goodServer()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(b))
		legacy := r.Method == http.MethodPost && r.Header.Get("Mcp-Method") == "" && !bytes.Contains(b, []byte("io.modelcontextprotocol/protocolVersion"))
		switch {
		case legacy && bytes.Contains(b, []byte(`"method":"initialize"`)):
			w.Header().Set("Mcp-Session-Id", "s-1")
		case legacy && r.Header.Get("Mcp-Session-Id") != "s-1":
			http.Error(w, "no session", http.StatusBadRequest)
			return
		}
		good.ServeHTTP(w, r)
	})
}

// TestCheck_StreamHeldOpen: a POST answered with an event stream that
// stays open after the response is read up to the response, in process
// and over the network, without waiting for the stream to end.
func TestCheck_StreamHeldOpen(t *testing.T) {
	good := goodServer()
	held := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(b))
		if r.Method != http.MethodPost || !bytes.Contains(b, []byte(`"method":"ping"`)) || bytes.HasPrefix(b, []byte("[")) {
			good.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		good.ServeHTTP(rec, r)
		if rec.Code != http.StatusOK {
			w.WriteHeader(rec.Code)
			w.Write(rec.Body.Bytes())
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: message\ndata: "+strings.TrimSpace(rec.Body.String())+"\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done() // never ends the stream itself
	})
	srv := httptest.NewServer(held)
	defer srv.Close()
	opts := []RunOption{WithClientOptions(WithTimeout(3 * time.Second))}
	for name, run := range map[string]func() []Result{
		"in-process": func() []Result { return Check(held, opts...) },
		"network":    func() []Result { return CheckURL(srv.URL, opts...) },
	} {
		start := time.Now()
		results := run()
		if d := time.Since(start); d > time.Second {
			t.Errorf("%s: took %v", name, d)
		}
		for _, r := range results {
			if r.Check == "2025-06-18/ping" && r.Status != Passed || r.Status == Failed {
				t.Errorf("%s: %s %s %v", name, r.Check, r.Status, r.Details)
			}
		}
	}
}

// TestCheck_ForeignOrigin: a server that takes any Origin is noted at the
// default level (the specification leaves the allow-list to the server)
// and fails under Strict.
func TestCheck_ForeignOrigin(t *testing.T) {
	good := goodServer()
	if r := statuses(good)["http/foreign-origin"]; r.Status != Passed {
		t.Errorf("mcpdual: %+v", r)
	}
	open := onRequest(good, func(r *http.Request, _ []byte) { r.Header.Del("Origin") })
	if r := statuses(open)["http/foreign-origin"]; r.Status != Warned || r.Level != Should || !strings.Contains(r.Details[0], "want 403 Forbidden") {
		t.Errorf("default: %+v", r)
	}
	if r := statuses(open, Strict())["http/foreign-origin"]; r.Status != Failed {
		t.Errorf("strict: %+v", r)
	}
}

// TestSameOrigin: an origin is scheme, host and port, the scheme's default
// port whether written or not; case does not matter.
func TestSameOrigin(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"https://x/mcp", "https://x:443/other", true},
		{"http://127.0.0.1:80/mcp", "http://127.0.0.1/mcp", true},
		{"https://X/mcp", "https://x/mcp", true},
		{"https://x/mcp", "http://x/mcp", false},
		{"http://127.0.0.1:8080/mcp", "http://127.0.0.1:8081/mcp", false},
		{"https://x/mcp", "https://y/mcp", false},
	} {
		a, _ := url.Parse(tc.a)
		b, _ := url.Parse(tc.b)
		if got := sameOrigin(a, b); got != tc.same {
			t.Errorf("sameOrigin(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.same)
		}
	}
}

// TestCheck_DetailsCutWhereACharacterEnds: a detail quotes at most the
// first 200 bytes of what the server answered, cut where a character
// ends. Cut through one, the detail held half a character: invalid UTF-8
// that a terminal shows as garbage and go test -json as U+FFFD, and the
// quote was not the start of what the server sent.
func TestCheck_DetailsCutWhereACharacterEnds(t *testing.T) {
	t.Parallel()
	// é's two bytes are the body's 200th and 201st.
	body := strings.Repeat("x", 199) + "é" + "and more"
	good := goodServer()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("MCP-Protocol-Version") == "1999-01-01" {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			io.WriteString(w, body)
			return
		}
		good.ServeHTTP(w, r)
	})
	const check = "2025-06-18/unsupported-header-version"
	var found bool
	for _, r := range Check(h) {
		for _, d := range r.Details {
			if !utf8.ValidString(d) {
				t.Errorf("%s: a detail that is not UTF-8: %q", r.Check, d)
			}
		}
		if r.Check == check {
			found = true
			if want := "HTTP 200 " + strings.Repeat("x", 199) + "…"; r.Status != Failed || len(r.Details) != 1 || !strings.Contains(r.Details[0], want) {
				t.Errorf("%s: %s %q; want failed, quoting the body's first 199 bytes", check, r.Status, r.Details)
			}
		}
	}
	if !found {
		t.Fatalf("no result for %s", check)
	}
}
