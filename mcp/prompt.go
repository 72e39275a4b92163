package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/mcpdual/mcpdual/internal/inproc"
	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/panics"
	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/content"
)

// Prompt is the MCP definition of a prompt template.
type Prompt struct {
	// Name identifies the prompt: 1 to 128 characters from A-Z a-z 0-9 _ - .
	Name        string
	Title       string // sent from 2025-06-18 on
	Description string
	Arguments   []PromptArgument
	Icons       []Icon // sent from revision 2025-11-25 on
}

// PromptArgument is one argument a prompt takes.
type PromptArgument struct {
	Name        string
	Title       string // sent from 2025-06-18 on
	Description string
	Required    bool
}

// PromptMessage is one message of a rendered prompt.
type PromptMessage struct {
	Role    content.Role
	Content content.Block
}

// PromptResult is a rendered prompt.
type PromptResult struct {
	Description string
	Messages    []PromptMessage
}

// PromptFunc renders a prompt from its arguments (only declared ones,
// every required one present). The request's context carries the verified
// identity (auth.FromContext) and the Call (CallFromContext), through
// which a 2026-07-28 prompt can ask the client for input: call
// RequireInput and return nil, nil. An *Error is sent as is; any other
// error is logged and answered -32603.
type PromptFunc func(ctx context.Context, args map[string]string) (*PromptResult, error)

type prompt struct {
	def     Prompt
	render  PromptFunc
	route   inproc.Pattern // with handler, for AddPromptRoute
	handler http.Handler
	opts    itemOptions
	shapes  [nShapes]json.RawMessage
}

// AddPrompt registers p, rendered by render. It panics on an invalid or
// duplicate name, an argument without a name or named twice, or a nil
// function.
func (s *Server) AddPrompt(p Prompt, render PromptFunc, opts ...ItemOption) {
	if render == nil {
		s.done(errors.New("mcp: prompt " + p.Name + ": nil render function"))
		return
	}
	s.done(s.addPrompt(&prompt{def: p, render: render}, opts))
}

// AddPromptRoute registers p, rendered by a GET on route of h, in-process
// with the caller's identity; the arguments are sent as the query string.
// The route answers 2xx with a JSON GetPromptResult body
// ({"description"?, "messages": [{"role", "content"}]}); a 404 is "unknown
// prompt", another 4xx -32602, anything else -32603 (logged). It panics
// where AddPrompt does, on a nil handler, and on a route that is not a GET
// route without wildcards.
func (s *Server) AddPromptRoute(p Prompt, route string, h http.Handler, opts ...ItemOption) {
	s.done(s.addPromptRoute(p, route, h, opts))
}

func (s *Server) addPromptRoute(p Prompt, route string, h http.Handler, opts []ItemOption) error {
	if h == nil {
		return errors.New("mcp: prompt " + p.Name + ": nil handler")
	}
	rt, err := inproc.Parse(route)
	if err != nil || rt.Method != http.MethodGet {
		return fmt.Errorf("mcp: prompt %s: route %q must be a GET route without errors (%v)", p.Name, route, err)
	}
	for _, seg := range rt.Segments {
		if seg.Wildcard {
			return errors.New("mcp: prompt " + p.Name + ": a prompt route has no wildcards; arguments go to the query")
		}
	}
	return s.addPrompt(&prompt{def: p, route: rt, handler: h}, opts)
}

func (s *Server) addPrompt(e *prompt, opts []ItemOption) error {
	p := e.def
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.notFrozen("AddPrompt"); err != nil {
		return err
	}
	if !toolName.MatchString(p.Name) {
		return fmt.Errorf("mcp: invalid prompt name %q: use 1-128 characters from A-Z a-z 0-9 and \"_-.\"", p.Name)
	}
	if s.has(auth.KindPrompt, p.Name, func(s *Server) bool { return s.byPrompt[p.Name] != nil }) {
		return errors.New("mcp: prompt " + p.Name + " registered twice")
	}
	args := map[string]bool{}
	for _, a := range p.Arguments {
		if a.Name == "" || args[a.Name] {
			return errors.New("mcp: prompt " + p.Name + ": an argument without a name, or named twice")
		}
		args[a.Name] = true
	}
	var err error
	if e.opts, err = applyItemOptions(opts, "prompt "+p.Name, args); err != nil {
		return err
	}
	if err := checkIcons("prompt "+p.Name, p.Icons); err != nil {
		return err
	}
	for i := range e.shapes {
		e.shapes[i] = renderPrompt(p, i)
	}
	s.prompts = append(s.prompts, e)
	s.byPrompt[p.Name] = e
	return nil
}

func renderPrompt(p Prompt, shape int) json.RawMessage {
	modern := shape >= shapeTitles
	f := []string{"name", p.Name}
	if modern && p.Title != "" {
		f = append(f, "title", p.Title)
	}
	if p.Description != "" {
		f = append(f, "description", p.Description)
	}
	b := jsonrpc.Object(f...)
	if len(p.Arguments) == 0 {
		if shape >= shapeIcons && len(p.Icons) > 0 {
			b = append(appendIcons(b[:len(b)-1], p.Icons), '}')
		}
		return b
	}
	b = append(b[:len(b)-1], `,"arguments":[`...)
	for i, a := range p.Arguments {
		if i > 0 {
			b = append(b, ',')
		}
		af := []string{"name", a.Name}
		if modern && a.Title != "" {
			af = append(af, "title", a.Title)
		}
		if a.Description != "" {
			af = append(af, "description", a.Description)
		}
		ab := jsonrpc.Object(af...)
		ab = append(ab[:len(ab)-1], fmt.Sprintf(`,"required":%t}`, a.Required)...)
		b = append(b, ab...)
	}
	b = append(b, ']')
	if shape >= shapeIcons {
		b = appendIcons(b, p.Icons)
	}
	return append(b, '}')
}

// listPrompts answers prompts/list: the prompts the caller may use.
func (s *Server) listPrompts(req *request) (seam.Result, error) {
	return listPage(s, req, "prompts", "prompts", s.prompts)
}

func (p *prompt) access() (string, string, []string) {
	return auth.KindPrompt, p.def.Name, p.opts.scopes
}

func (p *prompt) shape(i int) json.RawMessage { return p.shapes[i] }

func unknownPrompt(name string) *Error {
	name = name[:jsonrpc.CutText(name, 128)]
	return NewError(CodeInvalidParams, "Unknown prompt: "+name).WithData(map[string]string{"name": name})
}

// lookupPrompt finds a prompt the caller may see.
func (s *Server) lookupPrompt(req *request, name string) (*prompt, error) {
	p, ok := s.byPrompt[name]
	if !ok || !req.visible(auth.KindPrompt, name) {
		return nil, unknownPrompt(name)
	}
	return p, nil
}

// stringMap reads an object of string members (prompt arguments,
// completion context); absent or null is empty. Every member must be a
// string, but only those keep names are kept: no one reads the others,
// and a map of every member cost 18 times the body, an entry and a
// string a member, for 1 MiB of names nothing declares.
func stringMap(raw json.RawMessage, what string, keep func(name []byte) bool) (map[string]string, error) {
	m := map[string]string{}
	if raw == nil || string(raw) == "null" {
		return m, nil
	}
	if !jsonrpc.IsObject(raw) {
		return nil, NewError(CodeInvalidParams, "Invalid params: "+what+" must be an object of strings")
	}
	it := jsonrpc.NewIter(raw)
	for {
		k, v, ok := it.Next()
		if !ok {
			return m, nil
		}
		if len(v) == 0 || v[0] != '"' {
			return nil, NewError(CodeInvalidParams, "Invalid params: "+what+" must be an object of strings")
		}
		if keep(k) {
			m[string(k)], _ = jsonrpc.String(v)
		}
	}
}

// declares reports whether name is one of p's arguments.
func (p *prompt) declares(name []byte) bool {
	for _, a := range p.def.Arguments {
		if a.Name == string(name) {
			return true
		}
	}
	return false
}

// getPrompt answers prompts/get: an unknown or hidden prompt, missing
// required arguments and arguments that are not strings are -32602.
func (s *Server) getPrompt(req *request) (seam.Result, error) {
	raw, ok := req.Param("name")
	name, isStr := jsonrpc.String(raw)
	if !ok || !isStr {
		return nil, NewError(CodeInvalidParams, "Invalid params: name must be a string")
	}
	if _, err := req.Workspace(); err != nil {
		return nil, err
	}
	p, err := s.lookupPrompt(req, name)
	if err != nil {
		return nil, err
	}
	if err := req.scopeError(p.opts.scopes); err != nil {
		return nil, err
	}
	rawArgs, _ := req.Param("arguments")
	given, err := stringMap(rawArgs, "arguments", p.declares)
	if err != nil {
		return nil, err
	}
	args := map[string]string{}
	var missing []string
	for _, a := range p.def.Arguments {
		v, ok := given[a.Name]
		if ok {
			args[a.Name] = v
		} else if a.Required {
			missing = append(missing, a.Name)
		}
	}
	if missing != nil {
		return nil, NewError(CodeInvalidParams, "Invalid params: missing required arguments").WithData(map[string][]string{"missing": missing})
	}
	argsJSON, _ := json.Marshal(args)
	call := req.newCall(name, argsJSON)
	if err := req.attachRound(call); err != nil {
		return nil, err
	}
	var res *PromptResult
	if p.handler != nil {
		res, err = s.fromRoute(req, p, call, args)
	} else {
		ctx := context.WithValue(req.identityContext(req.HTTP.Context()), callKey{}, call)
		res, err = s.runPrompt(req, p, ctx, args)
	}
	if call.pending {
		return req.pendingOther(call)
	}
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return nil, req.fromHandler(e)
		}
		req.logError("mcp: prompt failed", "prompt", name, "err", err)
		return nil, errInternal()
	}
	if res == nil {
		req.logError("mcp: prompt returned no result", "prompt", name)
		return nil, errInternal()
	}
	f := req.rev.f
	out := &promptResult{description: res.Description, messages: make([][]byte, 0, len(res.Messages))}
	// A function's result is bounded as a route's answer is (the
	// recorder's Limits.ResponseBytes) and a tool function's result.
	limit, size := req.handler.cfg.limits.ResponseBytes, int64(len(res.Description))
	for _, m := range res.Messages {
		if size > limit {
			break // told below
		}
		if !m.Role.Valid() || m.Content.IsZero() {
			req.logError("mcp: prompt message needs role user or assistant and content", "prompt", name)
			return nil, errInternal()
		}
		block := blockFor(m.Content.JSON(!f.ResourceLinks), f.shape)
		size += int64(len(block))
		b := append([]byte(`{"role":`), jsonrpc.AppendString(nil, string(m.Role))...)
		b = append(b, `,"content":`...)
		b = append(b, block...)
		out.messages = append(out.messages, append(b, '}'))
	}
	if size > limit {
		req.logError("mcp: prompt response over the size limit", "prompt", name, "limit", limit)
		return nil, errInternal()
	}
	return out, nil
}

func (s *Server) runPrompt(req *request, p *prompt, ctx context.Context, args map[string]string) (res *PromptResult, err error) {
	defer func() {
		if v := recover(); v != nil {
			req.logError("mcp: prompt panicked", "prompt", p.def.Name, "panic", panics.Describe(v))
			res, err = nil, errInternal()
		}
	}()
	return p.render(ctx, args)
}

// fromRoute renders a prompt registered with AddPromptRoute: the route's
// JSON GetPromptResult becomes a PromptResult. It returns nil, nil when the
// route asked for input.
func (s *Server) fromRoute(req *request, p *prompt, call *Call, args map[string]string) (*PromptResult, error) {
	q := url.Values{}
	for k, v := range args {
		q.Set(k, v)
	}
	path, _, _ := p.route.Fill(nil) // no wildcards
	rec, v := req.runRoute(p.handler, call, inner{pattern: p.route.Text, method: http.MethodGet, path: path, query: q.Encode()})
	if rec.Interrupted {
		return nil, req.interruptedRoute("prompt", "prompt", p.def.Name)
	}
	if v != nil {
		req.logError("mcp: prompt handler panicked", "prompt", p.def.Name, "panic", v)
		return nil, errInternal()
	}
	switch {
	case call.pending:
		return nil, nil
	case rec.Status == http.StatusNotFound:
		return nil, unknownPrompt(p.def.Name)
	case rec.Status >= 400 && rec.Status < 500:
		return nil, NewError(CodeInvalidParams, "The prompt could not be rendered").WithData(map[string]any{"name": p.def.Name, "status": rec.Status})
	case rec.Over || rec.Status < 200 || rec.Status >= 300:
		req.logError("mcp: prompt route failed", "prompt", p.def.Name, "status", rec.Status)
		return nil, errInternal()
	}
	body := rec.Body.Bytes()
	var doc struct {
		Description string `json:"description"`
		Messages    []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if jsonrpc.Validate(body, jsonrpc.DefaultMaxDepth) != nil || json.Unmarshal(body, &doc) != nil || len(doc.Messages) == 0 {
		req.logError("mcp: prompt route answered no valid messages", "prompt", p.def.Name)
		return nil, errInternal()
	}
	res := &PromptResult{Description: doc.Description}
	for _, m := range doc.Messages {
		c, ok := content.Parse(m.Content)
		if !ok || !promptBlock(m.Content) {
			req.logError("mcp: prompt route answered a message without typed content", "prompt", p.def.Name)
			return nil, errInternal()
		}
		res.Messages = append(res.Messages, PromptMessage{Role: content.Role(m.Role), Content: c})
	}
	return res, nil
}

// promptMethods are the method table's rows of prompts (see methodTable).
var promptMethods = []*methodRow{
	{name: "prompts/list", Method: seam.Method{Cacheable: true}, capability: seam.CapPrompts, serve: (*Server).listPrompts},
	{name: "prompts/get", Method: seam.Method{InputRequired: true, Member: "name"}, capability: seam.CapPrompts, serve: (*Server).getPrompt},
}

// promptBlock reports whether raw, a block a prompt route wrote, is one of
// the types a prompt message holds, with what that type requires: text
// its text; image and audio base64 data and a MIME type; resource_link a
// uri and a name; resource an embedded resource, a uri with a text or a
// base64 blob. What a route answers reaches the model as it stands, so it
// is checked as the library's own builders would have made it.
func promptBlock(raw []byte) bool {
	str := func(obj []byte, name string) ([]byte, bool) {
		v, ok := jsonrpc.Lookup(obj, name)
		if _, isStr := jsonrpc.String(v); !ok || !isStr {
			return nil, false
		}
		return v, true
	}
	typ, _ := str(raw, "type")
	kind, _ := jsonrpc.String(typ)
	switch kind {
	case "text":
		_, ok := str(raw, "text")
		return ok
	case "image", "audio":
		data, ok := str(raw, "data")
		mt, hasType := str(raw, "mimeType")
		return ok && hasType && string(mt) != `""` && isBase64(data)
	case "resource_link":
		_, hasURI := str(raw, "uri")
		_, hasName := str(raw, "name")
		return hasURI && hasName
	case "resource":
		res, ok := jsonrpc.Lookup(raw, "resource")
		if !ok || !jsonrpc.IsObject(res) {
			return false
		}
		_, hasURI := str(res, "uri")
		_, hasText := str(res, "text")
		blob, hasBlob := str(res, "blob")
		return hasURI && hasText != hasBlob && (!hasBlob || isBase64(blob))
	}
	return false
}

// isBase64 reports whether raw, a JSON string, holds standard base64.
func isBase64(raw []byte) bool {
	s, ok := jsonrpc.String(raw)
	if !ok {
		return false
	}
	_, err := base64.StdEncoding.DecodeString(s)
	return err == nil
}
