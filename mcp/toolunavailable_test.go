package mcp_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
)

// TestToolRoute_UnavailableSaysRetry: a tool's route that answers a
// transient 5xx (502, 503, 504: its job queue is full, a dependency is
// down) is a condition the caller can act on — retry later — so the
// result is isError saying so, with the route's Retry-After when it is
// seconds, in every revision; the route's body is never shown. Any other
// 5xx stays the generic internal error.
func TestToolRoute_UnavailableSaysRetry(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Implementation{Name: "busy", Version: "1"})
	answer := func(status int, retryAfter string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if retryAfter != "" {
				w.Header().Set("Retry-After", retryAfter)
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			io.WriteString(w, `{"error":"queue full on db-7 (password hunter2)"}`)
		})
	}
	obj := json.RawMessage(`{"type":"object"}`)
	srv.AddTool(mcp.Tool{Name: "queue_full", InputSchema: obj}, "POST /queue", answer(http.StatusServiceUnavailable, "7"))
	srv.AddTool(mcp.Tool{Name: "gateway", InputSchema: obj}, "POST /gateway", answer(http.StatusBadGateway, ""))
	srv.AddTool(mcp.Tool{Name: "dated", InputSchema: obj}, "POST /dated", answer(http.StatusGatewayTimeout, "Wed, 21 Oct 2026 07:28:00 GMT"))
	srv.AddTool(mcp.Tool{Name: "broken", InputSchema: obj}, "POST /broken", answer(http.StatusInternalServerError, "7"))
	url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()},
		mcp.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))))
	want := map[string]string{
		"queue_full": "The tool's service is temporarily unavailable (503 Service Unavailable); retry in 7 s.",
		"gateway":    "The tool's service is temporarily unavailable (502 Bad Gateway); retry shortly.",
		"dated":      "The tool's service is temporarily unavailable (504 Gateway Timeout); retry shortly.",
		"broken":     "The tool failed with an internal error.",
	}
	for _, v := range []mcp.Version{mcp.Version20250326, mcp.Version20250618, mcp.Version20251125, mcp.Version20260728} {
		for name, text := range want {
			status, _, raw := specPost(t, url, v, "tools/call", name, specBody(v, 3, "tools/call", `"name":"`+name+`","arguments":{}`, "", ""), nil)
			var m struct {
				Error  json.RawMessage `json:"error"`
				Result struct {
					Content []struct{ Type, Text string }
					IsError bool `json:"isError"`
				} `json:"result"`
			}
			if err := json.Unmarshal(raw, &m); err != nil {
				t.Fatalf("%s %s: %v: %s", v, name, err, raw)
			}
			if status != http.StatusOK || m.Error != nil || !m.Result.IsError || len(m.Result.Content) != 1 || m.Result.Content[0].Text != text {
				t.Errorf("%s %s: %d %s, want 200 and isError %q", v, name, status, raw, text)
			}
			if strings.Contains(string(raw), "hunter2") || strings.Contains(string(raw), "db-7") {
				t.Errorf("%s %s: the route's 5xx body reached the caller: %s", v, name, raw)
			}
		}
	}
}
