package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mrtr"
)

// batchSessionServer is an endpoint issuing sealed 2025 sessions of
// lifetime time.Hour under clk, with two tools: caps echoes the client
// capabilities its call sees; expire moves clk past every session's
// lifetime (as a long call would) and counts its runs.
func batchSessionServer(t *testing.T, clk *fakeClock) (url string, expired *atomic.Int64) {
	t.Helper()
	expired = &atomic.Int64{}
	srv := mcp.NewServer(mcp.Implementation{Name: "batch-sessions", Version: "1"})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "caps", Description: "Echoes the client capabilities."},
		func(ctx context.Context, in struct{}) (map[string]any, error) {
			return map[string]any{"caps": string(mcp.CallFromContext(ctx).ClientCapabilities())}, nil
		})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "expire", Description: "Outlives the session it was called in."},
		func(ctx context.Context, in struct{}) (map[string]any, error) {
			expired.Add(1)
			clk.advance(2 * time.Hour)
			return map[string]any{"ran": true}, nil
		})
	sealer := mrtr.NewSealer(sessionRing(t, 7), mrtr.WithClock(clk.now))
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New(era2025.WithSessions(sealer, time.Hour))})
	return newTestServer(t, h), expired
}

// sessionOf initializes a session in revision v at url and returns its id.
func sessionOf(t *testing.T, url string, v mcp.Version) string {
	t.Helper()
	id := initialize(t, url, "", v, `{"elicitation":{}}`).header.Get("Mcp-Session-Id")
	if id == "" {
		t.Fatal("initialize issued no session id")
	}
	return id
}

// TestBatch_SessionSettledOncePerPOST: a 2025-03-26 batch is one POST
// carrying one Mcp-Session-Id, so the session is opened once, before any
// member runs. A valid id serves every member in it; an expired or forged
// one is the POST's answer, exactly what a POST of one message with that
// id gets (404 -32001, no member run); a session negotiated in 2025-06-18
// makes the header-less array that revision's, where it is no batch (400,
// reason batch), and one contradicting the POST's 2025-03-26 header is the
// -32020 a lone message gets.
func TestBatch_SessionSettledOncePerPOST(t *testing.T) {
	t.Parallel()
	clk := &fakeClock{t: time.Unix(2_000_000_000, 0)}
	url, expired := batchSessionServer(t, clk)
	live := sessionOf(t, url, mcp.Version20250326)
	later := sessionOf(t, url, mcp.Version20250618)
	clk.advance(-3 * time.Hour)
	stale := sessionOf(t, url, mcp.Version20250326) // sealed three hours ago: expired now
	clk.advance(3 * time.Hour)
	forged := []byte(live)
	forged[len(forged)/2] ^= 1
	if c := forged[len(forged)/2]; c == '-' || c == '_' {
		forged[len(forged)/2] = 'A'
	}
	const (
		caps   = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"caps","arguments":{}}}`
		expire = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"expire","arguments":{}}}`
		ping   = `{"jsonrpc":"2.0","id":"p","method":"ping"}`
	)
	cases := []struct {
		name    string
		session string
		header  string // MCP-Protocol-Version of the POST; "" sends none
		status  int
		code    int        // the POST's JSON-RPC error code; 0: a batch answer
		reason  string     // the refusal's data.reason, when it names one
		version string     // the answer's MCP-Protocol-Version
		lone    loneAnswer // what a POST of one message with this id gets
	}{
		{name: "valid", session: live, status: 200, version: "2025-03-26", lone: loneAnswer{200, 0}},
		{name: "expired", session: stale, status: 404, version: "2025-03-26", code: -32001, lone: loneAnswer{404, -32001}},
		{name: "forged", session: string(forged), status: 404, version: "2025-03-26", code: -32001, lone: loneAnswer{404, -32001}},
		{name: "expired, 2025-03-26 header", session: stale, header: "2025-03-26", status: 404, version: "2025-03-26", code: -32001, lone: loneAnswer{404, -32001}},
		{name: "a 2025-06-18 session", session: later, status: 400, version: "2025-06-18", code: -32600, reason: "batch", lone: loneAnswer{200, 0}},
		{name: "a 2025-06-18 session, 2025-03-26 header", session: later, header: "2025-03-26", status: 400, version: "2025-03-26", code: -32020, lone: loneAnswer{400, -32020}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hdr := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
				"Mcp-Session-Id": {tc.session}}
			if tc.header != "" {
				hdr.Set("MCP-Protocol-Version", tc.header)
			}
			// A POST of one message first: the batch must answer as it does.
			one := loneAnswerTo(t, url, hdr, ping)
			if one.status != tc.lone.status || one.code != tc.lone.code {
				t.Fatalf("a lone ping: %d %d, want %d %d", one.status, one.code, tc.lone.status, tc.lone.code)
			}
			ran := expired.Load()
			body := "[" + caps + "," + ping + "]"
			if tc.status != 200 {
				body = "[" + expire + "," + caps + "," + ping + "]" // must not run
			}
			status, h, raw := rawPost(t, url, hdr, body)
			if status != tc.status {
				t.Fatalf("status %d, want %d: %s", status, tc.status, raw)
			}
			if ct := h.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			if v := h.Get("MCP-Protocol-Version"); v != tc.version {
				t.Errorf("MCP-Protocol-Version %q, want %q", v, tc.version)
			}
			if h.Get("Mcp-Session-Id") != "" {
				t.Errorf("Mcp-Session-Id %q on a batch answer", h.Get("Mcp-Session-Id"))
			}
			if tc.status != 200 {
				var e struct {
					JSONRPC string           `json:"jsonrpc"`
					ID      *json.RawMessage `json:"id"`
					Error   struct {
						Code int `json:"code"`
						Data struct {
							Reason string `json:"reason"`
						} `json:"data"`
					} `json:"error"`
				}
				if err := json.Unmarshal(raw, &e); err != nil || e.JSONRPC != "2.0" || e.Error.Code != tc.code || e.ID != nil {
					t.Errorf("refusal %s, want one error %d naming no member", raw, tc.code)
				}
				if tc.reason != "" && e.Error.Data.Reason != tc.reason {
					t.Errorf("refusal %s, want reason %s", raw, tc.reason)
				}
				if strings.Contains(string(raw), tc.session) {
					t.Errorf("refusal echoes the session id: %s", raw)
				}
				if expired.Load() != ran {
					t.Errorf("a member ran although the batch was refused")
				}
				return
			}
			if h.Get("Cache-Control") != "no-store" {
				t.Errorf("Cache-Control %q", h.Get("Cache-Control"))
			}
			var replies []batchReply
			if err := json.Unmarshal(raw, &replies); err != nil || len(replies) != 2 || string(replies[0].ID) != "1" || string(replies[1].ID) != `"p"` ||
				replies[0].Result == nil || replies[1].Result == nil || !strings.Contains(string(replies[0].Result), `elicitation`) {
				t.Errorf("batch of a valid session: %s", raw)
			}
		})
	}
}

// TestBatch_SessionExpiringMidBatch: a session that expires while a batch
// runs (a long member) still serves the rest of the batch, since it was
// opened for the POST; before, the first member had run and the POST was
// answered 404 as if nothing had. The next POST with the id is 404.
func TestBatch_SessionExpiringMidBatch(t *testing.T) {
	t.Parallel()
	clk := &fakeClock{t: time.Unix(2_000_000_000, 0)}
	url, expired := batchSessionServer(t, clk)
	id := sessionOf(t, url, mcp.Version20250326)
	hdr := http.Header{"Content-Type": {"application/json"}, "Mcp-Session-Id": {id}}
	body := `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"expire","arguments":{}}},` +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"caps","arguments":{}}},` +
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}},` +
		`{"jsonrpc":"2.0","id":3,"method":"ping"}]`
	status, h, raw := rawPost(t, url, hdr, body)
	if status != 200 || h.Get("Content-Type") != "application/json" {
		t.Fatalf("status %d %q: %s", status, h.Get("Content-Type"), raw)
	}
	var replies []batchReply
	if err := json.Unmarshal(raw, &replies); err != nil || len(replies) != 3 {
		t.Fatalf("%v: %s", err, raw)
	}
	for i, want := range []string{"1", "2", "3"} {
		if string(replies[i].ID) != want || replies[i].Error != nil || replies[i].Result == nil {
			t.Errorf("reply %d: %s, want a result for id %s", i, raw, want)
		}
	}
	if !strings.Contains(string(replies[1].Result), `elicitation`) {
		t.Errorf("the member after the expiry lost the session's capabilities: %s", replies[1].Result)
	}
	if n := expired.Load(); n != 1 {
		t.Errorf("expire ran %d times, want 1", n)
	}
	status, _, raw = rawPost(t, url, hdr, `[{"jsonrpc":"2.0","id":4,"method":"ping"}]`)
	if status != 404 || !strings.Contains(string(raw), `-32001`) {
		t.Errorf("the next batch with the expired id: %d %s, want 404 -32001", status, raw)
	}
}

type loneAnswer struct {
	status int
	code   int
}

// loneAnswerTo posts one message with hdr and reads the answer: its
// status and its JSON-RPC error code (0: a result).
func loneAnswerTo(t *testing.T, url string, hdr http.Header, body string) loneAnswer {
	t.Helper()
	status, _, raw := rawPost(t, url, hdr.Clone(), body)
	var m struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%d %s: %v", status, raw, err)
	}
	if m.Error == nil {
		return loneAnswer{status, 0}
	}
	return loneAnswer{status, m.Error.Code}
}
