// Command conformance is the fixture the official MCP conformance suite
// runs against: every tool, resource, template, prompt and completion the
// suite's scenarios name, on one endpoint serving 2026-07-28, 2025-11-25,
// 2025-06-18 and 2025-03-26, built only on the public API. It is a module
// of its own (its -redis pulls in go-redis, which the library's go.mod
// never requires).
//
//	go -C examples/conformance run . -addr 127.0.0.1:3001
//
// MCP is served at /mcp, and at /mcp-2025-03-26 for revision 2025-03-26
// only (for clients that always ask for a newer one). The library keeps no
// state; the fixture's only state is the small job runner behind its task
// tools (tasks.go), as a host's jobs live in its own store. Change
// notifications are on (changes.go): the trigger tools change the registry
// on every replica, test_notify_resource_updated announces a resource
// update from the replica it reaches, listen streams and 2025 sessions'
// GET streams are told, and a 2025 session's subscriptions and log level
// live in the session store.
//
// It runs as a fleet of replicas behind a balancer, as CI runs it
// (.ci/conformance.sh): every replica gets the same CONFORMANCE_STATE_KEYS
// (a key ring in the text form of mrtr.ParseKeys, as examples/inbox's
// INBOX_STATE_KEYS), the same -redis redis://… (the jobs, the replay
// guard, the rate limiter, the answer bus of the 2025 clients' answers,
// the event bus and the 2025 sessions' store)
// and -public-url, the balancer's URL. fleet.go says what each is for.
//
// With -access-log it writes one JSON line per MCP request to stderr; CI
// reads from it which revision each session negotiated.
package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/content"
	"github.com/mcpdual/mcpdual/mcp/observe"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:3001", "listen address (loopback)")
	accessLog := flag.Bool("access-log", false, "write one JSON line per MCP request to stderr (CI reads which revision each session negotiated)")
	publicURL := flag.String("public-url", "", "the URL clients reach the fixture at, such as a balancer's (http://host:port, no path); a name that is not loopback is admitted as a Host")
	redisURL := flag.String("redis", "", "redis://[:password@]host:port/db shared by every replica: jobs, used confirmations, rate budgets and 2025 answers in flight")
	flag.Parse()
	var opts []mcp.HandlerOption
	if *accessLog {
		opts = append(opts, mcp.WithObserver(observe.AccessLog(slog.New(slog.NewJSONHandler(os.Stderr, nil)))))
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fl, report, err := setupFleet(ln.Addr(), *publicURL, *redisURL)
	if err != nil {
		log.Fatal(err)
	}
	defer fl.close()
	for _, line := range report {
		fmt.Fprintln(os.Stderr, line)
	}
	app, c := newAppChanges(fl, opts...)
	srv := &http.Server{Handler: app, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 60 * time.Second, IdleTimeout: 2 * time.Minute}
	// Shutdown waits for open notification streams; Close ends them (and
	// stops the fleet's follower) as Shutdown begins.
	srv.RegisterOnShutdown(func() { c.h.Load().Close() })
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	shutDown := make(chan struct{})
	go func() {
		defer close(shutDown)
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	// The first line names the endpoint; with -addr 127.0.0.1:0 it says
	// which port the system chose.
	fmt.Printf("listening on http://%s/mcp\n", ln.Addr())
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
	<-shutDown // Serve returns as Shutdown begins: let the streams end first
}

// A 1x1 PNG and a short silent WAV.
var (
	pngData, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC")
	wavData, _ = base64.StdEncoding.DecodeString("UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAAAAAAAAAAAAAAAAAAAAAA")
)

// result answers a tool call with content, as a handler written for MCP.
func result(w http.ResponseWriter, isError bool, blocks ...content.Block) {
	w.Header().Set("Content-Type", mcp.ToolResultMediaType)
	_ = json.NewEncoder(w).Encode(struct {
		Content []content.Block `json:"content"`
		IsError bool            `json:"isError"`
	}{blocks, isError})
}

func text(w http.ResponseWriter, s string) { result(w, false, content.Text(s)) }

func schema(s string) json.RawMessage { return json.RawMessage(s) }

var empty = schema(`{"type":"object"}`)

// tool registers a tool served by its own handler function.
func tool(srv *mcp.Server, mux *http.ServeMux, name, description string, input json.RawMessage, h http.HandlerFunc) {
	route := "POST /tools/" + name
	mux.HandleFunc(route, h)
	srv.AddTool(mcp.Tool{Name: name, Description: description, InputSchema: input}, route, mux)
}

// newApp builds the fixture; fleet{} keeps everything in this process.
func newApp(fl fleet, opts ...mcp.HandlerOption) http.Handler {
	h, _ := newAppChanges(fl, opts...)
	return h
}

// newAppChanges is newApp with what its triggers changed (changes.go).
func newAppChanges(fl fleet, opts ...mcp.HandlerOption) (http.Handler, *changes) {
	mux := http.NewServeMux()
	srv := mcp.NewServer(mcp.Implementation{Name: "mcpdual-conformance", Title: "mcpdual conformance fixture", Version: "1.0.0"},
		mcp.WithInstructions("Conformance fixture for the official MCP suite."))
	addTools(srv, mux)
	c := &changes{srv: srv, mux: mux}
	c.addTriggers()
	addInputTools(srv, mux)
	addTaskTools(srv, mux, fl.jobs())
	addResources(srv, mux)
	addPrompts(srv)
	opts = append(append(opts, fl.handlerOptions()...), mcp.WithStreaming())
	h := mcp.NewHandler(srv, fl.eras(), append(opts, fl.legacyInput(), fl.notifications(c))...) // legacy.go, changes.go
	c.h.Store(h)
	mux.Handle("/mcp", h)
	// The same server for clients that can only be steered to revision
	// 2025-03-26 by a server that offers nothing newer.
	mux.Handle("/mcp-2025-03-26", mcp.NewHandler(srv, []mcp.Era{era2025.New(era2025.WithVersions(mcp.Version20250326))}, opts...))
	return mux, c
}

func addTools(srv *mcp.Server, mux *http.ServeMux) {
	tool(srv, mux, "test_simple_text", "Returns a simple text.", empty, func(w http.ResponseWriter, r *http.Request) {
		text(w, "This is a simple text response for testing.")
	})
	tool(srv, mux, "test_image_content", "Returns an image.", empty, func(w http.ResponseWriter, r *http.Request) {
		result(w, false, content.Image(pngData, "image/png"))
	})
	tool(srv, mux, "test_audio_content", "Returns audio.", empty, func(w http.ResponseWriter, r *http.Request) {
		result(w, false, content.Audio(wavData, "audio/wav"))
	})
	tool(srv, mux, "test_embedded_resource", "Returns an embedded resource.", empty, func(w http.ResponseWriter, r *http.Request) {
		result(w, false, content.EmbeddedText("test://embedded-resource", "text/plain", "This is an embedded resource content."))
	})
	tool(srv, mux, "test_multiple_content_types", "Returns text, an image and a resource.", empty, func(w http.ResponseWriter, r *http.Request) {
		result(w, false, content.Text("Multiple content types test:"), content.Image(pngData, "image/png"),
			content.EmbeddedText("test://mixed-content-resource", "application/json", `{"test":"data","value":123}`))
	})
	tool(srv, mux, "test_tool_with_logging", "Logs while it runs.", empty, func(w http.ResponseWriter, r *http.Request) {
		call := mcp.CallFromContext(r.Context())
		for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
			if i > 0 {
				time.Sleep(50 * time.Millisecond)
			}
			call.Log(slog.LevelInfo, msg)
		}
		text(w, "Tool with logging executed successfully")
	})
	tool(srv, mux, "test_logging_tool", "Logs only when the request asked for logs.", empty, func(w http.ResponseWriter, r *http.Request) {
		mcp.CallFromContext(r.Context()).Log(slog.LevelInfo, "test_logging_tool ran")
		text(w, "Logging tool executed")
	})
	tool(srv, mux, "test_tool_with_progress", "Reports progress.", empty, func(w http.ResponseWriter, r *http.Request) {
		call := mcp.CallFromContext(r.Context())
		for i, p := range []float64{0, 50, 100} {
			if i > 0 {
				time.Sleep(50 * time.Millisecond)
			}
			call.Progress(p, 100, fmt.Sprintf("Completed step %d of 3", i+1))
		}
		text(w, "Tool with progress executed successfully")
	})
	tool(srv, mux, "test_streaming_elicitation", "Streams progress and never sends a request on the stream.", empty, func(w http.ResponseWriter, r *http.Request) {
		call := mcp.CallFromContext(r.Context())
		for i, p := range []float64{0, 50, 100} {
			if i > 0 {
				time.Sleep(20 * time.Millisecond)
			}
			call.Progress(p, 100, "working")
		}
		text(w, "Streaming completed without server-to-client requests")
	})
	tool(srv, mux, "test_error_handling", "Always fails.", empty, func(w http.ResponseWriter, r *http.Request) {
		result(w, true, content.Text("This tool intentionally returns an error for testing"))
	})
	tool(srv, mux, "test_reconnection", "Answers at once (a stateless server keeps no event store).", empty, func(w http.ResponseWriter, r *http.Request) {
		text(w, "Reconnection test completed")
	})
	tool(srv, mux, "test_x_mcp_header", "Mirrors its region argument into Mcp-Param-Region.",
		schema(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}},"required":["region"]}`),
		func(w http.ResponseWriter, r *http.Request) {
			var args struct{ Region string }
			_ = json.NewDecoder(r.Body).Decode(&args)
			text(w, "Region: "+args.Region)
		})
	tool(srv, mux, "json_schema_2020_12_tool", "Keeps a JSON Schema 2020-12 input schema verbatim.", schema(`{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"type": "object",
		"$defs": {"address": {"$anchor": "addressDef", "type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
		"properties": {
			"name": {"type": "string"},
			"address": {"$ref": "#/$defs/address"},
			"contactMethod": {"type": "string", "enum": ["email", "phone"]},
			"email": {"type": "string"},
			"phone": {"type": "string"}
		},
		"allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
		"if": {"properties": {"contactMethod": {"const": "email"}}},
		"then": {"required": ["email"]},
		"else": {"required": ["phone"]},
		"additionalProperties": false
	}`), func(w http.ResponseWriter, r *http.Request) { text(w, "ok") })
}
