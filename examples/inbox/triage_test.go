package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/apps"
	"github.com/mcpdual/mcpdual/mcp/mcptest"
)

// uiClient is a 2026-07-28 client that declares MCP Apps.
func (s *testServer) uiClient(w who) *mcptest.Client {
	return mcptest.Dial(s.base+"/mcp", mcp.Version20260728, mcptest.WithHeader("Authorization", "Bearer "+w.token),
		mcptest.WithCapabilities(json.RawMessage(`{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}`)))
}

// TestTriage_AppOnlyTool: emails_mark_processed is listed to, and
// callable by, only a client that declares MCP Apps; every client sees
// emails_triage with its view.
func TestTriage_AppOnlyTool(t *testing.T) {
	s := start(t)
	clients := map[string]*mcptest.Client{"2026-07-28 declaring": s.uiClient(writer)}
	for _, v := range eras {
		clients[string(v)] = s.client(v, writer, "")
	}
	for name, c := range clients {
		declares := name == "2026-07-28 declaring"
		defs := toolDefs(t, c)
		if _, listed := defs["emails_mark_processed"]; listed != declares {
			t.Errorf("%s: emails_mark_processed listed = %v", name, listed)
		}
		triage, ok := defs["emails_triage"]
		if !ok {
			t.Fatalf("%s: emails_triage is not listed", name)
		}
		if meta, _ := triage["_meta"].(map[string]any); (meta["ui"] != nil) != (name != string(mcp.Version20250326)) {
			t.Errorf("%s: emails_triage _meta %v", name, triage["_meta"])
		}
		// The tool with a view is a plain tool: the REST API's JSON.
		_, list := callTool(t, c, "emails_triage", map[string]any{"status": "failed"})
		if list.IsError || len(list.Content) != 1 || !strings.Contains(list.Content[0].Text, `"id":"eml_globex_0003"`) {
			t.Errorf("%s: emails_triage %v", name, list)
		}
		if declares {
			continue
		}
		// Refused like a tool that does not exist, and nothing changes.
		r, _ := callTool(t, c, "emails_mark_processed", map[string]any{"id": "eml_globex_0002"})
		u, _ := callTool(t, c, "no_such_tool", map[string]any{"id": "eml_globex_0002"})
		same := func(r *mcptest.Response, name string) string {
			b, _ := json.Marshal(r.Error)
			return strings.ReplaceAll(string(b), name, "X") + string(r.Result)
		}
		if r.Error == nil || r.Status != u.Status || same(r, "emails_mark_processed") != same(u, "no_such_tool") {
			t.Errorf("%s: app-only call %d %s, unknown tool %d %s", name, r.Status, r.Raw, u.Status, u.Raw)
		}
	}
	if _, body := s.rest(t, "GET", "/api/v1/emails/eml_globex_0002", writer, ""); !strings.Contains(body, `"status":"received"`) {
		t.Fatalf("refused calls changed the email: %s", body)
	}

	// The declaring client marks it; the REST API shows it.
	c := s.uiClient(writer)
	_, res := callTool(t, c, "emails_mark_processed", map[string]any{"id": "eml_globex_0002"})
	if res.IsError || !strings.Contains(res.Content[0].Text, `"status":"processed"`) {
		t.Fatalf("mark processed: %v", res)
	}
	if _, body := s.rest(t, "GET", "/api/v1/emails/eml_globex_0002", writer, ""); !strings.Contains(body, `"status":"processed"`) {
		t.Errorf("REST after marking: %s", body)
	}
	// Another organization's email is not found, as on the REST API.
	if _, res := callTool(t, c, "emails_mark_processed", map[string]any{"id": "eml_acme_0002"}); !res.IsError || !strings.Contains(res.Content[0].Text, "not_found") {
		t.Errorf("another organization's email: %v", res)
	}
	// A read-only token neither sees the write tool nor may call it.
	rc := s.uiClient(reader)
	if _, listed := toolDefs(t, rc)["emails_mark_processed"]; listed {
		t.Errorf("a reader sees emails_mark_processed")
	}
	if r, _ := callTool(t, rc, "emails_mark_processed", map[string]any{"id": "eml_globex_0003"}); r.Status != 403 {
		t.Errorf("a reader marking: %d %s", r.Status, r.Raw)
	}
}

// TestTriage_View: the view is read with its MIME type and _meta.ui, and
// discovery announces the extension.
func TestTriage_View(t *testing.T) {
	s := start(t)
	c := s.uiClient(writer)
	r := call(t, c, "resources/read", map[string]any{"uri": triageURI})
	var read struct {
		Contents []struct {
			URI, MIMEType, Text string
			Meta                map[string]map[string]any `json:"_meta"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(r.Result, &read); err != nil || len(read.Contents) != 1 {
		t.Fatalf("%v %s", err, r.Raw)
	}
	got := read.Contents[0]
	if got.URI != triageURI || got.MIMEType != apps.MIMEType || !strings.HasPrefix(got.Text, "<!DOCTYPE html>") ||
		!strings.Contains(got.Text, `"ui/initialize"`) || got.Meta["ui"]["prefersBorder"] != true {
		t.Errorf("read: %s", r.Raw)
	}
	// Nothing external: no http(s) URL anywhere in the page.
	if strings.Contains(got.Text, "http://") || strings.Contains(got.Text, "https://") || strings.Contains(got.Text, "src=") {
		t.Errorf("the view names an external origin")
	}
	d, err := c.Call(context.Background(), "server/discover", nil)
	if err != nil || !strings.Contains(string(d.Result), `"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}`) {
		t.Errorf("discover: %v %s", err, d.Raw)
	}
}
