package mcp_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpdual/mcpdual/internal/syncbuf"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
)

// eras are the revisions every era-independent rule is checked in.
var eras = []mcp.Version{mcp.Version20260728, mcp.Version20251125, mcp.Version20250618, mcp.Version20250326}

// fixture is an endpoint over a small REST API whose routes count their
// calls, so tests can prove a route ran or never ran.
type fixture struct {
	url   string
	hits  map[string]*atomic.Int64
	seen  atomic.Value // last *http.Request a route saw
	mux   *http.ServeMux
	srv   *mcp.Server
	h     *mcp.Handler
	close func()
	log   *syncBuffer
}

// syncBuffer collects log output from concurrent requests.
type syncBuffer = syncbuf.Buffer

func (f *fixture) count(route string) int64 { return f.hits[route].Load() }

func newFixture(t testing.TB, opts ...mcp.HandlerOption) *fixture {
	t.Helper()
	f := &fixture{hits: map[string]*atomic.Int64{}, mux: http.NewServeMux()}
	route := func(pattern string, h http.HandlerFunc) {
		c := &atomic.Int64{}
		f.hits[pattern] = c
		f.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			c.Add(1)
			f.seen.Store(r)
			h(w, r)
		})
	}
	jsonBody := func(w http.ResponseWriter, status int, body string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
	route("GET /items/{id}", func(w http.ResponseWriter, r *http.Request) {
		b, _ := json.Marshal(map[string]string{"id": r.PathValue("id"), "query": r.URL.RawQuery})
		jsonBody(w, 200, string(b))
	})
	route("GET /items/{id}/secret", func(w http.ResponseWriter, r *http.Request) { jsonBody(w, 200, `{"secret":true}`) })
	route("GET /admin", func(w http.ResponseWriter, r *http.Request) { jsonBody(w, 200, `{"admin":true}`) })
	route("POST /echo", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		jsonBody(w, 200, string(b))
	})
	route("GET /missing", func(w http.ResponseWriter, r *http.Request) { jsonBody(w, 404, `{"error":"no such thing"}`) })
	route("GET /broken", func(w http.ResponseWriter, r *http.Request) {
		jsonBody(w, 500, `{"error":"db password=hunter2 failed"}`)
	})
	route("GET /panic", func(w http.ResponseWriter, r *http.Request) { panic("boom: secret detail") })
	route("GET /image", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte{0x89, 'P', 'N', 'G'})
	})
	route("GET /audio", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "audio/wav")
		w.Write([]byte("RIFF"))
	})
	route("GET /own", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", mcp.ToolResultMediaType)
		io.WriteString(w, `{"content":[{"type":"text","text":"own"}],"structuredContent":{"n":1},"isError":false}`)
	})
	route("GET /typed", func(w http.ResponseWriter, r *http.Request) { jsonBody(w, 200, `{"n":7}`) })
	route("GET /mistyped", func(w http.ResponseWriter, r *http.Request) { jsonBody(w, 200, `{"n":"seven"}`) })
	route("GET /headers", func(w http.ResponseWriter, r *http.Request) {
		b, _ := json.Marshal(map[string]any{"authorization": r.Header.Values("Authorization"), "cookie": r.Header.Values("Cookie"), "tool": mcp.CallFromContext(r.Context()).Target()})
		jsonBody(w, 200, string(b))
	})
	route("GET /regional", func(w http.ResponseWriter, r *http.Request) { jsonBody(w, 200, `{"ok":true}`) })

	f.srv = mcp.NewServer(mcp.Implementation{Name: "fixture", Title: "Fixture", Version: "1.0.0"},
		mcp.WithInstructions("Test fixture."), mcp.WithPageSize(5))
	obj := func(s string) json.RawMessage { return json.RawMessage(s) }
	idSchema := obj(`{"type":"object","properties":{"id":{"type":"string"},"q":{"type":"string"},"n":{"type":"integer"}},"required":["id"]}`)
	f.srv.AddTool(mcp.Tool{Name: "items_get", Title: "Get an item", Description: "Reads an item.", InputSchema: idSchema,
		Annotations: mcp.Annotations{ReadOnly: true, Idempotent: true}}, "GET /items/{id}", f.mux)
	f.srv.AddTool(mcp.Tool{Name: "echo", Description: "Echoes its arguments.",
		InputSchema: obj(`{"type":"object","properties":{"text":{"type":"string","maxLength":10}}}`)}, "POST /echo", f.mux)
	empty := obj(`{"type":"object"}`)
	for _, n := range []string{"missing", "broken", "panic", "image", "audio", "own", "headers"} {
		f.srv.AddTool(mcp.Tool{Name: n, Description: n, InputSchema: empty}, "GET /"+n, f.mux)
	}
	out := obj(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)
	f.srv.AddTool(mcp.Tool{Name: "typed", Title: "Typed", Description: "typed", InputSchema: empty, OutputSchema: out}, "GET /typed", f.mux)
	f.srv.AddTool(mcp.Tool{Name: "mistyped", Description: "mistyped", InputSchema: empty, OutputSchema: out}, "GET /mistyped", f.mux)
	f.srv.AddTool(mcp.Tool{Name: "regional", Description: "has header params",
		InputSchema: obj(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"count":{"type":"integer","x-mcp-header":"Count"},"opts":{"type":"object","properties":{"dry":{"type":"boolean","x-mcp-header":"Dry"}}}}}`)},
		"GET /regional", f.mux)
	f.log = &syncBuffer{}
	opts = append([]mcp.HandlerOption{mcp.WithLogger(slog.New(slog.NewTextHandler(f.log, nil)))}, opts...)
	f.h = mcp.NewHandler(f.srv, []mcp.Era{era2026.New(), era2025.New()}, opts...)
	ts := httptest.NewServer(f.h)
	f.url, f.close = ts.URL, ts.Close
	t.Cleanup(ts.Close)
	return f
}

// call is one request to the endpoint.
type call struct {
	era     mcp.Version // "" sends no protocol header and no _meta
	id      string      // raw JSON id; "" for a notification
	method  string
	params  string            // raw JSON members of params, without braces (no _meta)
	header  map[string]string // extra or overriding headers; "" value deletes
	rawBody string            // sent as is when set
}

// body builds the JSON-RPC body; 2026 requests get the _meta envelope.
func (c call) body() string {
	if c.rawBody != "" {
		return c.rawBody
	}
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0",`)
	if c.id != "" {
		b.WriteString(`"id":` + c.id + `,`)
	}
	b.WriteString(`"method":` + quoteJSON(c.method))
	members := c.params
	if c.era == mcp.Version20260728 {
		meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"test","version":"1"}}`
		if members != "" {
			members = meta + "," + members
		} else {
			members = meta
		}
	}
	if members != "" {
		b.WriteString(`,"params":{` + members + `}`)
	}
	b.WriteString(`}`)
	return b.String()
}

func quoteJSON(s string) string { b, _ := json.Marshal(s); return string(b) }

// reply is a decoded response.
type reply struct {
	status int
	header http.Header
	raw    []byte
	msg    struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  json.RawMessage `json:"result"`
		Error   *struct {
			Code    int             `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		} `json:"error"`
	}
}

func (r *reply) code() int {
	if r.msg.Error == nil {
		return 0
	}
	return r.msg.Error.Code
}

// result decodes the result into a generic map.
func (r *reply) result(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.msg.Result, &m); err != nil {
		t.Fatalf("result %s: %v (body %s)", r.msg.Result, err, r.raw)
	}
	return m
}

// headersFor returns the headers a correct client of era sends.
func headersFor(c call) http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	if c.era != "" && !(c.era == mcp.Version20250618 && c.method == "initialize") {
		h.Set("MCP-Protocol-Version", string(c.era))
	}
	if c.era == mcp.Version20260728 {
		h.Set("Mcp-Method", c.method)
		if c.method == "tools/call" {
			var p struct {
				Name string `json:"name"`
			}
			json.Unmarshal([]byte("{"+c.params+"}"), &p)
			h.Set("Mcp-Name", p.Name)
		}
	}
	for k, v := range c.header {
		if raw, ok := strings.CutPrefix(k, "raw:"); ok {
			h[raw] = []string{v} // sent with the name's case as written
			continue
		}
		if v == "" {
			h.Del(k)
		} else {
			h.Set(k, v)
		}
	}
	return h
}

func (f *fixture) do(t testing.TB, c call) *reply {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, f.url, strings.NewReader(c.body()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = headersFor(c)
	return send(t, req)
}

func send(t testing.TB, req *http.Request) *reply {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	r := &reply{status: resp.StatusCode, header: resp.Header}
	r.raw, _ = io.ReadAll(resp.Body)
	if len(r.raw) > 0 {
		if err := json.Unmarshal(r.raw, &r.msg); err != nil {
			t.Fatalf("response is not one JSON object: %q", r.raw)
		}
		if bytes.Count(r.raw, []byte("\n")) != 0 {
			t.Errorf("response is not compact: %q", r.raw)
		}
	}
	return r
}

// checkCommon asserts what every response carries.
func checkCommon(t testing.TB, r *reply) {
	t.Helper()
	if got := r.header.Get("Cache-Control"); got != "no-store" {
		t.Errorf("Cache-Control = %q", got)
	}
	if r.header.Get("Mcp-Session-Id") != "" {
		t.Error("a session id was sent")
	}
	if len(r.raw) > 0 && r.header.Get("Content-Type") != "application/json" {
		t.Errorf("Content-Type = %q", r.header.Get("Content-Type"))
	}
	if len(r.raw) > 0 && r.msg.JSONRPC != "2.0" {
		t.Errorf("jsonrpc = %q", r.msg.JSONRPC)
	}
}

func newTestServer(t testing.TB, h http.Handler) string {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL
}
