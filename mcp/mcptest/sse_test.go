package mcptest_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/mcptest"
)

// sseServer answers every request with one event stream whose lines end
// as eol says, a byte-order mark first when bom: all legal (the SSE
// format ends a line with CRLF, LF or a lone CR, and skips a leading
// U+FEFF). open keeps the stream open after the event, as a server
// holding a stream does.
func sseServer(eol string, bom, open bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		body := ": comment" + eol + "retry: 1000" + eol + `data: {"jsonrpc":"2.0","id":1,` + eol + `data: "result":{}}` + eol + eol
		if bom {
			body = "\uFEFF" + body
		}
		w.Write([]byte(body))
		if open {
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		}
	})
}

// TestClient_SSELineEndings: the kit's client reads every legal event
// stream: a server using lone CRs, or a byte-order mark, was read as
// answering nothing (and an open stream waited out the timeout).
func TestClient_SSELineEndings(t *testing.T) {
	t.Parallel()
	for _, eol := range []string{"\n", "\r\n", "\r"} {
		for _, bom := range []bool{false, true} {
			for _, open := range []bool{false, true} {
				c := mcptest.New(sseServer(eol, bom, open), mcp.Version20260728)
				ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
				res, err := c.Call(ctx, "server/discover", nil)
				cancel()
				if err != nil || res == nil || res.Result == nil || strings.TrimSpace(string(res.ID)) != "1" {
					t.Errorf("end %q, bom %v, open %v: %v %+v", eol, bom, open, err, res)
				}
			}
		}
	}
}

// TestCheck_UnknownDeviation: a deviation naming no check of the battery
// (a typo) fails, naming itself, instead of silencing nothing unseen.
func TestCheck_UnknownDeviation(t *testing.T) {
	t.Parallel()
	results := mcptest.Check(server(era2026.New(), era2025.New()), mcptest.Deviation("2025-03-26/bacth", "we refuse batches"))
	for _, r := range results {
		if r.Check == "2025-03-26/bacth" && r.Status == mcptest.Failed && strings.Contains(strings.Join(r.Details, " "), "names no check") {
			return
		}
	}
	t.Errorf("a deviation naming no check: no failed result says so")
}
