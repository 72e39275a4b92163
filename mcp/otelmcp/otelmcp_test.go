package otelmcp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/observe"
	"github.com/mcpdual/mcpdual/mcp/otelmcp"
	"github.com/mcpdual/mcpdual/mcp/ratelimit"
	"github.com/mcpdual/mcpdual/mrtr"
)

const (
	scope    = "github.com/mcpdual/mcpdual/mcp/otelmcp"
	resource = "http://127.0.0.1/mcp"
	token    = "tok-alice"

	// The client's trace context, as a 2026-07-28 client puts it in _meta.
	clientTrace  = "0af7651916cd43dd8448eb211c80319c"
	clientParent = "b7ad6b7169203331"
	traceparent  = "00-" + clientTrace + "-" + clientParent + "-01"
)

func verify(_ context.Context, tok string, _ *http.Request) (*auth.Principal, error) {
	if tok != token {
		return nil, auth.ErrInvalidToken
	}
	return &auth.Principal{Issuer: "https://as.example.com", Subject: "alice", ClientID: "client-1",
		Audience: []string{resource}, Scopes: []string{"mcp:read"}, ExpiresAt: time.Now().Add(time.Hour)}, nil
}

// fixture is a real endpoint over HTTP on 127.0.0.1 with the observer on
// the real OpenTelemetry SDK: spans in memory, metrics read by hand.
type fixture struct {
	url    string
	tp     *sdktrace.TracerProvider
	exp    *tracetest.InMemoryExporter
	reader *sdkmetric.ManualReader
}

type fixtureOptions struct {
	limiter ratelimit.Limiter
	// wrap wraps the endpoint, as a host's HTTP instrumentation would.
	wrap func(tp trace.TracerProvider, h http.Handler) http.Handler
	// after is joined after the OpenTelemetry observer.
	after observe.Observer
	// legacy gives the endpoint 2025 sessions, WithLegacyInput and a tool
	// "ask" that asks the client for a form.
	legacy bool
}

func newFixture(t *testing.T, fo fixtureOptions) *fixture {
	t.Helper()
	f := &fixture{exp: tracetest.NewInMemoryExporter(), reader: sdkmetric.NewManualReader()}
	f.tp = sdktrace.NewTracerProvider(sdktrace.WithSyncer(f.exp))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(f.reader))
	t.Cleanup(func() {
		f.tp.Shutdown(context.Background())
		mp.Shutdown(context.Background())
	})

	mux := http.NewServeMux()
	// The route starts a span of its own from its request's context: it
	// must nest under the route call's span.
	mux.HandleFunc("POST /echo", func(w http.ResponseWriter, r *http.Request) {
		_, span := f.tp.Tracer("host").Start(r.Context(), "host work")
		defer span.End()
		w.Header().Set("Content-Type", "application/json")
		io.Copy(w, r.Body)
	})
	mux.HandleFunc("GET /fail", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no such item", http.StatusNotFound) })
	mux.HandleFunc("DELETE /items/{id}", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("GET /prompts/broken", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "database down", http.StatusInternalServerError)
	})
	mux.HandleFunc("GET /settings", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"theme":"dark"}`))
	})

	srv := mcp.NewServer(mcp.Implementation{Name: "traced", Version: "1"})
	obj := json.RawMessage(`{"type":"object"}`)
	srv.AddTool(mcp.Tool{Name: "echo", InputSchema: obj}, "POST /echo", mux)
	srv.AddTool(mcp.Tool{Name: "fail", InputSchema: obj}, "GET /fail", mux)
	srv.AddTool(mcp.Tool{Name: "delete", InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`),
		Annotations: mcp.Annotations{Destructive: true}}, "DELETE /items/{id}", mux)
	srv.AddPromptRoute(mcp.Prompt{Name: "broken"}, "GET /prompts/broken", mux)
	srv.AddResource(mcp.Resource{URI: "test://settings", Name: "settings", MIMEType: "application/json"}, "GET /settings", mux)

	opts := []mcp.HandlerOption{
		mcp.WithObserver(observe.Join(otelmcp.New(otelmcp.WithTracerProvider(f.tp), otelmcp.WithMeterProvider(mp),
			otelmcp.WithPropagators(propagation.TraceContext{})), fo.after)),
		mcp.WithAuth(auth.New(auth.Config{Verifier: auth.VerifierFunc(verify), Resource: resource})),
		mcp.WithLogger(slog.New(slog.DiscardHandler)),
	}
	if fo.limiter != nil {
		opts = append(opts, mcp.WithRateLimit(fo.limiter))
	}
	old := era2025.New()
	if fo.legacy {
		mcp.AddToolFunc(srv, mcp.Tool{Name: "ask", Description: "Asks for a name."},
			func(ctx context.Context, in struct{}) (map[string]any, error) {
				c := mcp.CallFromContext(ctx)
				if e, ok := c.Elicitation("name"); ok {
					return map[string]any{"action": e.Action}, nil
				}
				c.RequireInput(nil, mcp.ElicitForm("name", "Your name?", json.RawMessage(`{"type":"object","properties":{"n":{"type":"string"}}}`)))
				return nil, nil
			})
		ring, err := mrtr.NewRing(mrtr.Key{ID: "k1", Secret: bytes.Repeat([]byte{7}, 32)})
		if err != nil {
			t.Fatal(err)
		}
		old = era2025.New(era2025.WithSessions(mrtr.NewSealer(ring), 0))
		opts = append(opts, mcp.WithLegacyInput(mcp.LegacyInput{}))
	}
	var h http.Handler = mcp.NewHandler(srv, []mcp.Era{era2026.New(), old}, opts...)
	if fo.wrap != nil {
		h = fo.wrap(f.tp, h)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	f.url = ts.URL
	return f
}

// meta is what a 2026-07-28 client puts in _meta; with a traceparent
// when tp is set.
func meta(tp string) string {
	m := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}`
	if tp != "" {
		m += `,"traceparent":"` + tp + `"`
	}
	return m + "}"
}

// call is one JSON-RPC request as a client of era sends it: the body and
// the routing headers 2026-07-28 wants. member is "name" or "uri".
type call struct {
	era    mcp.Version
	id     string
	method string
	member string
	target string
	params string // more members of params, without braces
	tp     string // a traceparent for _meta
}

func (c call) request() (string, map[string]string) {
	var params []string
	if c.era == mcp.Version20260728 {
		params = append(params, meta(c.tp))
	} else if c.tp != "" {
		params = append(params, `"_meta":{"traceparent":"`+c.tp+`"}`)
	}
	if c.member != "" {
		params = append(params, `"`+c.member+`":"`+c.target+`"`)
	}
	if c.params != "" {
		params = append(params, c.params)
	}
	h := map[string]string{"MCP-Protocol-Version": string(c.era)}
	if c.era == mcp.Version20260728 {
		h["Mcp-Method"] = c.method
		if c.member != "" {
			h["Mcp-Name"] = c.target
		}
	}
	id := `"id":` + c.id + `,`
	if c.id == "" { // a notification
		id = ""
	}
	return `{"jsonrpc":"2.0",` + id + `"method":"` + c.method + `","params":{` + strings.Join(params, ",") + `}}`, h
}

func toolCall(era mcp.Version, id, name, args string) call {
	return call{era: era, id: id, method: "tools/call", member: "name", target: name, params: `"arguments":` + args}
}

func (f *fixture) post(t *testing.T, tok string, c call) (int, []byte) {
	t.Helper()
	body, h := c.request()
	req, _ := http.NewRequest(http.MethodPost, f.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	for k, v := range h {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// spans waits for n ended spans and takes them: the endpoint ends the MCP
// span after the response is written, so the client may see the answer
// first.
func (f *fixture) spans(t *testing.T, n int) tracetest.SpanStubs {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s := f.exp.GetSpans()
		if len(s) >= n {
			f.exp.Reset()
			if len(s) > n {
				t.Fatalf("%d spans, want %d: %s", len(s), n, names(s))
			}
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d spans after 10s, want %d: %s", len(s), n, names(s))
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func names(s tracetest.SpanStubs) string {
	var out []string
	for _, sp := range s {
		out = append(out, sp.Name)
	}
	return strings.Join(out, ", ")
}

// mcpSpan is the one SERVER span the observer made.
func mcpSpan(t *testing.T, s tracetest.SpanStubs) tracetest.SpanStub {
	t.Helper()
	var found []tracetest.SpanStub
	for _, sp := range s {
		if sp.InstrumentationScope.Name == scope && sp.SpanKind == trace.SpanKindServer {
			found = append(found, sp)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d MCP server spans among %s", len(found), names(s))
	}
	return found[0]
}

func childOf(t *testing.T, s tracetest.SpanStubs, parent tracetest.SpanStub) tracetest.SpanStub {
	t.Helper()
	for _, sp := range s {
		if sp.Parent.SpanID() == parent.SpanContext.SpanID() {
			return sp
		}
	}
	t.Fatalf("no child of %q among %s", parent.Name, names(s))
	return tracetest.SpanStub{}
}

// attrs turns attributes into a map to compare; client.port, which
// differs from run to run, is checked and left out.
func attrs(t *testing.T, kvs []attribute.KeyValue) map[string]any {
	t.Helper()
	m := map[string]any{}
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.AsInterface()
	}
	if p, ok := m["client.port"]; ok {
		if port, _ := p.(int64); port <= 0 || port > 65535 {
			t.Errorf("client.port = %v", p)
		}
		delete(m, "client.port")
	}
	return m
}

var eras = []mcp.Version{mcp.Version20260728, mcp.Version20250618}

// TestSpanTree: the MCP request's SERVER span, the route call's INTERNAL
// span under it, and the span the route itself starts under that, in one
// trace; the timestamps are the event's.
func TestSpanTree(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		t.Run(string(era), func(t *testing.T) {
			f := newFixture(t, fixtureOptions{})
			before := time.Now()
			status, body := f.post(t, token, toolCall(era, "1", "echo", `{"text":"hi"}`))
			if status != 200 || !strings.Contains(string(body), "hi") {
				t.Fatalf("%d %s", status, body)
			}
			s := f.spans(t, 3)
			server := mcpSpan(t, s)
			route := childOf(t, s, server)
			host := childOf(t, s, route)
			if server.Name != "tools/call echo" || route.Name != "POST /echo" || host.Name != "host work" {
				t.Errorf("names: %q > %q > %q", server.Name, route.Name, host.Name)
			}
			if server.Parent.IsValid() {
				t.Errorf("the server span has a parent without any trace context: %v", server.Parent)
			}
			if route.SpanKind != trace.SpanKindInternal || route.InstrumentationScope.Name != scope {
				t.Errorf("route span: kind %v, scope %q", route.SpanKind, route.InstrumentationScope.Name)
			}
			for _, sp := range []tracetest.SpanStub{route, host} {
				if sp.SpanContext.TraceID() != server.SpanContext.TraceID() {
					t.Errorf("%q is in another trace", sp.Name)
				}
			}
			if server.StartTime.Before(before) || route.StartTime.Before(server.StartTime) || host.StartTime.Before(route.StartTime) ||
				host.EndTime.After(route.EndTime) || route.EndTime.After(server.EndTime) || !server.EndTime.After(server.StartTime) {
				t.Errorf("times do not nest: server %v–%v, route %v–%v, host %v–%v", server.StartTime, server.EndTime,
					route.StartTime, route.EndTime, host.StartTime, host.EndTime)
			}
			if diff := cmp.Diff(map[string]any{"http.request.method": "POST", "http.route": "/echo", "http.response.status_code": int64(200)},
				attrs(t, route.Attributes)); diff != "" {
				t.Errorf("route attributes (-want +got):\n%s", diff)
			}
			if route.Status.Code != codes.Unset || server.Status.Code != codes.Unset {
				t.Errorf("status: server %v, route %v", server.Status, route.Status)
			}
		})
	}
}

// TestServerSpans: the server span's name, attributes and status for each
// kind of outcome, in both eras.
func TestServerSpans(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		t.Run(string(era), func(t *testing.T) {
			f := newFixture(t, fixtureOptions{})
			resultType := map[string]any{}
			notFound := 200 // the status of an unknown method's answer
			if era == mcp.Version20260728 {
				resultType["mcpdual.result_type"] = "complete"
				notFound = 404
			}
			base := func(m map[string]any, extra ...map[string]any) map[string]any {
				m["network.transport"], m["network.protocol.name"], m["client.address"] = "tcp", "http", "127.0.0.1"
				for _, e := range extra {
					for k, v := range e {
						m[k] = v
					}
				}
				return m
			}
			for _, tc := range []struct {
				name       string
				tok        string
				call       call
				wantStatus int
				spans      int
				wantName   string
				want       map[string]any
				wantCode   codes.Code
				wantDesc   string
				route      *tracetest.SpanStub // the route span's name and status, when one is expected
			}{{
				name: "a result", tok: token, call: toolCall(era, "1", "echo", `{}`), wantStatus: 200, spans: 3,
				wantName: "tools/call echo",
				want: base(map[string]any{"mcp.method.name": "tools/call", "gen_ai.tool.name": "echo", "gen_ai.operation.name": "execute_tool",
					"jsonrpc.request.id": "1", "mcp.protocol.version": string(era), "http.response.status_code": int64(200)}, resultType),
			}, {
				name: "a tool error", tok: token, call: toolCall(era, `"f-1"`, "fail", `{}`), wantStatus: 200, spans: 2,
				wantName: "tools/call fail",
				want: base(map[string]any{"mcp.method.name": "tools/call", "gen_ai.tool.name": "fail", "gen_ai.operation.name": "execute_tool",
					"jsonrpc.request.id": "f-1", "mcp.protocol.version": string(era), "http.response.status_code": int64(200),
					"error.type": "tool_error"}, resultType),
				wantCode: codes.Error,
				route:    &tracetest.SpanStub{Name: "GET /fail", Status: sdktrace.Status{Code: codes.Unset}},
			}, {
				// An unknown tool is the caller's mistake: no error.type, and
				// its name, which the client chose, stays out of the span name.
				name: "a protocol error", tok: token, call: toolCall(era, "2", "nope", `{}`), wantStatus: 200, spans: 1,
				wantName: "tools/call",
				want: base(map[string]any{"mcp.method.name": "tools/call", "gen_ai.tool.name": "nope", "gen_ai.operation.name": "execute_tool",
					"jsonrpc.request.id": "2", "mcp.protocol.version": string(era), "http.response.status_code": int64(200),
					"rpc.response.status_code": "-32602"}),
			}, {
				name: "an internal error", tok: token, call: call{era: era, id: "3", method: "prompts/get", member: "name", target: "broken"},
				wantStatus: 200, spans: 2, wantName: "prompts/get broken",
				want: base(map[string]any{"mcp.method.name": "prompts/get", "gen_ai.prompt.name": "broken",
					"jsonrpc.request.id": "3", "mcp.protocol.version": string(era), "http.response.status_code": int64(200),
					"rpc.response.status_code": "-32603", "error.type": "-32603"}),
				wantCode: codes.Error, wantDesc: "Internal error",
				route: &tracetest.SpanStub{Name: "GET /prompts/broken", Status: sdktrace.Status{Code: codes.Error}},
			}, {
				// Refused before the body was read: no method, no id, no
				// revision; a refusal of the caller is no failure.
				name: "a 401", tok: "", call: toolCall(era, "4", "echo", `{}`), wantStatus: 401, spans: 1,
				wantName: "mcp",
				want: base(map[string]any{"mcp.method.name": "_OTHER", "http.response.status_code": int64(401),
					"rpc.response.status_code": "-31401"}),
			}, {
				name: "a resource", tok: token, call: call{era: era, id: "5", method: "resources/read", member: "uri", target: "test://settings"},
				wantStatus: 200, spans: 2, wantName: "resources/read",
				want: base(map[string]any{"mcp.method.name": "resources/read", "mcp.resource.uri": "test://settings",
					"jsonrpc.request.id": "5", "mcp.protocol.version": string(era), "http.response.status_code": int64(200)}, resultType),
			}, {
				// Accepted, never answered: no id, no code.
				name: "a notification", tok: token, call: call{era: era, method: "notifications/cancelled", params: `"requestId":7`},
				wantStatus: 202, spans: 1, wantName: "notifications/cancelled",
				want: base(map[string]any{"mcp.method.name": "notifications/cancelled", "mcp.protocol.version": string(era),
					"http.response.status_code": int64(202)}),
			}, {
				name: "a method MCP does not define", tok: token, call: call{era: era, id: "6", method: "tools/cal"},
				wantStatus: notFound, spans: 1, wantName: "mcp",
				want: base(map[string]any{"mcp.method.name": "_OTHER", "mcpdual.method.original": "tools/cal",
					"jsonrpc.request.id": "6", "mcp.protocol.version": string(era), "http.response.status_code": int64(notFound),
					"rpc.response.status_code": "-32601"}),
			}} {
				status, body := f.post(t, tc.tok, tc.call)
				if status != tc.wantStatus {
					t.Fatalf("%s: status %d, want %d: %s", tc.name, status, tc.wantStatus, body)
				}
				s := f.spans(t, tc.spans)
				sp := mcpSpan(t, s)
				if sp.Name != tc.wantName {
					t.Errorf("%s: name %q, want %q", tc.name, sp.Name, tc.wantName)
				}
				if diff := cmp.Diff(tc.want, attrs(t, sp.Attributes)); diff != "" {
					t.Errorf("%s: attributes (-want +got):\n%s", tc.name, diff)
				}
				if sp.Status.Code != tc.wantCode || sp.Status.Description != tc.wantDesc {
					t.Errorf("%s: status %v %q, want %v %q", tc.name, sp.Status.Code, sp.Status.Description, tc.wantCode, tc.wantDesc)
				}
				if len(sp.Links) != 0 {
					t.Errorf("%s: links %v without an ambient span", tc.name, sp.Links)
				}
				if tc.route != nil {
					r := childOf(t, s, sp)
					if r.Name != tc.route.Name || r.Status.Code != tc.route.Status.Code {
						t.Errorf("%s: route span %q %v, want %q %v", tc.name, r.Name, r.Status.Code, tc.route.Name, tc.route.Status.Code)
					}
					if tc.route.Status.Code == codes.Error && attrs(t, r.Attributes)["error.type"] != "500" {
						t.Errorf("%s: route span attributes %v", tc.name, r.Attributes)
					}
				}
			}
		})
	}
}

// TestRateLimited: a 429 after the method was read keeps the method, and
// is no failure of the server.
func TestRateLimited(t *testing.T) {
	t.Parallel()
	frozen := func() time.Time { return time.Unix(2_000_000_000, 0) }
	f := newFixture(t, fixtureOptions{limiter: ratelimit.NewMemory(1, 1, ratelimit.WithClock(frozen))})
	f.post(t, token, toolCall(mcp.Version20250618, "1", "echo", `{}`))
	f.spans(t, 3)
	status, _ := f.post(t, token, toolCall(mcp.Version20250618, "2", "echo", `{}`))
	sp := mcpSpan(t, f.spans(t, 1))
	got := attrs(t, sp.Attributes)
	if status != 429 || sp.Name != "tools/call echo" || got["rpc.response.status_code"] != "-31429" || got["http.response.status_code"] != int64(429) {
		t.Errorf("%d %q %v", status, sp.Name, got)
	}
	if _, ok := got["error.type"]; ok || sp.Status.Code != codes.Unset {
		t.Errorf("a 429 marked as the server's failure: %v %v", got, sp.Status)
	}
}

// TestTraceparentInMeta: the client's trace context in params._meta
// parents the server span, in both eras; with an ambient HTTP span as
// well, the MCP span keeps the client's parent and links the HTTP span.
func TestTraceparentInMeta(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		t.Run(string(era), func(t *testing.T) {
			f := newFixture(t, fixtureOptions{})
			c := toolCall(era, "1", "echo", `{}`)
			c.tp = traceparent
			f.post(t, token, c)
			s := f.spans(t, 3)
			sp := mcpSpan(t, s)
			if !sp.Parent.IsRemote() || sp.Parent.TraceID().String() != clientTrace || sp.Parent.SpanID().String() != clientParent {
				t.Errorf("parent %v, want the remote %s/%s", sp.Parent, clientTrace, clientParent)
			}
			if sp.SpanContext.TraceID().String() != clientTrace || childOf(t, s, childOf(t, s, sp)).SpanContext.TraceID().String() != clientTrace {
				t.Errorf("the spans are not in the client's trace")
			}
			if len(sp.Links) != 0 {
				t.Errorf("links %v without an ambient span", sp.Links)
			}
		})
	}
	t.Run("ambient span", func(t *testing.T) {
		f := newFixture(t, fixtureOptions{wrap: func(tp trace.TracerProvider, h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				ctx, span := tp.Tracer("http").Start(r.Context(), "POST /mcp", trace.WithSpanKind(trace.SpanKindServer))
				defer span.End()
				h.ServeHTTP(w, r.WithContext(ctx))
			})
		}})
		c := toolCall(mcp.Version20260728, "1", "echo", `{}`)
		c.tp = traceparent
		f.post(t, token, c)
		s := f.spans(t, 4)
		sp := mcpSpan(t, s)
		var httpSpan tracetest.SpanStub
		for _, x := range s {
			if x.InstrumentationScope.Name == "http" {
				httpSpan = x
			}
		}
		if sp.Parent.SpanID().String() != clientParent || !sp.Parent.IsRemote() {
			t.Errorf("parent %v, want the client's", sp.Parent)
		}
		if len(sp.Links) != 1 || !sp.Links[0].SpanContext.Equal(httpSpan.SpanContext) {
			t.Errorf("links %v, want the HTTP span %v", sp.Links, httpSpan.SpanContext)
		}
		// Without a traceparent the HTTP span is the parent, with no link.
		f.post(t, token, toolCall(mcp.Version20260728, "2", "echo", `{}`))
		s = f.spans(t, 4)
		sp = mcpSpan(t, s)
		for _, x := range s {
			if x.InstrumentationScope.Name == "http" {
				httpSpan = x
			}
		}
		if sp.Parent.SpanID() != httpSpan.SpanContext.SpanID() || len(sp.Links) != 0 {
			t.Errorf("parent %v links %v, want the HTTP span %v and no link", sp.Parent, sp.Links, httpSpan.SpanContext)
		}
	})
}

// TestConfirmation: both rounds of a confirmed destructive tool call
// (2026-07-28): the question, with no route call, then the confirmed
// retry and its route call.
func TestConfirmation(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{})
	era := mcp.Version20260728
	status, body := f.post(t, token, toolCall(era, "1", "delete", `{"id":"42"}`))
	sp := mcpSpan(t, f.spans(t, 1))
	got := attrs(t, sp.Attributes)
	if status != 200 || sp.Name != "tools/call delete" || got["mcpdual.result_type"] != "input_required" ||
		got["mcpdual.confirmation"] != "asked" || got["mcpdual.mrtr.retry"] != nil || got["error.type"] != nil {
		t.Errorf("round 1: %d %q %v", status, sp.Name, got)
	}
	var r1 struct {
		Result struct{ RequestState string } `json:"result"`
	}
	if err := json.Unmarshal(body, &r1); err != nil || r1.Result.RequestState == "" {
		t.Fatalf("round 1 answer: %s", body)
	}
	c := toolCall(era, "2", "delete", `{"id":"42"}`)
	c.params += `,"requestState":"` + r1.Result.RequestState + `","inputResponses":{"confirm":{"action":"accept","content":{"confirm":true}}}`
	status, body = f.post(t, token, c)
	s := f.spans(t, 2)
	sp = mcpSpan(t, s)
	got = attrs(t, sp.Attributes)
	if status != 200 || got["mcpdual.result_type"] != "complete" || got["mcpdual.confirmation"] != "accepted" ||
		got["mcpdual.mrtr.retry"] != true || got["error.type"] != nil {
		t.Errorf("round 2: %d %s %v", status, body, got)
	}
	route := childOf(t, s, sp)
	if diff := cmp.Diff(map[string]any{"http.request.method": "DELETE", "http.route": "/items/{id}", "http.response.status_code": int64(204)},
		attrs(t, route.Attributes)); diff != "" || route.Name != "DELETE /items/{id}" {
		t.Errorf("round 2 route span %q (-want +got):\n%s", route.Name, diff)
	}
}

// TestMetrics: mcp.server.operation.duration in seconds with the
// conventions' buckets, one series per bounded attribute set; a tool the
// server does not have is _OTHER.
func TestMetrics(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{})
	era := mcp.Version20250618
	f.post(t, token, toolCall(era, "1", "echo", `{}`))
	f.spans(t, 3)
	f.post(t, token, toolCall(era, "2", "echo", `{"x":1}`))
	f.spans(t, 3)
	f.post(t, token, toolCall(era, "3", "no-such-tool-7f3a", `{}`))
	f.spans(t, 1)
	f.post(t, token, toolCall(era, "4", "fail", `{}`))
	f.spans(t, 2)
	f.post(t, "", toolCall(era, "5", "echo", `{}`))
	f.spans(t, 1)
	f.post(t, token, call{era: mcp.Version20260728, id: "6", method: "prompts/get", member: "name", target: "broken"})
	f.spans(t, 2)

	var rm metricdata.ResourceMetrics
	if err := f.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var found *metricdata.Metrics
	for _, sm := range rm.ScopeMetrics {
		for i, m := range sm.Metrics {
			if sm.Scope.Name == scope && m.Name == "mcp.server.operation.duration" {
				found = &sm.Metrics[i]
			}
		}
	}
	if found == nil {
		t.Fatalf("no mcp.server.operation.duration in %+v", rm)
	}
	if found.Unit != "s" {
		t.Errorf("unit %q", found.Unit)
	}
	hist, ok := found.Data.(metricdata.Histogram[float64])
	if !ok {
		t.Fatalf("data %T, want a float64 histogram", found.Data)
	}
	net := map[string]any{"network.transport": "tcp", "network.protocol.name": "http"}
	with := func(m map[string]any) map[string]any {
		for k, v := range net {
			m[k] = v
		}
		return m
	}
	want := map[string]uint64{}
	add := func(m map[string]any, n uint64) {
		b, _ := json.Marshal(with(m))
		want[string(b)] = n
	}
	add(map[string]any{"mcp.method.name": "tools/call", "gen_ai.tool.name": "echo", "gen_ai.operation.name": "execute_tool",
		"mcp.protocol.version": "2025-06-18"}, 2)
	add(map[string]any{"mcp.method.name": "tools/call", "gen_ai.tool.name": "_OTHER", "gen_ai.operation.name": "execute_tool",
		"mcp.protocol.version": "2025-06-18", "rpc.response.status_code": "-32602"}, 1)
	add(map[string]any{"mcp.method.name": "tools/call", "gen_ai.tool.name": "fail", "gen_ai.operation.name": "execute_tool",
		"mcp.protocol.version": "2025-06-18", "error.type": "tool_error"}, 1)
	add(map[string]any{"mcp.method.name": "_OTHER", "rpc.response.status_code": "-31401"}, 1)
	add(map[string]any{"mcp.method.name": "prompts/get", "gen_ai.prompt.name": "broken", "mcp.protocol.version": "2026-07-28",
		"rpc.response.status_code": "-32603", "error.type": "-32603"}, 1)
	got := map[string]uint64{}
	for _, dp := range hist.DataPoints {
		m := map[string]any{}
		for _, kv := range dp.Attributes.ToSlice() {
			m[string(kv.Key)] = kv.Value.AsInterface()
		}
		b, _ := json.Marshal(m)
		got[string(b)] = dp.Count
		if diff := cmp.Diff([]float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}, dp.Bounds); diff != "" {
			t.Errorf("bounds (-want +got):\n%s", diff)
		}
		if dp.Sum <= 0 || dp.Sum > 60 {
			t.Errorf("%s: sum %v s", b, dp.Sum)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("series (-want +got):\n%s", diff)
	}
	for k := range got {
		if strings.Contains(k, "no-such-tool") {
			t.Errorf("a name the client chose became a label: %s", k)
		}
	}
}

// TestStdio: an event from the stdio transport (the host's principal, no
// network peer) is recorded as a pipe, without a client address; without
// _meta trace context its span is a root.
func TestStdio(t *testing.T) {
	t.Parallel()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	o := otelmcp.New(otelmcp.WithTracerProvider(tp), otelmcp.WithPropagators(propagation.TraceContext{}))
	start := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	ev := &observe.Event{Start: start, Transport: "stdio", Method: "tools/list", ID: `"a\u0062"`, Version: "2026-07-28",
		Status: 200, ResultType: "complete", Duration: 1500 * time.Microsecond}
	_, done := o.Request(context.Background(), ev)
	done()
	s := exp.GetSpans()
	if len(s) != 1 {
		t.Fatalf("%d spans", len(s))
	}
	sp := s[0]
	want := map[string]any{"mcp.method.name": "tools/list", "jsonrpc.request.id": "ab", "mcp.protocol.version": "2026-07-28",
		"network.transport": "pipe", "mcpdual.result_type": "complete"}
	if diff := cmp.Diff(want, attrs(t, sp.Attributes)); diff != "" {
		t.Errorf("attributes (-want +got):\n%s", diff)
	}
	if sp.Name != "tools/list" || sp.Parent.IsValid() || !sp.StartTime.Equal(start) || !sp.EndTime.Equal(start.Add(1500*time.Microsecond)) {
		t.Errorf("%q parent %v, %v–%v", sp.Name, sp.Parent, sp.StartTime, sp.EndTime)
	}
}

// principalObserver adds the principal to the MCP span, as the package
// documentation tells a host to: joined after the OpenTelemetry observer,
// its done runs while the span is still open.
type principalObserver struct{}

func (principalObserver) Request(ctx context.Context, ev *observe.Event) (context.Context, func()) {
	return ctx, func() {
		trace.SpanFromContext(ctx).SetAttributes(attribute.String("app.principal", ev.Principal))
	}
}

func (principalObserver) Route(_, inner context.Context, _ *observe.RouteEvent) (context.Context, func()) {
	return inner, nil
}

func TestJoinedAfter(t *testing.T) {
	t.Parallel()
	f := newFixture(t, fixtureOptions{after: principalObserver{}})
	f.post(t, token, toolCall(mcp.Version20250618, "1", "echo", `{}`))
	sp := mcpSpan(t, f.spans(t, 3))
	if got := attrs(t, sp.Attributes)["app.principal"]; got == nil || !strings.Contains(got.(string), "alice") {
		t.Errorf("app.principal = %v", got)
	}
}

// send posts body with hdr and the token, and returns the response
// unread.
func (f *fixture) send(t *testing.T, body string, hdr map[string]string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, f.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// TestAnswerIsNoSpan: a 2025 client's POSTed answer to the server's
// elicitation/create is a JSON-RPC response sent by the client, not an
// operation of the server's: delivered (202) or refused (400), it makes
// no span and no duration. It made a span "mcp" with mcp.method.name
// _OTHER, counted in the operation histogram. The call that asked has
// its one span, tools/call ask.
func TestAnswerIsNoSpan(t *testing.T) {
	t.Parallel()
	for _, era := range []mcp.Version{mcp.Version20250618, mcp.Version20251125} {
		t.Run(string(era), func(t *testing.T) {
			f := newFixture(t, fixtureOptions{legacy: true})
			hdr := map[string]string{"MCP-Protocol-Version": string(era)}
			init := f.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+string(era)+
				`","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`, hdr)
			io.Copy(io.Discard, init.Body)
			session := init.Header.Get("Mcp-Session-Id")
			if init.StatusCode != 200 || session == "" {
				t.Fatalf("initialize: %d, session %q", init.StatusCode, session)
			}
			f.spans(t, 1)
			hdr["Mcp-Session-Id"] = session

			resp := f.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","arguments":{}}}`, hdr)
			if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || !strings.HasPrefix(ct, "text/event-stream") {
				t.Fatalf("tools/call: %d %q, want a stream", resp.StatusCode, ct)
			}
			events := bufio.NewScanner(resp.Body)
			next := func() map[string]any {
				t.Helper()
				for events.Scan() {
					if data, ok := strings.CutPrefix(events.Text(), "data: "); ok {
						var m map[string]any
						if err := json.Unmarshal([]byte(data), &m); err != nil {
							t.Fatalf("event %q: %v", data, err)
						}
						return m
					}
				}
				t.Fatalf("stream ended: %v", events.Err())
				return nil
			}
			q := next()
			id, _ := q["id"].(string)
			if q["method"] != "elicitation/create" || id == "" {
				t.Fatalf("question %v", q)
			}

			refused := f.send(t, `{"jsonrpc":"2.0","id":"mcpdual-q-AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAA","result":{"action":"decline"}}`, hdr)
			body, _ := io.ReadAll(refused.Body)
			if refused.StatusCode != 400 || !strings.Contains(string(body), `"code":-32600`) {
				t.Errorf("answer to no question: %d %s, want 400 -32600", refused.StatusCode, body)
			}
			idj, _ := json.Marshal(id)
			delivered := f.send(t, `{"jsonrpc":"2.0","id":`+string(idj)+`,"result":{"action":"accept","content":{"n":"Ann"}}}`, hdr)
			if delivered.StatusCode != 202 {
				t.Fatalf("answer: %d, want 202", delivered.StatusCode)
			}
			if r, ok := next()["result"].(map[string]any); !ok || r["isError"] == true {
				t.Fatalf("tools/call ask ended with %v", r)
			}

			// The tool is a function (no route call): its one span.
			sp := mcpSpan(t, f.spans(t, 1))
			if got := attrs(t, sp.Attributes); sp.Name != "tools/call ask" || got["mcp.method.name"] != "tools/call" || got["error.type"] != nil {
				t.Errorf("span %q %v, want the call's: tools/call ask", sp.Name, got)
			}
			var rm metricdata.ResourceMetrics
			if err := f.reader.Collect(context.Background(), &rm); err != nil {
				t.Fatal(err)
			}
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					hist, _ := m.Data.(metricdata.Histogram[float64])
					for _, dp := range hist.DataPoints {
						if v, _ := dp.Attributes.Value("mcp.method.name"); v.AsString() == "_OTHER" {
							t.Errorf("an operation with mcp.method.name _OTHER recorded %d times: %v", dp.Count, dp.Attributes.ToSlice())
						}
					}
				}
			}
		})
	}
}
