package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/content"
	"github.com/mcpdual/mcpdual/mrtr"
)

// sessionRing is the key ring the replicas of the session tests share.
func sessionRing(t testing.TB, secret byte) *mrtr.Ring {
	t.Helper()
	ring, err := mrtr.NewRing(mrtr.Key{ID: "k1", Secret: bytes.Repeat([]byte{secret}, 32)})
	if err != nil {
		t.Fatal(err)
	}
	return ring
}

// sessionServer is an endpoint with a tool that echoes the client
// capabilities its call sees.
func sessionServer(t testing.TB, era2025Opts []era2025.Option, opts ...mcp.HandlerOption) string {
	t.Helper()
	srv := mcp.NewServer(mcp.Implementation{Name: "sessions", Version: "1"})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "caps", Description: "Echoes the client capabilities."},
		func(ctx context.Context, in struct{}) (map[string]any, error) {
			c := mcp.CallFromContext(ctx)
			return map[string]any{"caps": string(c.ClientCapabilities()), "elicit": c.Supports(mcp.CapElicitationForm)}, nil
		})
	a := auth.New(auth.Config{Resource: resourceURI, Verifier: auth.VerifierFunc(testVerifier)})
	opts = append([]mcp.HandlerOption{mcp.WithAuth(a)}, opts...)
	return newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New(era2025Opts...)}, opts...))
}

type httpReply struct {
	status int
	header http.Header
	body   []byte
}

func post(t testing.TB, url, method, token string, hdr map[string]string, body string) httpReply {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return httpReply{status: resp.StatusCode, header: resp.Header, body: b}
}

func initialize(t testing.TB, url, token string, v mcp.Version, caps string) httpReply {
	t.Helper()
	return post(t, url, http.MethodPost, token, nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+string(v)+
		`","capabilities":`+caps+`,"clientInfo":{"name":"t","version":"1"}}}`)
}

func callCaps(t testing.TB, url, token string, v mcp.Version, session string) httpReply {
	t.Helper()
	hdr := map[string]string{"MCP-Protocol-Version": string(v)}
	if session != "" {
		hdr["Mcp-Session-Id"] = session
	}
	if v == mcp.Version20250326 {
		delete(hdr, "MCP-Protocol-Version") // this revision sends no header
	}
	return post(t, url, http.MethodPost, token, hdr, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"caps","arguments":{}}}`)
}

// structured reads a tools/call answer's structuredContent.
func structured(t testing.TB, r httpReply) map[string]any {
	t.Helper()
	var env struct {
		Result struct {
			IsError bool             `json:"isError"`
			Content []map[string]any `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(r.body, &env); err != nil || r.status != 200 || env.Result.IsError || len(env.Result.Content) != 1 {
		t.Fatalf("reply %d %s", r.status, r.body)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(env.Result.Content[0]["text"].(string)), &out); err != nil {
		t.Fatalf("text %v: %v", env.Result.Content[0]["text"], err)
	}
	return out
}

// TestSessions_CapabilitiesFollowTheID: with WithSessions, initialize
// answers an id that carries what the client declared to any replica
// holding the ring, in every 2025 revision; without it no id is issued
// and a call sees no capabilities.
func TestSessions_CapabilitiesFollowTheID(t *testing.T) {
	t.Parallel()
	ring := sessionRing(t, 1)
	a := sessionServer(t, []era2025.Option{era2025.WithSessions(mrtr.NewSealer(ring), 0)})
	b := sessionServer(t, []era2025.Option{era2025.WithSessions(mrtr.NewSealer(ring), time.Hour)})
	plain := sessionServer(t, nil)
	caps := `{"elicitation":{},"sampling":{},"experimental":{"big":"` + strings.Repeat("x", 3000) + `"}}`
	for _, v := range []mcp.Version{mcp.Version20251125, mcp.Version20250618, mcp.Version20250326} {
		t.Run(string(v), func(t *testing.T) {
			r := initialize(t, a, tokAlice, v, caps)
			id := r.header.Get("Mcp-Session-Id")
			if r.status != 200 || id == "" || !bytes.Contains(r.body, []byte(`"protocolVersion":"`+string(v)+`"`)) {
				t.Fatalf("initialize: %d id=%q %s", r.status, id, r.body)
			}
			for _, c := range id {
				if c < 0x21 || c > 0x7e {
					t.Fatalf("session id has %q, not visible ASCII", c)
				}
			}
			// The other replica opens it: the call sees the declared
			// capabilities (what the server reads of them, not the rest).
			got := structured(t, callCaps(t, b, tokAlice, v, id))
			// Supports stays false: without WithLegacyInput this client
			// cannot be asked.
			if got["caps"] != `{"elicitation":{},"sampling":{}}` || got["elicit"] != false {
				t.Errorf("caps seen on the other replica = %v", got)
			}
			// Without the header the request is served as before.
			if got := structured(t, callCaps(t, b, tokAlice, v, "")); got["caps"] != "" || got["elicit"] != false {
				t.Errorf("caps without a session = %v", got)
			}
			// Without the option, no id, and an id sent is ignored.
			r = initialize(t, plain, tokAlice, v, caps)
			if r.status != 200 || r.header.Get("Mcp-Session-Id") != "" {
				t.Errorf("without WithSessions: %d id=%q", r.status, r.header.Get("Mcp-Session-Id"))
			}
			if got := structured(t, callCaps(t, plain, tokAlice, v, id)); got["caps"] != "" {
				t.Errorf("without WithSessions a session id was read: %v", got)
			}
		})
	}
}

// TestSessions_NotOpened: an id that does not open is 404 (so the client
// initializes again), whatever the reason. DELETE is 405 with or without
// sessions: a sealed session cannot be ended early, and the transport lets
// a server refuse termination.
func TestSessions_NotOpened(t *testing.T) {
	t.Parallel()
	clock := time.Now()
	now := func() time.Time { return clock }
	ring := sessionRing(t, 1)
	a := sessionServer(t, []era2025.Option{era2025.WithSessions(mrtr.NewSealer(ring, mrtr.WithClock(now), mrtr.WithSkew(0)), time.Minute)})
	other := sessionServer(t, []era2025.Option{era2025.WithSessions(mrtr.NewSealer(sessionRing(t, 2)), 0)})
	late := sessionServer(t, []era2025.Option{era2025.WithSessions(mrtr.NewSealer(ring, mrtr.WithClock(func() time.Time { return clock.Add(2 * time.Minute) }), mrtr.WithSkew(0)), time.Minute)})
	plain := sessionServer(t, nil)
	v := mcp.Version20250618
	id := initialize(t, a, tokAlice, v, `{"elicitation":{}}`).header.Get("Mcp-Session-Id")
	if id == "" {
		t.Fatal("no session id")
	}
	tampered := []byte(id)
	tampered[len(tampered)/2] ^= 1
	if tampered[len(tampered)/2] == '-' || tampered[len(tampered)/2] == '_' {
		tampered[len(tampered)/2] = 'A'
	}
	sealedForOther, _, _ := mrtr.NewSealer(ring).Seal(mrtr.Binding{Principal: "x"}, []byte(`{"v":"2025-06-18"}`))
	for _, c := range []struct {
		name, url, token, id string
	}{
		{"tampered", a, tokAlice, string(tampered)},
		{"another caller", a, tokBob, id},
		{"another key ring", other, tokAlice, id},
		{"expired", late, tokAlice, id},
		{"not a session", a, tokAlice, sealedForOther},
		{"junk", a, tokAlice, "nope"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := callCaps(t, c.url, c.token, v, c.id)
			if r.status != 404 || !bytes.Contains(r.body, []byte(`"code":-32001`)) {
				t.Errorf("call: %d %s, want 404 -32001", r.status, r.body)
			}
		})
	}
	// The same id opens where it should; initialize with a stale id
	// starts a new session rather than failing.
	if got := structured(t, callCaps(t, a, tokAlice, v, id)); got["caps"] != `{"elicitation":{}}` {
		t.Errorf("valid id: %v", got)
	}
	if r := post(t, a, http.MethodDelete, tokAlice, map[string]string{"Mcp-Session-Id": id, "MCP-Protocol-Version": string(v)}, ""); r.status != 405 || r.header.Get("Allow") != "POST" {
		t.Errorf("DELETE: %d %s, want 405", r.status, r.body)
	}
	if got := structured(t, callCaps(t, a, tokAlice, v, id)); got["caps"] != `{"elicitation":{}}` {
		t.Errorf("after a refused DELETE the id still opens: %v", got)
	}
	r := post(t, a, http.MethodPost, tokAlice, map[string]string{"Mcp-Session-Id": string(tampered)},
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if r.status != 200 || r.header.Get("Mcp-Session-Id") == "" {
		t.Errorf("initialize with a stale id: %d %s", r.status, r.body)
	}
	// The session's revision must be the one the header names.
	if r := callCaps(t, a, tokAlice, mcp.Version20251125, id); r.status != 400 {
		t.Errorf("revision mismatch: %d %s, want 400", r.status, r.body)
	}
	if r := post(t, plain, http.MethodDelete, tokAlice, map[string]string{"Mcp-Session-Id": id}, ""); r.status != 405 {
		t.Errorf("DELETE without sessions: %d, want 405", r.status)
	}
}

type sessionOut struct {
	N int `json:"n"`
}

// TestSession_RevisionWithoutHeader: a 2025-03-26 client sends no
// MCP-Protocol-Version; its session says which revision it negotiated,
// and the server keeps to it (every revision's "both sides MUST respect
// the negotiated version"), instead of serving the default revision's
// shapes (title, outputSchema, structuredContent) and naming it in the
// answer's header. With the header, it must repeat the session's.
func TestSession_RevisionWithoutHeader(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "t", Title: "A Title", Description: "d"},
		func(ctx context.Context, in struct{}) (sessionOut, error) { return sessionOut{N: 1}, nil })
	url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(),
		era2025.New(era2025.WithSessions(mrtr.NewSealer(sessionRing(t, 1)), 0))}))
	for _, v := range []mcp.Version{mcp.Version20250326, mcp.Version20251125} {
		r := initialize(t, url, "", v, `{}`)
		id := r.header.Get("Mcp-Session-Id")
		if r.status != 200 || id == "" {
			t.Fatalf("%s initialize: %d %q %s", v, r.status, id, r.body)
		}
		l := post(t, url, http.MethodPost, "", map[string]string{"Mcp-Session-Id": id}, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
		c := post(t, url, http.MethodPost, "", map[string]string{"Mcp-Session-Id": id},
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t","arguments":{}}}`)
		newer := v != mcp.Version20250326
		if got := l.header.Get("MCP-Protocol-Version"); got != string(v) || l.status != 200 {
			t.Errorf("%s session, no header: %d, answered as %q", v, l.status, got)
		}
		if bytes.Contains(l.body, []byte(`"outputSchema"`)) != newer || bytes.Contains(c.body, []byte(`structuredContent`)) != newer {
			t.Errorf("%s session, no header: tools/list %s; tools/call %s", v, l.body, c.body)
		}
	}
}

// TestSession_DeepCapabilities: initialize seals only capabilities its
// session can open again (8 levels): a member nested deeper is left out
// of the session, which still opens with the others, instead of issuing
// an id every later request answered 404 (the client initializing again
// for ever); a deep member that is never sealed (experimental) costs
// nothing.
func TestSession_DeepCapabilities(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "caps", Description: "the client's capabilities"},
		func(ctx context.Context, in struct{}) (*mcp.ToolResult, error) {
			return &mcp.ToolResult{Content: []content.Block{content.Text(string(mcp.CallFromContext(ctx).ClientCapabilities()))}}, nil
		})
	url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(),
		era2025.New(era2025.WithSessions(mrtr.NewSealer(sessionRing(t, 1)), 0))}))
	for caps, kept := range map[string]string{
		`{"elicitation":{},"extensions":{"com.example/ui":{"display":{"theme":{"colors":{"dark":{"bg":{}}}}}}}}`: "elicitation",
		`{"elicitation":{},"experimental":{"a":{"b":{"c":{"d":{"e":{"f":{}}}}}}}}`:                               "elicitation",
		`{"elicitation":{},"extensions":{"com.example/ui":{"display":{"theme":{}}}}}`:                            "com.example/ui",
	} {
		r := initialize(t, url, "", mcp.Version20251125, caps)
		id := r.header.Get("Mcp-Session-Id")
		if r.status != 200 || id == "" {
			t.Fatalf("initialize: %d %s", r.status, r.body)
		}
		c := post(t, url, http.MethodPost, "", map[string]string{"Mcp-Session-Id": id, "MCP-Protocol-Version": "2025-11-25"},
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"caps","arguments":{}}}`)
		if c.status != 200 || !bytes.Contains(c.body, []byte(kept)) {
			t.Errorf("%s: the session lost %s: %d %s", caps, kept, c.status, c.body)
		}
	}
}

// TestSessions_NotificationCarriesTheID: a 2025 notification POST that
// carries an Mcp-Session-Id is a request containing that id, which every
// 2025 transport answers 404 once the session is gone: an id that does not
// open (altered, another caller's, expired, under another ring) is 404
// -32001, as any request of the session is, not 202; an id naming another
// revision than the header is 400 -32020. A live id, no id, and
// notifications/initialized with a stale id (the client starting over)
// stay 202, and so does a 2026-07-28 notification, which has no session.
func TestSessions_NotificationCarriesTheID(t *testing.T) {
	t.Parallel()
	clock := time.Now()
	ring := sessionRing(t, 1)
	a := sessionServer(t, []era2025.Option{era2025.WithSessions(mrtr.NewSealer(ring, mrtr.WithClock(func() time.Time { return clock }), mrtr.WithSkew(0)), time.Minute)})
	other := sessionServer(t, []era2025.Option{era2025.WithSessions(mrtr.NewSealer(sessionRing(t, 2)), 0)})
	late := sessionServer(t, []era2025.Option{era2025.WithSessions(mrtr.NewSealer(ring, mrtr.WithClock(func() time.Time { return clock.Add(2 * time.Minute) }), mrtr.WithSkew(0)), time.Minute)})
	const cancelled = `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user"}}`
	const initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	for _, v := range []mcp.Version{mcp.Version20251125, mcp.Version20250618, mcp.Version20250326} {
		t.Run(string(v), func(t *testing.T) {
			id := initialize(t, a, tokAlice, v, `{}`).header.Get("Mcp-Session-Id")
			if id == "" {
				t.Fatal("no session id")
			}
			tampered := []byte(id)
			tampered[len(tampered)/2] ^= 1
			if tampered[len(tampered)/2] == '-' || tampered[len(tampered)/2] == '_' {
				tampered[len(tampered)/2] = 'A'
			}
			another := mcp.Version20250618
			if v == mcp.Version20250618 {
				another = mcp.Version20251125
			}
			for _, c := range []struct {
				name, url, token, id, body string
				header                     mcp.Version // "" sends none, as 2025-03-26 does
				status, code               int
			}{
				{"live id", a, tokAlice, id, cancelled, v, 202, 0},
				{"no id", a, tokAlice, "", cancelled, v, 202, 0},
				{"tampered", a, tokAlice, string(tampered), cancelled, v, 404, -32001},
				{"another caller", a, tokBob, id, cancelled, v, 404, -32001},
				{"another key ring", other, tokAlice, id, cancelled, v, 404, -32001},
				{"expired", late, tokAlice, id, cancelled, v, 404, -32001},
				{"junk", a, tokAlice, "nope", cancelled, v, 404, -32001},
				{"another revision named", a, tokAlice, id, cancelled, another, 400, -32020},
				{"initialized with a stale id", a, tokAlice, string(tampered), initialized, v, 202, 0},
			} {
				t.Run(c.name, func(t *testing.T) {
					hdr := map[string]string{}
					if c.header != "" && (v != mcp.Version20250326 || c.header != v) {
						hdr["MCP-Protocol-Version"] = string(c.header)
					}
					if c.id != "" {
						hdr["Mcp-Session-Id"] = c.id
					}
					r := post(t, c.url, http.MethodPost, c.token, hdr, c.body)
					if r.status != c.status {
						t.Fatalf("%d %s, want %d", r.status, r.body, c.status)
					}
					if c.code == 0 {
						if len(r.body) != 0 || r.header.Get("Mcp-Session-Id") != "" {
							t.Errorf("an accepted notification answered %q, session header %q", r.body, r.header.Get("Mcp-Session-Id"))
						}
						return
					}
					var got struct {
						ID    json.RawMessage `json:"id"`
						Error struct {
							Code int `json:"code"`
						} `json:"error"`
					}
					if err := json.Unmarshal(r.body, &got); err != nil || got.Error.Code != c.code || got.ID != nil ||
						r.header.Get("Content-Type") != "application/json" || bytes.Contains(r.body, []byte(c.id)) {
						t.Errorf("refusal %s (Content-Type %q), want code %d, no id, the session id not echoed", r.body, r.header.Get("Content-Type"), c.code)
					}
				})
			}
		})
	}
	// A 2026-07-28 notification has no session: whatever Mcp-Session-Id
	// it carries is ignored.
	r := post(t, a, http.MethodPost, tokAlice, map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "notifications/cancelled", "Mcp-Session-Id": "nope"},
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"requestId":7}}`)
	if r.status != 202 || len(r.body) != 0 {
		t.Errorf("2026-07-28 notification with a junk session id: %d %s", r.status, r.body)
	}
}

// TestSessions_BatchCarriesTheID: a 2025-03-26 batch is one HTTP request
// containing its session's id, so an id that no longer opens answers the
// batch 404 -32001, as the transport requires and as a lone request is
// answered, rather than 200 with the same error in every member (which
// a client reading the status never takes for the end of its session).
// Nothing ran: the batch opens the id once, before its members. A live id serves the
// batch; a batch of notifications/initialized alone may carry a stale id.
func TestSessions_BatchCarriesTheID(t *testing.T) {
	t.Parallel()
	url := sessionServer(t, []era2025.Option{era2025.WithSessions(mrtr.NewSealer(sessionRing(t, 1)), 0)})
	id := initialize(t, url, tokAlice, mcp.Version20250326, `{"elicitation":{}}`).header.Get("Mcp-Session-Id")
	if id == "" {
		t.Fatal("no session id")
	}
	tampered := []byte(id)
	tampered[len(tampered)/2] ^= 1
	if tampered[len(tampered)/2] == '-' || tampered[len(tampered)/2] == '_' {
		tampered[len(tampered)/2] = 'A'
	}
	const (
		caps      = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"caps","arguments":{}}}`
		ping      = `{"jsonrpc":"2.0","id":"p","method":"ping"}`
		cancelled = `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`
		init      = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	)
	for _, c := range []struct {
		name, token, id, body string
		status                int
	}{
		{"live id", tokAlice, id, "[" + caps + "," + ping + "," + cancelled + "]", 200},
		{"tampered id", tokAlice, string(tampered), "[" + caps + "," + ping + "]", 404},
		{"another caller's id", tokBob, id, "[" + ping + "," + caps + "]", 404},
		{"junk id", tokAlice, "nope", "[" + ping + "]", 404},
		{"notifications alone, tampered id", tokAlice, string(tampered), "[" + cancelled + "]", 404},
		{"a member that is not an object first", tokAlice, string(tampered), "[1," + ping + "]", 404},
		{"notifications/initialized alone, tampered id", tokAlice, string(tampered), "[" + init + "]", 202},
	} {
		t.Run(c.name, func(t *testing.T) {
			hdr := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
				"Authorization": {"Bearer " + c.token}, "Mcp-Session-Id": {c.id}}
			status, h, body := rawPost(t, url, hdr, c.body)
			if status != c.status {
				t.Fatalf("status %d, want %d: %s", status, c.status, body)
			}
			switch status {
			case 202:
				if len(body) != 0 {
					t.Errorf("202 with a body: %s", body)
				}
			case 404:
				var e struct {
					ID    json.RawMessage `json:"id"`
					Error struct {
						Code int `json:"code"`
					} `json:"error"`
				}
				if err := json.Unmarshal(body, &e); err != nil || e.Error.Code != -32001 || e.ID != nil ||
					h.Get("Content-Type") != "application/json" || bytes.Contains(body, []byte(c.id)) {
					t.Errorf("refusal %s, want one -32001 error without id, the id not echoed", body)
				}
			default:
				var replies []struct {
					ID     json.RawMessage `json:"id"`
					Result json.RawMessage `json:"result"`
				}
				if err := json.Unmarshal(body, &replies); err != nil || len(replies) != 2 || string(replies[0].ID) != "1" ||
					!bytes.Contains(replies[0].Result, []byte(`elicitation`)) || string(replies[1].ID) != `"p"` || replies[1].Result == nil {
					t.Errorf("batch of a live session: %s", body)
				}
			}
		})
	}
}
