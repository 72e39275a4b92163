package bench

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// call serves one request to h in process.
func call(t *testing.T, h http.Handler, hdr http.Header, body []byte) *httptest.ResponseRecorder {
	t.Helper()
	// A loopback Host: mcpdual refuses others by default.
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", bytes.NewReader(body))
	req.Header = hdr
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func newVariant(t testing.TB, v string) http.Handler {
	h, err := New(v)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestEcho: every variant answers every revision with one text block
// echoing the text, as JSON, minting no session id.
func TestEcho(t *testing.T) {
	for _, proto := range Protos() {
		for _, v := range Variants() {
			t.Run(proto+"/"+v, func(t *testing.T) {
				rec := call(t, newVariant(t, v), Headers(proto), AppendToolsCall(nil, proto, 42, "hello-mcp"))
				if err := QuickCheck(rec.Code, rec.Header(), rec.Body.Bytes(), "hello-mcp"); err != nil {
					t.Fatal(err)
				}
				if err := FullCheck(rec.Body.Bytes(), 42, "hello-mcp"); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestInvalidArguments: arguments that break EchoSchema never reach the
// tool as if valid. mcpgo has no schema validation; its handler's
// RequireString refuses them instead, which is why it is compared with
// mcpgo-validate too.
func TestInvalidArguments(t *testing.T) {
	for _, proto := range Protos() {
		for _, v := range Variants() {
			for _, args := range []string{`{"text":5}`, `{}`} {
				t.Run(proto+"/"+v+"/"+args, func(t *testing.T) {
					body := bytes.Replace(AppendToolsCall(nil, proto, 1, "x"), []byte(`{"text":"x"}`), []byte(args), 1)
					rec := call(t, newVariant(t, v), Headers(proto), body)
					var resp struct {
						Result *struct {
							IsError bool `json:"isError"`
						} `json:"result"`
						Error json.RawMessage `json:"error"`
					}
					if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
						t.Fatalf("%d %s: %v", rec.Code, rec.Body, err)
					}
					if resp.Error == nil && (resp.Result == nil || !resp.Result.IsError) {
						t.Errorf("accepted %s: %d %s", args, rec.Code, rec.Body)
					}
				})
			}
		}
	}
}

// TestHeaderMismatch: a 2026-07-28 request whose Mcp-Name disagrees with
// params.name is refused with HTTP 400 and -32020. mcpdual and floor must;
// the pinned SDK versions do too, so all are held to it.
func TestHeaderMismatch(t *testing.T) {
	for _, v := range Variants() {
		t.Run(v, func(t *testing.T) {
			hdr := Headers(Proto2026)
			hdr.Set("Mcp-Name", "not-echo")
			rec := call(t, newVariant(t, v), hdr, AppendToolsCall(nil, Proto2026, 7, "x"))
			var resp struct {
				Error *struct{ Code int } `json:"error"`
			}
			json.Unmarshal(rec.Body.Bytes(), &resp)
			if rec.Code != http.StatusBadRequest || resp.Error == nil || resp.Error.Code != -32020 {
				t.Errorf("got %d %s, want 400 with -32020", rec.Code, rec.Body)
			}
		})
	}
}

// TestLoad runs the load generator briefly against every variant on a
// real loopback socket, and checks that it refuses what it must.
func TestLoad(t *testing.T) {
	for _, proto := range Protos() {
		for _, v := range Variants() {
			t.Run(proto+"/"+v, func(t *testing.T) {
				ts := httptest.NewServer(newVariant(t, v)) // listens on 127.0.0.1
				defer ts.Close()
				// The run ends at 200 requests: the window only bounds it,
				// wide enough for a loaded machine under -race.
				res, err := Load(LoadConfig{URL: ts.URL + "/mcp", Proto: proto, Workers: 2,
					Duration: 30 * time.Second, MaxRequests: 200})
				if err != nil {
					t.Fatal(err)
				}
				if !res.Capped || res.Requests == 0 || res.Requests > 200 || res.Errors != 0 {
					t.Errorf("want a capped run of at most 200 requests without errors: %+v", res)
				}
			})
		}
	}
	t.Run("refusals", func(t *testing.T) {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`)
		}))
		defer ts.Close()
		ok := LoadConfig{URL: ts.URL, Proto: Proto2025, Workers: 1, Duration: time.Second, MaxRequests: 10}
		for name, cfg := range map[string]LoadConfig{
			"wrong answer":     ok,
			"not loopback":     func(c LoadConfig) LoadConfig { c.URL = "http://192.0.2.1/mcp"; return c }(ok),
			"host name":        func(c LoadConfig) LoadConfig { c.URL = strings.Replace(c.URL, "127.0.0.1", "localhost", 1); return c }(ok),
			"unbounded":        func(c LoadConfig) LoadConfig { c.Duration = time.Hour; return c }(ok),
			"no request limit": func(c LoadConfig) LoadConfig { c.MaxRequests = 0; return c }(ok),
		} {
			if _, err := Load(cfg); err == nil {
				t.Errorf("%s: no error", name)
			}
		}
	})
}

// sink is a reusable ResponseWriter, so that the benchmarks measure the
// endpoints rather than a fresh recorder per call. Flush is there for
// handlers that look for an http.Flusher; none of the variants streams
// here.
type sink struct {
	h      http.Header
	status int
	body   bytes.Buffer
}

func (w *sink) Header() http.Header { return w.h }
func (w *sink) WriteHeader(s int) {
	if w.status == 0 {
		w.status = s
	}
}
func (w *sink) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.Write(p)
}
func (w *sink) Flush() {}

// BenchmarkToolsCall measures the server side of one tools/call per
// revision and variant: HTTP layer, JSON-RPC, dispatch, validation, the
// tool, encoding. The request and the writer are built once and reset
// per iteration, so neither is counted. Names put the variant last so
// that the -N suffix of GOMAXPROCS is never confused with the revision's
// day.
func BenchmarkToolsCall(b *testing.B) {
	for _, proto := range Protos() {
		for _, v := range Variants() {
			b.Run(proto+"/"+v, func(b *testing.B) {
				h := newVariant(b, v)
				body := AppendToolsCall(nil, proto, 1, "hello-mcp")
				rd := bytes.NewReader(body)
				rc := io.NopCloser(rd)
				req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", nil)
				if err != nil {
					b.Fatal(err)
				}
				req.Header = Headers(proto)
				w := &sink{h: http.Header{}}
				b.ReportAllocs()
				for b.Loop() {
					rd.Reset(body)
					// Handlers may replace Body (http.MaxBytesReader);
					// put the reader back every time.
					req.Body, req.ContentLength = rc, int64(len(body))
					clear(w.h)
					w.status = 0
					w.body.Reset()
					h.ServeHTTP(w, req)
					if w.status != http.StatusOK {
						b.Fatalf("status %d: %s", w.status, w.body.Bytes())
					}
				}
				b.StopTimer()
				if err := QuickCheck(w.status, w.h, w.body.Bytes(), "hello-mcp"); err != nil {
					b.Fatal(err)
				}
			})
		}
	}
}

// TestMandatory: the floor does the work every endpoint must, as mcpdual
// does, so that reading one against the other is fair: the answer is
// never cached and names its revision, a foreign Origin is refused, so is
// a revision the endpoint does not serve, a body over 1 MiB is refused
// before it is decoded.
func TestMandatory(t *testing.T) {
	for _, v := range []string{Floor, MCPDual, MCPDualFunc} {
		for _, proto := range Protos() {
			t.Run(v+"/"+proto, func(t *testing.T) {
				h := newVariant(t, v)
				rec := call(t, h, Headers(proto), AppendToolsCall(nil, proto, 1, "x"))
				if got := rec.Header().Get("Cache-Control"); rec.Code != http.StatusOK || got != "no-store" {
					t.Errorf("status %d, Cache-Control %q, want 200 and no-store", rec.Code, got)
				}
				if got := rec.Header().Get("MCP-Protocol-Version"); got != proto {
					t.Errorf("MCP-Protocol-Version %q, want %q", got, proto)
				}
				for origin, want := range map[string]int{"http://127.0.0.1:6274": http.StatusOK, "http://localhost": http.StatusOK,
					"https://evil.example": http.StatusForbidden, "null": http.StatusForbidden} {
					hdr := Headers(proto)
					hdr.Set("Origin", origin)
					if rec := call(t, h, hdr, AppendToolsCall(nil, proto, 1, "x")); rec.Code != want {
						t.Errorf("Origin %s: status %d, want %d", origin, rec.Code, want)
					}
				}
				if proto == Proto2025 {
					hdr := Headers(proto)
					hdr.Set("MCP-Protocol-Version", "2024-01-01")
					if rec := call(t, h, hdr, AppendToolsCall(nil, proto, 1, "x")); rec.Code != http.StatusBadRequest {
						t.Errorf("MCP-Protocol-Version 2024-01-01: status %d, want 400", rec.Code)
					}
				}
				big := AppendToolsCall(nil, proto, 1, strings.Repeat("a", 1<<20))
				if rec := call(t, h, Headers(proto), big); rec.Code != http.StatusRequestEntityTooLarge {
					t.Errorf("%d-byte body: status %d, want 413", len(big), rec.Code)
				}
			})
		}
	}
}

// TestFloorAllocs holds the floor lean: it is the bar the library is read
// against, so a regression that fattens it would flatter every ratio.
// The counts are encoding/json's own (its decode state and scanner
// stack, one string per decoded field, the *string of the argument) plus
// nothing of the floor's.
func TestFloorAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are read without the race detector, which makes pools drop items; .ci/bench.sh runs this test without it")
	}
	for proto, max := range map[string]float64{Proto2025: 13, Proto2026: 16} {
		h := newVariant(t, Floor)
		body := AppendToolsCall(nil, proto, 1, "hello-mcp")
		rd := bytes.NewReader(body)
		rc := io.NopCloser(rd)
		req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", nil)
		req.Header = Headers(proto)
		w := &sink{h: http.Header{}}
		h.ServeHTTP(w, req) // warm the pool
		got := testing.AllocsPerRun(200, func() {
			rd.Reset(body)
			req.Body, req.ContentLength = rc, int64(len(body))
			clear(w.h)
			w.status = 0
			w.body.Reset()
			h.ServeHTTP(w, req)
		})
		if got > max {
			t.Errorf("%s: the floor allocates %.0f times per call, budget %.0f", proto, got, max)
		}
	}
}
