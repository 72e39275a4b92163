// Command goclient drives a full session of the published go-sdk client
// (github.com/modelcontextprotocol/go-sdk) against an mcpdual endpoint in
// each revision both speak: 2026-07-28 through server/discover, 2025-06-18
// and 2025-03-26 through initialize. It prints a transcript and exits
// non-zero on the first surprise.
//
//	go run . http://127.0.0.1:PORT/mcp [http://127.0.0.1:PORT2/mcp]
//	go run . -stdio /path/to/built/examples/inbox
//	go run . -legacy http://127.0.0.1:PORT/mcp [http://127.0.0.1:REPLICA...]
//	                                      (examples/inbox -legacy-input)
//	go run . -stdio-legacy /path/to/built/examples/inbox
//	                                      (-stdio -legacy-input; go-sdk and mcp-go)
//	go run . -notify http://127.0.0.1:A/mcp http://127.0.0.1:B/mcp [http://127.0.0.1:BALANCER/mcp]
//	                                      (examples/conformance replicas: the 2025 push, notify.go)
//
// With -stdio it launches the built examples/inbox binary with -stdio
// through the go-sdk's CommandTransport instead (see stdio.go).
//
// The optional second URL is an examples/inbox endpoint: the client then
// also runs an authenticated session there, confirming a destructive tool.
//
// go test -run TestHello starts examples/hello itself and calls its function
// tool, notes_search, in each revision (hello.go).
//
// It lives in its own module so that the library's go.mod never depends on
// another MCP SDK; with -stdio-legacy it also drives mark3labs/mcp-go's
// stdio client (the version internal/kitpeers uses).
package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	if len(os.Args) == 3 && os.Args[1] == "-stdio" {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		if err := stdioSessions(ctx, os.Args[2]); err != nil {
			fmt.Fprintf(os.Stderr, "go-sdk client, %v\n", err)
			os.Exit(1)
		}
		fmt.Println("go-sdk client: stdio sessions succeeded")
		return
	}
	if len(os.Args) == 3 && os.Args[1] == "-stdio-legacy" {
		// examples/inbox -stdio -legacy-input, launched by the go-sdk's
		// and mcp-go's stdio clients (stdiolegacy.go).
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		if err := stdioLegacy(ctx, os.Args[2]); err != nil {
			fmt.Fprintf(os.Stderr, "stdio legacy input, %v\n", err)
			os.Exit(1)
		}
		fmt.Println("go-sdk and mcp-go clients: stdio legacy input sessions succeeded")
		return
	}
	if (len(os.Args) == 4 || len(os.Args) == 5) && os.Args[1] == "-notify" {
		// Two replicas of examples/conformance run as a fleet, and
		// optionally the balancer in front of them (notify.go).
		for _, u := range os.Args[2:] {
			if !strings.HasPrefix(u, "http://127.0.0.1:") {
				fmt.Fprintln(os.Stderr, "goclient: loopback URLs only")
				os.Exit(2)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		balancer := ""
		if len(os.Args) == 5 {
			balancer = os.Args[4]
		}
		if err := notifySessions(ctx, os.Args[2], os.Args[3], balancer); err != nil {
			fmt.Fprintf(os.Stderr, "go-sdk client, change notifications: %v\n", err)
			os.Exit(1)
		}
		fmt.Println("go-sdk client: change notifications across replicas succeeded")
		return
	}
	if len(os.Args) >= 3 && os.Args[1] == "-legacy" {
		// An examples/inbox started with -legacy-input (legacy.go). The
		// URLs after the endpoint are the base URLs of the replicas behind
		// it, where the effect is counted; by default the endpoint's own.
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		bases := os.Args[3:]
		if len(bases) == 0 {
			bases = []string{strings.TrimSuffix(os.Args[2], "/mcp")}
		}
		for _, u := range append([]string{os.Args[2]}, bases...) {
			if !strings.HasPrefix(u, "http://127.0.0.1:") {
				fmt.Fprintln(os.Stderr, "goclient: loopback URLs only")
				os.Exit(2)
			}
		}
		if err := legacySessions(ctx, os.Args[2], bases); err != nil {
			fmt.Fprintf(os.Stderr, "go-sdk client, legacy input: %v\n", err)
			os.Exit(1)
		}
		fmt.Println("go-sdk client: legacy input sessions succeeded")
		return
	}
	if len(os.Args) < 2 || len(os.Args) > 3 {
		fmt.Fprintln(os.Stderr, "usage: goclient http://127.0.0.1:PORT/mcp [http://127.0.0.1:PORT2/mcp]")
		os.Exit(2)
	}
	for _, u := range os.Args[1:] {
		if !strings.HasPrefix(u, "http://127.0.0.1:") {
			fmt.Fprintln(os.Stderr, "goclient: loopback URLs only")
			os.Exit(2)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, v := range []string{"2026-07-28", "2025-06-18", "2025-03-26"} {
		if err := session(ctx, os.Args[1], v); err != nil {
			fmt.Fprintf(os.Stderr, "go-sdk client, %s: %v\n", v, err)
			os.Exit(1)
		}
	}
	if len(os.Args) == 3 {
		for _, v := range []string{"2026-07-28", "2025-06-18"} {
			if err := inboxSession(ctx, os.Args[2], v); err != nil {
				fmt.Fprintf(os.Stderr, "go-sdk client, inbox %s: %v\n", v, err)
				os.Exit(1)
			}
		}
	}
	fmt.Println("go-sdk client: all sessions succeeded")
}

// bearer adds a token to every request of the client.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func text(res *mcp.CallToolResult) string {
	if len(res.Content) == 0 {
		return ""
	}
	if t, ok := res.Content[0].(*mcp.TextContent); ok {
		return t.Text
	}
	return ""
}

// inboxSession signs in to the Autonomous Inbox with a development token
// and deletes an email: over 2026-07-28 the server asks for confirmation,
// which this client's elicitation handler gives; over 2025-06-18 the
// server refuses (confirmation_required) and the email stays.
func inboxSession(ctx context.Context, url, version string) error {
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpdual-interop-go", Version: "1.0.0"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			fmt.Printf("[go-sdk inbox %s] confirmation asked: %q\n", version, req.Params.Message)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
		},
	})
	transport := &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1, HTTPClient: &http.Client{Transport: bearer{"dev-writer"}}}
	cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer cs.Close()
	fmt.Printf("[go-sdk inbox %s] connected, server %s, revision %s\n", version, cs.InitializeResult().ServerInfo.Name, cs.InitializeResult().ProtocolVersion)
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	fmt.Printf("[go-sdk inbox %s] tools/list: %d tools\n", version, len(tools.Tools))
	id := map[string]string{"2026-07-28": "eml_globex_0003", "2025-06-18": "eml_globex_0002"}[version]
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "emails_delete", Arguments: map[string]any{"id": id}})
	if err != nil {
		return fmt.Errorf("emails_delete: %w", err)
	}
	fmt.Printf("[go-sdk inbox %s] emails_delete %s: isError=%v %q\n", version, id, res.IsError, text(res))
	after, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "emails_get", Arguments: map[string]any{"id": id}})
	if err != nil {
		return fmt.Errorf("emails_get: %w", err)
	}
	gone := after.IsError && strings.Contains(text(after), "not_found")
	fmt.Printf("[go-sdk inbox %s] emails_get %s afterwards: deleted=%v\n", version, id, gone)
	switch {
	case version == "2026-07-28" && (res.IsError || !gone):
		return fmt.Errorf("a confirmed delete did not delete")
	case version != "2026-07-28" && (!res.IsError || !strings.Contains(text(res), "Do not retry") || gone):
		return fmt.Errorf("a 2025 client deleted without confirmation")
	}
	return nil
}

func session(ctx context.Context, url, version string) error {
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpdual-interop-go", Version: "1.0.0"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Gopher"}}, nil
		},
	})
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer cs.Close()
	got := cs.InitializeResult().ProtocolVersion
	fmt.Printf("[go-sdk %s] connected, server %s, revision %s\n", version, cs.InitializeResult().ServerInfo.Name, got)
	if got != version {
		return fmt.Errorf("negotiated %s, asked %s", got, version)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	fmt.Printf("[go-sdk %s] tools/list: %d tools\n", version, len(tools.Tools))
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_simple_text", Arguments: map[string]any{}})
	if err != nil || res.IsError || len(res.Content) != 1 {
		return fmt.Errorf("tools/call test_simple_text: %v %+v", err, res)
	}
	fmt.Printf("[go-sdk %s] tools/call test_simple_text: %q\n", version, res.Content[0].(*mcp.TextContent).Text)
	read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://template/42/data"})
	if err != nil || len(read.Contents) != 1 || !strings.Contains(read.Contents[0].Text, "42") {
		return fmt.Errorf("resources/read: %v %+v", err, read)
	}
	fmt.Printf("[go-sdk %s] resources/read: %s\n", version, strings.TrimSpace(read.Contents[0].Text))
	prompt, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "test_prompt_with_arguments", Arguments: map[string]string{"arg1": "a", "arg2": "b"}})
	if err != nil || len(prompt.Messages) != 1 {
		return fmt.Errorf("prompts/get: %v %+v", err, prompt)
	}
	fmt.Printf("[go-sdk %s] prompts/get: %q\n", version, prompt.Messages[0].Content.(*mcp.TextContent).Text)
	if version == "2026-07-28" {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_input_required_result_elicitation", Arguments: map[string]any{}})
		if err != nil || res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "Hello, Gopher!" {
			return fmt.Errorf("multi round-trip call: %v %+v", err, res)
		}
		fmt.Printf("[go-sdk %s] multi round-trip tools/call: %q\n", version, res.Content[0].(*mcp.TextContent).Text)
	}
	return nil
}
