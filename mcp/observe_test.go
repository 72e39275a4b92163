package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/observe"
	"github.com/mcpdual/mcpdual/mcp/ratelimit"
)

// recordingObserver keeps a copy of every completed event, and puts a
// value in the context it returns so tests can see where it went.
type recordingObserver struct {
	mu     sync.Mutex
	events []observe.Event
	routes []observe.RouteEvent
	// routeSaw is what the route's context answered for obsKey.
	routeSaw []any
}

type obsKey struct{}

func (o *recordingObserver) Request(ctx context.Context, ev *observe.Event) (context.Context, func()) {
	return context.WithValue(ctx, obsKey{}, "req:"+ev.Method), func() {
		o.mu.Lock()
		defer o.mu.Unlock()
		o.events = append(o.events, *ev)
	}
}

func (o *recordingObserver) Route(outer, inner context.Context, ev *observe.RouteEvent) (context.Context, func()) {
	ctx := context.WithValue(inner, obsKey{}, "route:"+ev.Target+" in "+outer.Value(obsKey{}).(string))
	return ctx, func() {
		o.mu.Lock()
		defer o.mu.Unlock()
		o.routes = append(o.routes, *ev)
	}
}

// take returns and forgets what was recorded.
func (o *recordingObserver) take() ([]observe.Event, []observe.RouteEvent, []any) {
	o.mu.Lock()
	defer o.mu.Unlock()
	e, r, s := o.events, o.routes, o.routeSaw
	o.events, o.routes, o.routeSaw = nil, nil, nil
	return e, r, s
}

// ctxLog records the observer's context value of every log line.
type ctxLog struct {
	mu   sync.Mutex
	seen []string
}

func (l *ctxLog) Enabled(context.Context, slog.Level) bool { return true }
func (l *ctxLog) Handle(ctx context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	v, _ := ctx.Value(obsKey{}).(string)
	l.seen = append(l.seen, r.Message+" @ "+v)
	return nil
}
func (l *ctxLog) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *ctxLog) WithGroup(string) slog.Handler      { return l }

type observed struct {
	url     string
	handler http.Handler
	obs     *recordingObserver
	log     *ctxLog
	clk     *fakeClock
}

func newObserved(t *testing.T, extra ...mcp.HandlerOption) *observed {
	t.Helper()
	o := &observed{obs: &recordingObserver{}, log: &ctxLog{}, clk: &fakeClock{t: time.Unix(2_000_000_000, 0)}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /echo", func(w http.ResponseWriter, r *http.Request) {
		o.obs.mu.Lock()
		o.obs.routeSaw = append(o.obs.routeSaw, r.Context().Value(obsKey{}))
		o.obs.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.Copy(w, r.Body)
	})
	mux.HandleFunc("GET /fail", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no such item", http.StatusNotFound) })
	mux.HandleFunc("DELETE /items/{id}", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	srv := mcp.NewServer(mcp.Implementation{Name: "observed", Version: "1"})
	obj := func(s string) json.RawMessage { return json.RawMessage(s) }
	srv.AddTool(mcp.Tool{Name: "echo", InputSchema: obj(`{"type":"object"}`)}, "POST /echo", mux)
	srv.AddTool(mcp.Tool{Name: "fail", InputSchema: obj(`{"type":"object"}`)}, "GET /fail", mux)
	srv.AddTool(mcp.Tool{Name: "delete", InputSchema: obj(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`),
		Annotations: mcp.Annotations{Destructive: true}}, "DELETE /items/{id}", mux)
	opts := append([]mcp.HandlerOption{
		mcp.WithObserver(o.obs),
		mcp.WithLogger(slog.New(o.log)),
		mcp.WithAuth(auth.New(auth.Config{Verifier: auth.VerifierFunc(testVerifier), Resource: resourceURI})),
		mcp.WithRateLimit(ratelimit.NewMemory(1, 8, ratelimit.WithClock(o.clk.now))),
	}, extra...)
	o.handler = mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, opts...)
	ts := httptest.NewServer(o.handler)
	t.Cleanup(ts.Close)
	o.url = ts.URL
	return o
}

// post sends body with the headers a client of era sends, and the token.
func (o *observed) post(t *testing.T, era mcp.Version, token, body string, header map[string]string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, o.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", string(era))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	o.clk.advance(time.Second) // the limiter refills between requests
	return resp.StatusCode, b
}

const metaElicit = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}`

func toolsCall(era mcp.Version, id, name, args, extra string) (string, map[string]string) {
	params := `"name":"` + name + `","arguments":` + args
	if era == mcp.Version20260728 {
		params = metaElicit + "," + params
	}
	if extra != "" {
		params += "," + extra
	}
	h := map[string]string{}
	if era == mcp.Version20260728 {
		h["Mcp-Method"], h["Mcp-Name"] = "tools/call", name
	}
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{` + params + `}}`, h
}

var alice = (&auth.Principal{Issuer: "https://as.example.com", Subject: "alice", ClientID: "client-1"}).Key()

// ignoreTiming leaves out what differs from run to run.
var ignoreTiming = cmpopts.IgnoreFields(observe.Event{}, "Start", "Duration", "RawMeta", "ClientAddr")
var ignoreRouteTiming = cmpopts.IgnoreFields(observe.RouteEvent{}, "Start", "Duration")

// TestObserver_Events: the event of each kind of outcome, in each era it
// applies to.
func TestObserver_Events(t *testing.T) {
	t.Parallel()
	for _, era := range []mcp.Version{mcp.Version20260728, mcp.Version20250618} {
		t.Run(string(era), func(t *testing.T) {
			o := newObserved(t)
			resultType := ""
			if era == mcp.Version20260728 {
				resultType = "complete"
			}
			check := func(o *observed, name string, status int, body []byte, want observe.Event, wantRoutes []observe.RouteEvent) {
				t.Helper()
				events, routes, _ := o.obs.take()
				if len(events) != 1 {
					t.Fatalf("%s: %d events", name, len(events))
				}
				got := events[0]
				want.Transport, want.Status, want.BytesOut = "http", status, len(body)
				if diff := cmp.Diff(want, got, ignoreTiming); diff != "" {
					t.Errorf("%s: event (-want +got):\n%s", name, diff)
				}
				if got.Duration <= 0 || got.Start.IsZero() || got.ClientAddr == "" {
					t.Errorf("%s: timing or address missing: %+v", name, got)
				}
				if diff := cmp.Diff(wantRoutes, routes, ignoreRouteTiming, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("%s: route events (-want +got):\n%s", name, diff)
				}
			}

			body, h := toolsCall(era, "1", "echo", `{"text":"hi"}`, "")
			status, resp := o.post(t, era, tokAlice, body, h)
			check(o, "a result", status, resp, observe.Event{Method: "tools/call", ID: "1", Target: "echo", TargetKnown: true,
				Version: string(era), Principal: alice, ResultType: resultType, BytesIn: len(body)},
				[]observe.RouteEvent{{Method: "POST", Pattern: "POST /echo", Path: "/echo", Target: "echo", Status: 200}})

			body, h = toolsCall(era, `"f"`, "fail", `{}`, "")
			status, resp = o.post(t, era, tokAlice, body, h)
			check(o, "a tool error", status, resp, observe.Event{Method: "tools/call", ID: `"f"`, Target: "fail", TargetKnown: true,
				Version: string(era), Principal: alice, ResultType: resultType, ToolError: true, BytesIn: len(body)},
				[]observe.RouteEvent{{Method: "GET", Pattern: "GET /fail", Path: "/fail", Target: "fail", Status: 404}})

			body, h = toolsCall(era, "2", "nope", `{}`, "")
			status, resp = o.post(t, era, tokAlice, body, h)
			check(o, "a protocol error", status, resp, observe.Event{Method: "tools/call", ID: "2", Target: "nope",
				Version: string(era), Principal: alice, Code: -32602, Message: "Unknown tool: nope", BytesIn: len(body)}, nil)

			status, resp = o.post(t, era, "", body, h)
			check(o, "a 401", status, resp, observe.Event{Code: -31401, Message: "Authentication required"}, nil)
			if status != 401 {
				t.Errorf("401: got %d", status)
			}

			// A limiter with a burst of one that never refills.
			lim := newObserved(t, mcp.WithRateLimit(ratelimit.NewMemory(1, 1, ratelimit.WithClock(func() time.Time { return time.Unix(2_000_000_000, 0) }))))
			body, h = toolsCall(era, "3", "echo", `{}`, "")
			lim.post(t, era, tokAlice, body, h)
			lim.obs.take()
			status, resp = lim.post(t, era, tokAlice, body, h)
			check(lim, "a 429", status, resp, observe.Event{Method: "tools/call", ID: "3", Target: "echo", TargetKnown: true,
				Principal: alice, Code: -31429, Message: "Too many requests", BytesIn: len(body)}, nil)
			if status != 429 {
				t.Errorf("429: got %d", status)
			}
		})
	}
}

// TestObserver_Confirmation: both rounds of a confirmed destructive call,
// and the 2025 refusal, as the observer sees them.
func TestObserver_Confirmation(t *testing.T) {
	t.Parallel()
	o := newObserved(t)
	era := mcp.Version20260728
	body, h := toolsCall(era, "1", "delete", `{"id":"42"}`, "")
	status, resp := o.post(t, era, tokAlice, body, h)
	events, routes, _ := o.obs.take()
	if status != 200 || len(events) != 1 || len(routes) != 0 {
		t.Fatalf("round 1: %d %s, %d events, %d routes", status, resp, len(events), len(routes))
	}
	if ev := events[0]; ev.ResultType != "input_required" || ev.Confirmation != "asked" || ev.Retry {
		t.Errorf("round 1: %+v", ev)
	}
	var r1 struct {
		Result struct{ RequestState string } `json:"result"`
	}
	json.Unmarshal(resp, &r1)
	body, h = toolsCall(era, "2", "delete", `{"id":"42"}`, `"requestState":"`+r1.Result.RequestState+
		`","inputResponses":{"confirm":{"action":"accept","content":{"confirm":true}}}`)
	status, resp = o.post(t, era, tokAlice, body, h)
	events, routes, _ = o.obs.take()
	if status != 200 || len(events) != 1 {
		t.Fatalf("round 2: %d %s", status, resp)
	}
	if ev := events[0]; ev.ResultType != "complete" || ev.Confirmation != "accepted" || !ev.Retry || ev.ToolError {
		t.Errorf("round 2: %+v", ev)
	}
	if len(routes) != 1 || routes[0].Pattern != "DELETE /items/{id}" || routes[0].Path != "/items/42" || routes[0].Status != 204 {
		t.Errorf("round 2 routes: %+v", routes)
	}
	// The same confirmation again: already used.
	o.post(t, era, tokAlice, body, h)
	if events, _, _ := o.obs.take(); len(events) != 1 || events[0].Confirmation != "already_used" || !events[0].Retry {
		t.Errorf("replay: %+v", events)
	}
	// A 2025 client cannot confirm.
	body, h = toolsCall(mcp.Version20250618, "3", "delete", `{"id":"42"}`, "")
	o.post(t, mcp.Version20250618, tokAlice, body, h)
	if events, routes, _ := o.obs.take(); len(events) != 1 || events[0].Confirmation != "required" || len(routes) != 0 {
		t.Errorf("2025: %+v %+v", events, routes)
	}
}

// TestObserver_Contexts: the observer's context reaches the route hook
// (as outer) and, through the route hook, the route; the endpoint's log
// lines carry it; the route's context still holds none of the MCP
// request's own values.
func TestObserver_Contexts(t *testing.T) {
	t.Parallel()
	o := newObserved(t)
	era := mcp.Version20260728
	body, h := toolsCall(era, "1", "echo", `{}`, "")
	o.post(t, era, tokAlice, body, h)
	_, _, saw := o.obs.take()
	if diff := cmp.Diff([]any{"route:echo in req:tools/call"}, saw); diff != "" {
		t.Errorf("the route's context (-want +got):\n%s", diff)
	}
	body, h = toolsCall(era, "2", "delete", `{"id":"1"}`, `"requestState":"forged","inputResponses":{}`)
	o.post(t, era, tokAlice, body, h)
	o.log.mu.Lock()
	defer o.log.mu.Unlock()
	found := false
	for _, line := range o.log.seen {
		if strings.Contains(line, "requestState refused") {
			found = true
			if !strings.HasSuffix(line, "@ req:tools/call") {
				t.Errorf("log line without the request's context: %q", line)
			}
		}
	}
	if !found {
		t.Errorf("no requestState line in %q", o.log.seen)
	}
}

// TestObserver_Meta: the observer reads W3C trace context from _meta.
func TestObserver_Meta(t *testing.T) {
	t.Parallel()
	o := newObserved(t)
	body, h := toolsCall(mcp.Version20260728, "1", "echo", `{}`, "")
	o.post(t, mcp.Version20260728, tokAlice, body, h)
	events, _, _ := o.obs.take()
	if tp, ok := events[0].Meta("traceparent"); !ok || tp != "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" {
		t.Errorf("traceparent = %q, %v", tp, ok)
	}
	if _, ok := events[0].Meta("tracestate"); ok {
		t.Error("tracestate found in a _meta without it")
	}
}

// TestObserver_AccessLog: one structured line per request, nothing secret.
func TestObserver_AccessLog(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	o := newObserved(t, mcp.WithObserver(observe.Join(observe.AccessLog(slog.New(slog.NewJSONHandler(&buf, nil))), nil)))
	body, h := toolsCall(mcp.Version20250618, "1", "echo", `{"text":"private words"}`, "")
	o.post(t, mcp.Version20250618, tokAlice, body, h)
	o.post(t, mcp.Version20250618, "", body, h)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines: %s", len(lines), buf.String())
	}
	var first, second map[string]any
	json.Unmarshal([]byte(lines[0]), &first)
	json.Unmarshal([]byte(lines[1]), &second)
	for k, want := range map[string]any{"msg": "mcp: request", "level": "INFO", "method": "tools/call", "target": "echo",
		"version": "2025-06-18", "principal": alice, "status": 200.0, "bytesIn": float64(len(body))} {
		if first[k] != want {
			t.Errorf("first line %s = %v, want %v (%s)", k, first[k], want, lines[0])
		}
	}
	if second["status"] != 401.0 || second["code"] != -31401.0 || second["method"] != nil {
		t.Errorf("second line: %s", lines[1])
	}
	if strings.Contains(buf.String(), "private words") || strings.Contains(buf.String(), "S3CRET") {
		t.Errorf("the access log holds arguments or a token: %s", buf.String())
	}
}

// TestBudget_UnobservedCall: without an observer a call allocates
// what it did before the hook existed (the budgets' figures).
func TestBudget_UnobservedCall(t *testing.T) {
	skipUnderRace(t)
	h := echoServer()
	for _, tc := range []struct {
		headers map[string]string
		body    string
		want    float64
	}{
		{map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "echo"},
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello-mcp"},` + meta2026 + `}}`, 17},
		{map[string]string{"MCP-Protocol-Version": "2025-06-18"},
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello-mcp"}}}`, 16},
	} {
		s := newServed(h, tc.headers, tc.body)
		if got := s.allocs(t); got != tc.want {
			t.Errorf("%s: %v allocations without an observer, want %v", tc.headers["MCP-Protocol-Version"], got, tc.want)
		}
		s.echoed(t, "hello-mcp")
	}
}

// TestObserver_LongClientStrings: a client's method and tool name reach
// observers cut to 128 bytes (and a mark): a 900 KB name would otherwise
// be a log line, a span attribute and a metric label of that size.
func TestObserver_LongClientStrings(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	o := newObserved(t, mcp.WithObserver(observe.Join(observe.AccessLog(slog.New(slog.NewJSONHandler(&buf, nil))), nil)))
	name := strings.Repeat("é", 300) // two bytes each: the cut falls between runes
	body, h := toolsCall(mcp.Version20250618, "1", name, `{}`, "")
	o.post(t, mcp.Version20250618, tokAlice, body, h)
	method := strings.Repeat("m", 1000)
	o.post(t, mcp.Version20250618, tokAlice, `{"jsonrpc":"2.0","id":2,"method":"`+method+`"}`, h)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines: %s", len(lines), buf.String())
	}
	var first, second map[string]any
	json.Unmarshal([]byte(lines[0]), &first)
	json.Unmarshal([]byte(lines[1]), &second)
	target, _ := first["target"].(string)
	if want := strings.Repeat("é", 64) + "…"; target != want {
		t.Errorf("target %q (%d bytes), want 64 runes and a mark", target, len(target))
	}
	if m, _ := second["method"].(string); m != strings.Repeat("m", 128)+"…" {
		t.Errorf("method of %d bytes", len(m))
	}
}
