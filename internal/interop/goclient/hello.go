package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// helloSessions calls examples/hello's function tool, notes_search (a Go
// function registered with mcp.AddToolFunc, its schemas derived from its
// types), through the go-sdk client in each revision: the tool is listed
// with its input schema (and its output schema where the revision has
// one), a call answers with structuredContent from 2025-06-18 on and with
// text only on 2025-03-26, and arguments its schema refuses are refused
// before the function runs.
func helloSessions(ctx context.Context, url string) error {
	for _, v := range []string{"2026-07-28", "2025-06-18", "2025-03-26"} {
		if err := helloSession(ctx, url, v); err != nil {
			return fmt.Errorf("hello %s: %w", v, err)
		}
	}
	return nil
}

func helloSession(ctx context.Context, url, version string) error {
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpdual-interop-go", Version: "1.0.0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer cs.Close()
	if got := cs.InitializeResult().ProtocolVersion; got != version {
		return fmt.Errorf("negotiated %s, asked %s", got, version)
	}
	structured := version != "2025-03-26"

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	var search *mcp.Tool
	for _, t := range tools.Tools {
		if t.Name == "notes_search" {
			search = t
		}
	}
	if search == nil {
		return fmt.Errorf("tools/list has no notes_search (%d tools)", len(tools.Tools))
	}
	in, err := json.Marshal(search.InputSchema)
	if err != nil || !strings.Contains(string(in), `"word"`) || !strings.Contains(string(in), `"required":["word"]`) {
		return fmt.Errorf("notes_search input schema: %s %v", in, err)
	}
	out, _ := json.Marshal(search.OutputSchema)
	if hasOut := search.OutputSchema != nil && strings.Contains(string(out), `"notes"`); hasOut != structured {
		return fmt.Errorf("notes_search output schema %s, want one: %v", out, structured)
	}
	fmt.Printf("[go-sdk hello %s] tools/list: notes_search with input schema %s\n", version, in)

	// A note to find, through the route tool notes_create.
	word := "gopher" + strings.ReplaceAll(version, "-", "")
	created, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "notes_create", Arguments: map[string]any{"text": "a note about " + word}})
	if err != nil || created.IsError {
		return fmt.Errorf("notes_create: %v %+v", err, created)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "notes_search", Arguments: map[string]any{"word": word, "limit": 5}})
	if err != nil || res.IsError {
		return fmt.Errorf("notes_search: %v %+v", err, res)
	}
	var got struct {
		Notes []struct{ ID, Text string } `json:"notes"`
	}
	if err := json.Unmarshal([]byte(text(res)), &got); err != nil || len(got.Notes) != 1 || !strings.Contains(got.Notes[0].Text, word) {
		return fmt.Errorf("notes_search text %q: %v", text(res), err)
	}
	switch sc := res.StructuredContent; {
	case structured && sc == nil:
		return fmt.Errorf("notes_search: no structuredContent")
	case !structured && sc != nil:
		return fmt.Errorf("notes_search: structuredContent %v on a revision without it", sc)
	case structured:
		b, _ := json.Marshal(sc)
		if !strings.Contains(string(b), word) {
			return fmt.Errorf("notes_search structuredContent %s", b)
		}
	}
	fmt.Printf("[go-sdk hello %s] notes_search %q: %s (structuredContent: %v)\n", version, word, text(res), res.StructuredContent != nil)

	// Arguments the input schema refuses: the answer names what is wrong,
	// as schema validation does before the function is called (the
	// function would have searched, and answered a list).
	for _, bad := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"word": ""}, "word"},
		{map[string]any{"word": 5}, "word"},
		{map[string]any{"word": "x", "limit": 0}, "limit"},
		{map[string]any{"word": "x", "extra": true}, "extra"},
		{map[string]any{}, "word"},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "notes_search", Arguments: bad.args})
		var msg, how string
		switch {
		case err != nil:
			msg, how = err.Error(), "JSON-RPC error"
		case res.IsError:
			msg, how = text(res), "isError"
		default:
			return fmt.Errorf("notes_search %v: admitted: %s", bad.args, text(res))
		}
		if !strings.Contains(msg, "Invalid arguments") || !strings.Contains(msg, bad.want) || strings.Contains(msg, `"notes"`) {
			return fmt.Errorf("notes_search %v: refusal %q does not name %q", bad.args, msg, bad.want)
		}
		fmt.Printf("[go-sdk hello %s] notes_search %v refused (%s): %s\n", version, bad.args, how, oneLine(msg))
	}
	return nil
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 160 {
		s = s[:160] + "..."
	}
	return s
}
