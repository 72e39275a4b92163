package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// The protocol revisions a request can speak.
const (
	Proto2025 = "2025-06-18" // MCP-Protocol-Version header only; stateless, so no initialize
	Proto2026 = "2026-07-28" // _meta envelope plus the Mcp-Method and Mcp-Name headers
)

// Protos lists the revisions in report order.
func Protos() []string { return []string{Proto2025, Proto2026} }

// Headers returns the headers of a stateless tools/call of echo. No
// Mcp-Session-Id is ever sent.
func Headers(proto string) http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	// Both media types: go-sdk refuses a POST whose Accept lacks either.
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("MCP-Protocol-Version", proto)
	if proto == Proto2026 {
		h.Set("Mcp-Method", "tools/call")
		h.Set("Mcp-Name", "echo")
	}
	return h
}

// AppendToolsCall appends the body of a tools/call of echo. text must need
// no JSON escaping (the harness sends plain ASCII), so the body can be
// built without encoding/json and cost the load generator little.
func AppendToolsCall(dst []byte, proto string, id int64, text string) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = strconv.AppendInt(dst, id, 10)
	dst = append(dst, `,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`...)
	dst = append(dst, text...)
	dst = append(dst, `"}`...)
	if proto == Proto2026 {
		dst = append(dst, `,"_meta":{"io.modelcontextprotocol/protocolVersion":"`...)
		dst = append(dst, proto...)
		dst = append(dst, `","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}`...)
	}
	return append(dst, `}}`...)
}

// QuickCheck is the cheap check of every response under load: HTTP 200, a
// JSON body (not an event stream), no session id, a result echoing text.
func QuickCheck(status int, h http.Header, body []byte, text string) error {
	if status != http.StatusOK {
		return fmt.Errorf("status %d: %.200s", status, body)
	}
	if ct := h.Get("Content-Type"); len(ct) < 16 || ct[:16] != "application/json" {
		return fmt.Errorf("content-type %q, want application/json: %.200s", ct, body)
	}
	if sid := h.Get("Mcp-Session-Id"); sid != "" {
		return fmt.Errorf("stateless endpoint minted Mcp-Session-Id %q", sid)
	}
	if !bytes.Contains(body, []byte(`"result"`)) || !bytes.Contains(body, []byte(`"text":"`+text+`"`)) {
		return fmt.Errorf("unexpected body: %.300s", body)
	}
	return nil
}

// FullCheck parses a response and checks that it answers id with exactly
// one text block carrying text, not an error.
func FullCheck(body []byte, id int64, text string) error {
	var resp struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  *struct {
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
			IsError bool `json:"isError"`
		} `json:"result"`
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		return fmt.Errorf("not JSON: %v: %.300s", err, body)
	}
	if resp.JSONRPC != "2.0" || resp.Error != nil || resp.Result == nil {
		return fmt.Errorf("not a JSON-RPC result: %.300s", body)
	}
	if string(resp.ID) != strconv.FormatInt(id, 10) {
		return fmt.Errorf("id %s, want %d", resp.ID, id)
	}
	c := resp.Result.Content
	if resp.Result.IsError || len(c) != 1 || c[0].Type != "text" || c[0].Text != text {
		return fmt.Errorf("want one text block %q: %.300s", text, body)
	}
	return nil
}
