package otelmcp

import (
	"context"
	"encoding/json"
	"net"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpdual/mcpdual/mcp/observe"
)

// scope names the tracer and the meter: the instrumentation library, as
// OpenTelemetry asks, not the instrumented service.
const scope = "github.com/mcpdual/mcpdual/mcp/otelmcp"

// Option configures New. Only this package can make one.
type Option interface{ apply(*config) }

type option func(*config)

func (f option) apply(c *config) { f(c) }

type config struct {
	tp   trace.TracerProvider
	mp   metric.MeterProvider
	prop propagation.TextMapPropagator
}

// WithTracerProvider sets where spans go. The default is the global
// provider (otel.GetTracerProvider), read when New is called; the global
// one forwards to a provider set later with otel.SetTracerProvider. It
// panics on a nil provider.
func WithTracerProvider(tp trace.TracerProvider) Option {
	if tp == nil {
		panic("otelmcp: WithTracerProvider needs a provider")
	}
	return option(func(c *config) { c.tp = tp })
}

// WithMeterProvider sets where the duration histogram is recorded. The
// default is the global provider (otel.GetMeterProvider). It panics on a
// nil provider.
func WithMeterProvider(mp metric.MeterProvider) Option {
	if mp == nil {
		panic("otelmcp: WithMeterProvider needs a provider")
	}
	return option(func(c *config) { c.mp = mp })
}

// WithPropagators sets how trace context is read from a request's
// params._meta. The default is the global propagator
// (otel.GetTextMapPropagator), which reads nothing until the host sets one
// (otel.SetTextMapPropagator(propagation.TraceContext{}), usually with
// propagation.Baggage{}). It panics on a nil propagator.
func WithPropagators(p propagation.TextMapPropagator) Option {
	if p == nil {
		panic("otelmcp: WithPropagators needs a propagator")
	}
	return option(func(c *config) { c.prop = p })
}

// New returns an Observer that records a SERVER span and a
// mcp.server.operation.duration measurement for every MCP message, and an
// INTERNAL span around every in-process route call, nested under the
// message's span and put in the route's context so the route's own spans
// nest under it. Set it with mcp.WithObserver, alone or joined with
// others (observe.Join).
func New(opts ...Option) observe.Observer {
	c := config{}
	for _, o := range opts {
		o.apply(&c)
	}
	if c.tp == nil {
		c.tp = otel.GetTracerProvider()
	}
	if c.mp == nil {
		c.mp = otel.GetMeterProvider()
	}
	if c.prop == nil {
		c.prop = otel.GetTextMapPropagator()
	}
	o := &observer{tracer: c.tp.Tracer(scope), prop: c.prop}
	h, err := c.mp.Meter(scope).Float64Histogram(metricOperationDuration,
		metric.WithUnit("s"),
		metric.WithDescription("MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent."),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	if err != nil {
		// A provider that refuses the instrument should not take the
		// endpoint down; OpenTelemetry's error handler hears of it and the
		// histogram it returned with the error still works or does nothing.
		otel.Handle(err)
	}
	o.duration = h
	return o
}

// durationBuckets are the boundaries the conventions give for
// mcp.server.operation.duration: the SDK's default buckets are in
// milliseconds and would put every MCP call in the first one.
var durationBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

type observer struct {
	tracer   trace.Tracer
	prop     propagation.TextMapPropagator
	duration metric.Float64Histogram
}

// Request starts the message's SERVER span, timed from the event's Start:
// for a message refused before it was read, Request is called only once
// the refusal is written, and the span still covers the whole exchange.
func (o *observer) Request(ctx context.Context, ev *observe.Event) (context.Context, func()) {
	method := methodName(ev.Method)
	parent, link := o.parent(ctx, ev)
	opts := make([]trace.SpanStartOption, 0, 4)
	opts = append(opts, trace.WithSpanKind(trace.SpanKindServer), trace.WithTimestamp(ev.Start),
		trace.WithAttributes(startAttributes(ev, method)...))
	if link.SpanContext.IsValid() {
		opts = append(opts, trace.WithLinks(link))
	}
	ctx, span := o.tracer.Start(parent, spanName(ev, method), opts...)
	return ctx, func() {
		errType := errorType(ev)
		if span.IsRecording() {
			span.SetAttributes(endAttributes(ev, errType)...)
			if errType != "" {
				// The conventions want the JSON-RPC message as the
				// description; a tool error has none to give.
				span.SetStatus(codes.Error, errorDescription(ev))
			}
		}
		// Measured before the span ends, with the span's context (an
		// exemplar can point at the trace): whoever sees the span ended
		// finds the measurement made.
		if o.duration != nil {
			o.duration.Record(ctx, ev.Duration.Seconds(), metric.WithAttributeSet(metricAttributes(ev, method, errType)))
		}
		span.End(trace.WithTimestamp(ev.Start.Add(ev.Duration)))
	}
}

// parent is the context the message's span starts from: the trace context
// the client put in params._meta when there is a valid one (MCP carries it
// there on every transport), else ctx with whatever span it holds (an
// HTTP server span, or none on stdio). When both exist and differ, the
// ambient span is returned as a link, so neither trace loses the message.
func (o *observer) parent(ctx context.Context, ev *observe.Event) (context.Context, trace.Link) {
	if len(ev.RawMeta) == 0 {
		return ctx, trace.Link{}
	}
	pctx := o.prop.Extract(ctx, metaCarrier{ev})
	remote := trace.SpanContextFromContext(pctx)
	ambient := trace.SpanContextFromContext(ctx)
	if remote.IsRemote() && ambient.IsValid() && !remote.Equal(ambient) {
		return pctx, trace.Link{SpanContext: ambient}
	}
	return pctx, trace.Link{}
}

// Route starts the span of one in-process route call as a child of the
// message's span, and returns inner with that span added and nothing else
// of outer: the route's context deliberately holds none of the MCP
// request's values (see observe.Observer).
func (o *observer) Route(outer, inner context.Context, ev *observe.RouteEvent) (context.Context, func()) {
	// The pattern is registered as "METHOD /path"; http.route is the
	// path alone, as HTTP's conventions have it.
	route := ev.Pattern
	if _, path, ok := strings.Cut(ev.Pattern, " "); ok {
		route = path
	}
	parent := trace.ContextWithSpan(inner, trace.SpanFromContext(outer))
	// The registered pattern already reads "METHOD /path".
	ctx, span := o.tracer.Start(parent, ev.Pattern,
		trace.WithSpanKind(trace.SpanKindInternal), trace.WithTimestamp(ev.Start),
		trace.WithAttributes(attribute.String(attrHTTPRequestMethod, ev.Method), attribute.String(attrHTTPRoute, route)))
	return ctx, func() {
		if span.IsRecording() {
			span.SetAttributes(attribute.Int(attrHTTPResponseStatusCode, ev.Status))
			if ev.Status >= 500 {
				// As for an HTTP server span: a 4xx is the caller's
				// business (it reaches the model as a tool error on the
				// message's span), a 5xx is the route failing.
				code := strconv.Itoa(ev.Status)
				span.SetAttributes(attribute.String(attrErrorType, code))
				span.SetStatus(codes.Error, "")
			}
		}
		span.End(trace.WithTimestamp(ev.Start.Add(ev.Duration)))
	}
}

// spanName is "{mcp.method.name} {target}" for a tool call or a prompt
// the server has, else the method alone. A name the server does not know
// stays out of the span name, which backends group by: the client chose
// it. A message whose method was never read, or is none MCP defines, is
// named "mcp".
func spanName(ev *observe.Event, method string) string {
	if method == otherValue {
		return unreadSpanName
	}
	if ev.TargetKnown && ev.Target != "" && (method == "tools/call" || method == "prompts/get") {
		return method + " " + ev.Target
	}
	return method
}

// startAttributes are what is known when the span starts, so a sampler
// sees them.
func startAttributes(ev *observe.Event, method string) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, 10)
	attrs = append(attrs, attribute.String(attrMCPMethodName, method))
	if method == otherValue && ev.Method != "" {
		attrs = append(attrs, attribute.String(attrMethodOriginal, ev.Method))
	}
	if ev.Target != "" {
		switch method {
		case "tools/call":
			attrs = append(attrs, attribute.String(attrGenAIToolName, ev.Target))
		case "prompts/get":
			attrs = append(attrs, attribute.String(attrGenAIPromptName, ev.Target))
		case "resources/read", "resources/subscribe", "resources/unsubscribe":
			attrs = append(attrs, attribute.String(attrMCPResourceURI, ev.Target))
		}
	}
	if method == "tools/call" {
		attrs = append(attrs, attribute.String(attrGenAIOperationName, "execute_tool"))
	}
	if id, ok := requestID(ev.ID); ok {
		attrs = append(attrs, attribute.String(attrJSONRPCRequestID, id))
	}
	attrs = append(attrs, transportAttributes(ev)...)
	if ev.Transport != "stdio" && ev.ClientAddr != "" {
		if host, port, err := net.SplitHostPort(ev.ClientAddr); err == nil {
			attrs = append(attrs, attribute.String(attrClientAddress, host))
			if p, err := strconv.Atoi(port); err == nil {
				attrs = append(attrs, attribute.Int(attrClientPort, p))
			}
		} else {
			attrs = append(attrs, attribute.String(attrClientAddress, ev.ClientAddr))
		}
	}
	return attrs
}

func transportAttributes(ev *observe.Event) []attribute.KeyValue {
	switch ev.Transport {
	case "stdio":
		return stdioAttributes
	case "http":
		return httpAttributes
	}
	return nil
}

// The transport's attributes, the same for every message (callers only
// read them).
var (
	stdioAttributes = []attribute.KeyValue{attribute.String(attrNetworkTransport, "pipe")}
	httpAttributes  = []attribute.KeyValue{attribute.String(attrNetworkTransport, "tcp"), attribute.String(attrNetworkProtocolName, "http")}
)

// appendOutcome appends what spans and metrics both say of the answer:
// the revision, the JSON-RPC code and the error type.
func appendOutcome(attrs []attribute.KeyValue, ev *observe.Event, errType string) []attribute.KeyValue {
	if ev.Version != "" {
		attrs = append(attrs, attribute.String(attrMCPProtocolVersion, ev.Version))
	}
	if ev.Code != 0 {
		attrs = append(attrs, attribute.String(attrRPCResponseStatusCode, strconv.Itoa(ev.Code)))
	}
	if errType != "" {
		attrs = append(attrs, attribute.String(attrErrorType, errType))
	}
	return attrs
}

// endAttributes are what serving the message settled.
func endAttributes(ev *observe.Event, errType string) []attribute.KeyValue {
	attrs := appendOutcome(make([]attribute.KeyValue, 0, 8), ev, errType)
	if ev.Transport == "http" && ev.Status != 0 {
		attrs = append(attrs, attribute.Int(attrHTTPResponseStatusCode, ev.Status))
	}
	if ev.ResultType != "" {
		attrs = append(attrs, attribute.String(attrResultType, ev.ResultType))
	}
	if ev.Retry {
		attrs = append(attrs, attribute.Bool(attrRetry, true))
	}
	if ev.Confirmation != "" {
		attrs = append(attrs, attribute.String(attrConfirmation, ev.Confirmation))
	}
	return attrs
}

// metricAttributes are the span's attributes that have a bounded set of
// values: the method (or _OTHER), a tool or prompt name only when the
// server has it, the codes the server chose, the revision it settled.
// Nothing the client alone decides becomes a label: not the id, not the
// resource URI, not the peer's address.
func metricAttributes(ev *observe.Event, method, errType string) attribute.Set {
	attrs := make([]attribute.KeyValue, 0, 10)
	attrs = append(attrs, attribute.String(attrMCPMethodName, method))
	if ev.Target != "" && (method == "tools/call" || method == "prompts/get") {
		target := otherValue
		if ev.TargetKnown {
			target = ev.Target
		}
		key := attrGenAIToolName
		if method == "prompts/get" {
			key = attrGenAIPromptName
		}
		attrs = append(attrs, attribute.String(key, target))
	}
	if method == "tools/call" {
		attrs = append(attrs, attribute.String(attrGenAIOperationName, "execute_tool"))
	}
	attrs = appendOutcome(attrs, ev, errType)
	attrs = append(attrs, transportAttributes(ev)...)
	if ev.ResultType != "" {
		attrs = append(attrs, attribute.String(attrResultType, ev.ResultType))
	}
	if ev.Confirmation != "" {
		attrs = append(attrs, attribute.String(attrConfirmation, ev.Confirmation))
	}
	return attribute.NewSet(attrs...)
}

// requestID renders the JSON-RPC id as the conventions want it: a string
// id without its quotes, a number as written; none for a notification or
// a null id.
func requestID(raw string) (string, bool) {
	switch {
	case raw == "" || raw == "null":
		return "", false
	case raw[0] == '"' && !strings.Contains(raw, `\`):
		return raw[1 : len(raw)-1], true
	case raw[0] == '"':
		var s string
		if err := json.Unmarshal([]byte(raw), &s); err == nil {
			return s, true
		}
		return raw, true
	}
	return raw, true
}
