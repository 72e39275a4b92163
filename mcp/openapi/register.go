package openapi

import (
	"errors"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpdual/mcpdual/mcp"
)

// Report says what Register did with each operation of the document.
type Report struct {
	// Tools lists the registered tools, in registration order.
	Tools []Registered
	// Resources lists the resources and resource templates registered
	// through WithResource and WithResourceTemplate.
	Resources []Registered
	// Skipped lists, in document order, the operations that have no tool:
	// those no selection chose, and (unless FailUnsupported) those that
	// cannot be tools, with the reason.
	Skipped []Skipped
}

// Registered is a tool, resource or resource template made from an
// operation.
type Registered struct {
	Operation   string // "GET /emails/{id}", as the document writes it
	OperationID string
	// Name is the tool's name, or the resource's URI or URI template.
	Name string
	// Notes lists what the tool leaves out of the operation, and why:
	// optional header parameters, an output schema it could not derive...
	Notes []string
}

// Skipped is an operation without a tool.
type Skipped struct {
	Operation   string
	OperationID string
	Reason      string
}

type registrar struct {
	doc *document
	cfg config
}

// Register makes a tool of each selected operation of the OpenAPI 3.0 or
// 3.1 document spec (JSON or YAML), served in-process by h through the
// operation's route, as [mcp.Server.AddTool] does. h is typically the
// host's whole API mux; the routes are "METHOD prefix+path" (see
// WithPathPrefix).
//
// Each tool is named from the operationId (see Names in the package
// documentation), titled by the summary and described by the
// description. Its input schema holds the path and query parameters and
// the properties of a JSON or form object body (any other JSON body is
// one argument, "body"); its output schema is the 2xx JSON response's.
// Schemas are converted to JSON Schema 2020-12, and what they reference
// is copied into the schema's $defs. The annotations follow the HTTP
// method (GET and HEAD read-only and idempotent, PUT and DELETE
// idempotent, DELETE destructive, so confirmed by the user first), the
// security requirements become mcp.RequireScopes.
//
// Register asks srv, operation by operation, whether it takes the tool
// (mcp.Server.Check) before it registers anything: an operation that
// cannot be a tool, whether this package or the core refuses it, is
// skipped and listed in the Report with the reason (the JSON pointer of
// the construct when this package found it; with FailUnsupported,
// Register fails instead, listing every problem). A tool name srv already
// has, and a name the host chose that srv refuses, always fail. Every
// tool and resource kept is then registered with one call of
// mcp.Server.Register: when Register returns an error, srv is left as it
// was. Like AddTool, Register must run before srv is passed to
// mcp.NewHandler.
func Register(srv *mcp.Server, spec []byte, h http.Handler, opts ...Option) (*Report, error) {
	if srv == nil || h == nil {
		return nil, errors.New("openapi: Register needs a server and a handler")
	}
	// A server already serving takes nothing: say so once, before the
	// document is read, rather than at every operation.
	if err := srv.Check(func(*mcp.Server) {}); err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	r := &registrar{}
	for _, o := range opts {
		o.apply(&r.cfg)
	}
	doc, err := load(spec)
	if err != nil {
		return nil, err
	}
	r.doc = doc
	ops := doc.operations()

	// Names given in options must name operations of the document.
	var errs []error
	find := func(what, name string) *operation {
		for _, o := range ops {
			if o.is(name) {
				return o
			}
		}
		errs = append(errs, fmt.Errorf("openapi: %s names operation %q, which the document does not have", what, name))
		return nil
	}
	overrides := map[*operation]Override{}
	overridden := map[*operation]string{}
	for name, ov := range r.cfg.overrides {
		o := find("WithOverride", name)
		if o == nil {
			continue
		}
		if other, dup := overridden[o]; dup {
			// By operationId and by "METHOD /path": which one wins would
			// depend on map order.
			errs = append(errs, fmt.Errorf("openapi: WithOverride names operation %s twice (%q and %q)", o.label(), min(name, other), max(name, other)))
			continue
		}
		overridden[o] = name
		overrides[o] = ov
	}
	for _, name := range r.cfg.ops {
		find("WithOperations", name)
	}
	for _, rs := range r.cfg.resources {
		find("WithResource", rs.operation)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}

	report := &Report{}
	// Each selected operation is built into a tool, then checked by srv;
	// what fails is skipped with its reason or, with FailUnsupported,
	// reported.
	type entry struct {
		o   *operation
		t   *tool
		err error
	}
	var entries []entry
	for _, o := range r.order(ops) {
		if !r.selected(o) {
			report.Skipped = append(report.Skipped, o.skipped("not selected"))
			continue
		}
		t, err := r.buildTool(o, overrides[o])
		if err == nil {
			t.handler = r.handlerFor(t, h)
		}
		entries = append(entries, entry{o, t, err})
	}
	docIndex := make(map[string]int, len(ops))
	for i, o := range ops {
		docIndex[o.key()] = i
	}
	var resources []*resource
	for _, rs := range r.cfg.resources {
		o := find("WithResource", rs.operation)
		res, err := r.buildResource(o, rs, overrides[o])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		resources = append(resources, res)
	}
	if err := doc.tooLarge(); err != nil {
		return nil, err
	}
	// Everything the tools and resources need is built: the document (its
	// nodes, the operations' models) becomes garbage here, before srv
	// compiles the schemas, so that registering a large document never
	// holds it and them at once.
	r.doc, ops, overrides = nil, nil, nil
	for i := range entries {
		entries[i].o = entries[i].o.detached()
		if entries[i].t != nil {
			entries[i].t.op = entries[i].o
		}
	}
	for _, res := range resources {
		res.op = res.op.detached()
	}
	var tools []*tool
	for _, e := range entries {
		err := e.err
		if err == nil {
			// srv checks the tool under the name it asks for (which srv
			// may refuse), and compiles its schemas into its cache, where
			// the Register below finds them.
			if refused := srv.Check(e.t.add); refused != nil {
				err = e.t.refusal(srv, refused)
			}
		}
		if err != nil {
			p, _ := errors.AsType[*problem](err)
			if r.cfg.strict || (p != nil && p.host) {
				errs = append(errs, err)
				continue
			}
			reason := err.Error()
			if p != nil {
				reason = p.where()
			}
			report.Skipped = append(report.Skipped, e.o.skipped(reason))
			continue
		}
		tools = append(tools, e.t)
	}
	if len(errs) == 0 {
		// Tools get their final names together, the skipped ones taking
		// none: two operations that would take one name are told apart
		// (see names.go), or fail here when the host gave both the name.
		if err := assignNames(tools); err != nil {
			errs = append(errs, err)
		}
	}
	for _, res := range resources {
		if err := srv.Check(res.add(h)); err != nil {
			errs = append(errs, &problem{op: res.op.label(), msg: err.Error()})
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	// Skipped operations are reported in document order.
	slices.SortStableFunc(report.Skipped, func(a, b Skipped) int { return docIndex[a.Operation] - docIndex[b.Operation] })

	// srv has checked each item alone; what it can still refuse here is
	// two resources with one URI, a name the collision rule made that srv
	// already has (the hash makes that unlikely), or one another
	// goroutine registered meanwhile. Then nothing is registered.
	err = srv.Register(func(s *mcp.Server) {
		for _, t := range tools {
			t.add(s)
		}
		for _, res := range resources {
			res.add(h)(s)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	for _, t := range tools {
		report.Tools = append(report.Tools, Registered{Operation: t.op.key(), OperationID: t.op.id, Name: t.def.Name, Notes: t.notes})
	}
	for _, res := range resources {
		report.Resources = append(report.Resources, Registered{Operation: res.op.key(), OperationID: res.op.id, Name: res.name()})
	}
	return report, nil
}

// add registers t on s.
func (t *tool) add(s *mcp.Server) { s.AddTool(t.def, t.route, t.handler, t.opts...) }

// refusal is srv's refusal of t as a problem of its operation: the host's
// when srv refuses t's name by itself (a name srv already has, or an
// invalid one the host chose), so that it fails Register; the document's
// otherwise, so that the operation is skipped.
func (t *tool) refusal(srv *mcp.Server, refused error) error {
	// The least tool with t's name: srv refuses it only for the name.
	byName := srv.Check(func(s *mcp.Server) { s.AddTool(mcp.Tool{Name: t.def.Name}, "GET /", t.handler) })
	if byName == nil {
		return &problem{op: t.op.label(), msg: refused.Error()}
	}
	msg := byName.Error()
	switch t.named {
	case namedOverride:
		msg = "Override.Name: " + msg
	case namedNamer:
		msg = "WithNamer's name: " + msg
	}
	return &problem{op: t.op.label(), msg: msg, host: true}
}

// order puts the operations WithOperations names first, in its order.
func (r *registrar) order(ops []*operation) []*operation {
	out := make([]*operation, 0, len(ops))
	seen := map[*operation]bool{}
	for _, name := range r.cfg.ops {
		for _, o := range ops {
			if o.is(name) && !seen[o] {
				out = append(out, o)
				seen[o] = true
			}
		}
	}
	for _, o := range ops {
		if !seen[o] {
			out = append(out, o)
		}
	}
	return out
}

func (r *registrar) selected(o *operation) bool {
	c := &r.cfg
	if len(c.tags) == 0 && len(c.paths) == 0 && len(c.ops) == 0 {
		return true
	}
	for _, t := range o.op.Tags {
		if slices.Contains(c.tags, t) {
			return true
		}
	}
	for _, p := range c.paths {
		p = strings.TrimRight(p, "/")
		if o.path == p || strings.HasPrefix(o.path, p+"/") || p == "" {
			return true
		}
	}
	for _, name := range c.ops {
		if o.is(name) {
			return true
		}
	}
	return false
}

// handlerFor is what serves t: h itself, or h behind a toolRoute when
// the tool renames body properties or checks answers.
func (r *registrar) handlerFor(t *tool, h http.Handler) http.Handler {
	noBody := t.op.op.RequestBody == nil && (t.op.method == http.MethodPost || t.op.method == http.MethodPut || t.op.method == http.MethodPatch)
	if len(t.renames) == 0 && t.def.OutputSchema == nil && !noBody && len(t.queryRules) == 0 && len(t.formRules) == 0 && t.bodyType == "" {
		return h
	}
	return &toolRoute{h: h, tool: t.def.Name, op: t.op.key(), renames: t.renames, form: t.form, noBody: noBody, bodyType: t.bodyType,
		queryRules: t.queryRules, formRules: t.formRules, mode: r.cfg.outputs, output: t.def.OutputSchema}
}

// resource is a resource or template made from a GET operation.
type resource struct {
	op       *operation
	route    string
	resource *mcp.Resource
	template *mcp.ResourceTemplate
	opts     []mcp.ItemOption
}

func (res *resource) name() string {
	if res.resource != nil {
		return res.resource.URI
	}
	return res.template.URITemplate
}

func (res *resource) add(h http.Handler) func(*mcp.Server) {
	return func(s *mcp.Server) {
		if res.resource != nil {
			s.AddResource(*res.resource, res.route, h, res.opts...)
		} else {
			s.AddResourceTemplate(*res.template, res.route, h, res.opts...)
		}
	}
}

func (r *registrar) buildResource(o *operation, rs resourceSpec, ov Override) (*resource, error) {
	if o.method != http.MethodGet {
		return nil, o.fail(o.ptr, "only GET operations can be read as resources")
	}
	prefix, err := r.prefix(o)
	if err != nil {
		return nil, err
	}
	route, wildcards := o.route(prefix)
	params, err := o.params()
	if err != nil {
		return nil, err
	}
	res := &resource{op: o, route: route, opts: rs.opts}
	title, description, mt := o.op.Summary, first(o.op.Description, o.op.Summary), r.mediaType(o)
	if rs.resource != nil {
		rc := *rs.resource
		rc.Name, rc.Title, rc.Description, rc.MIMEType = first(rc.Name, o.id), first(rc.Title, title), first(rc.Description, description), first(rc.MIMEType, mt)
		if len(wildcards) > 0 {
			return nil, o.fail(o.ptr, "the path has parameters: use WithResourceTemplate")
		}
		for _, p := range params {
			if p.p.Required != nil && *p.p.Required {
				return nil, o.fail(p.ptr, "required %s parameter %q cannot be sent when the resource is read", p.p.In, p.p.Name)
			}
		}
		res.resource = &rc
	} else {
		tc := *rs.template
		tc.Name, tc.Title, tc.Description, tc.MIMEType = first(tc.Name, o.id), first(tc.Title, title), first(tc.Description, description), first(tc.MIMEType, mt)
		vars := map[string]bool{}
		for _, m := range templateVars(tc.URITemplate) {
			vars[m] = true
			found := false
			for _, p := range params {
				found = found || (p.p.Name == m && (p.p.In == "path" || p.p.In == "query"))
			}
			if !found {
				return nil, o.fail(o.ptr, "template variable {%s} is neither a path nor a query parameter of the operation", m)
			}
		}
		for _, p := range params {
			if p.p.Required != nil && *p.p.Required && !vars[p.p.Name] {
				return nil, o.fail(p.ptr, "required %s parameter %q is not a variable of the template %s", p.p.In, p.p.Name, tc.URITemplate)
			}
		}
		res.template = &tc
	}
	if opt, _, err := r.scopeOption(o, ov); err != nil {
		return nil, err
	} else if opt != nil {
		res.opts = append([]mcp.ItemOption{opt}, res.opts...)
	}
	return res, nil
}

// templateVars lists the {var} expressions of a URI template.
func templateVars(t string) []string {
	var out []string
	for {
		_, rest, ok := strings.Cut(t, "{")
		if !ok {
			return out
		}
		name, after, ok := strings.Cut(rest, "}")
		if !ok {
			return out
		}
		out = append(out, name)
		t = after
	}
}

// mediaType returns the media type of the first 2xx answer with content.
func (r *registrar) mediaType(o *operation) string {
	if o.op.Responses == nil || o.op.Responses.Codes == nil {
		return ""
	}
	for code, resp := range o.op.Responses.Codes.FromOldest() {
		if strings.HasPrefix(code, "2") && resp != nil && resp.Content != nil && resp.Content.Len() > 0 {
			ct, _ := resp.Content.first()
			m, _, err := mime.ParseMediaType(ct)
			if err == nil {
				return m
			}
		}
	}
	return ""
}
