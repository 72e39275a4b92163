package mcptest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// TestCheck_ListsReadOncePerRevision: the battery reads each list whole
// once per client, whatever number of checks want it, and asks the
// answers the header checks judge once, so a server's rate budget is not
// spent asking the same again (it was read six times in each revision).
// tools/list without a cursor is sent once for the lists, once for the
// header checks, and on 2026-07-28 once more by the client, to learn the
// tools' Mcp-Param-* headers.
func TestCheck_ListsReadOncePerRevision(t *testing.T) {
	var mu sync.Mutex
	reads := map[string]int{}
	good := goodServer()
	srv := httptest.NewServer(onRequest(good, func(r *http.Request, b []byte) {
		var m struct {
			Method string
			Params struct{ Cursor *string }
		}
		if json.Unmarshal(b, &m) == nil && m.Method == "tools/list" && m.Params.Cursor == nil && !bytes.Contains(b, []byte(`"method":"ping"`)) {
			v := r.Header.Get("MCP-Protocol-Version")
			if v == "" {
				v = "none"
			}
			mu.Lock()
			reads[v]++
			mu.Unlock()
		}
	}))
	defer srv.Close()
	for _, r := range CheckURL(srv.URL, ours...) {
		if r.Status == Failed {
			t.Errorf("%s: %v", r.Check, r.Details)
		}
	}
	want := map[string]int{"2026-07-28": 3, "2025-06-18": 2, "2025-03-26": 2}
	for v, n := range want {
		if reads[v] > n {
			t.Errorf("%s tools/list read %d times, want at most %d (%v)", v, reads[v], n, reads)
		}
	}
}
