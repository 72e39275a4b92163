package mcptest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
)

// ours is how mcpdual's own servers run the kit: strict, with the
// profile's one declared deviation.
var ours = []RunOption{Strict(), Deviation("2025-03-26/batch", "mcpdual refuses batches in every revision")}

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
