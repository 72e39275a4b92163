package mcp_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

// FuzzEndpoint sends arbitrary bodies under each era's headers. Whatever
// arrives, the answer is a known status with one complete JSON object (or
// 202 with nothing), never a panic or a 5xx.
func FuzzEndpoint(f *testing.F) {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{"name":"../x"},` + meta + `}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"x",` + meta + `}}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`,
	} {
		for era := byte(0); era < 3; era++ {
			f.Add([]byte(s), era, "greet")
		}
	}
	h := goldenServer()
	f.Fuzz(func(t *testing.T, body []byte, era byte, name string) {
		req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		switch era % 3 {
		case 0:
			req.Header.Set("MCP-Protocol-Version", "2026-07-28")
			req.Header.Set("Mcp-Method", "tools/call")
			req.Header.Set("Mcp-Name", name)
		case 1:
			req.Header.Set("MCP-Protocol-Version", "2025-03-26")
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		switch rec.Code {
		case 200, 400, 404, 413:
		case 202:
			if rec.Body.Len() != 0 {
				t.Fatalf("202 with a body: %q", rec.Body.Bytes())
			}
			return
		default:
			t.Fatalf("status %d for %q: %s", rec.Code, body, rec.Body.Bytes())
		}
		// One JSON object; a 2025-03-26 batch gets an array of them.
		var batch []map[string]json.RawMessage
		if out := bytes.TrimSpace(rec.Body.Bytes()); len(out) > 0 && out[0] == '[' {
			if era%3 == 0 || json.Unmarshal(out, &batch) != nil || len(batch) == 0 {
				t.Fatalf("not a batch answer (or one where no batch is served): %q", out)
			}
		} else {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(out, &m); err != nil {
				t.Fatalf("not one JSON object: %q", rec.Body.Bytes())
			}
			batch = append(batch, m)
		}
		for _, m := range batch {
			if (m["result"] == nil) == (m["error"] == nil) {
				t.Fatalf("needs exactly one of result and error: %s", rec.Body.Bytes())
			}
		}
	})
}
