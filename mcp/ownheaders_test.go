package mcp_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
)

// editingWriter is a host middleware's writer that edits the endpoint's
// header values in place when the status line goes out, as the owner of
// w.Header() may.
type editingWriter struct{ http.ResponseWriter }

func (w editingWriter) WriteHeader(status int) {
	h := w.Header()
	if v := h["Content-Type"]; len(v) > 0 {
		v[0] += "; charset=utf-8"
	}
	if v := h["Cache-Control"]; len(v) > 0 {
		v[0] += ", private"
	}
	if v := h["Mcp-Protocol-Version"]; len(v) > 0 {
		v[0] = strings.ToUpper(v[0]) // harmless for a date, visible if shared
	}
	w.ResponseWriter.WriteHeader(status)
}

// TestHeaders_OwnedPerResponse (design record 017, headers each response owns): every response, and the
// request every route gets, holds header values of its own. A host
// middleware editing them in place (legal: it owns w.Header()) must change
// neither a later response nor a concurrent one; with shared slices the
// edits pile up ("; charset=utf-8; charset=utf-8") and -race reports the
// concurrent writes.
func TestHeaders_OwnedPerResponse(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /echo", func(w http.ResponseWriter, r *http.Request) {
		// The route, too, may edit its request's headers in place.
		accept, ctype := r.Header["Accept"][0], r.Header["Content-Type"][0]
		r.Header["Accept"][0] += ", text/plain"
		r.Header["Content-Type"][0] += "; edited"
		fmt.Fprintf(w, "%s|%s", accept, ctype)
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "own", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "echo"}, "POST /echo", mux)
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(editingWriter{w}, r)
	}))
	t.Cleanup(ts.Close)

	calls := []call{
		{era: mcp.Version20260728, id: "1", method: "tools/call", params: `"name":"echo","arguments":{}`},
		{era: mcp.Version20250618, id: "1", method: "tools/call", params: `"name":"echo","arguments":{}`},
		{era: mcp.Version20250618, id: "1", method: "tools/call", params: `"name":"nope","arguments":{}`}, // an error answer
	}
	concurrently(t, 16, 20, 5, func(c, i int, report func(string)) {
		cl := calls[(c+i)%len(calls)]
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(cl.body()))
		req.Header = headersFor(cl)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			report(err.Error())
			return
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		for name, want := range map[string]string{
			"Content-Type":         "application/json; charset=utf-8",
			"Cache-Control":        "no-store, private",
			"Mcp-Protocol-Version": string(cl.era),
		} {
			if got := resp.Header.Values(name); len(got) != 1 || got[0] != want {
				report(fmt.Sprintf("%s: %s = %q, want %q", cl.era, name, got, want))
			}
		}
		if strings.Contains(cl.params, "echo") {
			var msg struct {
				Result struct {
					Content []struct{ Text string } `json:"content"`
					IsError bool                    `json:"isError"`
				} `json:"result"`
			}
			json.Unmarshal(body, &msg)
			if r := msg.Result; r.IsError || len(r.Content) != 1 || r.Content[0].Text != "application/json|application/json" {
				report(fmt.Sprintf("%s: the route saw %s", cl.era, body))
			}
		}
	})
}

// concurrently runs one from clients goroutines at once, each calling it
// each times (c is the goroutine, i the call), and reports the first
// shown problems one reported: the header tests' load, where a value
// shared between responses shows as an edit piled up, and as a race.
func concurrently(t *testing.T, clients, each, shown int, one func(c, i int, report func(string))) {
	t.Helper()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var problems []string
	report := func(p string) {
		mu.Lock()
		problems = append(problems, p)
		mu.Unlock()
	}
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				one(c, i, report)
			}
		}()
	}
	wg.Wait()
	for _, p := range problems[:min(len(problems), shown)] {
		t.Error(p)
	}
}
