package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// legacySessions runs against an examples/inbox started with
// -legacy-input: a 2025-06-18 session that declares elicitation is asked
// to confirm emails_delete in the middle of the call, on the call's
// stream; accepting deletes the email, declining leaves another one.
func legacySessions(ctx context.Context, url string) error {
	for _, c := range []struct {
		id     string
		action string
	}{{"eml_globex_0002", "accept"}, {"eml_globex_0003", "decline"}} {
		asked := 0
		client := mcp.NewClient(&mcp.Implementation{Name: "mcpdual-interop-go", Version: "1.0.0"}, &mcp.ClientOptions{
			ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked++
				fmt.Printf("[go-sdk legacy 2025-06-18] confirmation asked mid-call: %q -> %s\n", req.Params.Message, c.action)
				if c.action == "accept" {
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
				}
				return &mcp.ElicitResult{Action: "decline"}, nil
			},
		})
		transport := &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1, HTTPClient: &http.Client{Transport: bearer{"dev-writer"}}}
		cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
		if err != nil {
			return fmt.Errorf("connect: %w", err)
		}
		if cs.ID() == "" {
			cs.Close()
			return fmt.Errorf("no Mcp-Session-Id: is the inbox started with -legacy-input?")
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "emails_delete", Arguments: map[string]any{"id": c.id}})
		if err != nil {
			cs.Close()
			return fmt.Errorf("emails_delete: %w", err)
		}
		after, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "emails_get", Arguments: map[string]any{"id": c.id}})
		cs.Close()
		if err != nil {
			return fmt.Errorf("emails_get: %w", err)
		}
		gone := after.IsError && strings.Contains(text(after), "not_found")
		fmt.Printf("[go-sdk legacy 2025-06-18] emails_delete %s: isError=%v %q; deleted=%v\n", c.id, res.IsError, text(res), gone)
		switch {
		case asked != 1:
			return fmt.Errorf("asked %d times, want once", asked)
		case c.action == "accept" && (res.IsError || !gone):
			return fmt.Errorf("an accepted confirmation did not delete")
		case c.action == "decline" && (!res.IsError || !strings.Contains(text(res), "confirmation_declined") || gone):
			return fmt.Errorf("a declined confirmation deleted, or said otherwise")
		}
	}
	return nil
}
