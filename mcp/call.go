package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/schema"
	"github.com/mcpdual/mcpdual/mcp/auth"
)

// ToolResultMediaType is the media type a handler written for MCP uses to
// answer with a complete CallToolResult ({"content": [...], ...}) instead of
// a body the library turns into one.
const ToolResultMediaType = "application/vnd.mcp.tool-result+json"

// CallToolResult is the result of tools/call.
type CallToolResult struct {
	Stamp
	Content           json.RawMessage `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
}

// Call describes the MCP request a handler is serving: a tools/call, a
// resources/read or a prompts/get. Handlers get it from their request's
// context with CallFromContext.
type Call struct {
	method     string
	tool       string // the target: tool or prompt name, or resource URI
	version    Version
	caps       json.RawMessage
	capBits    Capability
	args       json.RawMessage
	perRequest bool

	round   *round                     // the opened requestState of a retry
	answers map[string]json.RawMessage // validated answers to the keys it asked
	idemKey string

	pending      bool
	pendingState []byte
	pendingReqs  []InputRequest

	notify *notifier // nil unless the request may stream
}

type callKey struct{}

// CallFromContext returns the call a tool handler is serving, or nil when
// ctx does not come from a tools/call.
func CallFromContext(ctx context.Context) *Call {
	c, _ := ctx.Value(callKey{}).(*Call)
	return c
}

// Tool returns the name of the tool being called ("" when the request is
// not a tools/call).
func (c *Call) Tool() string {
	if c.method != "tools/call" {
		return ""
	}
	return c.tool
}

// Method returns the MCP method: tools/call, resources/read or prompts/get.
func (c *Call) Method() string { return c.method }

// Target returns the tool or prompt name, or the resource URI.
func (c *Call) Target() string { return c.tool }

// ProtocolVersion returns the revision the client speaks.
func (c *Call) ProtocolVersion() Version { return c.version }

// ClientCapabilities returns the capabilities the client declared with this
// request (2026-07-28), or nil: a stateless server cannot know what a 2025
// client declared at initialize.
func (c *Call) ClientCapabilities() json.RawMessage { return c.caps }

// Arguments returns the call's arguments as sent (a JSON object): a tool's
// arguments, a prompt's arguments, or a resource template's variables.
func (c *Call) Arguments() json.RawMessage { return c.args }

// CanRequestInput reports whether the client can be asked for input at
// all: only 2026-07-28 requests can carry input requests. A 2025 client
// that reaches RequireInput gets an isError result saying so.
func (c *Call) CanRequestInput() bool { return c.perRequest }

// Supports reports whether the client declared capability with this
// request. It is always false on 2025 eras, where a stateless server
// cannot know what the client declared at initialize.
func (c *Call) Supports(capability Capability) bool {
	return c.perRequest && c.capBits&capability == capability
}

// State returns the payload the tool sealed with RequireInput in the
// previous round, verified and opened; nil on a first round.
func (c *Call) State() []byte {
	if c.round == nil {
		return nil
	}
	return c.round.state.Payload
}

// InputResponse returns the client's answer to the input request key of
// the previous round, already checked for its shape. When the retry
// carries the state of that round, answers to keys it did not ask are
// dropped. A request may also carry inputResponses without any state
// (State is then nil): they are passed on as sent, each an object, and the
// handler treats them like any other client input.
func (c *Call) InputResponse(key string) (json.RawMessage, bool) {
	v, ok := c.answers[key]
	return v, ok
}

// Elicitation returns the answer to the elicitation key of the previous
// round.
func (c *Call) Elicitation(key string) (ElicitResult, bool) {
	v, ok := c.answers[key]
	if !ok || (c.round != nil && c.round.state.Keys[key] != "elicitation") || (c.round == nil && !validResponse("elicitation", v)) {
		return ElicitResult{}, false
	}
	a, _ := jsonrpc.Lookup(v, "action")
	action, _ := jsonrpc.String(a)
	res := ElicitResult{Action: action}
	if content, ok := jsonrpc.Lookup(v, "content"); ok && isObject(content) {
		res.Content = content
	}
	return res, true
}

// IdempotencyKey returns the key a confirmed destructive call carries
// (also sent to the route as the Idempotency-Key header), "" otherwise.
// It is the confirmation's nonce: the same for any replay of the same
// confirmation, so a route that stores it executes at most once.
func (c *Call) IdempotencyKey() string { return c.idemKey }

// RequireInput answers the call with "input required": the client is to
// answer requests and retry, and state (small, at most a few hundred
// bytes; keep large data in your own storage) comes back to the handler,
// sealed, verified and opened, through State. Whatever the handler writes
// after calling it is discarded. The SDK refuses the answer with -32021
// when a request needs a capability the client did not declare; check
// Supports first to degrade instead. On 2025 eras the call ends with an
// isError result explaining that MCP 2026-07-28 is required.
func (c *Call) RequireInput(state []byte, requests ...InputRequest) {
	c.pending = true
	c.pendingState = append([]byte(nil), state...)
	c.pendingReqs = append([]InputRequest(nil), requests...)
}

// maxViolations bounds how many schema violations a result lists.
const maxViolations = 10

// CallTool answers tools/call for req. Protocol problems (no name, unknown
// tool, arguments not an object) are CodeInvalidParams errors; everything
// the model can act on, including arguments that fail the input schema and
// the route's 4xx answers, is an isError result.
//
// The result is a *CallToolResult, or, on a per-request era, an
// *InputRequiredResult when the tool needs input (its handler called
// RequireInput, or it is destructive and not yet confirmed).
func (s *Server) CallTool(req *Request) (any, error) {
	raw, ok := req.Param("name")
	name, isStr := String(raw)
	if !ok || !isStr {
		return nil, NewError(CodeInvalidParams, "Invalid params: name must be a string")
	}
	if _, err := req.Workspace(); err != nil {
		return nil, err
	}
	t, ok := s.byName[name]
	if !ok || !req.visible(auth.KindTool, name) {
		return nil, unknownTool(name)
	}
	if err := req.scopeError(t.opts.scopes); err != nil {
		return nil, err
	}
	args, ok := req.Param("arguments")
	switch {
	case !ok || string(args) == "null":
		args = json.RawMessage(`{}`)
	case args[0] != '{':
		return nil, NewError(CodeInvalidParams, "Invalid params: arguments must be an object")
	default:
		// The body buffer is reused after the response; the handler may
		// keep what it was given.
		args = bytes.Clone(args)
	}
	features := FeaturesOf(req.Version())
	decoded, err := schema.Decode(args)
	if err != nil {
		return nil, NewError(CodeInvalidParams, "Invalid params: arguments are not valid JSON")
	}
	if v := t.input.Validate(decoded, maxViolations); v != nil {
		return textResult("Invalid arguments for tool "+name+":\n"+strings.Join(v, "\n"), true), nil
	}
	call := req.newCall(name, args)
	if t.confirms() {
		res, err := s.confirm(req, t, call)
		if res != nil || err != nil {
			return res, err
		}
	} else if err := req.attachRound(call); err != nil {
		return nil, err
	}
	hr, msg := t.newRequest(req, call)
	if msg != "" {
		return textResult(msg, true), nil
	}
	rec := newRecorder(s.maxResponse)
	if p := rec.run(t.handler, hr); p != nil {
		req.handler.cfg.logger.Error("mcp: tool handler panicked", "tool", name, "panic", p)
		return textResult("The tool failed with an internal error.", true), nil
	}
	if call.pending {
		return req.pendingTool(t, call)
	}
	return t.result(req, rec, features)
}

// attachRound gives call the opened state of a retry and the answers to
// the keys that state asked, checked for their shape.
func (req *Request) attachRound(call *Call) error {
	rd := req.round
	if rd == nil {
		if req.loose == nil {
			return nil
		}
		call.answers = map[string]json.RawMessage{}
		it := jsonrpc.NewIter(req.loose)
		for {
			k, v, ok := it.Next()
			if !ok {
				return nil
			}
			if !isObject(v) {
				return invalidInputResponses(string(k))
			}
			call.answers[string(k)] = v
		}
	}
	if rd.state.Purpose != purposeTool {
		req.handler.cfg.logger.Warn("mcp: requestState refused", "reason", "wrong_purpose", "method", req.Method())
		return InvalidRequestState()
	}
	call.round = rd
	call.answers = map[string]json.RawMessage{}
	for key := range rd.state.Keys {
		v, ok, err := rd.answer(key)
		if err != nil {
			return err
		}
		if ok {
			call.answers[key] = v
		}
	}
	return nil
}

// errHandlerBug marks an input request a handler got wrong (logged).
var errHandlerBug = errors.New("mcp: invalid input request")

// pendingInput turns a handler's RequireInput into the interim result, or
// the -32021 of an undeclared capability, or errHandlerBug.
func (req *Request) pendingInput(call *Call) (*InputRequiredResult, error) {
	res, err := req.inputRequired(purposeTool, call.pendingState, call.pendingReqs, nil)
	var e *Error
	switch {
	case err == nil:
		return res, nil
	case errors.As(err, &e):
		return nil, e
	}
	req.handler.cfg.logger.Error("mcp: invalid input request", "method", call.method, "target", call.tool, "err", err)
	return nil, errHandlerBug
}

// pendingTool answers a tool handler's RequireInput: isError results where
// the client cannot be asked or the handler erred.
func (req *Request) pendingTool(t *tool, call *Call) (any, error) {
	if !call.perRequest {
		return textResult("The tool "+t.def.Name+" needs input from the user or the client (elicitation, sampling or roots), "+
			"which a server can only ask for over MCP 2026-07-28. This client speaks "+string(req.Version())+"; the call did not complete.", true), nil
	}
	if t.confirms() {
		req.handler.cfg.logger.Error("mcp: a confirmed destructive tool asked for more input; turn confirmation off (WithoutConfirmation) to run your own rounds", "tool", t.def.Name)
		return textResult("The tool failed with an internal error.", true), nil
	}
	res, err := req.pendingInput(call)
	if err == errHandlerBug {
		return textResult("The tool failed with an internal error.", true), nil
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// pendingOther answers a resource's or prompt's RequireInput; these
// methods have no isError result, so failures are JSON-RPC errors.
func (req *Request) pendingOther(call *Call) (any, error) {
	if !call.perRequest {
		return nil, NewError(CodeInternal, "This request needs input from the client, which a server can only ask for over MCP 2026-07-28")
	}
	res, err := req.pendingInput(call)
	if err == errHandlerBug {
		return nil, NewError(CodeInternal, "Internal error")
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

func unknownTool(name string) *Error {
	shown := name
	if len(shown) > 128 {
		shown = shown[:128]
	}
	return NewError(CodeInvalidParams, "Unknown tool: "+shown).WithData(map[string]string{"name": shown})
}

// textResult builds a result with one text block.
func textResult(text string, isError bool) *CallToolResult {
	b := make([]byte, 0, len(text)+32)
	b = append(b, `[{"type":"text","text":`...)
	b = appendString(b, text)
	b = append(b, `}]`...)
	return &CallToolResult{Content: b, IsError: isError}
}

// newRequest builds the in-process request for a call. It returns a
// message for the model instead when an argument cannot be placed in the
// path safely.
func (t *tool) newRequest(req *Request, call *Call) (*http.Request, string) {
	args := call.args
	u, values, bad := t.route.fill(func(name string) (string, bool) {
		v, _ := jsonrpc.Lookup(args, name)
		return scalarText(v)
	})
	if bad != "" {
		return nil, "Invalid argument " + bad + ": it must be a non-empty string or integer naming one item"
	}
	var body []byte
	contentType := jsonType
	p := t.opts.placement
	hasBody := t.route.method != http.MethodGet && t.route.method != http.MethodHead
	switch {
	case p == nil && hasBody && t.route.method != http.MethodDelete:
		body = t.bodyOf(args)
	case p == nil, !hasBody:
		u.RawQuery = t.query(args, t.inQuery)
	case p.Body != "":
		u.RawQuery = t.query(args, func(name string) bool { return !t.pathParams[name] && name != p.Body })
		if v, ok := jsonrpc.Lookup(args, p.Body); ok {
			body = v
		}
	case p.Form:
		u.RawQuery = t.query(args, t.queryArgs.has)
		body, contentType = []byte(t.query(args, t.inBody)), formType
	default:
		u.RawQuery = t.query(args, t.queryArgs.has)
		body = t.bodyOf(args)
	}
	return req.inProcess(call, t.route.method, u, body, contentType, values), ""
}

var formType = []string{"application/x-www-form-urlencoded"}

// inQuery is the default rule: every argument that is not a wildcard.
func (t *tool) inQuery(name string) bool { return !t.pathParams[name] }

type nameSet map[string]bool

func (s nameSet) has(name string) bool { return s[name] }

// inBody: every argument placed neither in the path nor in the query.
func (t *tool) inBody(name string) bool { return !t.pathParams[name] && !t.queryArgs[name] }

// inProcess builds the request a route handler gets: the verified identity
// and the call in its context, only Accept (and Content-Type with a body)
// as headers — never the client's Authorization or cookies.
func (req *Request) inProcess(call *Call, method string, u *url.URL, body []byte, contentType []string, values []pathValue) *http.Request {
	orig := req.HTTP()
	ctx := context.WithValue(req.identityContext(orig.Context()), callKey{}, call)
	r := &http.Request{
		Method:     method,
		URL:        u,
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     http.Header{"Accept": jsonType},
		Host:       orig.Host,
		RemoteAddr: orig.RemoteAddr,
		RequestURI: u.RequestURI(),
		Body:       http.NoBody,
	}
	if call.idemKey != "" {
		r.Header["Idempotency-Key"] = []string{call.idemKey}
	}
	if body != nil {
		r.Header["Content-Type"] = contentType
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
	}
	r = r.WithContext(ctx)
	for _, pv := range values {
		r.SetPathValue(pv.name, pv.value)
	}
	return r
}

type pathValue struct{ name, value string }

// fill builds the route's path with each wildcard's value escaped as one
// segment (value gives it by name). A value that is missing, empty, "." or
// ".." could not name one item: fill returns the wildcard's name as bad.
func (rt route) fill(value func(name string) (string, bool)) (u *url.URL, values []pathValue, bad string) {
	var path, rawPath strings.Builder
	for _, seg := range rt.segments {
		path.WriteByte('/')
		rawPath.WriteByte('/')
		if !seg.wildcard {
			path.WriteString(seg.text)
			rawPath.WriteString(seg.text)
			continue
		}
		v, ok := value(seg.text)
		if !ok || v == "" || v == "." || v == ".." {
			return nil, nil, seg.text
		}
		path.WriteString(v)
		rawPath.WriteString(escapeSegment(v))
		values = append(values, pathValue{seg.text, v})
	}
	return &url.URL{Path: path.String(), RawPath: rawPath.String()}, values, ""
}

// escapeSegment percent-encodes everything but RFC 3986 unreserved
// characters, so "/", "%", "?" and "#" stay inside the one segment.
func escapeSegment(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// scalarText renders a string or integer argument as text.
func scalarText(raw []byte) (string, bool) {
	if len(raw) == 0 {
		return "", false
	}
	if raw[0] == '"' {
		return String(raw)
	}
	if _, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return string(raw), true
	}
	return "", false
}

// query renders the arguments include admits as a query string (or form
// body), sorted by name. Arrays repeat the key; objects are sent as JSON
// text; null is left out.
func (t *tool) query(args []byte, include func(name string) bool) string {
	q := url.Values{}
	it := jsonrpc.NewIter(args)
	for {
		k, v, ok := it.Next()
		if !ok {
			break
		}
		name := string(k)
		if !include(name) {
			continue
		}
		switch v[0] {
		case 'n':
		case '[':
			var arr []json.RawMessage
			_ = json.Unmarshal(v, &arr)
			for _, item := range arr {
				q.Add(name, queryText(item))
			}
		default:
			q.Add(name, queryText(v))
		}
	}
	return q.Encode() // sorted by key
}

func queryText(v []byte) string {
	if s, ok := String(v); ok {
		return s
	}
	return string(v)
}

// bodyOf returns the arguments minus the path wildcards and query
// arguments as a JSON object.
func (t *tool) bodyOf(args []byte) []byte {
	if len(t.pathParams) == 0 && len(t.queryArgs) == 0 {
		return args
	}
	out := []byte{'{'}
	it := jsonrpc.NewIter(args)
	for {
		k, v, ok := it.Next()
		if !ok {
			break
		}
		if !t.inBody(string(k)) {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = appendString(out, string(k))
		out = append(out, ':')
		out = append(out, v...)
	}
	return append(out, '}')
}

// result maps the handler's response onto a CallToolResult.
func (t *tool) result(req *Request, rec *recorder, f Features) (*CallToolResult, error) {
	log := req.handler.cfg.logger
	status := rec.status
	if rec.over {
		log.Error("mcp: tool response over the size limit", "tool", t.def.Name, "limit", rec.limit)
		return textResult("The tool's response was too large.", true), nil
	}
	body := rec.buf.Bytes()
	switch {
	case status >= 200 && status < 300:
	case status >= 400 && status < 500:
		text := string(bytes.TrimRight(body, "\r\n"))
		if len(bytes.TrimSpace(body)) == 0 {
			text = strconv.Itoa(status) + " " + http.StatusText(status)
		}
		return textResult(text, true), nil
	default:
		// The body is not logged: a failing route may have put anything in it.
		log.Error("mcp: tool route failed", "tool", t.def.Name, "status", status)
		return textResult("The tool failed with an internal error.", true), nil
	}
	mt, _, _ := mime.ParseMediaType(rec.header.Get("Content-Type"))
	switch {
	case mt == ToolResultMediaType:
		res, ok := ownResult(body, f)
		if !ok {
			log.Error("mcp: tool answered an invalid "+ToolResultMediaType+" body", "tool", t.def.Name)
			return textResult("The tool failed with an internal error.", true), nil
		}
		return res, nil
	case strings.HasPrefix(mt, "image/"), strings.HasPrefix(mt, "audio/"):
		kind := "image"
		if strings.HasPrefix(mt, "audio/") {
			kind = "audio"
		}
		b := make([]byte, 0, base64.StdEncoding.EncodedLen(len(body))+64)
		b = append(b, `[{"type":"`...)
		b = append(b, kind...)
		b = append(b, `","data":"`...)
		b = base64.StdEncoding.AppendEncode(b, body)
		b = append(b, `","mimeType":`...)
		b = appendString(b, mt)
		b = append(b, `}]`...)
		return &CallToolResult{Content: b}, nil
	}
	// A trailing newline (json.Encoder writes one) carries nothing for the model.
	res := textResult(string(bytes.TrimRight(body, "\r\n")), false)
	if t.output != nil && f.OutputSchema {
		decoded, err := schema.Decode(body)
		if err != nil || jsonrpc.Validate(body, jsonrpc.DefaultMaxDepth) != nil {
			log.Error("mcp: tool output is not JSON though the tool has an outputSchema", "tool", t.def.Name)
			return textResult("The tool failed with an internal error.", true), nil
		}
		if v := t.output.Validate(decoded, maxViolations); v != nil {
			log.Error("mcp: tool output does not match its outputSchema", "tool", t.def.Name, "violations", v)
			return textResult("The tool failed with an internal error.", true), nil
		}
		var c bytes.Buffer
		_ = json.Compact(&c, body)
		res.StructuredContent = c.Bytes()
	}
	return res, nil
}

// ownResult reads a CallToolResult written by a handler for MCP.
func ownResult(body []byte, f Features) (*CallToolResult, bool) {
	if jsonrpc.Validate(body, jsonrpc.DefaultMaxDepth) != nil {
		return nil, false
	}
	content, ok := jsonrpc.Lookup(body, "content")
	if !ok || len(content) == 0 || content[0] != '[' {
		return nil, false
	}
	res := &CallToolResult{Content: content}
	if v, ok := jsonrpc.Lookup(body, "isError"); ok {
		switch string(v) {
		case "true":
			res.IsError = true
		case "false":
		default:
			return nil, false
		}
	}
	if v, ok := jsonrpc.Lookup(body, "structuredContent"); ok && f.OutputSchema && string(v) != "null" {
		res.StructuredContent = v
	}
	return res, true
}

// recorder is the in-memory ResponseWriter a tool's handler writes to.
type recorder struct {
	header http.Header
	status int
	buf    bytes.Buffer
	limit  int64
	over   bool
}

func newRecorder(limit int64) *recorder {
	return &recorder{header: http.Header{}, limit: limit}
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 && code >= 200 {
		r.status = code
	}
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	if int64(r.buf.Len()+len(p)) > r.limit {
		r.over = true
		return 0, errTooLarge
	}
	return r.buf.Write(p)
}

var errTooLarge = errors.New("mcp: tool response over the size limit")

// run calls h, returning the panic value if it panicked.
func (r *recorder) run(h http.Handler, req *http.Request) (panicked any) {
	defer func() {
		if p := recover(); p != nil {
			panicked = p
		}
	}()
	h.ServeHTTP(r, req)
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return nil
}
