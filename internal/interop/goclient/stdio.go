package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioSessions launches bin -stdio (examples/inbox, serving as a
// development account) through the go-sdk's CommandTransport, once with
// the client's default revision and once asking for 2025-06-18, and
// checks what each negotiated, a tools/list, a read and a destructive
// tool: confirmed in two rounds over 2026-07-28, refused over 2025. Each
// server process must exit on its own, with status 0, when the client
// closes its stdin.
func stdioSessions(ctx context.Context, bin string) error {
	cases := []struct {
		ask, want string // ask "": the client's own choice
		email     string
	}{
		{"", "2026-07-28", "eml_globex_0003"},
		{"2025-06-18", "2025-06-18", "eml_globex_0002"},
	}
	for _, c := range cases {
		if err := stdioSession(ctx, bin, c.ask, c.want, c.email); err != nil {
			return fmt.Errorf("stdio, asking %q: %w", c.ask, err)
		}
	}
	return nil
}

func stdioSession(ctx context.Context, bin, ask, want, email string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	tag := "[go-sdk stdio " + want + "]"
	cmd := exec.Command(bin, "-stdio")
	cmd.Stderr = os.Stderr // the server's log, never its protocol
	defer func() {
		// A server the transport did not stop is stopped here, by its
		// PID (it is this process's child).
		if cmd.Process != nil && cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
		}
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpdual-interop-go", Version: "1.0.0"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			fmt.Printf("%s confirmation asked: %q\n", tag, req.Params.Message)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
		},
	})
	var opts *mcp.ClientSessionOptions
	if ask != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: ask}
	}
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, opts)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	got := cs.InitializeResult().ProtocolVersion
	fmt.Printf("%s launched pid %d, server %s, negotiated revision %s\n", tag, cmd.Process.Pid, cs.InitializeResult().ServerInfo.Name, got)
	if got != want {
		cs.Close()
		return fmt.Errorf("negotiated %s, want %s", got, want)
	}
	if err := stdioCalls(ctx, cs, tag, want, email); err != nil {
		cs.Close()
		return err
	}
	if err := cs.Close(); err != nil {
		return fmt.Errorf("close: %w", err)
	}
	if ps := cmd.ProcessState; ps == nil || !ps.Exited() || ps.ExitCode() != 0 {
		return fmt.Errorf("the server did not exit cleanly when its stdin closed: %v", ps)
	}
	fmt.Printf("%s server exited with status 0 after stdin closed\n", tag)
	return nil
}

func stdioCalls(ctx context.Context, cs *mcp.ClientSession, tag, version, email string) error {
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	var names []string
	for _, t := range tools.Tools {
		names = append(names, t.Name)
	}
	fmt.Printf("%s tools/list: %d tools\n", tag, len(names))
	if !slices.Contains(names, "inboxes_list") || !slices.Contains(names, "emails_delete") {
		return fmt.Errorf("tools/list: %v", names)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "inboxes_list", Arguments: map[string]any{}})
	if err != nil {
		return fmt.Errorf("tools/call inboxes_list: %w", err)
	}
	if res.IsError || !strings.Contains(text(res), "inb_globex_ops") {
		return fmt.Errorf("tools/call inboxes_list: %q", text(res))
	}
	fmt.Printf("%s tools/call inboxes_list: the development account's inbox is listed\n", tag)
	del, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "emails_delete", Arguments: map[string]any{"id": email}})
	if err != nil {
		return fmt.Errorf("emails_delete: %w", err)
	}
	after, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "emails_get", Arguments: map[string]any{"id": email}})
	if err != nil {
		return fmt.Errorf("emails_get: %w", err)
	}
	gone := after.IsError && strings.Contains(text(after), "not_found")
	fmt.Printf("%s emails_delete %s: isError=%v, deleted=%v\n", tag, email, del.IsError, gone)
	switch {
	case version == "2026-07-28" && (del.IsError || !gone):
		return fmt.Errorf("a confirmed delete did not delete: %q", text(del))
	case version != "2026-07-28" && (!del.IsError || !strings.Contains(text(del), "Do not retry") || gone):
		return fmt.Errorf("a 2025 client deleted without confirmation: %q", text(del))
	}
	return nil
}
