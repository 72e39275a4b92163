package kitpeers

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"time"
)

// floor is the least a 2025-06-18 server needs, written with net/http and
// encoding/json alone. Wherever the specification leaves the answer open
// it answers unlike mcpdual, so that the pinned result shows the kit
// accepting every allowed answer: GET opens an event stream and holds it,
// a session id is issued and never required, any Content-Type is read,
// Cache-Control is not set, a duplicate member is taken as encoding/json
// takes it, a batch is refused with plain text, the session id it issues
// is required on every later request, an unknown tool is a
// result with isError, an unsupported MCP-Protocol-Version is a plain 400.
// It serves no 2026-07-28 and, asked for 2025-03-26, offers 2025-06-18,
// so no batch support is owed.
type floor struct{}

const floorSession = "floor-session"

type floorMsg struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

var floorTools = [][]map[string]any{
	{{"name": "echo", "inputSchema": json.RawMessage(echoSchema), "annotations": map[string]any{"readOnlyHint": true}}},
	{{"name": "time", "inputSchema": json.RawMessage(`{"type":"object"}`)}},
}

func (floor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		select { // nothing to send; held until the client leaves
		case <-r.Context().Done():
		case <-time.After(time.Minute):
		}
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "GET, POST")
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	if v := r.Header.Get("MCP-Protocol-Version"); v != "" && v != "2025-06-18" && v != "2025-03-26" {
		http.Error(w, "unsupported MCP-Protocol-Version", http.StatusBadRequest)
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if t := bytes.TrimSpace(body); len(t) > 0 && t[0] == '[' {
		http.Error(w, "batches are not part of 2025-06-18", http.StatusBadRequest)
		return
	}
	var m floorMsg
	if err := json.Unmarshal(body, &m); err != nil {
		reply(w, http.StatusBadRequest, json.RawMessage("null"), nil, -32700, "parse error")
		return
	}
	// The session it issues is required, as a stateful server's is: the
	// kit, like any correct client, must send it back.
	if m.Method != "initialize" && r.Header.Get("Mcp-Session-Id") != floorSession {
		http.Error(w, "missing or unknown Mcp-Session-Id", http.StatusBadRequest)
		return
	}
	if m.ID == nil {
		w.WriteHeader(http.StatusAccepted) // a notification (or a response): nothing to answer
		return
	}
	var p struct {
		Name   string  `json:"name"`
		Cursor *string `json:"cursor"`
		Args   struct {
			Text string `json:"text"`
		} `json:"arguments"`
	}
	_ = json.Unmarshal(m.Params, &p)
	switch m.Method {
	case "initialize":
		w.Header().Set("Mcp-Session-Id", floorSession)
		reply(w, 200, m.ID, map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"tools": map[string]any{}},
			"serverInfo": map[string]string{"name": "floor", "version": "1"}}, 0, "")
	case "ping":
		reply(w, 200, m.ID, map[string]any{}, 0, "")
	case "tools/list":
		switch {
		case p.Cursor == nil:
			reply(w, 200, m.ID, map[string]any{"tools": floorTools[0], "nextCursor": "page-2"}, 0, "")
		case *p.Cursor == "page-2":
			reply(w, 200, m.ID, map[string]any{"tools": floorTools[1]}, 0, "")
		default:
			reply(w, 200, m.ID, nil, -32602, "unknown cursor")
		}
	case "tools/call":
		text, isError := p.Args.Text, false
		switch p.Name {
		case "echo":
		case "time":
			text = time.Now().UTC().Format(time.RFC3339)
		default:
			text, isError = "no tool named "+p.Name, true
		}
		reply(w, 200, m.ID, map[string]any{"content": []map[string]string{{"type": "text", "text": text}}, "isError": isError}, 0, "")
	default:
		reply(w, 200, m.ID, nil, -32601, "method not found")
	}
}

// reply writes one response; the id goes back as the bytes it came in.
func reply(w http.ResponseWriter, status int, id json.RawMessage, result any, code int, message string) {
	msg := map[string]any{"jsonrpc": "2.0", "id": id}
	if code != 0 {
		msg["error"] = map[string]any{"code": code, "message": message}
	} else {
		msg["result"] = result
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(msg)
}
