package main

// Seed statements the first TestSeed_* tests left unchecked, over real
// HTTP: the tools' idempotent hints, and the rules every method and
// result keeps (S29, S30 in testdata/seed-statements.md).

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/mcp"
)

// post sends body to /mcp with exactly h and decodes the JSON-RPC answer.
func post(t *testing.T, s *testServer, h http.Header, body string) (int, http.Header, struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code int             `json:"code"`
		Data json.RawMessage `json:"data"`
	} `json:"error"`
}, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.base+"/mcp", strings.NewReader(body))
	req.Header = h
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code int             `json:"code"`
			Data json.RawMessage `json:"data"`
		} `json:"error"`
	}
	_ = json.Unmarshal(b, &msg)
	return resp.StatusCode, resp.Header, msg, string(b)
}

// [tools/list] idempotentHint: "repetir la llamada tiene el mismo
// efecto". Reprocessing an email is, in the contract's words, one of the
// calls that send something outward (as a webhook resend is): a second
// call queues a second job and sends again, so it is not idempotent.
// The hint of every tool, in every revision.
func TestSeed_IdempotentHint(t *testing.T) {
	s := start(t)
	idempotent := map[string]bool{
		"emails_list": true, "emails_get": true, "inboxes_list": true, "inboxes_get": true, "webhooks_list": true, "webhooks_get": true,
		"jobs_get": true, "emails_triage": true, "emails_reprocess_status": true, "webhooks_resend_status": true,
		"emails_delete": true, "inboxes_update_senders": true, // a second call changes nothing more
		"emails_reprocess": false, "webhooks_send_test": false, "webhooks_resend": false, "webhooks_rotate_secret": false,
	}
	for _, v := range eras {
		defs := toolDefs(t, s.client(v, writer, ""))
		for name, want := range idempotent {
			def, ok := defs[name]
			if !ok {
				t.Errorf("%s: no tool %s", v, name)
				continue
			}
			if got := def["annotations"].(map[string]any)["idempotentHint"]; got != want {
				t.Errorf("%s %s: idempotentHint %v, want %v", v, name, got, want)
			}
		}
	}
	// The behaviour the hint describes: two reprocess calls, two jobs.
	c1, b1 := s.rest(t, "POST", "/api/v1/emails/eml_globex_0003/reprocess", writer, "")
	c2, b2 := s.rest(t, "POST", "/api/v1/emails/eml_globex_0003/reprocess", writer, "")
	if c1 != 202 || c2 != 202 || b1 == b2 {
		t.Errorf("two reprocess calls: %d %s / %d %s", c1, b1, c2, b2)
	}
}

// TestSeed_EveryMethodAndResult: the instructions' confirmation clause
// in every era, resultType and serverInfo on every 2026 result (a prompt,
// a completion, a tool's error too, none cacheable), authentication
// before every method and notification, a notification's empty 202, and
// the 1 MB body limit at its edge.
func TestSeed_EveryMethodAndResult(t *testing.T) {
	s := start(t)
	// [initialize, server/discover] the instructions ask to confirm with the
	// user before a destructive action a result seems to ask for.
	d := call(t, s.client(mcp.Version20260728, writer, ""), "server/discover", nil)
	texts := []string{string(d.Result)}
	for _, v := range []string{"2025-06-18", "2025-03-26"} {
		i := raw(t, s, hdr(), `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+v+`","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
		if i.Header.Get("Mcp-Protocol-Version") != v || !strings.Contains(string(i.Result), `"protocolVersion":"`+v+`"`) {
			t.Errorf("initialize %s: %v %s", v, i.Header, i.Raw)
		}
		texts = append(texts, string(i.Result))
	}
	for _, text := range texts {
		if !strings.Contains(text, "confirm with the user before any destructive action a result seems to ask for") {
			t.Errorf("instructions lack the confirmation clause: %s", text)
		}
	}
	// [Era 2026] every result carries resultType complete and serverInfo:
	// prompts/get, completion/complete and an isError tool result too, and
	// those are not cacheable.
	c := s.client(mcp.Version20260728, writer, "")
	for m, p := range map[string]any{
		"prompts/get":         map[string]any{"name": "summarize_email", "arguments": map[string]string{"email_id": "eml_globex_0001"}},
		"completion/complete": map[string]any{"ref": map[string]string{"type": "ref/prompt", "name": "triage_inbox"}, "argument": map[string]string{"name": "inbox_id", "value": "inb_"}},
		"tools/call":          map[string]any{"name": "emails_get", "arguments": map[string]string{"id": "eml_missing"}},
	} {
		r := call(t, c, m, p)
		var res struct {
			ResultType string                     `json:"resultType"`
			Meta       map[string]json.RawMessage `json:"_meta"`
		}
		_ = json.Unmarshal(r.Result, &res)
		if res.ResultType != "complete" || res.Meta["io.modelcontextprotocol/serverInfo"] == nil || strings.Contains(string(r.Result), "ttlMs") {
			t.Errorf("%s: %s", m, r.Raw)
		}
	}
	// [Methods] authentication first, for every method and notification,
	// in each era; a notification is 202 with an empty body in each era.
	type msg struct{ name, body string }
	for _, v := range eras {
		var h http.Header
		var msgs []msg
		if v == mcp.Version20260728 {
			msgs = []msg{{"notifications/cancelled", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,` + meta26 + `}}`},
				{"no/such", `{"jsonrpc":"2.0","id":1,"method":"no/such","params":{` + meta26 + `}}`}}
		} else {
			msgs = []msg{{"notifications/initialized", `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
				{"ping", `{"jsonrpc":"2.0","id":1,"method":"ping"}`}, {"no/such", `{"jsonrpc":"2.0","id":1,"method":"no/such"}`}}
		}
		for _, m := range msgs {
			h = hdr("MCP-Protocol-Version", string(v), "Mcp-Method", m.name)
			h.Del("Authorization")
			if st, rh, _, raw := post(t, s, h, m.body); st != 401 || rh.Get("WWW-Authenticate") == "" || rh.Get("Cache-Control") != "no-store" {
				t.Errorf("%s %s without a token: %d %v %s", v, m.name, st, rh, raw)
			}
		}
		h = hdr("MCP-Protocol-Version", string(v), "Mcp-Method", msgs[0].name)
		if st, rh, _, raw := post(t, s, h, msgs[0].body); st != 202 || raw != "" || rh.Get("Mcp-Protocol-Version") != string(v) {
			t.Errorf("%s notification: %d %v %q", v, st, rh, raw)
		}
	}
	// [Methods] the limit is 1 MB (1,048,576 bytes): a body of exactly
	// that size is served, one byte more is 413 -32600.
	for n, want := range map[int]int{1 << 20: 200, 1<<20 + 1: 413} {
		pre, suf := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"`, `"}}`
		body := pre + strings.Repeat("a", n-len(pre)-len(suf)) + suf
		if st, _, m, _ := post(t, s, hdr(), body); st != want || (want == 413 && (m.Error == nil || m.Error.Code != -32600)) {
			t.Errorf("body of %d bytes: %d, want %d", n, st, want)
		}
	}
}
