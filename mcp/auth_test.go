package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/ratelimit"
)

const (
	resourceURI = "https://mcp.example.com/mcp"
	prmURL      = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
	baseline    = `resource_metadata="` + prmURL + `", scope="mcp:read"`
)

// Test tokens. Each carries a marker so the logs can be searched for it.
const (
	tokAlice    = "tok-alice-S3CRET"    // mcp:read, workspace w1 only
	tokWriter   = "tok-writer-S3CRET"   // mcp:read items:write, w1
	tokRoot     = "tok-root-S3CRET"     // mcp:read, may see admin tools, w1
	tokBob      = "tok-bob-S3CRET"      // mcp:read, workspaces w1 and w2
	tokNoScope  = "tok-noscope-S3CRET"  // no scopes at all
	tokExpired  = "tok-expired-S3CRET"  // expired an hour ago
	tokOtherAud = "tok-otheraud-S3CRET" // issued for another resource
	tokBad      = "tok-bad-S3CRET"      // refused by the verifier
	tokDown     = "tok-down-S3CRET"     // the verifier cannot reach its keys
	tokPanic    = "tok-panic-S3CRET"    // the verifier panics
)

var allTokens = []string{tokAlice, tokWriter, tokRoot, tokBob, tokNoScope, tokExpired, tokOtherAud, tokBad, tokDown, tokPanic}

func testVerifier(ctx context.Context, token string, r *http.Request) (*auth.Principal, error) {
	p := &auth.Principal{Issuer: "https://as.example.com", ClientID: "client-1", Audience: []string{resourceURI},
		Scopes: []string{"mcp:read"}, ExpiresAt: time.Now().Add(time.Hour)}
	switch token {
	case tokAlice:
		p.Subject = "alice"
	case tokWriter:
		p.Subject, p.Scopes = "writer", []string{"mcp:read", "items:write"}
	case tokRoot:
		p.Subject = "root"
	case tokBob:
		p.Subject = "bob"
	case tokNoScope:
		p.Subject, p.Scopes = "noscope", nil
	case tokExpired:
		p.Subject, p.ExpiresAt = "alice", time.Now().Add(-time.Hour)
	case tokOtherAud:
		p.Subject, p.Audience = "alice", []string{"https://other.example.com/mcp"}
	case tokDown:
		return nil, errors.New("jwks fetch failed for " + token)
	case tokPanic:
		panic("verifier bug with " + token)
	default:
		return nil, auth.ErrInvalidToken
	}
	return p, nil
}

func testWorkspaces(ctx context.Context, p *auth.Principal, requested string) (string, error) {
	member := map[string]bool{"w1": true}
	if p.Subject == "bob" {
		member["w2"] = true
	}
	switch {
	case requested == "" && len(member) > 1:
		return "", auth.ErrWorkspaceRequired
	case requested == "":
		return "w1", nil
	case member[requested]:
		return requested, nil
	}
	return "", auth.ErrWorkspaceForbidden
}

type authFixture struct {
	url  string
	log  *syncBuffer
	hits map[string]*atomic.Int64
	seen atomic.Value // map[string]any the whoami route saw
	// block, when set, makes the slow route wait for it.
	entered, release chan struct{}
}

type authOptions struct {
	permit     bool // hide admin_report from all but root
	workspaces bool
	caching    bool // era2026 WithCaching(1 minute, Public)
	handler    []mcp.HandlerOption
}

func newAuthFixture(t testing.TB, o authOptions) *authFixture {
	t.Helper()
	f := &authFixture{log: &syncBuffer{}, hits: map[string]*atomic.Int64{}, entered: make(chan struct{}, 1), release: make(chan struct{})}
	mux := http.NewServeMux()
	route := func(pattern string, h http.HandlerFunc) {
		c := &atomic.Int64{}
		f.hits[pattern] = c
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			c.Add(1)
			w.Header().Set("Content-Type", "application/json")
			h(w, r)
		})
	}
	route("GET /items/{id}", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{"id":"`+r.PathValue("id")+`"}`) })
	route("POST /items", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{"created":true}`) })
	route("GET /admin", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{"admin":true}`) })
	route("GET /whoami", func(w http.ResponseWriter, r *http.Request) {
		p := auth.FromContext(r.Context())
		ws, wsOK := auth.WorkspaceFromContext(r.Context())
		seen := map[string]any{"authorization": r.Header.Values("Authorization"), "workspace": ws, "workspaceSet": wsOK}
		if p != nil {
			seen["subject"] = p.Subject
		}
		f.seen.Store(seen)
		b, _ := json.Marshal(seen)
		w.Write(b)
	})
	route("GET /ask", func(w http.ResponseWriter, r *http.Request) {
		call := mcp.CallFromContext(r.Context())
		if _, ok := call.Elicitation("ok"); ok {
			io.WriteString(w, `{"done":true}`)
			return
		}
		call.RequireInput(nil, mcp.ElicitForm("ok", "Proceed?", json.RawMessage(`{"type":"object","properties":{}}`)))
	})
	route("GET /slow", func(w http.ResponseWriter, r *http.Request) {
		f.entered <- struct{}{}
		<-f.release
		io.WriteString(w, `{}`)
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "authfixture", Version: "1.0.0"})
	obj := func(s string) json.RawMessage { return json.RawMessage(s) }
	empty := obj(`{"type":"object"}`)
	srv.AddTool(mcp.Tool{Name: "items_get", Description: "Reads an item.",
		InputSchema: obj(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`),
		Annotations: mcp.Annotations{ReadOnly: true}}, "GET /items/{id}", mux)
	srv.AddTool(mcp.Tool{Name: "items_write", Description: "Creates an item.", InputSchema: empty}, "POST /items", mux,
		mcp.RequireScopes("items:write"))
	srv.AddTool(mcp.Tool{Name: "admin_report", Description: "Admin only.",
		InputSchema: obj(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`)}, "GET /admin", mux)
	srv.AddTool(mcp.Tool{Name: "whoami", Description: "Shows the identity.", InputSchema: empty}, "GET /whoami", mux)
	srv.AddTool(mcp.Tool{Name: "slow", Description: "Waits.", InputSchema: empty}, "GET /slow", mux)
	srv.AddTool(mcp.Tool{Name: "ask", Description: "Asks first.", InputSchema: empty}, "GET /ask", mux)

	cfg := auth.Config{
		Verifier:     auth.VerifierFunc(testVerifier),
		Resource:     resourceURI,
		Scopes:       []string{"mcp:read"},
		MethodScopes: map[string][]string{"tools/list": {"mcp:read"}, "tools/call": {"mcp:read"}},
	}
	if o.permit {
		cfg.Permit = func(ctx context.Context, a auth.Access) bool {
			return a.Name != "admin_report" || a.Principal.Subject == "root"
		}
	}
	if o.workspaces {
		cfg.Workspaces = auth.WorkspaceFunc(testWorkspaces)
	}
	var e26 []era2026.Option
	if o.caching {
		e26 = append(e26, era2026.WithCaching(time.Minute, era2026.Public))
	}
	opts := append([]mcp.HandlerOption{mcp.WithLogger(slog.New(slog.NewTextHandler(f.log, nil))), mcp.WithAuth(auth.New(cfg))}, o.handler...)
	ts := httptest.NewServer(mcp.NewHandler(srv, []mcp.Era{era2026.New(e26...), era2025.New()}, opts...))
	t.Cleanup(ts.Close)
	f.url = ts.URL
	return f
}

func (f *authFixture) do(t testing.TB, c call, token string) *reply {
	t.Helper()
	return postCall(t, f.url, c, token)
}

// postCall sends c to the endpoint at url with a bearer token ("" for
// none), as a client of c's revision would.
func postCall(t testing.TB, url string, c call, token string) *reply {
	t.Helper()
	if token != "" {
		if c.header == nil {
			c.header = map[string]string{}
		}
		if _, set := c.header["Authorization"]; !set {
			c.header["Authorization"] = "Bearer " + token
		}
	}
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(c.body()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = headersFor(c)
	return send(t, req)
}

func (f *authFixture) total() int64 {
	var n int64
	for _, c := range f.hits {
		n += c.Load()
	}
	return n
}

// firstCall is the first request a client of era sends.
func firstCall(era mcp.Version) call {
	if era == mcp.Version20260728 {
		return call{era: era, id: "1", method: "server/discover"}
	}
	return call{era: era, id: "1", method: "initialize",
		params: `"protocolVersion":"` + string(era) + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}`}
}

func toolCall(era mcp.Version, name string) call {
	return call{era: era, id: "7", method: "tools/call", params: `"name":"` + name + `","arguments":{}`}
}

// checkRefusal asserts a refusal: status, the JSON-RPC error without id
// (the body was not read) or with it, data.reason and the challenge.
func checkRefusal(t *testing.T, r *reply, status, code int, id, reason, challenge string) {
	t.Helper()
	checkCommon(t, r)
	if r.status != status || r.code() != code {
		t.Fatalf("got %d code %d, want %d code %d: %s", r.status, r.code(), status, code, r.raw)
	}
	if string(r.msg.ID) != id {
		t.Errorf("id = %s, want %q", r.msg.ID, id)
	}
	var data struct {
		Reason string `json:"reason"`
	}
	json.Unmarshal(r.msg.Error.Data, &data)
	if data.Reason != reason {
		t.Errorf("data.reason = %q, want %q (%s)", data.Reason, reason, r.raw)
	}
	if got := r.header.Values("WWW-Authenticate"); (challenge == "" && len(got) != 0) || (challenge != "" && (len(got) != 1 || got[0] != challenge)) {
		t.Errorf("WWW-Authenticate = %q\nwant %q", got, challenge)
	}
}

// TestAuth_Credentials covers §5.2 rows 9-12 for every method a client can
// start with, in every era: authentication runs before the body is read, so
// no refusal carries an id, and no route ever runs.
func TestAuth_Credentials(t *testing.T) {
	t.Parallel()
	f := newAuthFixture(t, authOptions{})
	invalid := func(desc string) string {
		return `Bearer error="invalid_token", error_description="` + desc + `", ` + baseline
	}
	malformed := func(desc string) string {
		return `Bearer error="invalid_request", error_description="` + desc + `", resource_metadata="` + prmURL + `"`
	}
	tests := []struct {
		name      string
		header    map[string]string
		query     string
		token     string
		status    int
		code      int
		reason    string
		challenge string
	}{
		{"no token", nil, "", "", 401, -31401, "unauthorized", "Bearer " + baseline},
		{"basic scheme", map[string]string{"Authorization": "Basic YTpi"}, "", "", 401, -31401, "unauthorized", "Bearer " + baseline},
		{"bad token", nil, "", tokBad, 401, -31401, "invalid_token", invalid("The access token is invalid")},
		{"expired", nil, "", tokExpired, 401, -31401, "invalid_token", invalid("The access token expired")},
		{"wrong audience", nil, "", tokOtherAud, 401, -31401, "invalid_token", invalid("The access token was not issued for this resource")},
		{"two tokens", map[string]string{"Authorization": "Bearer a b"}, "", "", 400, -31401, "invalid_request", malformed("Send one bearer token: Authorization: Bearer <token>")},
		// A tab for the space names Bearer with its credential malformed
		// (RFC 6750 §3.1 invalid_request), never a request without one.
		{"tab for the space", map[string]string{"Authorization": "Bearer\t" + tokAlice}, "", "", 400, -31401, "invalid_request", malformed("Send one bearer token: Authorization: Bearer <token>")},
		{"token in query", nil, "?access_token=" + tokAlice, tokAlice, 400, -31401, "invalid_request", malformed("Send the access token in the Authorization header, never in the URL")},
		{"verifier down", nil, "", tokDown, 503, -31503, "auth_unavailable", ""},
		{"verifier panics", nil, "", tokPanic, 500, -32603, "internal", ""},
	}
	for _, era := range eras {
		for _, c := range []call{firstCall(era), {era: era, id: "2", method: "tools/list"}, toolCall(era, "whoami"),
			{era: era, method: "notifications/initialized"}} {
			for _, tt := range tests {
				t.Run(string(era)+"/"+c.method+"/"+tt.name, func(t *testing.T) {
					c := c
					c.header = tt.header
					req, _ := http.NewRequest(http.MethodPost, f.url+tt.query, strings.NewReader(c.body()))
					req.Header = headersFor(c)
					if tt.token != "" {
						req.Header.Set("Authorization", "Bearer "+tt.token)
					}
					r := send(t, req)
					checkRefusal(t, r, tt.status, tt.code, "", tt.reason, tt.challenge)
					if tt.status == 503 && r.header.Get("Retry-After") != "5" {
						t.Errorf("Retry-After = %q", r.header.Get("Retry-After"))
					}
				})
			}
		}
	}
	// Two Authorization headers.
	for _, era := range eras {
		c := firstCall(era)
		req, _ := http.NewRequest(http.MethodPost, f.url, strings.NewReader(c.body()))
		req.Header = headersFor(c)
		req.Header.Add("Authorization", "Bearer "+tokAlice)
		req.Header.Add("Authorization", "Bearer "+tokAlice)
		checkRefusal(t, send(t, req), 400, -31401, "", "invalid_request", malformed("Send exactly one Authorization header"))
	}
	if n := f.total(); n != 0 {
		t.Errorf("routes ran %d times for refused requests", n)
	}
	logs := f.log.String()
	if !strings.Contains(logs, "auth_unavailable") || !strings.Contains(logs, "internal") {
		t.Errorf("5xx causes not logged: %s", logs)
	}
	for _, tok := range allTokens {
		if strings.Contains(logs, tok) {
			t.Errorf("the log holds token %s", tok)
		}
	}
}

// TestAuth_Admitted checks that a good token reaches every method in every
// era, and that the in-process route sees the identity but never the token.
func TestAuth_Admitted(t *testing.T) {
	t.Parallel()
	f := newAuthFixture(t, authOptions{workspaces: true})
	for _, era := range eras {
		t.Run(string(era), func(t *testing.T) {
			if r := f.do(t, firstCall(era), tokAlice); r.status != 200 || r.code() != 0 {
				t.Fatalf("first call: %d %s", r.status, r.raw)
			}
			r := f.do(t, toolCall(era, "whoami"), tokAlice)
			if r.status != 200 || r.code() != 0 {
				t.Fatalf("whoami: %d %s", r.status, r.raw)
			}
			seen := f.seen.Load().(map[string]any)
			if seen["subject"] != "alice" || seen["workspace"] != "w1" || seen["workspaceSet"] != true {
				t.Errorf("route saw %v", seen)
			}
			if a, _ := seen["authorization"].([]any); len(a) != 0 {
				t.Errorf("route saw Authorization %v", a)
			}
			if strings.Contains(string(r.raw), "S3CRET") {
				t.Errorf("token echoed: %s", r.raw)
			}
		})
	}
}

func toolNames(t *testing.T, r *reply) []string {
	t.Helper()
	var res struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(r.msg.Result, &res); err != nil || r.status != 200 {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

// TestAuth_Scopes covers §5.2 rows 28-29 and §6.6 49-52: lists are
// filtered by scope and permission, a call lacking a scope gets one 403
// challenge naming every scope the call needs, and a hidden tool is
// indistinguishable from an unknown one.
func TestAuth_Scopes(t *testing.T) {
	t.Parallel()
	f := newAuthFixture(t, authOptions{permit: true, caching: true})
	for _, era := range eras {
		t.Run(string(era), func(t *testing.T) {
			list := call{era: era, id: "3", method: "tools/list"}
			lists := map[string]string{
				tokAlice:  "items_get,whoami,slow,ask",
				tokWriter: "items_get,items_write,whoami,slow,ask",
				tokRoot:   "items_get,admin_report,whoami,slow,ask",
			}
			for tok, want := range lists {
				r := f.do(t, list, tok)
				if got := strings.Join(toolNames(t, r), ","); got != want {
					t.Errorf("%s sees %s, want %s", tok, got, want)
				}
				if era == mcp.Version20260728 {
					res := r.result(t)
					// Filtered lists are private whatever WithCaching says.
					if res["cacheScope"] != "private" || res["ttlMs"] != float64(60000) {
						t.Errorf("stamp: cacheScope %v ttlMs %v", res["cacheScope"], res["ttlMs"])
					}
				}
			}
			// Deterministic order over repeated calls.
			first := f.do(t, list, tokWriter).raw
			for range 20 {
				if r := f.do(t, list, tokWriter); string(r.raw) != string(first) {
					t.Fatalf("list changed between calls:\n%s\n%s", first, r.raw)
				}
			}

			// A tool whose scope the token lacks: 403 naming every scope.
			before := f.hits["POST /items"].Load()
			r := f.do(t, toolCall(era, "items_write"), tokAlice)
			checkRefusal(t, r, 403, -31403, "7", "insufficient_scope",
				`Bearer error="insufficient_scope", scope="items:write mcp:read", resource_metadata="`+prmURL+
					`", error_description="The operation requires scope items:write mcp:read"`)
			var data struct {
				Required []string `json:"required"`
			}
			json.Unmarshal(r.msg.Error.Data, &data)
			if strings.Join(data.Required, " ") != "items:write mcp:read" {
				t.Errorf("data.required = %v", data.Required)
			}
			if r := f.do(t, toolCall(era, "items_write"), tokWriter); r.status != 200 || r.code() != 0 {
				t.Errorf("writer refused: %s", r.raw)
			}
			if got := f.hits["POST /items"].Load() - before; got != 1 {
				t.Errorf("items route ran %d times, want 1 (the writer's call)", got)
			}

			// Hidden looks exactly like unknown.
			hidden := f.do(t, toolCall(era, "admin_report"), tokAlice)
			unknown := f.do(t, toolCall(era, "admin_reporx"), tokAlice)
			if hidden.status != 200 || hidden.code() != -32602 {
				t.Fatalf("hidden tool: %d %s", hidden.status, hidden.raw)
			}
			if got, want := strings.ReplaceAll(string(hidden.raw), "admin_report", "admin_reporx"), string(unknown.raw); got != want {
				t.Errorf("hidden differs from unknown:\n%s\n%s", got, want)
			}
			if era == mcp.Version20260728 {
				// The Mcp-Param-* checks reveal nothing either: the hidden
				// tool's declared header is not demanded.
				c := toolCall(era, "admin_report")
				c.params = `"name":"admin_report","arguments":{"region":"eu"}`
				h := f.do(t, c, tokAlice)
				c.params = strings.ReplaceAll(c.params, "admin_report", "admin_reporx")
				c.header = map[string]string{"Mcp-Name": "admin_reporx"}
				u := f.do(t, c, tokAlice)
				if h.code() != -32602 || strings.ReplaceAll(string(h.raw), "admin_report", "admin_reporx") != string(u.raw) {
					t.Errorf("hidden tool with header params:\n%s\n%s", h.raw, u.raw)
				}
				// root sees it, and then the header is required.
				c.params = `"name":"admin_report","arguments":{"region":"eu"}`
				c.header = nil
				if r := f.do(t, c, tokRoot); r.status != 400 || r.code() != -32020 {
					t.Errorf("visible tool without its header: %d %s", r.status, r.raw)
				}
			}
			if f.hits["GET /admin"].Load() != 0 {
				t.Error("the hidden tool ran")
			}
			if r := f.do(t, toolCall(era, "admin_report"), tokRoot); r.status != 200 || r.code() != 0 {
				t.Errorf("root refused: %s", r.raw)
			}
			f.hits["GET /admin"].Store(0)

			// A method scope the token lacks: 403 with the id; discovery
			// and initialize need none.
			checkRefusal(t, f.do(t, list, tokNoScope), 403, -31403, "3", "insufficient_scope",
				`Bearer error="insufficient_scope", scope="mcp:read", resource_metadata="`+prmURL+
					`", error_description="The operation requires scope mcp:read"`)
			if r := f.do(t, firstCall(era), tokNoScope); r.status != 200 || r.code() != 0 {
				t.Errorf("first call without scopes: %d %s", r.status, r.raw)
			}
		})
	}
}

// TestAuth_Workspaces covers §5.2 rows 25-27 and §6.8 61-63.
func TestAuth_Workspaces(t *testing.T) {
	t.Parallel()
	f := newAuthFixture(t, authOptions{workspaces: true, permit: true})
	for _, era := range eras {
		t.Run(string(era), func(t *testing.T) {
			ws := func(c call, id string) call {
				if id != "" {
					c.header = map[string]string{"X-Workspace-Id": id}
				}
				return c
			}
			// A multi-workspace user must name one for data methods...
			r := f.do(t, ws(toolCall(era, "whoami"), ""), tokBob)
			checkRefusal(t, r, 400, -32602, "7", "workspace_required", "")
			if !strings.Contains(string(r.msg.Error.Data), `"header":"X-Workspace-Id"`) {
				t.Errorf("data %s", r.msg.Error.Data)
			}
			checkRefusal(t, f.do(t, ws(call{era: era, id: "3", method: "tools/list"}, ""), tokBob), 400, -32602, "3", "workspace_required", "")
			// ...but not for the first call.
			if r := f.do(t, firstCall(era), tokBob); r.status != 200 || r.code() != 0 {
				t.Errorf("first call without a workspace: %d %s", r.status, r.raw)
			}
			if r := f.do(t, ws(toolCall(era, "whoami"), "w2"), tokBob); r.status != 200 || r.code() != 0 {
				t.Fatalf("named workspace: %s", r.raw)
			}
			if seen := f.seen.Load().(map[string]any); seen["workspace"] != "w2" {
				t.Errorf("route saw workspace %v", seen["workspace"])
			}
			// Not a member and does not exist: the same answer.
			notMember := f.do(t, ws(toolCall(era, "whoami"), "w2"), tokAlice)
			checkRefusal(t, notMember, 403, -31403, "7", "workspace_forbidden", "")
			nonexistent := f.do(t, ws(toolCall(era, "whoami"), "w9"), tokAlice)
			if string(notMember.raw) != string(nonexistent.raw) {
				t.Errorf("forbidden and nonexistent differ:\n%s\n%s", notMember.raw, nonexistent.raw)
			}
			for _, bad := range []string{"../x", "%2e%2e", strings.Repeat("w", 5000)} {
				checkRefusal(t, f.do(t, ws(toolCall(era, "whoami"), bad), tokBob), 400, -32602, "7", "workspace_invalid", "")
			}
			if era == mcp.Version20260728 {
				// Visibility may depend on the workspace here, so lists
				// must not be cached at all.
				res := f.do(t, ws(call{era: era, id: "3", method: "tools/list"}, "w1"), tokBob).result(t)
				if res["ttlMs"] != float64(0) || res["cacheScope"] != "private" {
					t.Errorf("stamp %v %v", res["ttlMs"], res["cacheScope"])
				}
			}
		})
	}
}

// fakeClock is the time of a store under test (a ratelimit.Memory, a
// replay guard), moved only by the test.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// TestAuth_RateLimit covers §5.2 row 4: X-RateLimit-* on every
// authenticated response, 429 with Retry-After when spent, recovery after
// the reset, and server/discover on a budget of its own.
func TestAuth_RateLimit(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		t.Run(string(era), func(t *testing.T) {
			clk := &fakeClock{t: time.Unix(2_000_000_000, 0)}
			lim := ratelimit.NewMemory(1, 3, ratelimit.WithClock(clk.now))
			f := newAuthFixture(t, authOptions{handler: []mcp.HandlerOption{mcp.WithRateLimit(lim)}})
			list := call{era: era, id: "3", method: "tools/list"}
			for i := 2; i >= 0; i-- {
				r := f.do(t, list, tokAlice)
				if r.status != 200 {
					t.Fatalf("request %d: %d %s", 3-i, r.status, r.raw)
				}
				if r.header.Get("X-RateLimit-Limit") != "3" || r.header.Get("X-RateLimit-Remaining") != strconv.Itoa(i) {
					t.Errorf("headers %v", r.header)
				}
				reset, _ := strconv.ParseInt(r.header.Get("X-RateLimit-Reset"), 10, 64)
				if want := clk.now().Unix() + int64(3-i); reset != want {
					t.Errorf("X-RateLimit-Reset = %d, want %d (epoch seconds)", reset, want)
				}
			}
			r := f.do(t, list, tokAlice)
			checkRefusal(t, r, 429, -31429, "3", "rate_limited", "")
			if r.header.Get("Retry-After") != "1" || r.header.Get("X-RateLimit-Remaining") != "0" {
				t.Errorf("429 headers %v", r.header)
			}
			// Another principal has its own budget.
			if r := f.do(t, list, tokWriter); r.status != 200 {
				t.Errorf("other principal: %d", r.status)
			}
			// A bad body from the same principal is still metered and
			// still carries the headers.
			bad := f.do(t, call{era: era, rawBody: `{"jsonrpc":`}, tokAlice)
			if bad.status != 429 || bad.header.Get("X-RateLimit-Limit") != "3" {
				t.Errorf("bad body: %d %v", bad.status, bad.header)
			}
			if era == mcp.Version20260728 {
				// Discovery is never starved by other traffic.
				if r := f.do(t, firstCall(era), tokAlice); r.status != 200 || r.header.Get("X-RateLimit-Limit") == "" {
					t.Errorf("discover: %d %v", r.status, r.header)
				}
			}
			clk.advance(time.Second)
			if r := f.do(t, list, tokAlice); r.status != 200 || r.header.Get("X-RateLimit-Remaining") != "0" {
				t.Errorf("after the reset: %d %v", r.status, r.header)
			}
		})
	}
}

type failingLimiter struct{}

func (failingLimiter) Take(context.Context, string, int) (ratelimit.Decision, error) {
	return ratelimit.Decision{}, errors.New("redis down")
}

func TestAuth_LimiterFailureIsUnavailable(t *testing.T) {
	t.Parallel()
	f := newAuthFixture(t, authOptions{handler: []mcp.HandlerOption{mcp.WithRateLimit(failingLimiter{})}})
	for _, era := range eras {
		r := f.do(t, toolCall(era, "whoami"), tokAlice)
		checkRefusal(t, r, 503, -31503, "7", "rate_limiter_unavailable", "")
		if r.header.Get("Retry-After") == "" {
			t.Error("no Retry-After")
		}
	}
	if f.total() != 0 {
		t.Error("a route ran without metering")
	}
}

// TestAuth_ClientRateLimit meters before authentication: a flood of bad
// tokens is refused with 429 before the verifier runs.
func TestAuth_ClientRateLimit(t *testing.T) {
	t.Parallel()
	var verified atomic.Int64
	clk := &fakeClock{t: time.Unix(2_000_000_000, 0)}
	srv := mcp.NewServer(mcp.Implementation{Name: "x", Version: "1"})
	a := auth.New(auth.Config{Resource: resourceURI, Verifier: auth.VerifierFunc(func(ctx context.Context, tok string, r *http.Request) (*auth.Principal, error) {
		verified.Add(1)
		return nil, auth.ErrInvalidToken
	})})
	url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()},
		mcp.WithAuth(a), mcp.WithClientRateLimit(ratelimit.NewMemory(1, 2, ratelimit.WithClock(clk.now)), nil)))
	f := &authFixture{url: url}
	for i, want := range []int{401, 401, 429, 429} {
		r := f.do(t, firstCall(mcp.Version20250618), "junk")
		if r.status != want {
			t.Fatalf("request %d: %d, want %d", i, r.status, want)
		}
		if want == 429 {
			checkRefusal(t, r, 429, -31429, "", "rate_limited", "")
		}
	}
	if verified.Load() != 2 {
		t.Errorf("verifier ran %d times, want 2", verified.Load())
	}
}

// TestAuth_Overload: past Limits.Concurrent, requests get 503 at once.
func TestAuth_Overload(t *testing.T) {
	t.Parallel()
	f := newAuthFixture(t, authOptions{handler: []mcp.HandlerOption{mcp.WithLimits(mcp.Limits{Concurrent: 1})}})
	for _, era := range eras {
		done := make(chan *reply)
		go func() { done <- f.do(t, toolCall(era, "slow"), tokAlice) }()
		<-f.entered
		r := f.do(t, toolCall(era, "whoami"), tokAlice)
		checkRefusal(t, r, 503, -31503, "7", "overloaded", "")
		if r.header.Get("Retry-After") != "1" {
			t.Errorf("Retry-After = %q", r.header.Get("Retry-After"))
		}
		f.release <- struct{}{}
		if r := <-done; r.status != 200 {
			t.Errorf("slow call: %d", r.status)
		}
		if r := f.do(t, toolCall(era, "whoami"), tokAlice); r.status != 200 {
			t.Errorf("after the slot freed: %d", r.status)
		}
	}
}

// TestAuth_OriginBeforeAuth: Host and Origin are refused before
// authentication, whatever the token.
func TestAuth_OriginBeforeAuth(t *testing.T) {
	t.Parallel()
	f := newAuthFixture(t, authOptions{})
	for _, era := range eras {
		for name, set := range map[string]func(*http.Request){
			"evil origin": func(r *http.Request) { r.Header.Set("Origin", "https://evil.example.com") },
			"null origin": func(r *http.Request) { r.Header.Set("Origin", "null") },
			"two origins": func(r *http.Request) {
				r.Header.Add("Origin", "http://localhost")
				r.Header.Add("Origin", "http://localhost")
			},
			"rebinding": func(r *http.Request) {
				r.Host = "evil.example.com:8080"
				r.Header.Set("Origin", "http://evil.example.com:8080")
			},
			"evil host": func(r *http.Request) { r.Host = "evil.example.com" },
			"no token, bad": func(r *http.Request) {
				r.Header.Del("Authorization")
				r.Header.Set("Origin", "https://evil.example.com")
			},
		} {
			c := firstCall(era)
			req, _ := http.NewRequest(http.MethodPost, f.url, strings.NewReader(c.body()))
			req.Header = headersFor(c)
			req.Header.Set("Authorization", "Bearer "+tokAlice)
			set(req)
			r := send(t, req)
			if r.status != 403 || r.code() != -31403 || r.msg.ID != nil || r.header.Get("WWW-Authenticate") != "" {
				t.Errorf("%s/%s: %d %s", era, name, r.status, r.raw)
			}
		}
	}
}

// TestAuth_StateBinding: a requestState is bound to the principal and the
// workspace it was minted for (§6.8 64); authorization is re-run on the
// retry, never read from the state.
func TestAuth_StateBinding(t *testing.T) {
	t.Parallel()
	f := newAuthFixture(t, authOptions{workspaces: true})
	ask := func(token, ws, state string) *reply {
		c := rt{name: "ask", caps: formCaps, header: map[string]string{"Authorization": "Bearer " + token}}
		if ws != "" {
			c.header["X-Workspace-Id"] = ws
		}
		if state != "" {
			c.id, c.state, c.responses = 2, quoteJSON(state), `{"ok":{"action":"accept","content":{}}}`
		}
		return c.send(t, f.url)
	}
	in := asInterim(t, ask(tokBob, "w1", ""))
	if res := asResult(t, ask(tokBob, "w1", in.RequestState)); res.IsError {
		t.Fatalf("same principal and workspace: %+v", res)
	}
	checkInvalidState(t, ask(tokBob, "w2", in.RequestState))
	checkInvalidState(t, ask(tokAlice, "w1", in.RequestState))
	// A token that lost its validity is refused before the state is read.
	if r := ask(tokExpired, "w1", in.RequestState); r.status != 401 {
		t.Errorf("expired token: %d", r.status)
	}
	// A workspace the principal lost is refused as such.
	if r := ask(tokAlice, "w2", in.RequestState); r.status != 403 {
		t.Errorf("foreign workspace: %d %s", r.status, r.raw)
	}
}

// TestAuth_PermitAskedOncePerCall: the permission rule may be a database
// query; a 2026 tools/call asks it once, though both the header checks and
// dispatch need the answer.
func TestAuth_PermitAskedOncePerCall(t *testing.T) {
	t.Parallel()
	var asked atomic.Int64
	srv := mcp.NewServer(mcp.Implementation{Name: "p", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"R"}}}`)},
		"GET /t", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `"ok"`) }))
	a := auth.New(auth.Config{Resource: resourceURI, Verifier: auth.VerifierFunc(testVerifier),
		Permit: func(context.Context, auth.Access) bool { asked.Add(1); return true }})
	url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New()}, mcp.WithAuth(a)))
	r := rt{name: "t", args: `{"r":"x"}`, header: map[string]string{"Authorization": "Bearer " + tokAlice, "Mcp-Param-R": "x"}}.send(t, url)
	if r.status != 200 || r.code() != 0 || asked.Load() != 1 {
		t.Errorf("status %d, Permit asked %d times: %s", r.status, asked.Load(), r.raw)
	}
}
