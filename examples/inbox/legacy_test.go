package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// legacyPost sends one MCP message as the development writer.
func legacyPost(t *testing.T, url string, hdr map[string]string, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer dev-writer")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// legacyStream reads the answer to a 2025 call, an event stream or one
// JSON object; it calls ask with the id of each elicitation/create on the
// stream, and returns the last other message.
func legacyStream(r io.Reader, ask func(id string)) (final string) {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		data, isEvent := strings.CutPrefix(line, "data: ")
		if !isEvent {
			if strings.HasPrefix(line, "{") {
				final = line // one JSON object
			}
			continue
		}
		var m struct {
			Method string          `json:"method"`
			ID     json.RawMessage `json:"id"`
		}
		json.Unmarshal([]byte(data), &m)
		if m.Method == "elicitation/create" {
			ask(string(m.ID))
			continue
		}
		final = data
	}
	return final
}

// TestLegacyInput_ConfirmDelete: started with -legacy-input, the inbox
// asks a 2025-06-18 client that declared elicitation to confirm
// emails_delete on the call's stream; accept deletes the email, decline
// leaves it. Without the flag the same client gets confirmation_required.
func TestLegacyInput_ConfirmDelete(t *testing.T) {
	for _, c := range []struct {
		name   string
		legacy bool
		answer string
		want   string
		gone   bool
	}{
		{"without the flag", false, "", "confirmation_required", false},
		{"declined", true, `{"action":"decline"}`, "confirmation_declined", false},
		{"accepted", true, `{"action":"accept","content":{"confirm":true}}`, `eml_globex_0002`, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := startWith(t, appConfig{queue: 1024, worker: true, perSecond: 50, burst: 100, legacyInput: c.legacy})
			url := s.base + "/mcp"
			init := legacyPost(t, url, nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`)
			init.Body.Close()
			session := init.Header.Get("Mcp-Session-Id")
			if (session != "") != c.legacy {
				t.Fatalf("session id %q with -legacy-input %v", session, c.legacy)
			}
			hdr := map[string]string{"MCP-Protocol-Version": "2025-06-18"}
			if session != "" {
				hdr["Mcp-Session-Id"] = session
			}
			resp := legacyPost(t, url, hdr, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"emails_delete","arguments":{"id":"eml_globex_0002"}}}`)
			defer resp.Body.Close()
			final := legacyStream(resp.Body, func(id string) {
				a := legacyPost(t, url, hdr, `{"jsonrpc":"2.0","id":`+id+`,"result":`+c.answer+`}`)
				a.Body.Close()
				if a.StatusCode != 202 {
					t.Errorf("answer: %d", a.StatusCode)
				}
			})
			if !strings.Contains(final, c.want) {
				t.Errorf("result %s, want %s", final, c.want)
			}
			status, _ := s.rest(t, "GET", "/api/v1/emails/eml_globex_0002", writer, "")
			if gone := status == 404; gone != c.gone {
				t.Errorf("email gone = %v (status %d), want %v", gone, status, c.gone)
			}
		})
	}
}
