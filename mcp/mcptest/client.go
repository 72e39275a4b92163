package mcptest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpdual/mcpdual/headers"
	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/mcp"
)

// Client speaks one MCP revision to an endpoint the way a correct client
// does: the 2026-07-28 _meta envelope and routing headers (with the base64
// sentinel where a value needs it, and the Mcp-Param-* headers a tool
// declares), or the 2025 initialize handshake followed by the negotiated
// MCP-Protocol-Version; and, for tools/call, prompts/get and
// resources/read, the multi round-trip retries. A Client is safe for
// concurrent use.
type Client struct {
	version mcp.Version
	send    func(*http.Request) (*http.Response, error)
	url     string
	caps    json.RawMessage
	info    json.RawMessage
	extra   http.Header
	answer  func(key string, req InputRequest) (json.RawMessage, bool)
	timeout time.Duration
	// observe, when set, sees every response of a multi round-trip call,
	// the interim ones included (the battery's MRTR check).
	observe func(*Response)
	// inspect, when set, sees every exchange Send makes (the battery's
	// checks of the wire's shapes).
	inspect func(c *Client, sent []byte, h http.Header, res *Response, err error)
	follow  bool              // FollowRedirects: follow a redirect to the same origin
	rt      http.RoundTripper // WithTransport; nil: http.DefaultTransport

	mu         sync.Mutex
	id         int
	negotiated mcp.Version
	session    string                     // the Mcp-Session-Id a 2025 initialize issued, if any
	params     map[string][]headers.Param // tool name -> its Mcp-Param-* headers
}

// Option configures a Client.
type Option interface{ apply(*Client) }

type optionFunc func(*Client)

func (f optionFunc) apply(c *Client) { f(c) }

// WithCapabilities sets the clientCapabilities a 2026-07-28 request
// declares (default {}) and the capabilities of a 2025 initialize.
func WithCapabilities(caps json.RawMessage) Option {
	return optionFunc(func(c *Client) { c.caps = append(json.RawMessage(nil), caps...) })
}

// WithHeader adds a header to every request, such as Authorization.
func WithHeader(name, value string) Option {
	return optionFunc(func(c *Client) { c.extra.Add(name, value) })
}

// WithAnswers answers input requests during multi round-trip calls: it gets
// each request's key and content and returns the answer to send, or false
// to leave it unanswered (the call then ends with the input_required
// result).
func WithAnswers(f func(key string, req InputRequest) (json.RawMessage, bool)) Option {
	return optionFunc(func(c *Client) { c.answer = f })
}

// DefaultTimeout bounds each request of a Client unless WithTimeout says
// otherwise.
const DefaultTimeout = 10 * time.Second

// WithTimeout bounds how long one request may take, response body
// included (default DefaultTimeout), so that a server that never answers,
// or holds a stream open, fails a test instead of hanging it. It panics
// on a duration that is not positive.
func WithTimeout(d time.Duration) Option {
	if d <= 0 {
		panic("mcptest: WithTimeout needs a positive duration")
	}
	return optionFunc(func(c *Client) { c.timeout = d })
}

// FollowRedirects lets a Client made with Dial (or the battery of
// CheckURL) follow a redirect to the same origin (scheme, host and port),
// as curl -L would, headers and body included. A redirect to another
// origin is never followed, with or without it, so that the body and the
// headers of WithHeader (a token) never leave for another host: the
// Client returns the redirect itself, and the battery fails
// "wire/redirect". Without it no redirect is followed. In process (New,
// Check) nothing is followed.
func FollowRedirects() Option {
	return optionFunc(func(c *Client) { c.follow = true })
}

// WithTransport sends the requests of a Client made with Dial (or of the
// battery of CheckURL) through rt rather than http.DefaultTransport: the
// Client().Transport of an httptest.NewTLSServer, which trusts that
// server's certificate, or a transport that presents a client
// certificate or trusts a private CA. Redirects are still followed only
// as FollowRedirects says. In process (New, Check) nothing goes through a
// transport and it changes nothing; a nil rt leaves the default.
func WithTransport(rt http.RoundTripper) Option {
	return optionFunc(func(c *Client) { c.rt = rt })
}

// InputRequest is one request of an input_required result.
type InputRequest struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

// New returns a Client of revision v calling h in-process.
func New(h http.Handler, v mcp.Version, opts ...Option) *Client {
	return newClient("http://localhost/mcp", inProcess(h), v, opts)
}

// inProcess serves a request with h on a goroutine of its own and
// returns the response as soon as h commits its headers (its first Write
// or Flush, or its return, as net/http sends them), with a body that
// streams what h writes. A handler that never answers costs a leaked
// goroutine and a failed check, not a hung test; one that holds a stream
// open stops when the reader closes the body or the request's context
// ends.
func inProcess(h http.Handler) func(*http.Request) (*http.Response, error) {
	return func(r *http.Request) (*http.Response, error) {
		if r.Body == nil {
			r.Body = http.NoBody // as a server's request always has
		}
		pr, pw := io.Pipe()
		w := &pipeWriter{hdr: http.Header{}, status: http.StatusOK, pw: pw, ready: make(chan struct{})}
		go func() {
			defer pw.Close()
			h.ServeHTTP(w, r)
			w.commit(nil)
		}()
		select {
		case <-w.ready:
			return &http.Response{StatusCode: w.status, Header: w.snap, Body: pr, Request: r}, nil
		case <-r.Context().Done():
			pr.CloseWithError(r.Context().Err())
			return nil, fmt.Errorf("mcptest: no response: %w", r.Context().Err())
		}
	}
}

// pipeWriter is the ResponseWriter of inProcess.
type pipeWriter struct {
	hdr    http.Header
	status int
	pw     *io.PipeWriter
	once   sync.Once
	ready  chan struct{}
	snap   http.Header // the headers as committed; read only after ready
}

func (w *pipeWriter) Header() http.Header { return w.hdr }

// WriteHeader records the status; like net/http, the headers go out with
// the first byte of the body, or a Flush.
func (w *pipeWriter) WriteHeader(code int) {
	if code >= 200 {
		select {
		case <-w.ready:
		default:
			w.status = code
		}
	}
}

func (w *pipeWriter) Write(b []byte) (int, error) {
	w.commit(b)
	return w.pw.Write(b)
}

func (w *pipeWriter) Flush() { w.commit(nil) }

// commit sends the headers once, sniffing a missing Content-Type from the
// first bytes as net/http does. It runs on the handler's goroutine.
func (w *pipeWriter) commit(first []byte) {
	w.once.Do(func() {
		if w.hdr.Get("Content-Type") == "" && len(first) > 0 {
			w.hdr.Set("Content-Type", http.DetectContentType(first))
		}
		w.snap = w.hdr.Clone()
		close(w.ready)
	})
}

// Dial returns a Client of revision v for the endpoint at url.
func Dial(url string, v mcp.Version, opts ...Option) *Client {
	return newClient(url, nil, v, opts)
}

// newClient makes a Client; send nil means over the network, following
// redirects as FollowRedirects says.
func newClient(url string, send func(*http.Request) (*http.Response, error), v mcp.Version, opts []Option) *Client {
	c := &Client{version: v, send: send, url: url, caps: json.RawMessage(`{}`),
		info: json.RawMessage(`{"name":"mcptest","version":"1.0.0"}`), extra: http.Header{}, timeout: DefaultTimeout}
	for _, o := range opts {
		o.apply(c)
	}
	if c.send == nil {
		c.send = network(c.follow, c.rt)
	}
	return c
}

// network sends over HTTP. Go's own client follows redirects and, for a
// 307 or 308, sends the body and every header but a few sensitive ones to
// wherever Location points; the kit follows none unless told, and never
// one to another origin.
func network(follow bool, rt http.RoundTripper) func(*http.Request) (*http.Response, error) {
	hc := &http.Client{Transport: rt, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if !follow || len(via) >= 5 || !sameOrigin(req.URL, via[0].URL) {
			return http.ErrUseLastResponse // the redirect is the answer
		}
		return nil
	}}
	return hc.Do
}

func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

// port is u's port, the scheme's default when none is written, so that
// https://x and https://x:443 are one origin.
func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return "443"
	case "http":
		return "80"
	}
	return ""
}

// Response is what the endpoint answered.
type Response struct {
	Status int
	Header http.Header
	// ID, Result and Error come from the JSON-RPC response (the last event
	// of a stream).
	ID     json.RawMessage
	Result json.RawMessage
	Error  *Error
	// Notifications holds the notifications that preceded the response on
	// an event stream.
	Notifications []json.RawMessage
	// Raw is the body as received (at most 16 MiB).
	Raw []byte

	msgs [][]byte // the JSON-RPC messages of the body, each event's data on a stream
	// dangling is the data of an event the stream ended inside, before
	// the blank line that ends an event (nil if none): in msgs too, but a
	// client following the SSE format never reads it.
	dangling []byte
}

// maxResponse bounds the body of one response the kit reads; a larger one
// is an error of Send (and a failed check), never a truncated message
// read as if it were whole.
const maxResponse = 16 << 20

// Error is a JSON-RPC error object.
type Error struct {
	Code    mcp.Code        `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("%d %s", e.Code, e.Message) }

// UnmarshalJSON reads the code as the number it is: JSON has no integer
// type apart, so -32602.0 names -32602 as much as -32602 does (JSON
// Schema's "integer" holds any number whose fraction is zero), and a
// server whose encoder writes every number with a point is not malformed.
// A fraction, or a code beyond 32 bits, is refused.
func (e *Error) UnmarshalJSON(b []byte) error {
	var raw struct {
		Code    json.Number     `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data,omitempty"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	code, ok := integer(raw.Code)
	if !ok || code != int64(int32(code)) {
		return fmt.Errorf("mcptest: error code %s is not a 32-bit integer", raw.Code)
	}
	*e = Error{Code: mcp.Code(code), Message: raw.Message, Data: raw.Data}
	return nil
}

// integer reads a JSON number whose fraction is zero (1, 1.0, 1e3) as an
// int64.
func integer(n json.Number) (int64, bool) {
	r, ok := new(big.Rat).SetString(string(n))
	if !ok || !r.IsInt() || !r.Num().IsInt64() {
		return 0, false
	}
	return r.Num().Int64(), true
}

// ResultType returns the result's resultType ("" when absent).
func (r *Response) ResultType() string {
	var v struct {
		ResultType string `json:"resultType"`
	}
	_ = json.Unmarshal(r.Result, &v)
	return v.ResultType
}

func (c *Client) nextID() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.id++
	return c.id
}

// Version returns the revision in use: the one given to New, or on 2025
// eras the one initialize negotiated.
func (c *Client) Version() mcp.Version {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.negotiated != "" {
		return c.negotiated
	}
	return c.version
}

func (c *Client) modern() bool { return c.version.Compare(mcp.Version20260728) >= 0 }

// Initialize runs the 2025 handshake (initialize, then
// notifications/initialized) and keeps the negotiated revision. Call
// runs it on first use; call it yourself to inspect its response.
func (c *Client) Initialize(ctx context.Context) (*Response, error) {
	if c.modern() {
		return nil, errors.New("mcptest: revision " + string(c.version) + " has no initialize")
	}
	params := map[string]any{"protocolVersion": c.version, "capabilities": c.caps, "clientInfo": c.info}
	res, err := c.post(ctx, "initialize", params, true)
	if err != nil || res.Error != nil {
		return res, err
	}
	var r struct {
		ProtocolVersion mcp.Version `json:"protocolVersion"`
	}
	_ = json.Unmarshal(res.Result, &r)
	c.mu.Lock()
	c.negotiated = r.ProtocolVersion
	// A server may issue a session (2025-06-18 Transports, Session
	// management); the client then MUST send it on every later request.
	c.session = res.Header.Get("Mcp-Session-Id")
	c.mu.Unlock()
	// What the server answers the notification (202, or an error status
	// with any body) is the battery's to judge, not the handshake's.
	if _, err := c.post(ctx, "notifications/initialized", nil, false); err != nil && !errors.Is(err, errNotJSON) {
		return res, err
	}
	return res, nil
}

// Call sends one request with params (any value that marshals to a JSON
// object, or nil) and returns the response. On 2025 revisions it runs the
// handshake first if it has not run.
func (c *Client) Call(ctx context.Context, method string, params any) (*Response, error) {
	if !c.modern() && method != "initialize" {
		c.mu.Lock()
		done := c.negotiated != ""
		c.mu.Unlock()
		if !done {
			if res, err := c.Initialize(ctx); err != nil || res.Error != nil {
				return res, errors.Join(errors.New("mcptest: initialize failed"), err)
			}
		}
	}
	return c.post(ctx, method, params, true)
}

// Notify sends a notification (a message without id).
func (c *Client) Notify(ctx context.Context, method string, params any) (*Response, error) {
	return c.post(ctx, method, params, false)
}

// CallTool calls a tool and follows the multi round-trip retries: while
// the result is input_required and WithAnswers answers its requests, it
// retries with a new id, the answers and the echoed requestState (at most
// 8 rounds).
func (c *Client) CallTool(ctx context.Context, name string, args any) (*Response, error) {
	params := map[string]any{"name": name}
	if args != nil {
		params["arguments"] = args
	}
	return c.rounds(ctx, "tools/call", params)
}

// GetPrompt gets a prompt, following retries like CallTool.
func (c *Client) GetPrompt(ctx context.Context, name string, args map[string]string) (*Response, error) {
	params := map[string]any{"name": name}
	if args != nil {
		params["arguments"] = args
	}
	return c.rounds(ctx, "prompts/get", params)
}

// ReadResource reads a resource, following retries like CallTool.
func (c *Client) ReadResource(ctx context.Context, uri string) (*Response, error) {
	return c.rounds(ctx, "resources/read", map[string]any{"uri": uri})
}

func (c *Client) rounds(ctx context.Context, method string, params map[string]any) (*Response, error) {
	for round := 0; ; round++ {
		res, err := c.Call(ctx, method, params)
		if c.observe != nil && err == nil {
			c.observe(res)
		}
		if err != nil || res.Error != nil || res.ResultType() != "input_required" || c.answer == nil || round == 7 {
			return res, err
		}
		var ir struct {
			InputRequests map[string]InputRequest `json:"inputRequests"`
			RequestState  *string                 `json:"requestState"`
		}
		if err := json.Unmarshal(res.Result, &ir); err != nil {
			return res, err
		}
		answers := map[string]json.RawMessage{}
		for key, req := range ir.InputRequests {
			a, ok := c.answer(key, req)
			if !ok {
				return res, nil
			}
			answers[key] = a
		}
		next := map[string]any{}
		for k, v := range params {
			if k != "inputResponses" && k != "requestState" {
				next[k] = v
			}
		}
		next["inputResponses"] = answers
		if ir.RequestState != nil {
			next["requestState"] = *ir.RequestState
		}
		params = next
	}
}

// post sends one message. Requests get an id; 2026-07-28 messages get the
// _meta envelope and routing headers.
func (c *Client) post(ctx context.Context, method string, params any, withID bool) (*Response, error) {
	obj := map[string]json.RawMessage{}
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, &obj); err != nil {
			return nil, errors.New("mcptest: params must marshal to a JSON object")
		}
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	if c.modern() {
		meta := map[string]json.RawMessage{}
		if m, ok := obj["_meta"]; ok {
			_ = json.Unmarshal(m, &meta)
		}
		meta["io.modelcontextprotocol/protocolVersion"], _ = json.Marshal(c.version)
		meta["io.modelcontextprotocol/clientCapabilities"] = c.caps
		meta["io.modelcontextprotocol/clientInfo"] = c.info
		obj["_meta"], _ = json.Marshal(meta)
		h.Set(headers.ProtocolVersion, string(c.version))
		h.Set(headers.Method, method)
		if err := c.routingHeaders(ctx, h, method, obj); err != nil {
			return nil, err
		}
	} else if v := c.Version(); method != "initialize" {
		h.Set(headers.ProtocolVersion, string(v))
	}
	msg := map[string]any{"jsonrpc": "2.0", "method": method}
	if withID {
		msg["id"] = c.nextID()
	}
	if len(obj) > 0 {
		msg["params"] = obj
	}
	body, err := json.Marshal(msg)
	if err != nil {
		return nil, err
	}
	return c.Send(ctx, h, body)
}

// routingHeaders sets Mcp-Name and the Mcp-Param-* headers of a 2026
// request.
func (c *Client) routingHeaders(ctx context.Context, h http.Header, method string, obj map[string]json.RawMessage) error {
	member := map[string]string{"tools/call": "name", "prompts/get": "name", "resources/read": "uri",
		"tasks/get": "taskId", "tasks/update": "taskId", "tasks/cancel": "taskId"}[method]
	if member == "" {
		return nil
	}
	var name string
	if json.Unmarshal(obj[member], &name) != nil {
		return nil
	}
	h.Set(headers.Name, headers.Encode(name))
	if method != "tools/call" {
		return nil
	}
	params, err := c.headerParams(ctx, name)
	if err != nil {
		return err
	}
	for _, p := range params {
		v, ok := lookup(obj["arguments"], p.Path)
		if !ok || string(v) == "null" {
			continue
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			s = string(v) // integers and booleans as written
		}
		h.Set(p.Header, headers.Encode(s))
	}
	return nil
}

func lookup(obj json.RawMessage, path []string) (json.RawMessage, bool) {
	cur := obj
	for _, k := range path {
		var m map[string]json.RawMessage
		if json.Unmarshal(cur, &m) != nil {
			return nil, false
		}
		v, ok := m[k]
		if !ok {
			return nil, false
		}
		cur = v
	}
	return cur, true
}

// headerParams learns, once, which Mcp-Param-* headers each tool declares.
func (c *Client) headerParams(ctx context.Context, tool string) ([]headers.Param, error) {
	c.mu.Lock()
	known := c.params
	c.mu.Unlock()
	if known == nil {
		known = map[string][]headers.Param{}
		cursor := ""
		for page := 0; page < 100; page++ {
			var p any
			if cursor != "" {
				p = map[string]string{"cursor": cursor}
			}
			res, err := c.post(ctx, "tools/list", p, true)
			if err != nil {
				// Not wrapped: the caller gets no response, and must not
				// take this for a response that is not JSON.
				return nil, fmt.Errorf("mcptest: tools/list, read to learn the tools' Mcp-Param-* headers: %v", err)
			}
			if res.Error != nil {
				break // no tools capability: nothing to mirror
			}
			var list struct {
				Tools []struct {
					Name        string         `json:"name"`
					InputSchema map[string]any `json:"inputSchema"`
				} `json:"tools"`
				NextCursor string `json:"nextCursor"`
			}
			if err := json.Unmarshal(res.Result, &list); err != nil {
				return nil, fmt.Errorf("mcptest: tools/list, read to learn the tools' Mcp-Param-* headers: the result is not a list of tools: %v", err)
			}
			for _, t := range list.Tools {
				ps, err := headers.ParseAnnotations(t.InputSchema)
				if err != nil {
					continue // a client leaves such a tool's headers out
				}
				known[t.Name] = ps
			}
			if cursor = list.NextCursor; cursor == "" {
				break
			}
		}
		c.mu.Lock()
		c.params = known
		c.mu.Unlock()
	}
	return known[tool], nil
}

// Send posts body with exactly the headers h (plus those of WithHeader)
// and decodes the answer, a JSON object or an event stream. Use it to send
// what a correct client never would.
func (c *Client) Send(ctx context.Context, h http.Header, body []byte) (*Response, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header = h.Clone()
	c.mu.Lock()
	if c.session != "" && req.Header.Get("Mcp-Session-Id") == "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	c.mu.Unlock()
	for k, vs := range c.extra {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	res, err := c.exchange(req, body)
	if c.inspect != nil {
		c.inspect(c, body, req.Header, res, err)
	}
	return res, err
}

func (c *Client) exchange(req *http.Request, body []byte) (*Response, error) {
	resp, err := c.send(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	// Media types are case-insensitive (RFC 9110 §8.3.1): a server that
	// writes Text/Event-Stream sends an event stream all the same.
	stream := mediaType(resp.Header) == "text/event-stream"
	var raw []byte
	if stream && !bytes.HasPrefix(bytes.TrimSpace(body), []byte("[")) {
		// A stream may stay open after the response it carries: stop at
		// the response (one request, one response) rather than wait.
		raw, err = readUntilResponse(resp.Body)
	} else {
		raw, err = io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
		if err == nil && len(raw) > maxResponse {
			err = errTooLarge
		}
	}
	res := &Response{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
	if len(res.Raw) > maxResponse {
		res.Raw = res.Raw[:maxResponse]
	}
	if errors.Is(err, errTooLarge) {
		return res, fmt.Errorf("%w (HTTP %d, %s)", errTooLarge, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if err != nil {
		return nil, err
	}
	msgs := [][]byte{raw}
	if stream {
		msgs, res.dangling = splitEvents(raw)
		if res.dangling != nil {
			// Read all the same, so that the other checks judge what it
			// says; inspect reports the framing.
			msgs = append(msgs, res.dangling)
		}
	}
	res.msgs = msgs
	for _, m := range msgs {
		if len(bytes.TrimSpace(m)) == 0 {
			continue
		}
		var env struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  *Error          `json:"error"`
		}
		if err := json.Unmarshal(m, &env); err != nil {
			return res, fmt.Errorf("%w: %q", errNotJSON, truncate(m))
		}
		if env.Method != "" && env.ID == nil {
			res.Notifications = append(res.Notifications, append(json.RawMessage(nil), m...))
			continue
		}
		res.ID, res.Result, res.Error = env.ID, env.Result, env.Error
	}
	return res, nil
}

// errNotJSON is what Send returns, with the Response, when the body is
// not one JSON object (plain text, or a JSON array).
var errNotJSON = errors.New("mcptest: the response is not a JSON object")

// errTooLarge is what Send returns when a body exceeds maxResponse.
var errTooLarge = errors.New("mcptest: the response exceeds 16 MiB (maxResponse), the kit's bound on one answer")

// readUntilResponse reads an event stream up to the end of the first
// event that is a JSON-RPC response (a result or an error), or to its end.
func readUntilResponse(body io.Reader) ([]byte, error) {
	sr := newSSEReader(io.LimitReader(body, maxResponse+1))
	var data []byte
	for {
		line, err := sr.line()
		if len(sr.raw) > maxResponse {
			return sr.raw, errTooLarge
		}
		switch {
		case len(line) == 0 && data != nil && err == nil:
			var m struct {
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal(data, &m) == nil && (m.Result != nil || m.Error != nil) {
				return sr.raw, nil
			}
			data = nil
		case bytes.HasPrefix(line, dataField):
			data = appendData(data, line)
		}
		if err == io.EOF {
			return sr.raw, nil
		}
		if err != nil {
			return sr.raw, err
		}
	}
}

// events returns the data of each event of an event stream, the last one
// too when the stream ends before the blank line that ends it.
func events(raw []byte) [][]byte {
	out, dangling := splitEvents(raw)
	if dangling != nil {
		out = append(out, dangling)
	}
	return out
}

// splitEvents returns the data of each event the stream ends, and the
// data of an event it leaves unended (nil if none): the SSE format ends
// an event with a blank line, and a client discards one the stream ends
// inside ("If the file ends in the middle of an event, before the final
// empty line, the incomplete event is not dispatched").
func splitEvents(raw []byte) (out [][]byte, dangling []byte) {
	var data []byte
	sr := newSSEReader(bytes.NewReader(raw))
	for {
		line, err := sr.line()
		switch {
		case len(line) == 0 && err == nil:
			if data != nil {
				out = append(out, data)
				data = nil
			}
		case bytes.HasPrefix(line, dataField):
			data = appendData(data, line)
		}
		if err != nil {
			break
		}
	}
	return out, data
}

var dataField = []byte("data:")

// appendData adds a data line's value to an event's data, after an LF if
// data holds some already. The value is the line past "data:" and one
// space. data stays nil when it was and the value is empty: a "data:"
// line with nothing after it neither makes an event nor puts an LF before
// the next line's value (the kit has always read it so).
func appendData(data, line []byte) []byte {
	if data != nil {
		data = append(data, '\n')
	}
	value := bytes.TrimPrefix(line[len(dataField):], []byte(" "))
	if data == nil && len(value) == 0 {
		return nil
	}
	return append(data, value...)
}

// sseReader reads an event stream's lines as the SSE format has them:
// each ended by CRLF, LF or a lone CR, and a byte-order mark before the
// first skipped. A lone CR ends its line at once: waiting for the byte
// after it, to tell it from a CRLF, could wait on an open stream for
// ever; an LF right after a CR is skipped instead.
//
// It takes what the buffered reader holds a run at a time, never a byte
// at a time (which cost seconds for 16 MiB under the race detector), and
// waits for the stream only when nothing is buffered: it reads exactly
// the bytes a byte-at-a-time reader would, and blocks where it would.
type sseReader struct {
	br      *bufio.Reader
	raw     []byte // every byte read; a line is a slice of it
	afterCR bool
	started bool
}

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{br: bufio.NewReader(r)}
}

// line returns the next line, without its end; at the input's end, what
// was left (and the error). The line is valid until the next call.
func (s *sseReader) line() ([]byte, error) {
	start := len(s.raw) // the line is raw from here, less its end
	for {
		if s.br.Buffered() == 0 {
			// The one place it waits: as a byte-at-a-time reader does,
			// when nothing is left to look at.
			if _, err := s.br.Peek(1); err != nil {
				return s.first(s.raw[start:]), err
			}
		}
		buf, _ := s.br.Peek(s.br.Buffered())
		if s.afterCR {
			s.afterCR = false
			if buf[0] == '\n' {
				s.consume(buf[:1])
				start++
				continue
			}
		}
		// The first line end: an LF, or a CR before it. IndexByte, not a
		// loop over the bytes, finds either.
		end := bytes.IndexByte(buf, '\n')
		if end < 0 {
			end = len(buf)
		}
		if cr := bytes.IndexByte(buf[:end], '\r'); cr >= 0 {
			end = cr
		}
		if end == len(buf) {
			s.consume(buf)
			continue
		}
		s.afterCR = buf[end] == '\r'
		s.consume(buf[:end+1])
		return s.first(s.raw[start : len(s.raw)-1]), nil
	}
}

// consume moves past b, the next buffered bytes, keeping them in raw.
func (s *sseReader) consume(b []byte) {
	s.raw = append(s.raw, b...)
	s.br.Discard(len(b))
}

func (s *sseReader) first(b []byte) []byte {
	if !s.started {
		s.started = true
		b = bytes.TrimPrefix(b, []byte("\xEF\xBB\xBF"))
	}
	return b
}

// truncate quotes at most the first 200 bytes of what a server sent, for a
// finding's detail. The cut is where a character ends: half of one would
// make the detail invalid UTF-8 (garbage on a terminal, U+FFFD in go test
// -json), and the quote no longer the start of what was sent.
func truncate(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) > 200 {
		return string(b[:jsonrpc.CutText(b, 200)]) + "…"
	}
	return string(b)
}
