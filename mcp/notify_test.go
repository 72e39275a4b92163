package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/stdio"
	"github.com/mcpdual/mcpdual/mrtr"
)

// fleet is replicas of one service: each its own Server and Handler,
// sharing one event bus and one session store, as a fleet shares Redis.
type fleet struct {
	bus      mcp.EventBus
	sessions mcp.SessionStore
	replicas []*replica
	members  *membership
}

type replica struct {
	srv  *mcp.Server
	h    *mcp.Handler
	url  string
	mux  *http.ServeMux
	logs *syncBuffer
}

// membership is who may act in which workspace, changed by tests.
type membership struct {
	mu      sync.Mutex
	members map[string]map[string]bool // subject -> workspaces
	denied  map[string]bool            // URIs the permission rule hides
}

func (m *membership) resolve(ctx context.Context, p *auth.Principal, requested string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ws := m.members[p.Subject]
	if requested == "" {
		return "", auth.ErrWorkspaceRequired
	}
	if !ws[requested] {
		return "", auth.ErrWorkspaceForbidden
	}
	return requested, nil
}

func (m *membership) set(f func()) {
	m.mu.Lock()
	defer m.mu.Unlock()
	f()
}

func newFleet(t *testing.T, n int, extra ...mcp.HandlerOption) *fleet {
	t.Helper()
	f := &fleet{bus: mcp.NewMemoryEventBusForTest(), sessions: mcp.NewMemorySessionStoreForTest(100, time.Now),
		members: &membership{members: map[string]map[string]bool{"alice": {"w1": true}, "bob": {"w2": true}}, denied: map[string]bool{}}}
	ring, err := mrtr.NewRing(mrtr.Key{ID: "k1", Secret: []byte(strings.Repeat("s", 32))})
	if err != nil {
		t.Fatal(err)
	}
	sealer := mrtr.NewSealer(ring)
	for range n {
		r := &replica{mux: http.NewServeMux(), logs: &syncBuffer{}}
		r.mux.HandleFunc("GET /mail/{ws}/{box}", func(w http.ResponseWriter, req *http.Request) {
			if ws, _ := auth.WorkspaceFromContext(req.Context()); ws != req.PathValue("ws") {
				http.Error(w, "not yours", http.StatusNotFound)
				return
			}
			io.WriteString(w, `{"mails":[]}`)
		})
		r.mux.HandleFunc("GET /a", func(w http.ResponseWriter, req *http.Request) { io.WriteString(w, "a") })
		r.srv = mcp.NewServer(mcp.Implementation{Name: "notes", Version: "1"})
		r.srv.AddTool(mcp.Tool{Name: "a", InputSchema: objSchema}, "GET /a", r.mux)
		r.srv.AddResourceTemplate(mcp.ResourceTemplate{Name: "mailbox", URITemplate: "mail://{ws}/{box}", MIMEType: "application/json"}, "GET /mail/{ws}/{box}", r.mux)
		r.srv.AddPrompt(mcp.Prompt{Name: "p"}, staticPrompt)
		cfg := auth.Config{Verifier: auth.VerifierFunc(testVerifier), Resource: resourceURI, Workspaces: auth.WorkspaceFunc(f.members.resolve),
			Permit: func(ctx context.Context, a auth.Access) bool {
				f.members.mu.Lock()
				defer f.members.mu.Unlock()
				return !f.members.denied[a.Name]
			}}
		opts := append([]mcp.HandlerOption{mcp.WithLogger(slog.New(slog.NewTextHandler(r.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))),
			mcp.WithAuth(auth.New(cfg)), mcp.WithStreaming(),
			mcp.WithChangeNotifications(mcp.ChangeNotifications{Bus: f.bus, Sessions: f.sessions, StreamsPerCaller: 3, URIsPerStream: 2,
				KeepAlive: 50 * time.Millisecond})}, extra...)
		r.h = mcp.NewHandler(r.srv, []mcp.Era{era2026.New(era2026.WithSealer(sealer)), era2025.New(era2025.WithSessions(sealer, 0))}, opts...)
		r.url = newTestServer(t, r.h)
		f.replicas = append(f.replicas, r)
	}
	return f
}

func staticPrompt(ctx context.Context, args map[string]string) (*mcp.PromptResult, error) {
	return &mcp.PromptResult{}, nil
}

// listen opens a 2026-07-28 listen on r as token in workspace (no
// X-Workspace-Id for ""), asking notifications (raw JSON members), and
// reads its acknowledgement.
func (r *replica) listen(t *testing.T, ctx context.Context, token, workspace, notifications string) (*listenStream, map[string]json.RawMessage) {
	t.Helper()
	return r.listenWith(t, ctx, metaNoTasks, token, workspace, notifications)
}

// listenWith is listen with the request's _meta member.
func (r *replica) listenWith(t *testing.T, ctx context.Context, meta, token, workspace, notifications string) (*listenStream, map[string]json.RawMessage) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{` + meta + `,"notifications":{` + notifications + `}}}`
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, r.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	req.Header.Set("Authorization", "Bearer "+token)
	if workspace != "" {
		req.Header.Set("X-Workspace-Id", workspace)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	s := &listenStream{resp: resp, rd: bufio.NewReader(resp.Body)}
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		return s, map[string]json.RawMessage{"status": json.RawMessage(resp.Status), "body": b}
	}
	return s, s.next(t)
}

// within reads the next message of s, or nil when none comes in d. A
// message the test waits for gets 10 s, a bound reached only when it never
// comes (a loaded machine may take seconds to deliver it); a message that
// must not come is given a few hundred milliseconds, which a slow machine
// can only make easier to pass.
func (s *listenStream) within(t *testing.T, d time.Duration) map[string]json.RawMessage {
	t.Helper()
	got := make(chan map[string]json.RawMessage, 1)
	go func() { got <- s.next(t) }()
	select {
	case m := <-got:
		return m
	case <-time.After(d):
		s.resp.Body.Close() // ends the reader
		<-got
		return nil
	}
}

func method(m map[string]json.RawMessage) string {
	var s string
	json.Unmarshal(m["method"], &s)
	return s
}

func (r *replica) addTool(t *testing.T, name string) {
	t.Helper()
	if err := r.srv.Update(func(s *mcp.Server) { s.AddTool(mcp.Tool{Name: name, InputSchema: objSchema}, "GET /a", r.mux) }); err != nil {
		t.Fatal(err)
	}
}

// TestNotify_ListChangedAcrossReplicas: a stream on one replica hears of
// a change made on another, once however many replicas apply it, and
// only the kinds it asked for; every message names the subscription.
func TestNotify_ListChangedAcrossReplicas(t *testing.T) {
	f := newFleet(t, 3)
	ctx := t.Context()
	tools, ack := f.replicas[0].listen(t, ctx, tokAlice, "w1", `"toolsListChanged":true,"taskIds":["x"]`)
	if method(ack) != "notifications/subscriptions/acknowledged" || subscriptionOf(t, ack["params"]) != "7" {
		t.Fatalf("ack: %s", ack)
	}
	var ap struct {
		Notifications map[string]json.RawMessage `json:"notifications"`
	}
	json.Unmarshal(ack["params"], &ap)
	if len(ap.Notifications) != 1 || string(ap.Notifications["toolsListChanged"]) != "true" {
		t.Errorf("acknowledged %s, want toolsListChanged only (no task opened)", ack["params"])
	}
	prompts, _ := f.replicas[0].listen(t, ctx, tokAlice, "w1", `"promptsListChanged":true`)
	// The same change on every replica: one notification.
	for _, r := range f.replicas {
		r.addTool(t, "b")
	}
	m := tools.within(t, 10*time.Second)
	if method(m) != "notifications/tools/list_changed" || subscriptionOf(t, m["params"]) != "7" {
		t.Fatalf("want tools/list_changed, got %s", m)
	}
	// A prompt change next: the tools stream is told nothing more, the
	// prompts stream is told of the prompt change only.
	for _, r := range f.replicas {
		if err := r.srv.Update(func(s *mcp.Server) { s.Remove(auth.KindPrompt, "p") }); err != nil {
			t.Fatal(err)
		}
	}
	if m := prompts.within(t, 10*time.Second); method(m) != "notifications/prompts/list_changed" {
		t.Fatalf("prompts stream: %s", m)
	}
	if m := tools.within(t, 300*time.Millisecond); m != nil {
		t.Errorf("the tools stream got %s", m)
	}
	// The change undone is a change again.
	f.replicas[1].addTool(t, "c")
	if err := f.replicas[1].srv.Update(func(s *mcp.Server) { s.Remove(auth.KindTool, "c") }); err != nil {
		t.Fatal(err)
	}
	tools2, _ := f.replicas[2].listen(t, ctx, tokAlice, "w1", `"toolsListChanged":true`)
	f.replicas[1].addTool(t, "c")
	if m := tools2.within(t, 10*time.Second); method(m) != "notifications/tools/list_changed" {
		t.Fatalf("after a toggle: %s", m)
	}
}

// TestNotify_ResourceUpdated: an update reaches the streams subscribed to
// its URI in its workspace only; a URI the caller may not read is left
// out of the acknowledgement; a caller whose permission or workspace is
// withdrawn stops receiving.
func TestNotify_ResourceUpdated(t *testing.T) {
	f := newFleet(t, 2)
	ctx := t.Context()
	alice, ack := f.replicas[0].listen(t, ctx, tokAlice, "w1", `"resourceSubscriptions":["mail://w1/inbox","mail://w2/inbox"]`)
	if !strings.Contains(string(ack["params"]), `"resourceSubscriptions":["mail://w1/inbox"]`) {
		t.Fatalf("alice's ack: %s %s %s", ack["params"], ack["status"], ack["body"])
	}
	bob, ack := f.replicas[1].listen(t, ctx, tokBob, "w2", `"resourceSubscriptions":["mail://w2/inbox"]`)
	if !strings.Contains(string(ack["params"]), `"resourceSubscriptions":["mail://w2/inbox"]`) {
		t.Fatalf("bob's ack: %s", ack["params"])
	}
	// Published on a third party's replica: each hears of its own only.
	if err := f.replicas[1].h.NotifyResourceUpdated(ctx, "w1", "mail://w1/inbox"); err != nil {
		t.Fatal(err)
	}
	m := alice.within(t, 10*time.Second)
	if method(m) != "notifications/resources/updated" || !strings.Contains(string(m["params"]), `"uri":"mail://w1/inbox"`) || subscriptionOf(t, m["params"]) != "7" {
		t.Fatalf("alice: %s", m)
	}
	// Another tenant's update, even under a URI bob subscribed to, never
	// reaches bob.
	f.replicas[0].h.NotifyResourceUpdated(ctx, "w1", "mail://w2/inbox")
	if m := bob.within(t, 300*time.Millisecond); m != nil {
		t.Errorf("bob got another tenant's update: %s", m)
	}
	// A hidden URI is not delivered (a read of the stream that times out
	// closes it: the next checks use another stream).
	alice2, _ := f.replicas[1].listen(t, ctx, tokAlice, "w1", `"resourceSubscriptions":["mail://w1/other"]`)
	f.members.set(func() { f.members.denied["mail://w1/inbox"] = true })
	f.replicas[0].h.NotifyResourceUpdated(ctx, "w1", "mail://w1/inbox")
	if m := alice.within(t, 300*time.Millisecond); m != nil {
		t.Errorf("alice got an update of a URI she may no longer see: %s", m)
	}
	// A withdrawn workspace ends the stream.
	f.members.set(func() { f.members.denied = map[string]bool{}; f.members.members["alice"] = map[string]bool{} })
	f.replicas[0].h.NotifyResourceUpdated(ctx, "w1", "mail://w1/other")
	end := alice2.within(t, 10*time.Second)
	if end == nil || end["result"] == nil {
		t.Errorf("alice's stream did not end: %s", end)
	}
}

// TestNotify_Bounds: streams have slots of their own, per caller; a
// stream asking too many URIs is refused; bad filters are -32602.
func TestNotify_Bounds(t *testing.T) {
	f := newFleet(t, 1, mcp.WithLimits(mcp.Limits{Concurrent: 1, PerCaller: 1}))
	r := f.replicas[0]
	ctx := t.Context()
	for range 3 {
		if _, ack := r.listen(t, ctx, tokAlice, "w1", `"toolsListChanged":true`); method(ack) != "notifications/subscriptions/acknowledged" {
			t.Fatalf("ack: %s", ack)
		}
	}
	// The fourth stream of alice is refused; bob, and alice's calls
	// (one concurrency slot), are still served.
	if _, got := r.listen(t, ctx, tokAlice, "w1", `"toolsListChanged":true`); !strings.Contains(string(got["status"]), "503") {
		t.Errorf("a fourth stream: %s %s", got["status"], got["body"])
	}
	if _, ack := r.listen(t, ctx, tokBob, "w2", `"toolsListChanged":true`); method(ack) != "notifications/subscriptions/acknowledged" {
		t.Errorf("bob: %s", ack)
	}
	res := rpc(t, r.url, tokAlice, "w1", "tools/call", "a", metaNoTasks, `"name":"a","arguments":{}`)
	if res.Error != nil {
		t.Errorf("a call beside the streams: %s", res.raw)
	}
	for _, bad := range []string{`"toolsListChanged":"yes"`, `"resourceSubscriptions":"mail://w2/inbox"`, `"resourceSubscriptions":[1]`,
		`"resourceSubscriptions":["a://1","a://2","a://3"]`} {
		_, got := r.listen(t, ctx, tokBob, "w2", bad)
		if !strings.Contains(string(got["body"]), "-32602") {
			t.Errorf("%s: %s %s", bad, got["status"], got["body"])
		}
	}
}

// TestNotify_KeepAliveAndLifetime: a quiet stream sends SSE comments, and
// ends with its result after its lifetime.
//
// Two streams: one that only its client ends shows the comments, one with
// a short lifetime its end. In one stream, 300 ms long, a loaded machine
// could run the stream's goroutine first when the lifetime had passed and
// end it with fewer than two comments.
func TestNotify_KeepAliveAndLifetime(t *testing.T) {
	defer mcp.SetListenLifetimeForTest(time.Hour)()
	f := newFleet(t, 1)
	quiet, _ := f.replicas[0].listen(t, t.Context(), tokAlice, "w1", `"toolsListChanged":true`)
	comments := make(chan int, 1)
	go func() {
		n := 0
		for n < 2 {
			line, err := quiet.rd.ReadString('\n')
			if err != nil {
				break
			}
			if strings.HasPrefix(line, ": keep-alive") {
				n++
			} else if strings.HasPrefix(line, "data: ") {
				t.Errorf("a quiet stream sent %s", line)
			}
		}
		comments <- n
	}()
	select {
	case n := <-comments:
		if n < 2 {
			t.Errorf("the quiet stream ended after %d keep-alive comments", n)
		}
	case <-time.After(10 * time.Second): // a bound, not a measure: comments come every 50 ms
		quiet.resp.Body.Close()
		t.Errorf("fewer than two keep-alive comments in 10 s at 50 ms: %d", <-comments)
	}
	quiet.resp.Body.Close()

	mcp.SetListenLifetimeForTest(300 * time.Millisecond) // read when a stream starts; the deferred call restores the default
	s, _ := f.replicas[0].listen(t, t.Context(), tokAlice, "w1", `"toolsListChanged":true`)
	// 10 s bounds the wait (the default lifetime is 45 s) and is no measure.
	if end := s.within(t, 10*time.Second); end == nil || !strings.HasPrefix(string(end["result"]), `{"resultType":"complete"`) {
		t.Fatalf("want the stream's result within 10 s of a 300 ms lifetime, got %s", end)
	}
}

// TestNotify_Off: without the option nothing is pushed or announced.
func TestNotify_Off(t *testing.T) {
	f := newFixture(t)
	if r := f.do(t, call{era: mcp.Version20260728, id: "1", method: "server/discover"}); strings.Contains(string(r.raw), "listChanged") {
		t.Errorf("discover announces listChanged: %s", r.raw)
	}
	r := f.do(t, call{era: mcp.Version20250618, id: "1", method: "initialize",
		params: `"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}`})
	if !strings.Contains(string(r.raw), `"tools":{"listChanged":false}`) || strings.Contains(string(r.raw), `"logging"`) {
		t.Errorf("initialize: %s", r.raw)
	}
	for _, m := range []string{"resources/subscribe", "logging/setLevel"} {
		if r := f.do(t, call{era: mcp.Version20250618, id: "1", method: m, params: `"uri":"x","level":"info"`}); r.code() != -32601 {
			t.Errorf("%s: %s", m, r.raw)
		}
	}
	req, _ := http.NewRequest(http.MethodGet, f.url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", "x")
	if r := send(t, req); r.status != 405 {
		t.Errorf("GET: %d", r.status)
	}
	if err := f.h.NotifyResourceUpdated(t.Context(), "", "x://y"); err == nil {
		t.Error("NotifyResourceUpdated without the option succeeded")
	}
}

// TestNotify_Announced: with the option, discover and a session's
// initialize announce what is served; 2026 keeps the 2025 methods 404.
func TestNotify_Announced(t *testing.T) {
	f := newFleet(t, 1)
	r := rpc(t, f.replicas[0].url, tokAlice, "", "server/discover", "", metaNoTasks, "")
	var d struct {
		Capabilities map[string]map[string]any `json:"capabilities"`
	}
	json.Unmarshal(r.Result["capabilities"], &d.Capabilities)
	if d.Capabilities["tools"]["listChanged"] != true || d.Capabilities["prompts"]["listChanged"] != true ||
		d.Capabilities["resources"]["subscribe"] != true || d.Capabilities["resources"]["listChanged"] != true || d.Capabilities["logging"] != nil {
		t.Errorf("discover: %s", r.raw)
	}
	for _, m := range []string{"resources/subscribe", "resources/unsubscribe", "logging/setLevel"} {
		if r := rpc(t, f.replicas[0].url, tokAlice, "w1", m, "", metaNoTasks, `"uri":"x","level":"info"`); r.status != 404 || r.Error == nil || r.Error.Code != -32601 {
			t.Errorf("2026 %s: %d %s", m, r.status, r.raw)
		}
	}
	s := newSession(t, f.replicas[0])
	if !strings.Contains(s.init, `"tools":{"listChanged":true}`) || !strings.Contains(s.init, `"resources":{"subscribe":true,"listChanged":true}`) ||
		!strings.Contains(s.init, `"logging":{}`) {
		t.Errorf("initialize: %s", s.init)
	}
}

// failingBus is an in-process bus whose subscriptions a test can end with
// an error, as an outage would, and whose Subscribe can be made to fail.
type failingBus struct {
	mcp.EventBus
	mu   sync.Mutex
	down bool
	subs []chan struct{} // closed to fail each open subscription
}

func (b *failingBus) Subscribe(ctx context.Context) (<-chan []byte, func() error, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.down {
		return nil, nil, errBusDown
	}
	events, stop, err := b.EventBus.Subscribe(ctx)
	if err != nil {
		return nil, nil, err
	}
	fail := make(chan struct{})
	b.subs = append(b.subs, fail)
	out := make(chan []byte)
	var failed bool
	var once sync.Once
	go func() {
		defer close(out)
		for {
			select {
			case <-fail:
				failed = true
				return
			case e, ok := <-events:
				if !ok {
					return
				}
				select {
				case out <- e:
				case <-fail:
					failed = true
					return
				}
			}
		}
	}()
	return out, func() error {
		var err error
		once.Do(func() { err = stop() })
		if failed {
			return errBusDown
		}
		return err
	}, nil
}

// outage ends every open subscription with an error, and makes new ones
// fail while down is true.
func (b *failingBus) outage(down bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.down = down
	for _, f := range b.subs {
		close(f)
	}
	b.subs = nil
}

var errBusDown = errors.New("bus down")

// TestNotify_BusOutage: when the bus fails, a listen stream ends with a
// clear error (the client listens again) and nothing crashes; a listen
// while the bus is down is refused with the same error; once it is back,
// a new stream is served and told.
func TestNotify_BusOutage(t *testing.T) {
	bus := &failingBus{EventBus: mcp.NewMemoryEventBusForTest()}
	srv := mcp.NewServer(mcp.Implementation{Name: "outage", Version: "1"})
	mux := http.NewServeMux()
	srv.AddTool(mcp.Tool{Name: "a", InputSchema: objSchema}, "GET /a", mux)
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New()}, mcp.WithLogger(slog.New(slog.DiscardHandler)),
		mcp.WithChangeNotifications(mcp.ChangeNotifications{Bus: bus}))
	r := &replica{srv: srv, h: h, url: newTestServer(t, h), mux: mux}
	listen := func() (*listenStream, map[string]json.RawMessage) {
		body := `{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{` + metaNoTasks + `,"notifications":{"toolsListChanged":true}}}`
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, r.url, strings.NewReader(body))
		req.Header = http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
			"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"subscriptions/listen"}}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		s := &listenStream{resp: resp, rd: bufio.NewReader(resp.Body)}
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			var m map[string]json.RawMessage
			json.NewDecoder(resp.Body).Decode(&m)
			return s, m
		}
		return s, s.next(t)
	}
	s, ack := listen()
	if method(ack) != "notifications/subscriptions/acknowledged" {
		t.Fatalf("ack: %s", ack)
	}
	bus.outage(true)
	end := s.within(t, 10*time.Second)
	if end == nil || !strings.Contains(string(end["error"]), `"reason":"events_lost"`) || string(end["id"]) != "7" {
		t.Fatalf("the stream's end in an outage: %s", end)
	}
	if _, m := listen(); !strings.Contains(string(m["error"]), `"reason":"events_lost"`) {
		t.Errorf("a listen while the bus is down: %s", m)
	}
	bus.outage(false)
	s, ack = listen()
	if method(ack) != "notifications/subscriptions/acknowledged" {
		t.Fatalf("ack after the outage: %s", ack)
	}
	r.addTool(t, "b")
	if m := s.within(t, 10*time.Second); method(m) != "notifications/tools/list_changed" {
		t.Errorf("after the outage: %s", m)
	}
}

// TestNotify_TokenExpiry: a stream ends when the token it was opened
// with expires.
func TestNotify_TokenExpiry(t *testing.T) {
	s, ack := listenExpiring(t, time.Now().Add(300*time.Millisecond), time.Millisecond)
	if method(ack) != "notifications/subscriptions/acknowledged" {
		t.Fatalf("ack: %s", ack)
	}
	// The token expires 300 ms after it was made: 10 s bounds the wait,
	// well below the stream's lifetime (45 s), and is no measure (a
	// loaded machine may deliver the end late).
	if end := s.within(t, 10*time.Second); end == nil || end["result"] == nil {
		t.Fatalf("no end within 10 s of the token's expiry: %s", end)
	}
}

// listenExpiring opens a list-change listen with a token that expires at
// expires, on a handler whose Authenticator allows skew.
func listenExpiring(t *testing.T, expires time.Time, skew time.Duration) (*listenStream, map[string]json.RawMessage) {
	t.Helper()
	srv := mcp.NewServer(mcp.Implementation{Name: "expiry", Version: "1"})
	mux := http.NewServeMux()
	srv.AddTool(mcp.Tool{Name: "a", InputSchema: objSchema}, "GET /a", mux)
	verifier := func(ctx context.Context, token string, r *http.Request) (*auth.Principal, error) {
		return &auth.Principal{Subject: "s", Audience: []string{resourceURI}, Scopes: []string{"mcp:read"}, ExpiresAt: expires}, nil
	}
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New()}, mcp.WithLogger(slog.New(slog.DiscardHandler)),
		mcp.WithAuth(auth.New(auth.Config{Verifier: auth.VerifierFunc(verifier), Resource: resourceURI, Skew: skew})),
		mcp.WithChangeNotifications(mcp.ChangeNotifications{}))
	r := &replica{url: newTestServer(t, h)}
	return r.listen(t, t.Context(), "expiring", "", `"toolsListChanged":true`)
}

// TestNotify_Stdio: over stdio a listen stream's messages go on the one
// connection; the client ends it with notifications/cancelled, and the
// server, tearing it down, sends notifications/cancelled naming it, then
// its result.
func TestNotify_Stdio(t *testing.T) {
	defer mcp.SetListenLifetimeForTest(400 * time.Millisecond)()
	srv := mcp.NewServer(mcp.Implementation{Name: "stdio", Version: "1"})
	mux := http.NewServeMux()
	srv.AddTool(mcp.Tool{Name: "a", InputSchema: objSchema}, "GET /a", mux)
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New()}, mcp.WithLogger(slog.New(slog.DiscardHandler)),
		mcp.WithChangeNotifications(mcp.ChangeNotifications{}))
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- stdio.Serve(ctx, h, inR, outW, stdio.WithConcurrency(1)) }()
	defer func() { cancel(); inW.Close(); outR.Close(); <-done }()
	lines := make(chan map[string]json.RawMessage, 16)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			var m map[string]json.RawMessage
			json.Unmarshal(sc.Bytes(), &m)
			lines <- m
		}
		close(lines)
	}()
	next := func() map[string]json.RawMessage {
		t.Helper()
		select {
		case m := <-lines:
			return m
		case <-time.After(10 * time.Second): // a bound, not a measure
			t.Fatal("no message")
			return nil
		}
	}
	send := func(s string) {
		t.Helper()
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	listen := `{"jsonrpc":"2.0","id":%d,"method":"subscriptions/listen","params":{` + metaNoTasks + `,"notifications":{"toolsListChanged":true}}}`
	send(fmt.Sprintf(listen, 21))
	if m := next(); method(m) != "notifications/subscriptions/acknowledged" || subscriptionOf(t, m["params"]) != "21" {
		t.Fatalf("ack: %s", m)
	}
	// The stream holds no slot of the transport's one: a call is served.
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + metaNoTasks + `}}`)
	if m := next(); string(m["id"]) != "2" {
		t.Fatalf("tools/list beside the stream: %s", m)
	}
	if err := srv.Update(func(s *mcp.Server) { s.AddTool(mcp.Tool{Name: "b", InputSchema: objSchema}, "GET /a", mux) }); err != nil {
		t.Fatal(err)
	}
	if m := next(); method(m) != "notifications/tools/list_changed" || subscriptionOf(t, m["params"]) != "21" {
		t.Fatalf("list change: %s", m)
	}
	// The server tears it down at its lifetime: cancelled, then the result.
	m := next()
	if method(m) != "notifications/cancelled" || !strings.Contains(string(m["params"]), `"requestId":21`) {
		t.Fatalf("teardown: %s", m)
	}
	if m := next(); string(m["id"]) != "21" || m["result"] == nil {
		t.Fatalf("result: %s", m)
	}
	// The client ends another: nothing more comes for it.
	send(fmt.Sprintf(listen, 22))
	if m := next(); method(m) != "notifications/subscriptions/acknowledged" {
		t.Fatalf("ack: %s", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":22}}`)
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{` + metaNoTasks + `}}`)
	if m := next(); string(m["id"]) != "3" {
		t.Fatalf("after cancelling the stream: %s", m)
	}
	select {
	case m := <-lines:
		t.Errorf("after the client cancelled: %s", m)
	case <-time.After(600 * time.Millisecond):
	}
}

// TestNotify_HundredsFromOnePrincipal: one principal opening hundreds of
// streams at once gets its share (StreamsPerCaller) and the rest are
// refused with 503; another principal is still served.
func TestNotify_HundredsFromOnePrincipal(t *testing.T) {
	f := newFleet(t, 1)
	r := f.replicas[0]
	ctx := t.Context()
	var mu sync.Mutex
	opened, refused := 0, 0
	var wg sync.WaitGroup
	for range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, got := r.listen(t, ctx, tokAlice, "w1", `"toolsListChanged":true`)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case method(got) == "notifications/subscriptions/acknowledged":
				opened++
			case strings.Contains(string(got["status"]), "503"):
				refused++
			}
		}()
	}
	wg.Wait()
	if opened != 3 || refused != 197 {
		t.Errorf("%d opened, %d refused; want 3 (StreamsPerCaller) and 197", opened, refused)
	}
	if _, ack := r.listen(t, ctx, tokBob, "w2", `"toolsListChanged":true`); method(ack) != "notifications/subscriptions/acknowledged" {
		t.Errorf("bob: %s", ack)
	}
}

// TestNotify_QuietStreamEnds: a stream quiet for longer than a write's
// deadline still ends with its result: every write, the last included,
// moves the deadline first.
func TestNotify_QuietStreamEnds(t *testing.T) {
	t.Cleanup(mcp.SetStreamWriteTimeoutForTest(200 * time.Millisecond)) // after the servers close
	defer mcp.SetListenLifetimeForTest(700 * time.Millisecond)()
	srv := mcp.NewServer(mcp.Implementation{Name: "quiet", Version: "1"})
	mux := http.NewServeMux()
	srv.AddTool(mcp.Tool{Name: "a", InputSchema: objSchema}, "GET /a", mux)
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New()}, mcp.WithLogger(slog.New(slog.DiscardHandler)),
		mcp.WithChangeNotifications(mcp.ChangeNotifications{KeepAlive: time.Hour}))
	r := &replica{url: newTestServer(t, h)}
	s, ack := r.listen(t, t.Context(), "", "", `"toolsListChanged":true`)
	if method(ack) != "notifications/subscriptions/acknowledged" {
		t.Fatalf("ack: %s", ack)
	}
	// A bound, not a measure: the lifetime is 700 ms, the default 45 s.
	if end := s.within(t, 10*time.Second); end == nil || end["result"] == nil {
		t.Fatalf("the quiet stream's end: %s", end)
	}
}

// TestNotify_MalformedListen: a server that delivers list changes says
// so (listChanged), so a listen whose notifications is missing or not an
// object is the client's error, -32602, not a missing method.
func TestNotify_MalformedListen(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Implementation{Name: "listen", Version: "1"})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /a", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("a")) })
	srv.AddTool(mcp.Tool{Name: "a", Description: "a", InputSchema: json.RawMessage(`{"type":"object"}`)}, "GET /a", mux)
	ts := httptest.NewServer(mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()},
		mcp.WithChangeNotifications(mcp.ChangeNotifications{})))
	t.Cleanup(ts.Close)
	f := &fixture{url: ts.URL}
	if r := f.do(t, call{era: mcp.Version20260728, id: "1", method: "server/discover"}); !strings.Contains(string(r.raw), `"listChanged":true`) {
		t.Fatalf("server/discover: %s", r.raw)
	}
	for _, p := range []string{``, `"notifications":"all"`, `"notifications":null`, `"notifications":[]`} {
		r := f.do(t, call{era: mcp.Version20260728, id: "1", method: "subscriptions/listen", params: p})
		if r.code() != -32602 || !strings.Contains(string(r.raw), "notifications is required and must be an object") {
			t.Errorf("params {%s}: %d %s, want -32602", p, r.status, r.raw)
		}
	}
}

// TestNotify_URIAtTheBound: an update of a URI within the bound a listen
// accepts (2,048 bytes) is published whatever its characters: events are
// encoded without HTML escaping, which made each & six bytes and such a
// URI too large for the bus.
func TestNotify_URIAtTheBound(t *testing.T) {
	f := newFleet(t, 1)
	prefix := "mail://w1/inbox?"
	uri := prefix + strings.Repeat("&<>", (2048-len(prefix))/3)
	if err := f.replicas[0].h.NotifyResourceUpdated(t.Context(), "w1", uri); err != nil {
		t.Errorf("a %d-byte URI: %v", len(uri), err)
	}
}

// TestNotify_TokenWithinSkew: a token Authenticate accepts within its
// clock skew, its expiry already past, opens a stream that lives until
// the skew runs out, not one that ends at once and sends the client
// round again and again.
func TestNotify_TokenWithinSkew(t *testing.T) {
	s, ack := listenExpiring(t, time.Now().Add(-10*time.Second), time.Minute)
	if method(ack) != "notifications/subscriptions/acknowledged" {
		t.Fatalf("ack: %s", ack)
	}
	if m := s.within(t, time.Second); m != nil && m["result"] != nil {
		t.Errorf("the stream ended at once: %s", m)
	}
}
