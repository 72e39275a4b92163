package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgotransport "github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Over stdio with -legacy-input, a 2025-06-18 client that declared
// elicitation on initialize is asked to confirm a destructive tool in the
// middle of the call: the question is a line on the server's stdout, the
// client's answer a line on its stdin. Each SDK's client launches
// bin -stdio -legacy-input itself, accepts the confirmation of one email
// (deleted once) and declines another's (kept), and its server must exit
// with status 0 when the client closes its stdin.

// The emails: a fresh process has the seed data, so both SDKs use the same.
const (
	legacyAccepted = "eml_globex_0002"
	legacyDeclined = "eml_globex_0003"
)

// confirmations answers each confirmation: accept for legacyAccepted,
// decline otherwise, counting what it was asked.
type confirmations struct {
	tag   string
	next  string // the email being deleted
	asked int
}

func (c *confirmations) answer(message string) (accept bool) {
	c.asked++
	accept = c.next == legacyAccepted
	fmt.Printf("%s confirmation asked over stdio: %q -> accept=%v\n", c.tag, message, accept)
	return accept
}

// legacyChecks deletes legacyAccepted (confirmed) and legacyDeclined
// (declined) through call, and reads both back through get.
func legacyChecks(c *confirmations, call func(tool, id string) (string, bool, error)) error {
	for _, id := range []string{legacyAccepted, legacyDeclined} {
		c.next = id
		before := c.asked
		text, isErr, err := call("emails_delete", id)
		if err != nil {
			return fmt.Errorf("emails_delete %s: %w", id, err)
		}
		after, afterErr, err := call("emails_get", id)
		if err != nil {
			return fmt.Errorf("emails_get %s: %w", id, err)
		}
		gone := afterErr && strings.Contains(after, "not_found")
		fmt.Printf("%s emails_delete %s: isError=%v, deleted=%v\n", c.tag, id, isErr, gone)
		switch {
		case c.asked != before+1:
			return fmt.Errorf("emails_delete %s: asked %d times, want once: %q", id, c.asked-before, text)
		case id == legacyAccepted && (isErr || !gone):
			return fmt.Errorf("a confirmed delete did not delete: %q", text)
		case id == legacyDeclined && (!isErr || !strings.Contains(text, "confirmation_declined") || gone):
			return fmt.Errorf("a declined delete deleted, or said otherwise: %q", text)
		}
	}
	return nil
}

// stdioLegacy runs both SDKs' stdio clients against bin -stdio -legacy-input.
func stdioLegacy(ctx context.Context, bin string) error {
	if err := stdioLegacyGoSDK(ctx, bin); err != nil {
		return fmt.Errorf("go-sdk: %w", err)
	}
	if err := stdioLegacyMCPGo(ctx, bin); err != nil {
		return fmt.Errorf("mcp-go: %w", err)
	}
	return nil
}

func stdioLegacyGoSDK(ctx context.Context, bin string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	c := &confirmations{tag: "[go-sdk stdio legacy 2025-06-18]"}
	cmd := exec.Command(bin, "-stdio", "-legacy-input")
	cmd.Stderr = os.Stderr
	defer stopIfRunning(cmd)
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpdual-interop-go", Version: "1.0.0"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if c.answer(req.Params.Message) {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
			}
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	})
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	if v := cs.InitializeResult().ProtocolVersion; v != "2025-06-18" {
		cs.Close()
		return fmt.Errorf("negotiated %s, want 2025-06-18", v)
	}
	err = legacyChecks(c, func(tool, id string) (string, bool, error) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"id": id}})
		if err != nil {
			return "", false, err
		}
		return text(res), res.IsError, nil
	})
	if cerr := cs.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close: %w", cerr)
	}
	if err != nil {
		return err
	}
	return exitedCleanly(c.tag, cmd)
}

// mcpGoElicitation is mcp-go's ElicitationHandler.
type mcpGoElicitation struct{ c *confirmations }

func (h mcpGoElicitation) Elicit(_ context.Context, req mcpgo.ElicitationRequest) (*mcpgo.ElicitationResult, error) {
	if h.c.answer(req.Params.Message) {
		return &mcpgo.ElicitationResult{ElicitationResponse: mcpgo.ElicitationResponse{
			Action: mcpgo.ElicitationResponseActionAccept, Content: map[string]any{"confirm": true}}}, nil
	}
	return &mcpgo.ElicitationResult{ElicitationResponse: mcpgo.ElicitationResponse{Action: mcpgo.ElicitationResponseActionDecline}}, nil
}

func stdioLegacyMCPGo(ctx context.Context, bin string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	c := &confirmations{tag: "[mcp-go stdio legacy 2025-06-18]"}
	var cmd *exec.Cmd
	tr := mcpgotransport.NewStdioWithOptions(bin, nil, []string{"-stdio", "-legacy-input"},
		mcpgotransport.WithCommandStderrWriter(os.Stderr),
		mcpgotransport.WithCommandFunc(func(ctx context.Context, command string, env, args []string) (*exec.Cmd, error) {
			// Kept, to read how the server exited; not tied to ctx, so
			// that only closing stdin ends it.
			cmd = exec.Command(command, args...)
			cmd.Env = append(os.Environ(), env...)
			return cmd, nil
		}))
	if err := tr.Start(ctx); err != nil {
		return fmt.Errorf("start: %w", err)
	}
	defer stopIfRunning(cmd)
	client := mcpgoclient.NewClient(tr, mcpgoclient.WithElicitationHandler(mcpGoElicitation{c}), mcpgoclient.WithProtocolVersion("2025-06-18"))
	if err := client.Start(ctx); err != nil {
		client.Close()
		return fmt.Errorf("client start: %w", err)
	}
	init := mcpgo.InitializeRequest{}
	init.Params.ClientInfo = mcpgo.Implementation{Name: "mcpdual-interop-mcpgo", Version: "1.0.0"}
	ir, err := client.Initialize(ctx, init)
	if err != nil {
		client.Close()
		return fmt.Errorf("initialize: %w", err)
	}
	if ir.ProtocolVersion != "2025-06-18" {
		client.Close()
		return fmt.Errorf("negotiated %s, want 2025-06-18", ir.ProtocolVersion)
	}
	fmt.Printf("%s launched pid %d, server %s, negotiated revision %s\n", c.tag, cmd.Process.Pid, ir.ServerInfo.Name, ir.ProtocolVersion)
	err = legacyChecks(c, func(tool, id string) (string, bool, error) {
		req := mcpgo.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = tool, map[string]any{"id": id}
		res, err := client.CallTool(ctx, req)
		if err != nil {
			return "", false, err
		}
		var b strings.Builder
		for _, ct := range res.Content {
			if tc, ok := ct.(mcpgo.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String(), res.IsError, nil
	})
	if cerr := client.Close(); err == nil && cerr != nil && !errors.Is(cerr, os.ErrClosed) {
		err = fmt.Errorf("close: %w", cerr)
	}
	if err != nil {
		return err
	}
	return exitedCleanly(c.tag, cmd)
}

// stopIfRunning stops a server its transport did not, by its PID (it is
// this process's child).
func stopIfRunning(cmd *exec.Cmd) {
	if cmd != nil && cmd.Process != nil && cmd.ProcessState == nil {
		_ = cmd.Process.Kill()
	}
}

func exitedCleanly(tag string, cmd *exec.Cmd) error {
	if ps := cmd.ProcessState; ps == nil || !ps.Exited() || ps.ExitCode() != 0 {
		return fmt.Errorf("the server did not exit cleanly when its stdin closed: %v", ps)
	}
	fmt.Printf("%s server exited with status 0 after stdin closed\n", tag)
	return nil
}
