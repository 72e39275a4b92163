package main

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

// TestTasks_StatusTool2025: a 2025-06-18 client (no tasks extension in
// its revision) confirms emails_reprocess on the call's stream
// (-legacy-input), gets a job reference naming emails_reprocess_status,
// and follows the job to completion through that tool.
func TestTasks_StatusTool2025(t *testing.T) {
	s := startWith(t, appConfig{queue: 1024, worker: true, perSecond: 50, burst: 100, legacyInput: true})
	url := s.base + "/mcp"
	init := legacyPost(t, url, nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`)
	init.Body.Close()
	hdr := map[string]string{"MCP-Protocol-Version": "2025-06-18", "Mcp-Session-Id": init.Header.Get("Mcp-Session-Id")}
	resp := legacyPost(t, url, hdr, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"emails_reprocess","arguments":{"id":"eml_globex_0003"}}}`)
	var final struct {
		Result toolResult `json:"result"`
	}
	json.Unmarshal([]byte(legacyStream(resp.Body, func(id string) {
		a := legacyPost(t, url, hdr, `{"jsonrpc":"2.0","id":`+id+`,"result":{"action":"accept","content":{"confirm":true}}}`)
		a.Body.Close()
	})), &final)
	resp.Body.Close()
	ref, _ := final.Result.StructuredContent["taskId"].(string)
	if final.Result.IsError || ref == "" || final.Result.StructuredContent["statusTool"] != "emails_reprocess_status" {
		t.Fatalf("the start: %+v", final.Result)
	}
	for i := 0; ; i++ {
		if i == 100 {
			t.Fatal("not completed after 2 s")
		}
		r := legacyPost(t, url, hdr, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"emails_reprocess_status","arguments":{"taskId":`+
			string(must(json.Marshal(ref)))+`}}}`)
		body, _ := io.ReadAll(r.Body)
		r.Body.Close()
		var got struct {
			Result toolResult `json:"result"`
		}
		if json.Unmarshal(body, &got) != nil || got.Result.IsError || len(got.Result.Content) != 1 {
			t.Fatalf("status tool: %s", body)
		}
		if got.Result.StructuredContent["status"] == "working" {
			time.Sleep(20 * time.Millisecond)
			continue
		}
		if !strings.Contains(got.Result.Content[0].Text, `"status":"succeeded"`) || !strings.Contains(got.Result.Content[0].Text, `"kind":"email.reprocess"`) {
			t.Errorf("completed: %s", body)
		}
		return
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
