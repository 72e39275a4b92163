// Package bench serves one trivial "echo" tool through mcpdual and through
// the other Go MCP SDKs, so that their per-request cost can be compared on
// equal terms: same input schema, validated on every call (except where a
// variant says otherwise), same result (one text block carrying the text),
// stateless, one JSON response per POST.
//
// The SDKs are ordinary module dependencies of this module (see go.mod),
// which is separate from the library's so the library does not depend on
// them. Nothing from them is copied here.
package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	mcpgomcp "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/content"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Variant names, as New, the commands and run.sh spell them.
const (
	MCPDual        = "mcpdual"        // this repository: a route registered with AddTool
	MCPDualFunc    = "mcpdual-func"   // this repository: a Go function registered with AddFunc
	GoSDK          = "gosdk"          // modelcontextprotocol/go-sdk v1.8.0, Stateless + JSONResponse
	MCPGo          = "mcpgo"          // mark3labs/mcp-go v1.2.1, stateless, no input validation (its default)
	MCPGoValidated = "mcpgo-validate" // the same plus WithInputSchemaValidation
	Floor          = "floor"          // net/http + encoding/json by hand: a lower bound, not an SDK
	TSNode         = "ts-node"        // @modelcontextprotocol/server v2 on Node (node/server.mjs); loopback only
)

// Variants lists every variant in report order.
// TSNode is not among them: it is another process, served by node/server.mjs
// and measured over loopback only.
func Variants() []string { return []string{MCPDual, MCPDualFunc, GoSDK, MCPGo, MCPGoValidated, Floor} }

// EchoSchema is the echo tool's input schema. Every variant registers these
// exact bytes, so the validating ones check the same thing.
const EchoSchema = `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`

// New returns the MCP endpoint of the named variant.
func New(variant string) (http.Handler, error) {
	switch variant {
	case MCPDual:
		return newMCPDual(), nil
	case MCPDualFunc:
		return newMCPDualFunc(), nil
	case GoSDK:
		return newGoSDK(), nil
	case MCPGo:
		return newMCPGo(false), nil
	case MCPGoValidated:
		return newMCPGo(true), nil
	case Floor:
		return floor{}, nil
	}
	return nil, fmt.Errorf("unknown variant %q (want one of %s)", variant, strings.Join(Variants(), ", "))
}

// newMCPDual exposes an ordinary REST route as the tool, which is how
// mcpdual is meant to be used: the route decodes its own JSON body, and a
// 2xx text/plain body becomes one text block. The route's decoding is part
// of the measured cost, as a real service's would be.
func newMCPDual() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /echo", func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Text string `json:"text"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, "invalid JSON body", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte(in.Text))
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "bench-mcpdual", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "echo", InputSchema: json.RawMessage(EchoSchema)}, "POST /echo", mux)
	return mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()})
}

// newMCPDualFunc registers echo as a Go function: no HTTP request is built
// for the call, and the answer is the function's own text block.
func newMCPDualFunc() http.Handler {
	srv := mcp.NewServer(mcp.Implementation{Name: "bench-mcpdual", Version: "1"})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "echo", InputSchema: json.RawMessage(EchoSchema)},
		func(_ context.Context, in echoIn) (*mcp.ToolResult, error) {
			return &mcp.ToolResult{Content: []content.Block{content.Text(in.Text)}}, nil
		})
	return mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()})
}

type echoIn struct {
	Text string `json:"text"`
}

// newGoSDK uses the typed AddTool, which validates the arguments against
// the tool's input schema on every call; the schema is given explicitly so
// it is EchoSchema rather than one inferred from echoIn.
func newGoSDK() http.Handler {
	s := gosdk.NewServer(&gosdk.Implementation{Name: "bench-gosdk", Version: "1"}, nil)
	gosdk.AddTool(s, &gosdk.Tool{Name: "echo", InputSchema: json.RawMessage(EchoSchema)},
		func(_ context.Context, _ *gosdk.CallToolRequest, in echoIn) (*gosdk.CallToolResult, any, error) {
			return &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: in.Text}}}, nil, nil
		})
	return gosdk.NewStreamableHTTPHandler(func(*http.Request) *gosdk.Server { return s },
		&gosdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
}

// newMCPGo registers EchoSchema as the tool's raw schema. mcp-go checks it
// only with WithInputSchemaValidation; without it, the handler's own
// RequireString is the only check.
func newMCPGo(validate bool) http.Handler {
	var opts []mcpgoserver.ServerOption
	if validate {
		opts = append(opts, mcpgoserver.WithInputSchemaValidation())
	}
	s := mcpgoserver.NewMCPServer("bench-mcpgo", "1", opts...)
	s.AddTool(mcpgomcp.NewToolWithRawSchema("echo", "", json.RawMessage(EchoSchema)),
		func(_ context.Context, req mcpgomcp.CallToolRequest) (*mcpgomcp.CallToolResult, error) {
			text, err := req.RequireString("text")
			if err != nil {
				return mcpgomcp.NewToolResultError(err.Error()), nil
			}
			return mcpgomcp.NewToolResultText(text), nil
		})
	return mcpgoserver.NewStreamableHTTPServer(s, mcpgoserver.WithStateLess(true))
}
