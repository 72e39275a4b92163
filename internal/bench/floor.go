package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// floor answers a tools/call of echo with net/http and encoding/json only.
// It is not an MCP server (no initialize, no tools/list, no other tool),
// only the work every stateless endpoint must do per call, so the other
// variants are read against it:
//
//   - POST only, a JSON media type, and an Origin, when sent, that names a
//     loopback host (what defeats DNS rebinding; mcpdual's default);
//   - the body read under the 1 MiB limit (413 beyond it);
//   - the JSON-RPC envelope (jsonrpc "2.0", an id, a method);
//   - an MCP-Protocol-Version header, when sent, that names a revision the
//     endpoint serves (400 otherwise, as 2025-06-18 requires);
//   - the 2026-07-28 cross-check of MCP-Protocol-Version, Mcp-Method and
//     Mcp-Name against the body (400 with -32020 on a mismatch);
//   - the arguments' type and required field, by the decode itself (no
//     schema validator, no strict scan for duplicate keys);
//   - the answer with Cache-Control: no-store and MCP-Protocol-Version,
//     and the same result bytes as mcpdual.
//
// It is written to be lean, since it is the bar: per-request state (body
// buffer, decoded request, encoder) comes from a pool, header values are
// shared constants, and Content-Length is left to net/http, which sets it
// for a body this small. What remains are encoding/json's own allocations.
type floor struct{}

// floorLimit is the body limit, as mcpdual's default.
const floorLimit = 1 << 20

type floorRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"` // reused: Unmarshal appends into its capacity
	Method  string          `json:"method"`
	Params  struct {
		Name      string `json:"name"`
		Arguments struct {
			Text *string `json:"text"` // nil: absent
		} `json:"arguments"`
		Meta struct {
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

// floorState is one request's working memory, pooled.
type floorState struct {
	body    []byte
	req     floorRequest
	resp    floorResponse
	result  floorResult
	content [1]floorText
	out     bytes.Buffer
	enc     *json.Encoder // writes to out
}

var floorPool = sync.Pool{New: func() any {
	st := &floorState{body: make([]byte, 0, 4<<10)}
	st.enc = json.NewEncoder(&st.out)
	return st
}}

var (
	nullID    = json.RawMessage("null")
	floorInfo = func() *floorServerInfo {
		i := &floorServerInfo{}
		i.ServerInfo.Name, i.ServerInfo.Version = "bench-floor", "1"
		return i
	}()
	hdrJSON    = []string{"application/json"}
	hdrNoStore = []string{"no-store"}
	hdrVersion = map[string][]string{Proto2025: {Proto2025}, Proto2026: {Proto2026}}
	// floorVersions are the revisions an MCP-Protocol-Version header may
	// name: those mcpdual's endpoint serves.
	floorVersions = map[string]bool{"2025-03-26": true, Proto2025: true, "2025-11-25": true, Proto2026: true}
	errFloorLimit = errors.New("body over the limit")
)

func (floor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if o, ok := r.Header["Origin"]; ok && (len(o) != 1 || !loopbackOrigin(o[0])) {
		http.Error(w, "origin not allowed", http.StatusForbidden)
		return
	}
	if !jsonMediaType(header(r.Header, "Content-Type")) {
		http.Error(w, "Content-Type must be application/json", http.StatusUnsupportedMediaType)
		return
	}
	st := floorPool.Get().(*floorState)
	defer floorPool.Put(st)
	var err error
	st.body, err = readLimited(st.body[:0], r.Body, r.ContentLength)
	if err != nil {
		if err == errFloorLimit {
			http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
			return
		}
		st.writeError(w, http.StatusBadRequest, "", nullID, -32700, "Parse error")
		return
	}
	req := &st.req
	id := req.ID[:0]
	*req = floorRequest{ID: id}
	var argsBad bool
	if err := json.Unmarshal(st.body, req); err != nil {
		// A wrong type under params.arguments is the tool's argument
		// error (Unmarshal still fills the rest); any other failure is
		// the request's.
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) || !strings.HasPrefix(te.Field, "params.arguments") {
			st.writeError(w, http.StatusBadRequest, "", nullID, -32700, "Parse error")
			return
		}
		argsBad = true
	}
	if req.JSONRPC != "2.0" || len(req.ID) == 0 || req.Method == "" {
		st.writeError(w, http.StatusBadRequest, "", nullID, -32600, "Invalid request")
		return
	}
	// 2026-07-28 names its revision in _meta and repeats the method and
	// target in headers, which must agree with the body.
	version := header(r.Header, "Mcp-Protocol-Version")
	if version != "" && !floorVersions[version] {
		st.writeError(w, http.StatusBadRequest, "", req.ID, -32600, "Unsupported protocol version")
		return
	}
	modern := req.Params.Meta.ProtocolVersion == Proto2026
	if modern || version == Proto2026 {
		if !modern || version != Proto2026 || header(r.Header, "Mcp-Method") != req.Method ||
			(req.Method == "tools/call" && header(r.Header, "Mcp-Name") != req.Params.Name) {
			st.writeError(w, http.StatusBadRequest, version, req.ID, -32020, "Header mismatch")
			return
		}
	}
	if req.Method != "tools/call" {
		st.writeError(w, http.StatusOK, version, req.ID, -32601, "Method not found")
		return
	}
	if req.Params.Name != "echo" {
		st.writeError(w, http.StatusOK, version, req.ID, -32602, "Unknown tool")
		return
	}
	// EchoSchema, checked by the decode: a wrong type is a type error, a
	// missing "text" leaves nil.
	res := &st.result
	*res = floorResult{Content: st.content[:]}
	if text := req.Params.Arguments.Text; argsBad || text == nil {
		st.content[0], res.IsError = floorText{"text", "Invalid arguments for tool echo"}, true
	} else {
		st.content[0] = floorText{"text", *text}
	}
	if modern {
		res.ResultType, res.Meta = "complete", floorInfo
	}
	st.resp = floorResponse{JSONRPC: "2.0", ID: req.ID, Result: res}
	st.write(w, http.StatusOK, version)
}

func (st *floorState) writeError(w http.ResponseWriter, status int, version string, id json.RawMessage, code int, msg string) {
	st.resp = floorResponse{JSONRPC: "2.0", ID: id, Error: &floorError{code, msg}}
	st.write(w, status, version)
}

// write encodes st.resp and sends it. The header values are shared
// constants: nothing downstream of the floor edits them.
func (st *floorState) write(w http.ResponseWriter, status int, version string) {
	st.out.Reset()
	if err := st.enc.Encode(&st.resp); err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h["Content-Type"] = hdrJSON
	h["Cache-Control"] = hdrNoStore
	if v, ok := hdrVersion[version]; ok {
		h["Mcp-Protocol-Version"] = v
	}
	w.WriteHeader(status)
	w.Write(st.out.Bytes())
}

// readLimited appends r to dst, failing with errFloorLimit past floorLimit
// bytes (at once when the declared length says so).
func readLimited(dst []byte, r io.Reader, declared int64) ([]byte, error) {
	if declared > floorLimit {
		return dst, errFloorLimit
	}
	for {
		if len(dst) == cap(dst) {
			dst = append(dst, 0)[:len(dst)]
		}
		n, err := r.Read(dst[len(dst):cap(dst)])
		dst = dst[:len(dst)+n]
		if len(dst) > floorLimit {
			return dst, errFloorLimit
		}
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return dst, err
		}
	}
}

// header is h.Get for a key already in canonical form: Get canonicalizes
// its argument, which allocates for a key such as "MCP-Protocol-Version".
func header(h http.Header, canonicalKey string) string {
	if v := h[canonicalKey]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// jsonMediaType reports whether ct is application/json, parameters and
// case aside, without mime.ParseMediaType's allocations.
func jsonMediaType(ct string) bool {
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	return strings.EqualFold(strings.TrimSpace(ct), "application/json")
}

// loopbackOrigin reports whether o is an http(s) origin on a loopback
// host. Checked only when a browser sends Origin, so url.Parse's cost
// falls on that path alone.
func loopbackOrigin(o string) bool {
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Path != "" || u.User != nil {
		return false
	}
	h := u.Hostname()
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
