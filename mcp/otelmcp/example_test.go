package otelmcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/observe"
	"github.com/mcpdual/mcpdual/mcp/otelmcp"
)

// helloHandler is an endpoint with one tool, GET /hello, whose route
// starts a span of its own.
func helloHandler(tp *sdktrace.TracerProvider, opts ...mcp.HandlerOption) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /hello", func(w http.ResponseWriter, r *http.Request) {
		// The route's context holds the route call's span.
		_, span := tp.Tracer("hello").Start(r.Context(), "render greeting")
		defer span.End()
		w.Write([]byte("hello"))
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "hello", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "hello", InputSchema: json.RawMessage(`{"type":"object"}`)}, "GET /hello", mux)
	return mcp.NewHandler(srv, []mcp.Era{era2025.New()}, opts...)
}

func callHello(h http.Handler, params string) {
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hello","arguments":{}` + params + `}}`
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
	req.RemoteAddr = "127.0.0.1:50000"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	h.ServeHTTP(httptest.NewRecorder(), req)
}

// A span per MCP request, a child span per route call, and the route's
// own spans under that. A real service gives New nothing and sets the
// global providers, or passes its own; this one keeps spans in memory to
// print them.
func ExampleNew() {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())

	h := helloHandler(tp, mcp.WithObserver(otelmcp.New(otelmcp.WithTracerProvider(tp))))
	callHello(h, "")

	spans := exp.GetSpans()
	byID := map[string]string{}
	for _, s := range spans {
		byID[s.SpanContext.SpanID().String()] = s.Name
	}
	// Spans end children first.
	for i := len(spans) - 1; i >= 0; i-- {
		s := spans[i]
		parent := byID[s.Parent.SpanID().String()]
		if parent == "" {
			parent = "(root)"
		}
		fmt.Printf("%s (%s) in %s\n", s.Name, s.SpanKind, parent)
	}
	// Output:
	// tools/call hello (server) in (root)
	// GET /hello (internal) in tools/call hello
	// render greeting (internal) in GET /hello
}

// The client's trace context travels in params._meta, on every
// transport: with a propagator that reads W3C trace context, the MCP
// span continues the client's trace.
func ExampleWithPropagators() {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())

	o := otelmcp.New(otelmcp.WithTracerProvider(tp),
		otelmcp.WithPropagators(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})))
	h := helloHandler(tp, mcp.WithObserver(o))
	callHello(h, `,"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}`)

	server := exp.GetSpans()[2]
	fmt.Println(server.Name, "in trace", server.SpanContext.TraceID(), "under remote", server.Parent.SpanID(), server.Parent.IsRemote())
	// Output:
	// tools/call hello in trace 0af7651916cd43dd8448eb211c80319c under remote b7ad6b7169203331 true
}

// traceHandler adds the trace id of the record's context to each line,
// as a host's log handler would.
type traceHandler struct{ slog.Handler }

func (h traceHandler) Handle(ctx context.Context, r slog.Record) error {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r.AddAttrs(slog.String("trace", sc.TraceID().String()))
	}
	return h.Handler.Handle(ctx, r)
}

// With an access log. OpenTelemetry comes first in observe.Join: the
// access log then gets the context holding the MCP span, and writes its
// line (its done runs first) while the span is still open.
func Example_accessLog() {
	tp := sdktrace.NewTracerProvider()
	defer tp.Shutdown(context.Background())
	drop := func(_ []string, a slog.Attr) slog.Attr {
		switch a.Key {
		case slog.TimeKey, "client", "durationMs", "bytesIn", "bytesOut":
			return slog.Attr{}
		}
		return a
	}
	logger := slog.New(traceHandler{slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{ReplaceAttr: drop})})
	o := observe.Join(
		otelmcp.New(otelmcp.WithTracerProvider(tp), otelmcp.WithPropagators(propagation.TraceContext{})),
		observe.AccessLog(logger))
	h := helloHandler(tp, mcp.WithObserver(o))
	callHello(h, `,"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}`)
	// Output:
	// level=INFO msg="mcp: request" transport=http method=tools/call id=1 target=hello version=2025-06-18 status=200 trace=0af7651916cd43dd8448eb211c80319c
}
