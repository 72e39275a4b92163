// Package kitpeers runs mcptest, the library's conformance kit, against
// MCP servers it did not build: the stateless handlers of the other Go
// SDKs (modelcontextprotocol/go-sdk and mark3labs/mcp-go, ordinary module
// dependencies of this module only) and a floor written by hand. Its test
// pins what the kit reports for each at its default level, so that the
// kit fails another server only for a real MUST violation, and keeps
// finding those.
package kitpeers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	mcpgomcp "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Peer names, as New and cmd/peer spell them.
const (
	GoSDK         = "gosdk"          // modelcontextprotocol/go-sdk v1.8.0: Stateless, JSONResponse
	GoSDKStream   = "gosdk-stream"   // the same, answering with event streams (Stateless only)
	GoSDKSessions = "gosdk-sessions" // go-sdk's default: sessions, event streams
	MCPGo         = "mcpgo"          // mark3labs/mcp-go v1.2.1: WithStateLess
	MCPGoSessions = "mcpgo-sessions" // mcp-go's default: sessions
	Floor         = "floor"          // net/http and encoding/json by hand (floor.go)
)

// Peers lists every peer.
func Peers() []string {
	return []string{GoSDK, GoSDKStream, GoSDKSessions, MCPGo, MCPGoSessions, Floor}
}

const echoSchema = `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`

// regionSchema mirrors its argument into a Mcp-Param-Region header on
// 2026-07-28, which the server must check against the body.
const regionSchema = `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`

// New returns the MCP endpoint of the named peer, serving two tools, echo
// and region (whose argument has an x-mcp-header), in the SDK's
// configuration the name says.
func New(peer string) (http.Handler, error) {
	switch peer {
	case GoSDK:
		return goSDK(&gosdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true}), nil
	case GoSDKStream:
		return goSDK(&gosdk.StreamableHTTPOptions{Stateless: true}), nil
	case GoSDKSessions:
		return goSDK(&gosdk.StreamableHTTPOptions{}), nil
	case MCPGo:
		return mcpGo(mcpgoserver.WithStateLess(true)), nil
	case MCPGoSessions:
		return mcpGo(), nil
	case Floor:
		return floor{}, nil
	}
	return nil, fmt.Errorf("unknown peer %q (want %v)", peer, Peers())
}

func goSDK(opts *gosdk.StreamableHTTPOptions) http.Handler {
	s := gosdk.NewServer(&gosdk.Implementation{Name: "kitpeers-gosdk", Version: "1"}, nil)
	gosdk.AddTool(s, &gosdk.Tool{Name: "echo", InputSchema: json.RawMessage(echoSchema)},
		func(_ context.Context, _ *gosdk.CallToolRequest, in struct {
			Text string `json:"text"`
		}) (*gosdk.CallToolResult, any, error) {
			return &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: in.Text}}}, nil, nil
		})
	gosdk.AddTool(s, &gosdk.Tool{Name: "region", InputSchema: json.RawMessage(regionSchema)},
		func(_ context.Context, _ *gosdk.CallToolRequest, in struct {
			Region string `json:"region"`
		}) (*gosdk.CallToolResult, any, error) {
			return &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: in.Region}}}, nil, nil
		})
	return gosdk.NewStreamableHTTPHandler(func(*http.Request) *gosdk.Server { return s }, opts)
}

func mcpGo(opts ...mcpgoserver.StreamableHTTPOption) http.Handler {
	s := mcpgoserver.NewMCPServer("kitpeers-mcpgo", "1")
	s.AddTool(mcpgomcp.NewToolWithRawSchema("echo", "", json.RawMessage(echoSchema)),
		func(_ context.Context, req mcpgomcp.CallToolRequest) (*mcpgomcp.CallToolResult, error) {
			text, err := req.RequireString("text")
			if err != nil {
				return mcpgomcp.NewToolResultError(err.Error()), nil
			}
			return mcpgomcp.NewToolResultText(text), nil
		})
	s.AddTool(mcpgomcp.NewToolWithRawSchema("region", "", json.RawMessage(regionSchema)),
		func(_ context.Context, req mcpgomcp.CallToolRequest) (*mcpgomcp.CallToolResult, error) {
			return mcpgomcp.NewToolResultText(req.GetString("region", "")), nil
		})
	return mcpgoserver.NewStreamableHTTPServer(s, opts...)
}
