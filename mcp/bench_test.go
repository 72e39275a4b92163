package mcp_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"

	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/ratelimit"
)

// discardWriter is a minimal ResponseWriter so the benchmark measures the
// endpoint, not a recorder.
type discardWriter struct {
	h      http.Header
	status int
	n      int
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) WriteHeader(s int)           { w.status = s }
func (w *discardWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }

func benchCall(b *testing.B, headers map[string]string, body string) {
	benchHandler(b, goldenServer(), headers, body)
}

func benchHandler(b *testing.B, h http.Handler, headers map[string]string, body string) {
	req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", nil)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	w := &discardWriter{h: http.Header{}}
	rd := bytes.NewReader([]byte(body))
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		rd.Reset([]byte(body))
		req.Body = noopCloser{rd}
		req.ContentLength = int64(len(body))
		clear(w.h)
		w.status, w.n = 0, 0
		h.ServeHTTP(w, req)
		if w.status != http.StatusOK {
			b.Fatalf("status %d", w.status)
		}
	}
}

type noopCloser struct{ *bytes.Reader }

func (noopCloser) Close() error { return nil }

// BenchmarkToolsCall measures a tools/call of a small http.Handler tool
// with an outputSchema, in process, per revision.
func BenchmarkToolsCall(b *testing.B) {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}`
	b.Run("2026-07-28", func(b *testing.B) {
		benchCall(b, map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "greet"},
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"},`+meta+`}}`)
	})
	b.Run("2025-06-18", func(b *testing.B) {
		benchCall(b, map[string]string{"MCP-Protocol-Version": "2025-06-18"},
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}}}`)
	})
}

func BenchmarkToolsList(b *testing.B) {
	benchCall(b, map[string]string{"MCP-Protocol-Version": "2025-06-18"}, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
}

// BenchmarkToolsCallSecured is BenchmarkToolsCall on 2026-07-28 behind
// bearer authentication, a per-principal rate limit and a concurrency
// bound: what the security features cost per call.
func BenchmarkToolsCallSecured(b *testing.B) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /greetings/{name}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"greeting":"Hello!"}`))
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "bench", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "greet", InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)},
		"GET /greetings/{name}", mux, mcp.RequireScopes("mcp:read"))
	a := auth.New(auth.Config{Resource: resourceURI, Verifier: auth.VerifierFunc(testVerifier)})
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New()}, mcp.WithAuth(a),
		mcp.WithRateLimit(ratelimit.NewMemory(1e9, 1<<30)), mcp.WithLimits(mcp.Limits{Concurrent: 64}))
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	benchHandler(b, h, map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "greet",
		"Authorization": "Bearer " + tokAlice},
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"},`+meta+`}}`)
}

// BenchmarkTemplateRead reads through a template on servers with 10 and
// 10,000 fixed resources, some registered with escapes: a URI no fixed
// resource has must not cost a walk of them all.
func BenchmarkTemplateRead(b *testing.B) {
	for _, n := range []int{10, 10000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			mux := http.NewServeMux()
			mux.HandleFunc("GET /f", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("f")) })
			mux.HandleFunc("GET /docs/{x}", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("doc")) })
			srv := mcp.NewServer(mcp.Implementation{Name: "bench", Version: "1"})
			for i := range n {
				uri := "fixed://r/" + strconv.Itoa(i)
				if i%10 == 0 {
					uri += "%7E"
				}
				srv.AddResource(mcp.Resource{URI: uri, Name: "r"}, "GET /f", mux)
			}
			srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "docs://{x}", Name: "doc"}, "GET /docs/{x}", mux)
			benchHandler(b, mcp.NewHandler(srv, []mcp.Era{era2026.New()}), map[string]string{"MCP-Protocol-Version": "2026-07-28",
				"Mcp-Method": "resources/read", "Mcp-Name": "docs://a"},
				`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"docs://a","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
		})
	}
}
