package mcp_test

import (
	"bytes"
	"net/http"
	"testing"
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
	h := goldenServer()
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
