package mcptest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
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
// (a typo) fails, naming itself as declared, instead of silencing nothing
// unseen. Declared "check:" with no phrase, it was named without its
// colon, not as declared.
func TestCheck_UnknownDeviation(t *testing.T) {
	t.Parallel()
	for declared, label := range map[string]string{
		"2025-03-26/bacth":         "2025-03-26/bacth",
		"2025-03-26/bacth:":        "2025-03-26/bacth:",
		" 2025-03-26/bacth :  ":    "2025-03-26/bacth:",
		"2025-03-26/bacth:batches": "2025-03-26/bacth: batches",
	} {
		results := mcptest.Check(server(era2026.New(), era2025.New()), mcptest.Deviation(declared, "we refuse batches"))
		want := `mcptest.Deviation("` + label + `", ...) names no check`
		var got []string
		for _, r := range results {
			if r.Check == "2025-03-26/bacth" {
				got = append(got, r.Status.String()+" "+strings.Join(r.Details, " "))
			}
		}
		if len(got) != 1 || !strings.HasPrefix(got[0], "FAIL ") || !strings.Contains(got[0], want) {
			t.Errorf("Deviation(%q) naming no check: results %q; want one failed, saying %s", declared, got, want)
		}
	}
}

// TestClient_StreamHeldOpenEndsAtTheTimeout: a server that holds its
// event stream open inside the response's event (its data line sent,
// never the blank line that ends it) costs a call the kit's timeout
// (WithTimeout), then an error saying so, and no response read as if
// it were whole.
func TestClient_StreamHeldOpenEndsAtTheTimeout(t *testing.T) {
	t.Parallel()
	for _, eol := range []string{"\n", "\r\n", "\r"} {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Write([]byte(`data: {"jsonrpc":"2.0","id":1,"result":{}}` + eol))
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		}))
		res, err := mcptest.Dial(ts.URL, mcp.Version20260728, mcptest.WithTimeout(200*time.Millisecond)).Call(context.Background(), "server/discover", nil)
		ts.Close()
		if err == nil || !strings.Contains(err.Error(), "context deadline exceeded") || res != nil {
			t.Errorf("end %q: %v, %+v; want the timeout's error", eol, err, res)
		}
	}
}
