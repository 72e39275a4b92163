package bench

import (
	"encoding/json"
	"mime"
	"net/http"
)

// floor answers a tools/call of echo with net/http and encoding/json only.
// It is not an MCP server (no initialize, no tools/list, no other tool, no
// Host or Origin check), only the work every stateless endpoint must do
// per call: method, media type, a body limit, the JSON-RPC envelope, the
// 2026-07-28 header cross-check, the arguments' type and required field,
// and the same result bytes as mcpdual. Its cost is what Go itself charges
// for a call, so the other variants are read against it.
type floor struct{}

type floorRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Meta      struct {
			ProtocolVersion string `json:"io.modelcontextprotocol/protocolVersion"`
		} `json:"_meta"`
	} `json:"params"`
}

type floorResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  *floorResult    `json:"result,omitempty"`
	Error   *floorError     `json:"error,omitempty"`
}

// floorResult has mcpdual's field order, so both send the same bytes.
type floorResult struct {
	ResultType string           `json:"resultType,omitempty"`
	Meta       *floorServerInfo `json:"_meta,omitempty"`
	Content    []floorText      `json:"content"`
	IsError    bool             `json:"isError,omitempty"`
}

type floorServerInfo struct {
	ServerInfo struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"io.modelcontextprotocol/serverInfo"`
}

type floorText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type floorError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

var nullID = json.RawMessage("null")

func (floor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		http.Error(w, "Content-Type must be application/json", http.StatusUnsupportedMediaType)
		return
	}
	var req floorRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&req); err != nil {
		writeFloor(w, http.StatusBadRequest, nullID, nil, &floorError{-32700, "Parse error"})
		return
	}
	if req.JSONRPC != "2.0" || len(req.ID) == 0 {
		writeFloor(w, http.StatusBadRequest, nullID, nil, &floorError{-32600, "Invalid request"})
		return
	}
	// 2026-07-28 names its revision in _meta and repeats the method and
	// target in headers, which must agree with the body.
	modern := req.Params.Meta.ProtocolVersion == Proto2026
	if modern || r.Header.Get("MCP-Protocol-Version") == Proto2026 {
		if !modern || r.Header.Get("MCP-Protocol-Version") != Proto2026 ||
			r.Header.Get("Mcp-Method") != req.Method ||
			(req.Method == "tools/call" && r.Header.Get("Mcp-Name") != req.Params.Name) {
			writeFloor(w, http.StatusBadRequest, req.ID, nil, &floorError{-32020, "Header mismatch"})
			return
		}
	}
	if req.Method != "tools/call" {
		writeFloor(w, http.StatusOK, req.ID, nil, &floorError{-32601, "Method not found"})
		return
	}
	if req.Params.Name != "echo" {
		writeFloor(w, http.StatusOK, req.ID, nil, &floorError{-32602, "Unknown tool"})
		return
	}
	// EchoSchema, checked by hand: an object whose required "text" is a
	// string. A wrong type fails the decode; a missing field leaves nil.
	var args struct {
		Text *string `json:"text"`
	}
	res := &floorResult{}
	if err := json.Unmarshal(req.Params.Arguments, &args); err != nil || args.Text == nil {
		res.Content, res.IsError = []floorText{{"text", "Invalid arguments for tool echo"}}, true
	} else {
		res.Content = []floorText{{"text", *args.Text}}
	}
	if modern {
		res.ResultType = "complete"
		res.Meta = &floorServerInfo{}
		res.Meta.ServerInfo.Name, res.Meta.ServerInfo.Version = "bench-floor", "1"
	}
	writeFloor(w, http.StatusOK, req.ID, res, nil)
}

func writeFloor(w http.ResponseWriter, status int, id json.RawMessage, res *floorResult, e *floorError) {
	data, err := json.Marshal(floorResponse{JSONRPC: "2.0", ID: id, Result: res, Error: e})
	if err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(data)
}
