package otelmcp_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/codes"

	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/observe"
	"github.com/mcpdual/mcpdual/mcp/otelmcp"
	"github.com/mcpdual/mcpdual/mcp/ratelimit"
)

func oneSpan(t *testing.T, ev *observe.Event) tracetest.SpanStub {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	o := otelmcp.New(otelmcp.WithTracerProvider(tp), otelmcp.WithPropagators(propagation.TraceContext{}))
	_, done := o.Request(context.Background(), ev)
	done()
	s := exp.GetSpans()
	if len(s) != 1 {
		t.Fatalf("%d spans", len(s))
	}
	return s[0]
}

// TestSpan_TasksUpdateIsKnown: tasks/update, which 2026-07-28 defines
// and the library serves, is a known method: its span is named for it,
// not "mcp" with _OTHER, whose metric series holds unknown methods.
func TestSpan_TasksUpdateIsKnown(t *testing.T) {
	sp := oneSpan(t, &observe.Event{Start: time.Now(), Transport: "http", Method: "tasks/update", ID: "1",
		Version: "2026-07-28", Status: 200, ResultType: "complete", Duration: time.Millisecond})
	got := attrs(t, sp.Attributes)
	if sp.Name != "tasks/update" || got["mcp.method.name"] != "tasks/update" {
		t.Errorf("span %q, mcp.method.name %v; want tasks/update", sp.Name, got["mcp.method.name"])
	}
}

// TestSpan_SubscribeURI: mcp.resource.uri is conditionally required on
// resources/subscribe and resources/unsubscribe (and on
// notifications/resources/updated), not only on resources/read.
func TestSpan_SubscribeURI(t *testing.T) {
	for _, m := range []string{"resources/subscribe", "resources/unsubscribe"} {
		sp := oneSpan(t, &observe.Event{Start: time.Now(), Transport: "http", Method: m, ID: "1", Target: "mail://w1/inbox",
			Version: "2025-06-18", Status: 200, Duration: time.Millisecond})
		if got := attrs(t, sp.Attributes)["mcp.resource.uri"]; got != "mail://w1/inbox" {
			t.Errorf("%s: mcp.resource.uri = %v, want the URI", m, got)
		}
		if sp.Name != m {
			t.Errorf("%s: span name %q (the URI stays out of it)", m, sp.Name)
		}
	}
}

type panicLimiter struct{}

func (panicLimiter) Take(context.Context, string, int) (ratelimit.Decision, error) {
	panic("limiter bug")
}

// TestSpan_PanicEnds: a panic escaping the endpoint's serving after the
// method was read (the host's limiter) still ends the SERVER span, as a
// failure; no span was exported before. The endpoint answers it 500
// -32603 (record 011), which the span reports.
func TestSpan_PanicEnds(t *testing.T) {
	f := newFixture(t, fixtureOptions{limiter: panicLimiter{}})
	body, h := toolCall(mcp.Version20250618, "1", "echo", `{}`).request()
	req, _ := http.NewRequest(http.MethodPost, f.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	for k, v := range h {
		req.Header.Set(k, v)
	}
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
	sp := mcpSpan(t, f.spans(t, 1))
	got := attrs(t, sp.Attributes)
	if sp.Name != "tools/call echo" || got["error.type"] != "-32603" || got["rpc.response.status_code"] != "-32603" ||
		got["http.response.status_code"] != int64(500) || sp.Status.Code != codes.Error {
		t.Errorf("span %q %v %v", sp.Name, got, sp.Status)
	}
}

// TestSpan_RefusedBatchMember: a member of a 2025-03-26 batch refused
// before it is served (here an initialize) is a message with its own
// span and duration, as each member served is; it had none, so a batch
// of such members was invisible.
func TestSpan_RefusedBatchMember(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	batch := `[{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}]`
	req, _ := http.NewRequest(http.MethodPost, f.url, strings.NewReader(batch))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"code":-32600`) {
		t.Fatalf("batch: %d %s", resp.StatusCode, body)
	}
	sp := mcpSpan(t, f.spans(t, 1))
	want := map[string]any{"mcp.method.name": "initialize", "jsonrpc.request.id": "7", "mcp.protocol.version": "2025-03-26",
		"rpc.response.status_code": "-32600", "http.response.status_code": int64(400),
		"network.transport": "tcp", "network.protocol.name": "http", "client.address": "127.0.0.1"}
	if diff := cmp.Diff(want, attrs(t, sp.Attributes)); diff != "" || sp.Name != "initialize" || sp.Status.Code != codes.Unset {
		t.Errorf("span %q %v (-want +got):\n%s", sp.Name, sp.Status, diff)
	}
}
