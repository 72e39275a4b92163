package main

import (
	"context"
	"flag"
	"io"
	"log"
	"os"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/mcpdual/mcpdual/mcp/observe"
	"github.com/mcpdual/mcpdual/mcp/otelmcp"
)

var otelStdout = flag.Bool("otel-stdout", false, "print an OpenTelemetry span for every MCP request and in-process route call to stdout, one JSON object a line")

// tracing returns the observer -otel-stdout asks for (nil without the
// flag: the endpoint then observes nothing and costs nothing more) and
// the function that flushes and stops it.
func tracing() (observe.Observer, func()) {
	if !*otelStdout {
		return nil, func() {}
	}
	o, stop, err := stdoutTracing(os.Stdout)
	if err != nil {
		log.Fatal(err)
	}
	return o, stop
}

// stdoutTracing writes each span to w as it ends: a development aid, so
// spans are exported one by one rather than batched. The client's trace
// context in params._meta (W3C traceparent, tracestate, baggage) parents
// the spans.
func stdoutTracing(w io.Writer) (observe.Observer, func(), error) {
	exp, err := stdouttrace.New(stdouttrace.WithWriter(w))
	if err != nil {
		return nil, nil, err
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp),
		sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", "autonomous-inbox"))))
	o := otelmcp.New(otelmcp.WithTracerProvider(tp),
		otelmcp.WithPropagators(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})))
	return o, func() { _ = tp.Shutdown(context.Background()) }, nil
}
