package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/mcp/mcptest"
)

// TestInventory checks that the fixture lists every name the suite's
// scenarios call, in both eras: a missing one makes a scenario "not
// testable".
func TestInventory(t *testing.T) {
	ts := httptest.NewServer(newApp(fleet{}))
	defer ts.Close()
	want := map[string][]string{
		"tools": {"test_simple_text", "test_image_content", "test_audio_content", "test_embedded_resource", "test_multiple_content_types",
			"test_tool_with_logging", "test_tool_with_progress", "test_error_handling", "test_sampling", "test_elicitation",
			"test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums", "json_schema_2020_12_tool", "test_reconnection",
			"test_missing_capability", "test_streaming_elicitation", "test_logging_tool", "test_trigger_tool_change",
			"test_trigger_prompt_change", "test_x_mcp_header", "test_input_required_result_elicitation",
			"test_input_required_result_sampling", "test_input_required_result_list_roots", "test_input_required_result_request_state",
			"test_input_required_result_multiple_inputs", "test_input_required_result_multi_round",
			"test_input_required_result_tampered_state", "test_input_required_result_capabilities",
			"greet", "slow_compute", "failing_job", "protocol_error_job", "confirm_delete", "multi_input", "test_tool_with_task"},
		"resources":         {"test://static-text", "test://static-binary", "test://watched-resource"},
		"resourceTemplates": {"test://template/{id}/data"},
		"prompts": {"test_simple_prompt", "test_prompt_with_arguments", "test_prompt_with_embedded_resource", "test_prompt_with_image",
			"test_input_required_result_prompt"},
	}
	methods := map[string]string{"tools": "tools/list", "resources": "resources/list", "resourceTemplates": "resources/templates/list", "prompts": "prompts/list"}
	for _, era := range []string{"2026-07-28", "2025-06-18"} {
		for kind, names := range want {
			body := `{"jsonrpc":"2.0","id":1,"method":"` + methods[kind] + `"}`
			if era == "2026-07-28" {
				body = `{"jsonrpc":"2.0","id":1,"method":"` + methods[kind] + `","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
			}
			req, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("MCP-Protocol-Version", era)
			if era == "2026-07-28" {
				req.Header.Set("Mcp-Method", methods[kind])
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var out struct {
				Result map[string][]map[string]any `json:"result"`
			}
			json.NewDecoder(resp.Body).Decode(&out)
			resp.Body.Close()
			got := map[string]bool{}
			for _, item := range out.Result[kind] {
				for _, key := range []string{"name", "uri", "uriTemplate"} {
					if s, ok := item[key].(string); ok && (key != "name" || kind == "tools" || kind == "prompts") {
						got[s] = true
					}
				}
			}
			var missing []string
			for _, n := range names {
				if !got[n] {
					missing = append(missing, n)
				}
			}
			sort.Strings(missing)
			if len(missing) > 0 {
				t.Errorf("%s %s: missing %v", era, kind, missing)
			}
		}
	}
}

// TestBattery runs the public test kit against the fixture at the level
// that includes this library's stateless profile, with its one declared
// departure from the specification (2025-03-26 batches are refused). The
// fixture's 2025 handshake issues a sealed session id, so that it can ask
// 2025 clients mid-call (legacy.go); the profile allows it, being
// optional.
func TestBattery(t *testing.T) {
	mcptest.Run(t, newApp(fleet{}), mcptest.Strict())
}

// TestTriggers: the trigger tools change the registry and every listening
// client is told, once per trigger; a stream that asked for prompts only
// hears nothing of tools.
func TestTriggers(t *testing.T) {
	h, c := newAppChanges(fleet{})
	ts := httptest.NewServer(h)
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	post := func(ctx context.Context, method, name, params string) *http.Response {
		return post26(t, ctx, ts.URL, 5, method, name, params)
	}
	tools := dataLines(post(ctx, "subscriptions/listen", "", `"notifications":{"toolsListChanged":true}`))
	prompts := dataLines(post(ctx, "subscriptions/listen", "", `"notifications":{"promptsListChanged":true}`))
	for _, s := range []<-chan string{tools, prompts} {
		if ack := <-s; !strings.Contains(ack, "notifications/subscriptions/acknowledged") {
			t.Fatalf("ack: %s", ack)
		}
	}
	for i, want := range []bool{true, false} {
		resp := post(ctx, "tools/call", "test_trigger_tool_change", `"name":"test_trigger_tool_change","arguments":{}`)
		resp.Body.Close()
		select {
		case m := <-tools:
			if !strings.Contains(m, `"method":"notifications/tools/list_changed"`) || !strings.Contains(m, `"io.modelcontextprotocol/subscriptionId":5`) {
				t.Fatalf("trigger %d: %s", i, m)
			}
		case <-ctx.Done():
			t.Fatalf("trigger %d: no notification", i)
		}
		// The replica records the state once Update returns, and Update
		// tells the listeners before it does: the state may lag the
		// notification by a moment.
		for wait := time.Now().Add(2 * time.Second); c.tool.Load() != want && time.Now().Before(wait); {
			time.Sleep(5 * time.Millisecond)
		}
		if c.tool.Load() != want {
			t.Errorf("trigger %d: the dynamic tool is there: %v", i, c.tool.Load())
		}
	}
	select {
	case m := <-prompts:
		t.Errorf("the prompts stream heard %s", m)
	case <-time.After(200 * time.Millisecond):
	}
	resp := post(ctx, "tools/call", "test_trigger_prompt_change", `"name":"test_trigger_prompt_change","arguments":{}`)
	resp.Body.Close()
	if m := <-prompts; !strings.Contains(m, "notifications/prompts/list_changed") {
		t.Errorf("prompts: %s", m)
	}
	if c.updates.Load() != 3 {
		t.Errorf("%d updates, want 3", c.updates.Load())
	}
}

// TestNotifyResourceUpdated: test_notify_resource_updated tells a listen
// stream subscribed to the URI, and only of that URI.
func TestNotifyResourceUpdated(t *testing.T) {
	ts := httptest.NewServer(newApp(fleet{}))
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	post := func(id int, method, name, params string) *http.Response {
		return post26(t, ctx, ts.URL, id, method, name, params)
	}
	stream := post(7, "subscriptions/listen", "", `"notifications":{"resourceSubscriptions":["test://watched-resource"]}`)
	defer stream.Body.Close()
	messages := dataLines(stream)
	if ack := <-messages; !strings.Contains(ack, "notifications/subscriptions/acknowledged") || !strings.Contains(ack, `"resourceSubscriptions":["test://watched-resource"]`) {
		t.Fatalf("ack: %s", ack)
	}
	for i, uri := range []string{"test://static-text", "test://watched-resource"} {
		resp := post(10+i, "tools/call", "test_notify_resource_updated", `"name":"test_notify_resource_updated","arguments":{"uri":"`+uri+`"}`)
		var out struct {
			Result struct {
				IsError bool `json:"isError"`
			} `json:"result"`
		}
		err := json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if err != nil || out.Result.IsError {
			t.Fatalf("test_notify_resource_updated %s: %v %+v", uri, err, out)
		}
	}
	// Events reach the stream in the order they were published: a
	// notification of the URI not subscribed to would come first.
	select {
	case m := <-messages:
		if !strings.Contains(m, `"method":"notifications/resources/updated"`) || !strings.Contains(m, `"uri":"test://watched-resource"`) ||
			!strings.Contains(m, `"io.modelcontextprotocol/subscriptionId":7`) {
			t.Fatalf("got %s", m)
		}
	case <-ctx.Done():
		t.Fatal("no notifications/resources/updated")
	}
}

// post26 sends a 2026-07-28 request (params after the envelope's _meta)
// to the fixture at url with the routing headers a client sends.
func post26(t *testing.T, ctx context.Context, url string, id int, method, name, params string) *http.Response {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"` + method + `","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},` + params + `}}`
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// dataLines hands over the data of each event of resp's stream, until it
// ends.
func dataLines(resp *http.Response) <-chan string {
	out := make(chan string, 16)
	go func() {
		defer close(out)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				out <- d
			}
		}
	}()
	return out
}
