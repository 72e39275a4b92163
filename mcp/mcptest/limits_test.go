package mcptest_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/mcptest"
)

// sizedServer answers initialize as a 2025 server does and a ping with a
// response of exactly X-Size bytes on the wire, as one JSON object or, with
// X-Stream, as an event stream ending at that response's event.
func sizedServer(t *testing.T) string {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &msg)
		switch msg.Method {
		case "notifications/initialized":
			w.WriteHeader(http.StatusAccepted)
			return
		case "initialize":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(msg.ID)+`,"result":{"protocolVersion":"`+msg.Params.ProtocolVersion+
				`","capabilities":{},"serverInfo":{"name":"sized","version":"1"}}}`)
			return
		}
		size, _ := strconv.Atoi(r.Header.Get("X-Size"))
		head, tail := `{"jsonrpc":"2.0","id":`+string(msg.ID)+`,"result":{"pad":"`, `"}}`
		if r.Header.Get("X-Stream") != "" {
			head, tail = "event: message\ndata: "+head, tail+"\n\n"
			w.Header().Set("Content-Type", "text/event-stream")
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		io.WriteString(w, head)
		chunk := strings.Repeat("p", 64<<10)
		for n := size - len(head) - len(tail); n > 0; n -= len(chunk) {
			io.WriteString(w, chunk[:min(n, len(chunk))])
		}
		io.WriteString(w, tail)
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// TestClient_ResponseBoundEdge: the kit reads at most 16 MiB of one
// answer (maxResponse), over HTTP as a user's Dial, Call or CheckURL
// meets it. An answer of exactly 16 MiB — a JSON object, or an event
// stream up to the end of the response's event — is read whole; one byte
// more is an error naming the bound, never a cut message read as if it
// were whole, with the first 16 MiB kept in Raw.
func TestClient_ResponseBoundEdge(t *testing.T) {
	t.Parallel()
	const bound = 16 << 20
	url := sizedServer(t)
	// The kit reads every revision's answers with the same code; a
	// 2026-07-28 client and a 2025 one (which handshakes first) are its
	// two ways of asking, and an event stream is read the same for both
	// (a 16 MiB stream takes seconds under the race detector).
	// The other 2025 revisions would add seconds, not coverage.
	for _, v := range []mcp.Version{mcp.Version20260728, mcp.Version20250618} {
		for _, stream := range []bool{false, true} {
			if stream && v != mcp.Version20260728 {
				continue
			}
			for _, size := range []int{bound, bound + 1} {
				// An event stream of 16 MiB takes the kit seconds to read
				// under the race detector, and more on a loaded machine:
				// past DefaultTimeout (10 s) in both runs of -race
				// -count=2 beside mcp's tests. A bound, not a measure.
				opts := []mcptest.Option{mcptest.WithHeader("X-Size", strconv.Itoa(size)), mcptest.WithTimeout(5 * time.Minute)}
				if stream {
					opts = append(opts, mcptest.WithHeader("X-Stream", "1"))
				}
				res, err := mcptest.Dial(url, v, opts...).Call(context.Background(), "ping", nil)
				what := string(v) + ", JSON"
				if stream {
					what = string(v) + ", a stream"
				}
				var raw int
				var result struct{ Pad string }
				if res != nil {
					raw = len(res.Raw)
					json.Unmarshal(res.Result, &result)
				}
				if size == bound {
					// The pad is the whole answer but its envelope.
					if err != nil || res.Status != 200 || res.Error != nil || raw != bound || len(result.Pad) < bound-100 {
						t.Errorf("%s, %d bytes: %v, %d bytes read, a pad of %d", what, size, err, raw, len(result.Pad))
					}
					continue
				}
				if err == nil || !strings.Contains(err.Error(), "the response exceeds 16 MiB") || res == nil || raw != bound || res.Result != nil {
					t.Errorf("%s, %d bytes: %v, %d bytes read", what, size, err, raw)
				}
			}
		}
	}
}

// TestClient_CallToolRoundsEdge: CallTool follows at most 8 round trips
// of one call (2026-07-28 multi round-trip; 2025 revisions have none). A
// tool answered 7 times completes on the 8th call; one that asks again
// then is not called a 9th time: the 8th answer, input_required, comes
// back as it is.
func TestClient_CallToolRoundsEdge(t *testing.T) {
	t.Parallel()
	var runs atomic.Int64
	srv := mcp.NewServer(mcp.Implementation{Name: "rounds", Version: "1"})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "rounds", Description: "Asks until answered n times."},
		func(ctx context.Context, in struct {
			N int `json:"n"`
		}) (map[string]any, error) {
			runs.Add(1)
			c := mcp.CallFromContext(ctx)
			done, _ := strconv.Atoi(string(c.State()))
			if done >= in.N {
				return map[string]any{"rounds": done}, nil
			}
			c.RequireInput([]byte(strconv.Itoa(done+1)), mcp.ListRoots("r"))
			return nil, nil
		})
	ts := httptest.NewServer(mcp.NewHandler(srv, []mcp.Era{era2026.New()}))
	t.Cleanup(ts.Close)
	c := mcptest.Dial(ts.URL, mcp.Version20260728, mcptest.WithCapabilities(json.RawMessage(`{"roots":{}}`)),
		mcptest.WithAnswers(func(string, mcptest.InputRequest) (json.RawMessage, bool) {
			return json.RawMessage(`{"roots":[]}`), true
		}))
	for n, want := range map[int]string{7: "complete", 8: "input_required"} {
		runs.Store(0)
		res, err := c.CallTool(context.Background(), "rounds", map[string]int{"n": n})
		if err != nil || res.Error != nil || res.ResultType() != want || runs.Load() != 8 {
			t.Errorf("a tool answered %d times: %v, %s after %d calls, want %s after 8", n, err, res.Result, runs.Load(), want)
		}
		if want == "complete" && !strings.Contains(string(res.Result), `"structuredContent":{"rounds":7}`) {
			t.Errorf("the result: %s", res.Result)
		}
	}
}
