package mcp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpdual/mcpdual/headers"
	"github.com/mcpdual/mcpdual/internal/inproc"
	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/schema"
	"github.com/mcpdual/mcpdual/mcp/apps"
	"github.com/mcpdual/mcpdual/mcp/auth"
)

// Tool is the MCP definition of a tool.
type Tool struct {
	// Name identifies the tool: 1 to 128 characters from A-Z a-z 0-9 _ - .
	Name string
	// Title is a human-readable name (sent from revision 2025-06-18 on).
	Title       string
	Description string
	// InputSchema is the JSON Schema of the arguments, with root type
	// "object"; nil means {"type":"object"}. Without "$schema" it is JSON
	// Schema 2020-12. It may carry "x-mcp-header" annotations.
	InputSchema json.RawMessage
	// OutputSchema, when set, describes the handler's 2xx JSON body, which
	// is then validated and also sent as structuredContent (2025-06-18 on).
	OutputSchema json.RawMessage
	Annotations  Annotations
	// Icons are sent from revision 2025-11-25 on.
	Icons []Icon
	// Meta is the definition's _meta, a JSON object (sent from revision
	// 2025-06-18 on). Its "ui" member is UI's to set.
	Meta json.RawMessage
	// UI links the tool to an MCP Apps view and says who may call it
	// (_meta.ui). A tool whose visibility is apps.App alone is listed to,
	// and callable by, only clients that declare the extension.
	UI *apps.ToolUI
}

// Annotations are the behaviour hints clients use to decide what to
// confirm. All four hints are always sent explicitly, so a client never
// falls back to the protocol's defaults (which would call every tool
// destructive and open-world).
type Annotations struct {
	Title       string
	ReadOnly    bool // readOnlyHint: the tool only reads.
	Destructive bool // destructiveHint: it deletes, sends, rotates or revokes.
	Idempotent  bool // idempotentHint: repeating the call has no further effect.
	OpenWorld   bool // openWorldHint: it reaches outside the service.
}

var toolName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// tool is a registered tool with everything derived at registration.
type tool struct {
	def        Tool
	input      *schema.Schema
	output     *schema.Schema
	params     []headers.Param
	route      inproc.Pattern
	handler    http.Handler
	shapes     [nShapes]json.RawMessage // the definition in each revision's shape
	pathParams map[string]bool
	queryArgs  nameSet // arguments sent in the query whatever the method
	opts       itemOptions
	fn         *funcTool // AddToolFunc's function, instead of route and handler
	meta       []byte    // the rendered _meta, nil without one
	appOnly    bool      // UI's visibility is apps.App alone
	statusOf   *tool     // a task's generated status tool: the task's tool (taskstatus.go)
	digest     string    // definitionDigest, set when the first snapshot holding it is frozen (update.go)
	jobDigest  string    // jobDigestOf, set with digest ("" for a tool that is no task)
}

// WithPlacement places a tool's arguments as p says. AddTool panics when p
// names an argument the input schema does not have, or a route wildcard,
// or asks for a body on a GET or HEAD route.
func WithPlacement(p Placement) ItemOption {
	cp := p
	cp.Query = append([]string(nil), p.Query...)
	return itemOptionFunc(func(o *itemOptions) { o.placement = &cp })
}

// AddTool registers t, served by h through route, a pattern such as
// "GET /api/v1/emails/{id}" or "POST /api/v1/jobs". A call runs h
// in-process: path wildcards are filled from the arguments of the same name
// (each escaped as one path segment), the other arguments become the query
// string for GET, HEAD and DELETE and the JSON body otherwise. h may be the
// host's whole ServeMux or the route's own handler; r.PathValue works in
// both.
//
// The route's answer becomes the result, read by its media type as net/http
// would send it (a body written without a Content-Type has the type
// http.DetectContentType sniffs, as on the network):
//   - 2xx with a JSON body: one text block holding the JSON, and, when t
//     has an OutputSchema, structuredContent validated against it (a body
//     that breaks it is an internal error, logged);
//   - 2xx of media type image/* or audio/*: one image or audio block, the
//     body base64-encoded, with the media type;
//   - 2xx of media type ToolResultMediaType: the body is the whole
//     CallToolResult, for routes written for MCP;
//   - any other 2xx (text/plain, or no body at all, as a 204 sends): one
//     text block with the body as text, trailing newlines dropped (empty
//     for no body; bytes that are not UTF-8 become U+FFFD, so send binary
//     data as image/*, audio/* or a ToolResultMediaType resource);
//   - 4xx: isError, with the body as text (or "404 Not Found" when it is
//     empty), so the model can act on it;
//   - 502, 503 or 504 (the route's service is down or busy for now):
//     isError telling the caller to retry, in the route's Retry-After
//     seconds when it sends them; the body is neither sent nor logged;
//   - 3xx, any other 5xx, a panic or a body over Limits.ResponseBytes:
//     isError with a generic text, the details logged, never sent.
//
// AddTool panics on a duplicate or invalid name, a schema that does not
// compile or whose root type is not "object", an invalid "x-mcp-header"
// annotation, an invalid route, a nil handler, or a path wildcard that is
// not a required string, integer, number or boolean property of the input
// schema.
func (s *Server) AddTool(t Tool, route string, h http.Handler, opts ...ItemOption) {
	s.done(s.addTool(t, route, h, opts))
}

// toolBase runs the checks every tool takes, a route's or a function's:
// its name (valid, not yet registered), icons, the input schema (an
// object, with valid x-mcp-header annotations), the output schema and
// _meta. It returns the entry and the input schema's document. s.mu is
// held.
func (s *Server) toolBase(t Tool) (*tool, map[string]any, error) {
	if !toolName.MatchString(t.Name) {
		return nil, nil, fmt.Errorf("mcp: invalid tool name %q: use 1-128 characters from A-Z a-z 0-9 and \"_-.\"", t.Name)
	}
	if s.has(auth.KindTool, t.Name, func(s *Server) bool { return s.byName[t.Name] != nil }) {
		return nil, nil, errors.New("mcp: tool " + t.Name + " registered twice")
	}
	if err := checkIcons("tool "+t.Name, t.Icons); err != nil {
		return nil, nil, err
	}
	in, inDoc, err := s.compileSchema(t.InputSchema)
	if err != nil {
		return nil, nil, toolFail(t.Name, "inputSchema: %v", err)
	}
	if inDoc["type"] != "object" {
		return nil, nil, toolFail(t.Name, `inputSchema must have root "type": "object"`)
	}
	if err := schema.Objects(inDoc); err != nil {
		return nil, nil, toolFail(t.Name, "inputSchema.%v", err)
	}
	params, err := headers.ParseAnnotations(inDoc)
	if err != nil {
		return nil, nil, toolFail(t.Name, "inputSchema: %v", err)
	}
	var out *schema.Schema
	if t.OutputSchema != nil {
		var outDoc map[string]any
		if out, outDoc, err = s.compileSchema(t.OutputSchema); err != nil {
			return nil, nil, toolFail(t.Name, "outputSchema: %v", err)
		}
		if err := schema.Objects(outDoc); err != nil {
			return nil, nil, toolFail(t.Name, "outputSchema.%v", err)
		}
	}
	entry := &tool{def: t, input: in, output: out, params: params}
	if err := entry.setMeta(); err != nil {
		return nil, nil, toolFail(t.Name, "%v", err)
	}
	return entry, inDoc, nil
}

// toolFail is a refusal of tool name's registration.
func toolFail(name, format string, args ...any) error {
	return errors.New("mcp: tool " + name + ": " + fmt.Sprintf(format, args...))
}

// addTool is AddTool returning its refusal; see Register.
func (s *Server) addTool(t Tool, route string, h http.Handler, opts []ItemOption) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.notFrozen("AddTool"); err != nil {
		return err
	}
	if h == nil {
		return errors.New("mcp: AddTool " + t.Name + ": nil handler")
	}
	fail := func(format string, args ...any) error { return toolFail(t.Name, format, args...) }
	if t.InputSchema == nil {
		t.InputSchema = json.RawMessage(`{"type":"object"}`)
	}
	entry, inDoc, err := s.toolBase(t)
	if err != nil {
		return err
	}
	rt, err := inproc.Parse(route)
	if err != nil {
		return fail("route %q: %v", route, err)
	}
	entry.route, entry.handler, entry.pathParams = rt, h, map[string]bool{}
	for _, o := range opts {
		o.applyItem(&entry.opts)
	}
	if entry.opts.completions != nil {
		return fail("WithCompletion applies to prompts and resource templates, not tools")
	}
	required := map[string]bool{}
	if req, ok := inDoc["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				required[name] = true
			}
		}
	}
	props, _ := inDoc["properties"].(map[string]any)
	for _, seg := range rt.Segments {
		if !seg.Wildcard {
			continue
		}
		prop, _ := props[seg.Text].(map[string]any)
		if !required[seg.Text] || !scalarType(prop["type"]) {
			return fail("route wildcard {%s} must be a required string, integer, number or boolean property of inputSchema", seg.Text)
		}
		entry.pathParams[seg.Text] = true
	}
	if p := entry.opts.placement; p != nil {
		entry.queryArgs = nameSet{}
		for _, q := range p.Query {
			if props[q] == nil || entry.pathParams[q] || q == p.Body {
				return fail("Placement.Query %q must be a property of inputSchema that is neither a route wildcard nor the body", q)
			}
			entry.queryArgs[q] = true
		}
		if p.Body != "" && (props[p.Body] == nil || entry.pathParams[p.Body]) {
			return fail("Placement.Body %q must be a property of inputSchema that is not a route wildcard", p.Body)
		}
		if (p.Body != "" || p.Form) && (rt.Method == http.MethodGet || rt.Method == http.MethodHead) {
			return fail("Placement.Body and Placement.Form need a route whose method has a body, not %s", rt.Method)
		}
		if p.Body != "" && p.Form {
			return fail("Placement.Body and Placement.Form exclude each other")
		}
	}
	s.putTool(entry)
	if sp := entry.opts.task; sp != nil && sp.statusTool != "" {
		return s.addStatusTool(entry) // taskstatus.go
	}
	return nil
}

// putTool renders a checked tool's definition in every shape and
// registers it, a route's or a function's. s.mu is held.
func (s *Server) putTool(entry *tool) {
	t := &entry.def
	input, output := compact(t.InputSchema), compact(t.OutputSchema)
	for i := range entry.shapes {
		entry.shapes[i] = renderTool(t, input, output, entry.meta, i)
		if i > 0 && bytes.Equal(entry.shapes[i], entry.shapes[i-1]) {
			entry.shapes[i] = entry.shapes[i-1] // most tools look the same in every revision
		}
	}
	s.tools = append(s.tools, entry)
	s.byName[t.Name] = entry
}

// compileSchema compiles a tool's schema through the server's cache, so
// tools that share a schema share its compiled form, and returns the
// decoded document (read only) for the checks AddTool makes on it.
func (s *Server) compileSchema(doc json.RawMessage) (*schema.Schema, map[string]any, error) {
	compiled, v, err := s.schemas.Compile(doc)
	if err != nil {
		return nil, nil, err
	}
	m, _ := v.(map[string]any)
	return compiled, m, nil
}

// scalarType reports whether a schema's type (one type, or a list of
// them) admits only values that fill a route wildcard.
func scalarType(typ any) bool {
	list, ok := typ.([]any)
	if !ok {
		list = []any{typ}
	}
	for _, t := range list {
		switch t {
		case "string", "integer", "number", "boolean":
		default:
			return false
		}
	}
	return len(list) > 0
}

// renderTool renders a definition once, at registration, in shape; the
// schemas come compact.
func renderTool(t *Tool, input, output, meta []byte, shape int) json.RawMessage {
	modern := shape >= shapeTitles
	b := make([]byte, 0, 128+len(t.Name)+len(t.Title)+len(t.Description)+len(input)+len(output))
	b = append(b, `{"name":`...)
	b = jsonrpc.AppendString(b, t.Name)
	if modern && t.Title != "" {
		b = append(b, `,"title":`...)
		b = jsonrpc.AppendString(b, t.Title)
	}
	if t.Description != "" {
		b = append(b, `,"description":`...)
		b = jsonrpc.AppendString(b, t.Description)
	}
	b = append(b, `,"inputSchema":`...)
	b = append(b, input...)
	if modern && output != nil {
		b = append(b, `,"outputSchema":`...)
		b = append(b, output...)
	}
	a := t.Annotations
	b = append(b, `,"annotations":{`...)
	if a.Title != "" {
		b = append(b, `"title":`...)
		b = jsonrpc.AppendString(b, a.Title)
		b = append(b, ',')
	}
	b = append(b, `"readOnlyHint":`...)
	b = strconv.AppendBool(b, a.ReadOnly)
	b = append(b, `,"destructiveHint":`...)
	b = strconv.AppendBool(b, a.Destructive)
	b = append(b, `,"idempotentHint":`...)
	b = strconv.AppendBool(b, a.Idempotent)
	b = append(b, `,"openWorldHint":`...)
	b = strconv.AppendBool(b, a.OpenWorld)
	b = append(b, '}')
	if shape >= shapeIcons {
		b = appendIcons(b, t.Icons)
	}
	if modern && meta != nil {
		b = append(b, `,"_meta":`...)
		b = append(b, meta...)
	}
	return append(b, '}')
}

// setMeta checks the definition's Meta and UI and renders its _meta.
func (t *tool) setMeta() error {
	ui, appOnly, err := toolUI(t.def.UI)
	if err != nil {
		return err
	}
	if t.meta, err = itemMeta(t.def.Meta, ui); err != nil {
		return err
	}
	if t.def.UI != nil {
		cp := *t.def.UI // the registry keeps its own copy
		cp.Visibility = append([]apps.Visibility(nil), cp.Visibility...)
		t.def.UI = &cp
	}
	t.appOnly = appOnly
	return nil
}

type nameSet map[string]bool

// toolNamed finds the tool a raw JSON name names. The name is matched
// against the registry without being copied out of the body; ok is false
// when raw is not a JSON string, t nil when no tool has the name.
func (s *Server) toolNamed(raw []byte) (t *tool, name string, ok bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return nil, "", false
	}
	if inner := raw[1 : len(raw)-1]; bytes.IndexByte(inner, '\\') < 0 {
		if t := s.byName[string(inner)]; t != nil {
			return t, t.def.Name, true
		}
	}
	name, ok = jsonrpc.String(raw)
	return s.byName[name], name, ok
}

// definitionDigest is what a sealed state made for t binds of its definition: what
// decides what a call does (its schemas, route and placement, annotations,
// task routes and support), not what only describes it (title,
// description, icons).
func (t *tool) definitionDigest() string {
	a := t.def.Annotations
	fields := [][]byte{
		compact(t.def.InputSchema),
		compact(t.def.OutputSchema),
		[]byte(t.route.Text),
		[]byte(strconv.FormatBool(a.ReadOnly) + strconv.FormatBool(a.Destructive) + strconv.FormatBool(a.Idempotent) +
			strconv.FormatBool(a.OpenWorld) + strconv.FormatBool(t.opts.noConfirm)),
		[]byte(strings.Join(slices.Sorted(maps.Keys(t.pathParams)), ",") + "|" + strings.Join(slices.Sorted(maps.Keys(t.queryArgs)), ",")),
	}
	if sp := t.opts.task; sp != nil {
		fields = append(fields, []byte(sp.status.Text+" "+sp.cancel.Text+" "+sp.update.Text+" "+sp.statusTool+" "+strconv.Itoa(int(sp.support))))
	}
	if t.statusOf != nil {
		fields = append(fields, []byte(t.statusOf.definitionDigest()))
	}
	return digestFields(fields...)
}

// digestFields is the 8-byte digest, in hex, of fields, each written
// after its length so that no two lists of fields hash alike. Digests are
// sealed into states and task ids that outlive a deployment: how they are
// computed does not change (TestDigests_Stable).
func digestFields(fields ...[]byte) string {
	h := sha256.New()
	for _, b := range fields {
		h.Write([]byte(strconv.Itoa(len(b)) + ":"))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// jobDigestOf is the digest a task id seals: what reading a job it
// started depends on, the status route (whose wildcards the sealed values
// fill) and the output schema (which its result is checked against), and
// no more. A task outlives edits of the rest of its tool's definition (its
// input schema, its cancel or update route, which WithTask keeps within
// the status route's wildcards): the job runs on, and its client must
// still learn how it ended. "" for a tool that is no task.
func (t *tool) jobDigestOf() string {
	sp := t.opts.task
	if sp == nil {
		return ""
	}
	return digestFields([]byte(sp.status.Text), compact(t.def.OutputSchema))
}
