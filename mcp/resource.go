package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/mcpdual/mcpdual/internal/inproc"
	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/mcp/apps"
	"github.com/mcpdual/mcpdual/mcp/auth"
)

// ResourceContentsMediaType is the media type a handler written for MCP
// uses to answer a read with several contents ({"contents": [...]}, each
// {uri, mimeType?, text} or {uri, mimeType?, blob}) instead of one body.
const ResourceContentsMediaType = "application/vnd.mcp.resource-contents+json"

// Resource is a document with a fixed URI.
type Resource struct {
	// URI is an absolute RFC 3986 URI such as "inbox://settings".
	URI         string
	Name        string // required
	Title       string // sent from 2025-06-18 on
	Description string
	MIMEType    string
	Size        int64  // in bytes; 0 leaves it out
	Icons       []Icon // sent from revision 2025-11-25 on
	// Meta is the resource's _meta, a JSON object, sent on its listing and
	// on the contents a read returns from its route (from revision
	// 2025-06-18 on). Its "ui" member is UI's to set.
	Meta json.RawMessage
	// UI is the _meta.ui of an MCP Apps view: a resource whose URI starts
	// with "ui://", whose MIME type is apps.MIMEType (the default for such
	// a URI) and whose route answers HTML.
	UI *apps.ResourceUI
}

// ResourceTemplate is a family of resources named by an RFC 6570 URI
// template of simple {var} expansions, such as "inbox://emails/{id}".
type ResourceTemplate struct {
	URITemplate string
	Name        string // required
	Title       string
	Description string
	MIMEType    string
	Icons       []Icon // sent from revision 2025-11-25 on
	// Meta is the template's _meta, a JSON object, sent on its listing and
	// on the contents its route returns (from revision 2025-06-18 on).
	Meta json.RawMessage
}

type resource struct {
	def     Resource
	route   inproc.Pattern
	handler http.Handler
	opts    itemOptions
	shapes  [nShapes]json.RawMessage
	meta    []byte      // the rendered _meta, nil without one
	view    bool        // an MCP Apps view (a ui:// URI)
	misread atomic.Bool // the view's route answered other than HTML (logged)
}

type template struct {
	def     ResourceTemplate
	route   inproc.Pattern
	handler http.Handler
	opts    itemOptions
	match   *regexp.Regexp
	vars    []string
	inPath  map[string]bool
	shapes  [nShapes]json.RawMessage
	meta    []byte // the rendered _meta, nil without one
	// read is AddTemplateFunc's function, instead of route and handler.
	read func(ctx context.Context, uri string, vals map[string]string) ([]byte, error)
}

// AddResource registers r, read by a GET on route (a pattern without
// wildcards, such as "GET /api/v1/settings") of h, in-process, with the
// caller's identity. The route's 2xx body becomes one content of its media
// type (the type net/http would send: sniffed when the route sets no
// Content-Type): text for textual types (text/*, JSON, XML, YAML, JavaScript) in
// valid UTF-8, a base64 blob otherwise; a body of ResourceContentsMediaType
// gives several contents. A route answering 401, 403, 404 or 410 makes the
// resource not found (the revision's not-found error), another 4xx -32602,
// a 5xx or a panic -32603
// (details logged). It panics on an invalid or duplicate URI, a missing
// name, a nil handler or an invalid route.
func (s *Server) AddResource(r Resource, route string, h http.Handler, opts ...ItemOption) {
	s.done(s.addResource(r, route, h, opts))
}

func (s *Server) addResource(r Resource, route string, h http.Handler, opts []ItemOption) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.notFrozen("AddResource"); err != nil {
		return err
	}
	if err := checkURI(r.URI); err != nil {
		return fmt.Errorf("mcp: resource %q: %v", r.URI, err)
	}
	if r.Name == "" || h == nil {
		return errors.New("mcp: resource " + r.URI + " needs a name and a handler")
	}
	if s.has(auth.KindResource, r.URI, func(s *Server) bool { return s.byURI[r.URI] != nil }) {
		return errors.New("mcp: resource " + r.URI + " registered twice")
	}
	rt, err := getRoute("resource "+r.URI, route)
	if err != nil {
		return err
	}
	for _, seg := range rt.Segments {
		if seg.Wildcard {
			return errors.New("mcp: resource " + r.URI + ": a fixed resource's route has no wildcards; use AddResourceTemplate")
		}
	}
	ui, view, err := resourceUI(r.URI, &r.MIMEType, r.UI)
	if err != nil {
		return fmt.Errorf("mcp: resource %s: %v", r.URI, err)
	}
	meta, err := itemMeta(r.Meta, ui)
	if err != nil {
		return fmt.Errorf("mcp: resource %s: %v", r.URI, err)
	}
	e := &resource{def: r, route: rt, handler: h, meta: meta, view: view}
	if e.opts, err = applyItemOptions(opts, "resource "+r.URI, nil); err != nil {
		return err
	}
	if err := checkIcons("resource "+r.URI, r.Icons); err != nil {
		return err
	}
	for i := range e.shapes {
		e.shapes[i] = renderResource(r, meta, i)
	}
	s.resources = append(s.resources, e)
	s.byURI[r.URI] = e
	return nil
}

// AddResourceTemplate registers t, read by a GET on route of h. Each
// {var} of the template matches one or more characters other than / ? #,
// is percent-decoded, and fills the route wildcard of the same name,
// escaped as one path segment exactly like a tool's argument; variables
// the route does not name go to the query string. Every route wildcard
// must be a template variable. It panics on a template using anything but
// simple {var} expansion, a duplicate template, a missing name, a nil
// handler, or an invalid route.
func (s *Server) AddResourceTemplate(t ResourceTemplate, route string, h http.Handler, opts ...ItemOption) {
	s.done(s.addTemplate(t, route, h, opts))
}

func (s *Server) addTemplate(t ResourceTemplate, route string, h http.Handler, opts []ItemOption) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.notFrozen("AddResourceTemplate"); err != nil {
		return err
	}
	if t.Name == "" || h == nil {
		return errors.New("mcp: resource template " + t.URITemplate + " needs a name and a handler")
	}
	if err := s.templateTaken(t.URITemplate); err != nil {
		return err
	}
	if strings.HasPrefix(strings.ToLower(t.URITemplate), "ui://") {
		// MCP Apps reserves ui:// for views of text/html;profile=mcp-app,
		// which are resources of their own; a template's reads would carry
		// whatever type its route answers.
		return errors.New("mcp: resource template " + t.URITemplate + ": ui:// names MCP Apps views, which are resources (AddResource), not templates")
	}
	re, vars, err := compileTemplate(t.URITemplate)
	if err != nil {
		return fmt.Errorf("mcp: resource template %q: %v", t.URITemplate, err)
	}
	rt, err := getRoute("resource template "+t.URITemplate, route)
	if err != nil {
		return err
	}
	meta, err := itemMeta(t.Meta, nil)
	if err != nil {
		return fmt.Errorf("mcp: resource template %s: %v", t.URITemplate, err)
	}
	e := &template{def: t, route: rt, handler: h, match: re, vars: vars, inPath: map[string]bool{}, meta: meta}
	isVar := map[string]bool{}
	for _, v := range vars {
		isVar[v] = true
	}
	for _, seg := range rt.Segments {
		if seg.Wildcard {
			if !isVar[seg.Text] {
				return fmt.Errorf("mcp: resource template %q: route wildcard {%s} is not a template variable", t.URITemplate, seg.Text)
			}
			e.inPath[seg.Text] = true
		}
	}
	if e.opts, err = applyItemOptions(opts, "resource template "+t.URITemplate, isVar); err != nil {
		return err
	}
	if err := checkIcons("resource template "+t.URITemplate, t.Icons); err != nil {
		return err
	}
	for i := range e.shapes {
		e.shapes[i] = renderTemplate(t, meta, i)
	}
	s.templates = append(s.templates, e)
	return nil
}

// hasTemplate reports whether s has a template of that URI template.
// s.mu is held.
func (s *Server) hasTemplate(uriTemplate string) bool {
	for _, t := range s.templates {
		if t.def.URITemplate == uriTemplate {
			return true
		}
	}
	return false
}

// templateTaken refuses uriTemplate when s, or on a staging view the
// server it stages for, holds it already. s.mu is held.
func (s *Server) templateTaken(uriTemplate string) error {
	if s.has(auth.KindTemplate, uriTemplate, func(s *Server) bool { return s.hasTemplate(uriTemplate) }) {
		return errors.New("mcp: resource template " + uriTemplate + " registered twice")
	}
	return nil
}

func getRoute(what, pattern string) (inproc.Pattern, error) {
	rt, err := inproc.Parse(pattern)
	if err != nil {
		return inproc.Pattern{}, fmt.Errorf("mcp: %s: route %q: %v", what, pattern, err)
	}
	if rt.Method != http.MethodGet {
		return inproc.Pattern{}, fmt.Errorf("mcp: %s: route %q: resources are read with GET", what, pattern)
	}
	return rt, nil
}

var templateVar = regexp.MustCompile(`\{([^{}]*)\}`)
var varName = regexp.MustCompile(`^[A-Za-z0-9_]{1,64}$`)

// compileTemplate turns a level-1 RFC 6570 template into an anchored
// matcher with one group per variable.
func compileTemplate(t string) (*regexp.Regexp, []string, error) {
	if err := checkURI(templateVar.ReplaceAllString(t, "x")); err != nil {
		return nil, nil, err
	}
	var b strings.Builder
	b.WriteByte('^')
	var vars []string
	seen := map[string]bool{}
	last := 0
	for _, m := range templateVar.FindAllStringSubmatchIndex(t, -1) {
		lit := t[last:m[0]]
		if strings.ContainsAny(lit, "{}") {
			return nil, nil, fmt.Errorf("unbalanced braces")
		}
		b.WriteString(regexp.QuoteMeta(lit))
		name := t[m[2]:m[3]]
		if !varName.MatchString(name) {
			return nil, nil, fmt.Errorf("{%s}: only simple {var} expansion is supported", name)
		}
		if seen[name] {
			return nil, nil, fmt.Errorf("variable {%s} appears twice", name)
		}
		seen[name] = true
		vars = append(vars, name)
		b.WriteString(`([^/?#]+)`)
		last = m[1]
	}
	if strings.ContainsAny(t[last:], "{}") {
		return nil, nil, fmt.Errorf("unbalanced braces")
	}
	b.WriteString(regexp.QuoteMeta(t[last:]))
	b.WriteByte('$')
	if len(vars) == 0 {
		return nil, nil, fmt.Errorf("a template needs a {variable}; use AddResource")
	}
	return regexp.MustCompile(b.String()), vars, nil
}

func renderResource(r Resource, meta []byte, shape int) json.RawMessage {
	f := []string{"uri", r.URI, "name", r.Name}
	if shape >= shapeTitles && r.Title != "" {
		f = append(f, "title", r.Title)
	}
	if r.Description != "" {
		f = append(f, "description", r.Description)
	}
	if r.MIMEType != "" {
		f = append(f, "mimeType", r.MIMEType)
	}
	b := jsonrpc.Object(f...)
	b = b[:len(b)-1]
	if r.Size > 0 {
		b = append(b, `,"size":`...)
		b = strconv.AppendInt(b, r.Size, 10)
	}
	if shape >= shapeIcons {
		b = appendIcons(b, r.Icons)
	}
	if shape >= shapeTitles && meta != nil {
		b = append(b, `,"_meta":`...)
		b = append(b, meta...)
	}
	return append(b, '}')
}

func renderTemplate(t ResourceTemplate, meta []byte, shape int) json.RawMessage {
	f := []string{"uriTemplate", t.URITemplate, "name", t.Name}
	if shape >= shapeTitles && t.Title != "" {
		f = append(f, "title", t.Title)
	}
	if t.Description != "" {
		f = append(f, "description", t.Description)
	}
	if t.MIMEType != "" {
		f = append(f, "mimeType", t.MIMEType)
	}
	b := jsonrpc.Object(f...)
	if shape >= shapeIcons && len(t.Icons) > 0 {
		b = append(appendIcons(b[:len(b)-1], t.Icons), '}')
	}
	if shape >= shapeTitles && meta != nil {
		b = append(append(append(b[:len(b)-1], `,"_meta":`...), meta...), '}')
	}
	return b
}

// listResources answers resources/list: the fixed resources the caller
// may read, in registration order, a page at a time.
func (s *Server) listResources(req *request) (seam.Result, error) {
	return listPage(s, req, "resources", "resources", s.resources)
}

// listTemplates answers resources/templates/list.
func (s *Server) listTemplates(req *request) (seam.Result, error) {
	return listPage(s, req, "templates", "resourceTemplates", s.templates)
}

func (r *resource) access() (string, string, []string) {
	return auth.KindResource, r.def.URI, r.opts.scopes
}
func (r *resource) shape(i int) json.RawMessage { return r.shapes[i] }
func (t *template) access() (string, string, []string) {
	return auth.KindTemplate, t.def.URITemplate, t.opts.scopes
}
func (t *template) shape(i int) json.RawMessage { return t.shapes[i] }

// resourceNotFound is the revision's code for an unknown resource
// (-32002, or -32602 on 2026-07-28, which forbids -32002), with the URI.
func resourceNotFound(req *request, uri string) *Error {
	// The echo is bounded; cut where a character ends, or half of one
	// would be sent as U+FFFD and the echo would not start the URI asked.
	uri = uri[:jsonrpc.CutText(uri, 512)]
	return NewError(req.rev.f.resourceNotFound, "Resource not found").WithData(map[string]string{"uri": uri})
}

// readResource answers resources/read. The URI picks a fixed resource or
// the first template that matches it; anything else, a resource the
// caller may not see, and a route answering 401, 403, 404 or 410 are "not
// found". The route's 2xx body becomes one content: text for textual media
// types (text/*, JSON, XML, YAML, JavaScript) in valid UTF-8, base64 blob
// otherwise, with the response's media type; a body of
// ResourceContentsMediaType gives several. Other 4xx answers are -32602,
// 5xx and panics -32603 (details logged).
func (s *Server) readResource(req *request) (seam.Result, error) {
	raw, ok := req.Param("uri")
	uri, isStr := jsonrpc.String(raw)
	if !ok || !isStr || uri == "" {
		return nil, NewError(CodeInvalidParams, "Invalid params: uri must be a string")
	}
	return s.readURI(req, uri)
}

// readURI reads uri for req: resources/read, and a subscription's check
// that the caller may read what it subscribes to (listen.go, push.go).
func (s *Server) readURI(req *request, uri string) (seam.Result, error) {
	if _, err := req.Workspace(); err != nil {
		return nil, err
	}
	if len(uri) > maxURIBytes {
		return nil, resourceNotFound(req, uri)
	}
	var h http.Handler
	var in inner
	var scopes []string
	var fn *template // a template read by a function, and its variables
	var fnVals map[string]string
	var meta []byte    // the item's _meta, for the contents
	var view *resource // an MCP Apps view, whose route must answer HTML
	args := json.RawMessage(`{}`)
	if r := s.resourceAt(uri); r != nil {
		if !req.visible(auth.KindResource, r.def.URI) {
			// Hidden, it is not found: not read through a template that
			// also matches its URI, whose route the host's mux may well
			// send to this resource's own.
			return nil, resourceNotFound(req, uri)
		}
		h, scopes, meta = r.handler, r.opts.scopes, r.meta
		if r.view {
			view = r
		}
		in.path, _, _ = r.route.Fill(nil) // no wildcards
		in.pattern = r.route.Text
	} else {
		for _, t := range s.templates {
			vals, ok := t.matchURI(uri)
			if !ok {
				continue
			}
			if !req.visible(auth.KindTemplate, t.def.URITemplate) || !req.visibleURI(uri, t, vals) {
				break
			}
			h, scopes, meta = t.handler, t.opts.scopes, t.meta
			in, args = t.request(vals)
			if t.read == nil && namesLiteral(s.literals, t.route, in.values, t.handler) {
				// The filled path is another item's own route: a mux
				// prefers it to the template's wildcard, and would run
				// that item's route past its scopes and permission.
				return nil, resourceNotFound(req, uri)
			}
			if t.read != nil {
				fn, fnVals = t, vals
			}
			break
		}
	}
	if h == nil && fn == nil {
		return nil, resourceNotFound(req, uri)
	}
	if err := req.scopeError(scopes); err != nil {
		return nil, err
	}
	call := req.newCall(uri, args)
	if err := req.attachRound(call); err != nil {
		return nil, err
	}
	if fn != nil {
		return req.readFunc(fn, call, uri, fnVals)
	}
	in.method = http.MethodGet
	rec, p := req.runRoute(h, call, in)
	if rec.Interrupted {
		return nil, req.interruptedRoute("resource read", "uri", uri)
	}
	if p != nil {
		req.logError("mcp: resource handler panicked", "uri", uri, "panic", p)
		return nil, errInternal()
	}
	if call.pending {
		return req.pendingOther(call)
	}
	return s.contents(req, uri, rec, meta, view)
}

// matchURI returns the decoded variables of uri, or ok false when it does
// not match or a variable decodes to nothing usable as one path segment.
func (t *template) matchURI(uri string) (map[string]string, bool) {
	m := t.match.FindStringSubmatch(uri)
	if m == nil {
		return nil, false
	}
	vals := make(map[string]string, len(t.vars))
	for i, name := range t.vars {
		v, err := url.PathUnescape(m[i+1])
		if err != nil || v == "" || v == "." || v == ".." || !utf8.ValidString(v) {
			return nil, false
		}
		vals[name] = v
	}
	return vals, true
}

// request builds the route request for decoded variables: path wildcards
// escaped per segment, the other variables in the query.
func (t *template) request(vals map[string]string) (inner, json.RawMessage) {
	// matchURI has refused every value Fill could refuse.
	path, values, _ := t.route.Fill(func(name string) (string, bool) { v, ok := vals[name]; return v, ok })
	q := url.Values{}
	fields := make([]string, 0, 2*len(t.vars))
	for _, name := range t.vars {
		if !t.inPath[name] {
			q.Set(name, vals[name])
		}
		fields = append(fields, name, vals[name])
	}
	return inner{pattern: t.route.Text, method: http.MethodGet, path: path, query: q.Encode(), values: values}, jsonrpc.Object(fields...)
}

// contents turns a route's answer into a read result; meta is the item's
// _meta, for the one content a body becomes; view is the MCP Apps view
// read, nil for another resource.
func (s *Server) contents(req *request, uri string, rec *inproc.Recorder, meta []byte, view *resource) (seam.Result, error) {
	switch {
	case rec.Over:
		req.logError("mcp: resource response over the size limit", "uri", uri, "limit", rec.Limit)
		return nil, errInternal()
	case rec.Status == http.StatusUnauthorized, rec.Status == http.StatusForbidden, rec.Status == http.StatusNotFound, rec.Status == http.StatusGone:
		return nil, resourceNotFound(req, uri)
	case rec.Status >= 400 && rec.Status < 500:
		return nil, NewError(CodeInvalidParams, "The resource could not be read").WithData(map[string]any{"uri": uri, "status": rec.Status})
	case rec.Status < 200 || rec.Status >= 300:
		req.logError("mcp: resource route failed", "uri", uri, "status", rec.Status)
		return nil, errInternal()
	}
	body := rec.Body.Bytes()
	mt := mediaType(rec.Headers)
	if view != nil {
		if err := viewContent(req, uri, mt, &view.misread); err != nil {
			return nil, err
		}
		mt = apps.MIMEType
	}
	if mt == ResourceContentsMediaType {
		c, ok := ownContents(body)
		if !ok {
			req.logError("mcp: resource answered an invalid "+ResourceContentsMediaType+" body", "uri", uri)
			return nil, errInternal()
		}
		if req.rev.f.shape < shapeTitles {
			c = withoutMeta(c)
		}
		return &readResult{contents: c}, nil
	}
	if mt == "" {
		mt = "application/octet-stream"
	}
	fields := []string{"uri", uri, "mimeType", mt}
	if isTextual(mt) && utf8.Valid(body) {
		fields = append(fields, "text", string(body))
	} else {
		fields = append(fields, "blob", base64.StdEncoding.EncodeToString(body))
	}
	c := append([]byte{'['}, jsonrpc.Object(fields...)...)
	if meta != nil && req.rev.f.shape >= shapeTitles {
		c = append(append(append(c[:len(c)-1], `,"_meta":`...), meta...), '}')
	}
	return &readResult{contents: append(c, ']')}, nil
}

func isTextual(mt string) bool {
	switch {
	case strings.HasPrefix(mt, "text/"), strings.HasSuffix(mt, "+json"), strings.HasSuffix(mt, "+xml"):
		return true
	}
	switch mt {
	case "application/json", "application/xml", "application/javascript", "application/yaml", "application/x-yaml", "application/toml":
		return true
	}
	return false
}

// ownContents checks a handler's {"contents": [...]}: a non-empty array of
// objects, each with a string uri and a string text or base64 blob, a
// string mimeType and an object _meta when they are there.
func ownContents(body []byte) (json.RawMessage, bool) {
	if jsonrpc.Validate(body, jsonrpc.DefaultMaxDepth) != nil {
		return nil, false
	}
	c, ok := jsonrpc.Lookup(body, "contents")
	if !ok || len(c) < 2 || c[0] != '[' {
		return nil, false
	}
	var items []json.RawMessage
	if json.Unmarshal(c, &items) != nil || len(items) == 0 {
		return nil, false
	}
	for _, it := range items {
		u, ok := jsonrpc.Lookup(it, "uri")
		if _, isStr := jsonrpc.String(u); !ok || !isStr {
			return nil, false
		}
		t, hasText := jsonrpc.Lookup(it, "text")
		b, hasBlob := jsonrpc.Lookup(it, "blob")
		_, textStr := jsonrpc.String(t)
		_, blobStr := jsonrpc.String(b)
		if hasText == hasBlob || (hasText && !textStr) || (hasBlob && !blobStr) || (hasBlob && !isBase64(b)) {
			return nil, false
		}
		if mt, ok := jsonrpc.Lookup(it, "mimeType"); ok {
			if _, isStr := jsonrpc.String(mt); !isStr {
				return nil, false
			}
		}
		if m, ok := jsonrpc.Lookup(it, "_meta"); ok && !jsonrpc.IsObject(m) {
			return nil, false
		}
	}
	var out bytes.Buffer
	_ = json.Compact(&out, c)
	return out.Bytes(), true
}

// resourceMethods are the method table's rows of resources (see
// methodTable).
var resourceMethods = []*methodRow{
	{name: "resources/list", Method: seam.Method{Cacheable: true}, capability: seam.CapResources, serve: (*Server).listResources},
	{name: "resources/templates/list", Method: seam.Method{Cacheable: true}, capability: seam.CapResources, serve: (*Server).listTemplates},
	{name: "resources/read", Method: seam.Method{InputRequired: true, Cacheable: true, Member: "uri"}, capability: seam.CapResources, serve: (*Server).readResource},
}

// resourceAt returns the fixed resource uri names, in its registered
// spelling or in any other of the same URI: the first registered whose
// URI has uri's canonical spelling. Only s.resources' order settles
// between two such spellings, which a walk then finds.
func (s *Server) resourceAt(uri string) *resource {
	if r := s.byURI[uri]; r != nil {
		return r
	}
	if spellingAt(uri) < 0 {
		// uri is its own canonical spelling: only a resource registered
		// in another spelling can be another spelling of it.
		return s.escaped[uri]
	}
	c := canonicalURI(uri)
	plain, escaped := s.byURI[c], s.escaped[c] // plain is nil when c == uri
	switch {
	case plain == nil:
		return escaped
	case escaped == nil || escaped == plain:
		return plain
	}
	for _, r := range s.resources {
		if r == plain || r == escaped {
			return r
		}
	}
	return nil
}

// visibleURI reports whether the permission rule lets the caller know the
// resource uri names, uri matching t with the decoded variables vals. The
// route reads vals, whatever escapes spelled them: "v://docs/a:b" and
// "v://docs/a%3Ab" read one resource, though RFC 3986 makes them two URIs.
// So the rule is asked of the URI as the client spelled it, in its
// canonical spelling, and as t spells vals escaped only where they must be
// and escaped wherever RFC 6570's {var} escapes: a rule written for any of
// these holds for all.
func (req *request) visibleURI(uri string, t *template, vals map[string]string) bool {
	if req.handler.cfg.auth == nil {
		return true // no rule: no spelling to make
	}
	asked := [4]string{uri, canonicalURI(uri), t.expand(vals, false), t.expand(vals, true)}
	for i, u := range asked {
		if slices.Contains(asked[:i], u) {
			continue
		}
		if !req.visible(auth.KindResource, u) {
			return false
		}
	}
	return true
}

// expand spells t with the variables vals: each value escaped wherever
// RFC 6570's simple expansion escapes (all but the unreserved characters)
// when full, else only where a value must be: spaces, controls and the
// other ASCII a URI holds only escaped, "%", and the "/", "?" and "#" a
// variable cannot hold (non-ASCII characters stay, as an IRI has them).
func (t *template) expand(vals map[string]string, full bool) string {
	return templateVar.ReplaceAllStringFunc(t.def.URITemplate, func(m string) string {
		v := vals[m[1:len(m)-1]]
		b := make([]byte, 0, len(v))
		for i := 0; i < len(v); i++ {
			c := v[i]
			keep := unreserved(c)
			if !full {
				// The value is valid UTF-8 (matchURI): a rule may well
				// name an IRI, "v://docs/café".
				keep = (uriByte(c) || c >= 0x80) && c != '%' && c != '/' && c != '?' && c != '#'
			}
			if keep {
				b = append(b, c)
			} else {
				b = append(b, '%', upperHex[c>>4], upperHex[c&15])
			}
		}
		return string(b)
	})
}
