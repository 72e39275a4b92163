package openapi

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
)

// operation is one operation of the document, in document order.
type operation struct {
	method string // upper case
	path   string // as the document writes it
	id     string // operationId
	ptr    string // JSON pointer: /paths/~1emails~1{id}/get
	item   *pathItem
	op     *opModel
}

// detached is o without the document: what errors and reports need.
func (o *operation) detached() *operation {
	return &operation{method: o.method, path: o.path, id: o.id, ptr: o.ptr}
}

// key is the operation as reports name it: "METHOD /path".
func (o *operation) key() string { return o.method + " " + o.path }

// label names the operation in errors and reports.
func (o *operation) label() string {
	if o.id != "" {
		return o.key() + " (" + o.id + ")"
	}
	return o.key()
}

// skipped is o in a report of what was not registered, and why.
func (o *operation) skipped(reason string) Skipped {
	return Skipped{Operation: o.key(), OperationID: o.id, Reason: reason}
}

// problem is an invalid or unsupported construct of one operation.
type problem struct {
	op  string // the operation's label
	ptr string // where in the document
	msg string
	// host marks a mistake in the host's options (an Override.Name or a
	// namer's name srv refuses, an override's invalid scope) or a name srv
	// already has, which fails Register rather than skipping the
	// operation.
	host bool
}

func (p *problem) Error() string { return "openapi: " + p.op + ": " + p.where() }

// where is the problem without the operation: the pointer, then the
// message.
func (p *problem) where() string {
	if p.ptr == "" {
		return p.msg
	}
	return p.ptr + ": " + p.msg
}

// fail is how builders report a problem: the pointer leads the message
// when the converter produced it.
func (o *operation) fail(ptr, format string, args ...any) *problem {
	return &problem{op: o.label(), ptr: ptr, msg: fmt.Sprintf(format, args...)}
}

func (o *operation) wrap(err error) *problem {
	if p, ok := err.(*problem); ok {
		return p
	}
	msg := err.Error()
	if ptr, rest, ok := strings.Cut(msg, ": "); ok && strings.HasPrefix(ptr, "/") {
		return &problem{op: o.label(), ptr: ptr, msg: rest}
	}
	return &problem{op: o.label(), msg: msg}
}

// tool is everything AddTool needs for one operation.
type tool struct {
	op      *operation
	def     mcp.Tool
	route   string
	opts    []mcp.ItemOption
	notes   []string
	named   int // where the name comes from: namedByRule...
	handler http.Handler

	pathArgs []string          // path parameters, in document order
	keyArgs  []string          // required scalar body properties
	renames  map[string]string // argument -> body property it stands for
	form     bool
	// bodyType is the JSON media type the document gives the body when
	// it is not application/json itself (merge-patch+json, vnd.api+json):
	// an API may answer 415 to another, or choose what the call means
	// by it.
	bodyType string
	// Query parameters and form fields the document encodes otherwise
	// than the library sends them (see rule).
	queryRules, formRules map[string]rule
}

// param is a parameter with where it was written.
type param struct {
	p   *parameter
	ptr string
}

// params merges the path item's parameters with the operation's, which
// replace those of the same name and location.
func (o *operation) params() ([]param, error) {
	var out []param
	add := func(list []*parameter, base string) error {
		for i, p := range list {
			at := base + "/parameters/" + strconv.Itoa(i)
			if p.err != nil {
				return o.fail(at, "%v", p.err)
			}
			ptr := first(p.ptr, at)
			if p.Name == "" || p.In == "" {
				return o.fail(ptr, "a parameter needs a name and an in")
			}
			replaced := false
			for j := range out {
				if out[j].p.Name == p.Name && out[j].p.In == p.In {
					out[j] = param{p, ptr}
					replaced = true
				}
			}
			if !replaced {
				out = append(out, param{p, ptr})
			}
		}
		return nil
	}
	itemPtr := o.ptr[:strings.LastIndex(o.ptr, "/")]
	if err := add(o.item.Parameters, itemPtr); err != nil {
		return nil, err
	}
	if err := add(o.op.Parameters, o.ptr); err != nil {
		return nil, err
	}
	return out, nil
}

// annotationsFor derives the hints from the HTTP method: GET and HEAD
// read; PUT and DELETE can be repeated to the same effect; DELETE
// destroys. Nothing says an API reaches outside its service.
func annotationsFor(method string) mcp.Annotations {
	switch method {
	case http.MethodGet, http.MethodHead:
		return mcp.Annotations{ReadOnly: true, Idempotent: true}
	case http.MethodPut:
		return mcp.Annotations{Idempotent: true}
	case http.MethodDelete:
		return mcp.Annotations{Destructive: true, Idempotent: true}
	}
	return mcp.Annotations{}
}

// route returns the host's route for o, "METHOD prefix+path", and the
// names of the path's template expressions. Whether AddTool takes the
// route (its method, each expression a whole segment) is srv's to say.
func (o *operation) route(prefix string) (string, []string) {
	return o.method + " " + prefix + o.path, templateVars(o.path)
}

// prefix returns the path of the first server URL declared nearest to o.
func (r *registrar) prefix(o *operation) (string, error) {
	if r.cfg.prefix != nil {
		return *r.cfg.prefix, nil
	}
	servers := o.op.Servers
	if len(servers) == 0 {
		servers = o.item.Servers
	}
	if len(servers) == 0 {
		servers = r.doc.servers
	}
	if len(servers) == 0 {
		return "", nil
	}
	s := servers[0]
	raw := s.URL
	if s.Variables != nil {
		for name, v := range s.Variables.FromOldest() {
			raw = strings.ReplaceAll(raw, "{"+name+"}", v.Default)
		}
	}
	u, err := url.Parse(raw)
	if err != nil || strings.ContainsAny(u.Path, "{}") {
		return "", o.fail("/servers/0/url", "server URL %q has no usable path; set WithPathPrefix", s.URL)
	}
	return strings.TrimRight(u.Path, "/"), nil
}

// scopes maps the operation's security requirements (or the document's)
// to the scopes RequireScopes demands: the union of the scopes of one
// requirement. Alternatives needing different scopes cannot be expressed
// as one list.
func (r *registrar) scopes(o *operation) (_ []string, note string, _ error) {
	reqs, bad := o.op.Security, o.op.securityErr
	at := o.ptr + "/security"
	if !o.op.hasSecurity {
		reqs, at, bad = r.doc.security, "/security", r.doc.securityErr
	}
	if bad != nil {
		// Read as it stands it would require nothing: left out, not
		// registered open.
		return nil, "", o.fail(at, "%v; the scopes it requires cannot be read", bad)
	}
	var first []string
	for i, req := range reqs {
		var scopes []string
		if req != nil && req.Requirements != nil && !req.ContainsEmptyRequirement {
			for _, list := range req.Requirements.FromOldest() {
				for _, s := range list {
					if !slices.Contains(scopes, s) {
						scopes = append(scopes, s)
					}
				}
			}
		}
		for _, s := range scopes {
			if !auth.ValidScope(s) {
				return nil, "", o.fail(at+"/"+strconv.Itoa(i), "scope %q cannot be required: RFC 6750 allows printable ASCII without spaces, quotes or backslashes", s)
			}
		}
		if i == 0 {
			first = scopes
			continue
		}
		a, b := slices.Clone(first), slices.Clone(scopes)
		slices.Sort(a)
		slices.Sort(b)
		if !slices.Equal(a, b) && note == "" {
			// RequireScopes demands all of one list, and a challenge names
			// one list: the first alternative is the one required.
			note = fmt.Sprintf("security: the first of %d alternative requirements is required (scopes: %s); Override.Scopes chooses others", len(reqs), quoteList(first))
		}
	}
	return first, note, nil
}

func quoteList(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, " ")
}

// jsonMedia reports whether media type mt is JSON.
func jsonMedia(mt string) bool {
	m, _, err := mime.ParseMediaType(mt)
	return err == nil && (m == "application/json" || strings.HasSuffix(m, "+json"))
}

// anyMedia reports whether media type mt admits JSON without naming it
// ("*/*", "application/*"), as generated documents often write it.
func anyMedia(mt string) bool {
	m, _, err := mime.ParseMediaType(mt)
	return err == nil && (m == "*/*" || m == "application/*")
}

func formMedia(mt string) bool {
	m, _, err := mime.ParseMediaType(mt)
	return err == nil && m == "application/x-www-form-urlencoded"
}

// buildTool turns o into a tool, or says why it cannot.
func (r *registrar) buildTool(o *operation, ov Override) (*tool, error) {
	t := &tool{op: o}
	prefix, err := r.prefix(o)
	if err != nil {
		return nil, err
	}
	route, wildcards := o.route(prefix)
	t.route = route

	t.def.Name, t.named = r.baseName(o, ov)
	t.def.Title = first(ov.Title, o.op.Summary)
	// A 2025-03-26 client shows no title: the summary then describes.
	t.def.Description = first(ov.Description, o.op.Description, o.op.Summary)
	t.def.Annotations = annotationsFor(o.method)
	if ov.Annotations != nil {
		t.def.Annotations = *ov.Annotations
	}
	if o.op.Deprecated != nil && *o.op.Deprecated {
		t.notes = append(t.notes, "the operation is deprecated")
	}

	in := r.doc.converter(request)
	props := newObject()
	var required []any
	var refusedArgs []string // readOnly body properties, refused at the root
	var query []string
	addProp := func(name string, s any, ptr, what string) error {
		if _, dup := props.get(name); dup {
			return o.fail(ptr, "argument %q is declared twice (%s); a tool's arguments share one namespace", name, what)
		}
		props.set(name, s)
		return nil
	}

	params, err := o.params()
	if err != nil {
		return nil, err
	}
	inPath := map[string]bool{}
	for _, pr := range params {
		p, at := pr.p, pr.ptr
		switch p.In {
		case "path":
			if !slices.Contains(wildcards, p.Name) {
				return nil, o.fail(at, "path parameter %q is not in the path %s", p.Name, o.path)
			}
			if p.Required == nil || !*p.Required {
				return nil, o.fail(at, "path parameter %q must be required", p.Name)
			}
			if p.Style != "" && p.Style != "simple" {
				return nil, o.fail(at+"/style", "path parameter %q: style %s is not supported; a wildcard is filled with one escaped segment (style simple)", p.Name, p.Style)
			}
			node := p.Schema
			if node == nil {
				return nil, o.fail(at, "path parameter %q needs a schema", p.Name)
			}
			s, err := in.inline(node, at+"/schema")
			if err != nil {
				return nil, o.wrap(err)
			}
			// The wildcard needs a type (one the core fills a segment
			// with, as srv checks).
			if _, typed := s.get("type"); !typed {
				unionType(s)
			}
			describe(in.doc, s, p, at, &err)
			if err != nil {
				return nil, o.wrap(err)
			}
			if err := addProp(p.Name, s, at, "path parameter"); err != nil {
				return nil, err
			}
			required = append(required, encodeString(p.Name))
			inPath[p.Name] = true
			t.pathArgs = append(t.pathArgs, p.Name)
		case "query":
			s, how, err := r.queryParam(o, in, p, at)
			if err != nil {
				return nil, err
			}
			t.queryRules = setRule(t.queryRules, p.Name, how)
			if err := addProp(p.Name, s, at, "query parameter"); err != nil {
				return nil, err
			}
			if p.Required != nil && *p.Required {
				required = append(required, encodeString(p.Name))
			}
			query = append(query, p.Name)
		case "header", "cookie":
			if p.Required != nil && *p.Required {
				return nil, o.fail(at, "required %s parameter %q cannot be sent: a tool's route gets no headers or cookies from the MCP client", p.In, p.Name)
			}
			if p.In == "header" && strings.EqualFold(p.Name, "Idempotency-Key") {
				t.notes = append(t.notes, fmt.Sprintf("optional header parameter %q is not an argument: the library sends it on confirmed destructive calls", p.Name))
				continue
			}
			t.notes = append(t.notes, fmt.Sprintf("optional %s parameter %q is left out: a tool's route gets no headers or cookies from the MCP client", p.In, p.Name))
		default:
			return nil, o.fail(at+"/in", "parameters in %q are not supported", p.In)
		}
	}
	for _, w := range wildcards {
		if !inPath[w] {
			return nil, o.fail(o.ptr, "the path has {%s} but the operation declares no path parameter %q", w, w)
		}
	}

	// The request body: an object's properties become arguments beside
	// the parameters; any other JSON body is one argument, "body".
	closed := true
	var additional any
	var placement *mcp.Placement
	if rb := o.op.RequestBody; rb != nil {
		at := first(o.op.bodyPtr, o.ptr+"/requestBody")
		if o.op.bodyErr != nil {
			return nil, o.fail(o.ptr+"/requestBody", "%v", o.op.bodyErr)
		}
		if o.method == http.MethodGet || o.method == http.MethodHead {
			return nil, o.fail(at, "a %s operation with a request body is not supported: the library sends %s without a body", o.method, o.method)
		}
		ct, mt := pickBody(rb)
		if mt == nil {
			var types []string
			if rb.Content != nil {
				for k := range rb.Content.FromOldest() {
					types = append(types, k)
				}
			}
			return nil, o.fail(at+"/content", "request bodies of type %s are not supported: a tool sends JSON or application/x-www-form-urlencoded bodies", strings.Join(types, ", "))
		}
		mat := at + "/content/" + pointerEscape(ct)
		bodyRequired := rb.Required != nil && *rb.Required
		form := formMedia(ct)
		if m, _, err := mime.ParseMediaType(ct); err == nil && jsonMedia(ct) && m != "application/json" {
			t.bodyType = ct
		}
		node := mt.Schema
		var obj *object
		if node != nil {
			s, err := in.inline(node, mat+"/schema")
			if err != nil {
				return nil, o.wrap(err)
			}
			if mergeable(s, in.refused[s]) {
				obj = s
			}
		}
		switch {
		case obj != nil:
			bprops, _ := obj.at("properties").(*object)
			var reqNames []string
			if req, ok := obj.at("required").([]any); ok {
				for _, v := range req {
					if s, ok := str(v); ok {
						reqNames = append(reqNames, s)
					}
				}
			}
			if bprops != nil {
				for _, k := range bprops.keys {
					v := bprops.at(k)
					arg := k
					if _, taken := props.get(k); taken {
						// A body property named like a parameter: the
						// parameter keeps the name, the property becomes
						// body_<name> and goes back to its name in the
						// body the route gets.
						arg = "body_" + k
						if t.renames == nil {
							t.renames = map[string]string{}
						}
						t.renames[arg] = k
						t.notes = append(t.notes, fmt.Sprintf("body property %q is the argument %q: a parameter has its name", k, arg))
					}
					if err := addProp(arg, v, mat+"/schema/properties/"+pointerEscape(k), "body property"); err != nil {
						return nil, err
					}
					if slices.Contains(reqNames, k) {
						if typ, _ := str(objVal(v, "type")); typ == "string" || typ == "integer" || typ == "number" || typ == "boolean" {
							t.keyArgs = append(t.keyArgs, arg)
						}
					}
				}
			}
			for _, k := range in.refused[obj] {
				if _, taken := props.get(k); !taken {
					refusedArgs = append(refusedArgs, k) // else the parameter's name is the argument
				}
			}
			for _, k := range reqNames {
				arg := k
				for a, prop := range t.renames {
					if prop == k {
						arg = a
					}
				}
				required = append(required, encodeString(arg))
			}
			if ap, ok := obj.get("additionalProperties"); ok {
				if raw, isRaw := ap.(json.RawMessage); !isRaw || string(raw) != "false" {
					closed, additional = false, ap
				}
			} else {
				closed = false
			}
			if form {
				if err := checkForm(t, o, in, mt, node, mat); err != nil {
					return nil, err
				}
				placement = &mcp.Placement{Query: query, Form: true}
				t.form = true
			} else if len(query) > 0 || o.method == http.MethodDelete {
				placement = &mcp.Placement{Query: query}
			}
		case form:
			return nil, o.fail(mat+"/schema", "a form body must be an object of properties")
		default:
			s := any(newObject())
			if node != nil {
				if s, err = in.schema(node, mat+"/schema", 0); err != nil {
					return nil, o.wrap(err)
				}
			}
			if rb.Description != "" {
				if so, ok := s.(*object); ok {
					so.set("description", encodeString(rb.Description))
				}
			}
			if err := addProp("body", s, mat, "the whole request body"); err != nil {
				return nil, err
			}
			if bodyRequired {
				required = append(required, encodeString("body"))
			}
			placement = &mcp.Placement{Body: "body"}
		}
	} else if len(query) > 0 && o.method != http.MethodGet && o.method != http.MethodHead && o.method != http.MethodDelete {
		placement = &mcp.Placement{Query: query}
	}

	root := objectOf("type", encodeString("object"))
	if props.len() > 0 {
		root.set("properties", props)
	}
	if len(required) > 0 {
		root.set("required", required)
	}
	if len(refusedArgs) > 0 {
		refuse(root, refusedArgs)
	}
	if closed {
		root.set("additionalProperties", json.RawMessage("false"))
	} else if additional != nil {
		root.set("additionalProperties", additional)
	}
	defs, err := in.defs()
	if err != nil {
		return nil, o.wrap(err)
	}
	if defs != nil {
		root.set("$defs", defs)
	}
	t.def.InputSchema = marshal(root)

	if r.cfg.outputs != OutputOff {
		out, note, err := r.output(o)
		if err != nil {
			return nil, err
		}
		t.def.OutputSchema = out
		if note != "" {
			t.notes = append(t.notes, note)
		}
	}

	if opt, note, err := r.scopeOption(o, ov); err != nil {
		return nil, err
	} else {
		if opt != nil {
			t.opts = append(t.opts, opt)
		}
		if note != "" {
			t.notes = append(t.notes, note)
		}
	}
	if placement != nil {
		t.opts = append(t.opts, mcp.WithPlacement(*placement))
	}
	if a := t.def.Annotations; a.Destructive && !a.ReadOnly {
		// Before the override's options: its own ConfirmWith wins.
		t.opts = append(t.opts, r.confirmOption(t))
	}
	t.opts = append(t.opts, ov.Options...)
	return t, nil
}

func first(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// describe adds a parameter's description, deprecation and examples to
// its argument's schema: the parameter's word replaces the schema's.
func describe(d *document, s *object, p *parameter, at string, errp *error) {
	if p.Description != "" {
		s.set("description", encodeString(p.Description))
	}
	if p.Deprecated {
		s.set("deprecated", json.RawMessage("true"))
	}
	var examples []any
	if p.Example != nil {
		v, err := d.value(p.Example, at+"/example", 0)
		if err != nil {
			*errp = err
			return
		}
		examples = append(examples, v)
	}
	if p.Examples != nil {
		for name, ex := range p.Examples.FromOldest() {
			if ex == nil || ex.Value == nil {
				continue
			}
			v, err := d.value(ex.Value, at+"/examples/"+pointerEscape(name)+"/value", 0)
			if err != nil {
				*errp = err
				return
			}
			examples = append(examples, v)
		}
	}
	if len(examples) > 0 {
		if have, ok := s.at("examples").([]any); ok {
			examples = append(have, examples...)
		}
		s.set("examples", examples)
	}
}

// queryParam converts a query parameter, and says how it is re-encoded
// from what the library sends (scalars as they are, arrays as a repeated
// key, objects as JSON text) into what the document says: arrays with
// explode false joined by the style's delimiter, deepObject parameters
// as name[key]=value (arrays as name[0]=value), content application/json
// as JSON text.
func (r *registrar) queryParam(o *operation, in *converter, p *parameter, at string) (*object, rule, error) {
	if p.Content != nil && p.Content.Len() > 0 {
		if p.Content.Len() != 1 {
			return nil, "", o.fail(at+"/content", "query parameter %q: content must have exactly one media type", p.Name)
		}
		ct, mt := p.Content.first()
		node := mt.Schema
		if !jsonMedia(ct) || node == nil || in.typeOf(node) != "object" {
			return nil, "", o.fail(at+"/content", "query parameter %q: only JSON objects can be sent as content (as JSON text)", p.Name)
		}
		s, err := in.schema(node, at+"/content/"+pointerEscape(ct)+"/schema", 0)
		if err != nil {
			return nil, "", o.wrap(err)
		}
		so, err := finishParam(in.doc, o, s, p, at)
		return so, "", err
	}
	node := p.Schema
	if node == nil {
		return nil, "", o.fail(at, "query parameter %q needs a schema", p.Name)
	}
	// An object or an array behind allOf, anyOf or oneOf (an array that
	// may be null) is sent as one too.
	typ, items := in.kindOf(node)
	explode := p.Explode == nil || *p.Explode
	var how rule
	switch p.Style {
	case "", "form":
		if typ == "array" && !explode {
			how = ","
		}
	case "spaceDelimited", "pipeDelimited":
		if typ != "array" {
			return nil, "", o.fail(at+"/style", "query parameter %q: style %s is for arrays", p.Name, p.Style)
		}
		if !explode {
			how = map[string]rule{"spaceDelimited": " ", "pipeDelimited": "|"}[p.Style]
		}
	case "deepObject":
		how = deepRule(typ)
	default:
		return nil, "", o.fail(at+"/style", "query parameter %q: style %s is not a query style", p.Name, p.Style)
	}
	switch typ {
	case "object":
		if how == "" {
			return nil, "", o.fail(at+"/schema", "query parameter %q: an object parameter is sent as JSON text; declare it with content application/json, or style deepObject", p.Name)
		}
	case "array":
		if items != nil && in.typeOf(items) == "object" && how != deepArray {
			return nil, "", o.fail(at+"/schema/items", "query parameter %q: arrays of objects can be sent in a query only as style deepObject", p.Name)
		}
	}
	s, err := in.schema(node, at+"/schema", 0)
	if err != nil {
		return nil, "", o.wrap(err)
	}
	so, err := finishParam(in.doc, o, s, p, at)
	return so, how, err
}

func finishParam(d *document, o *operation, s any, p *parameter, at string) (*object, error) {
	so, ok := s.(*object)
	if !ok {
		so = newObject()
		if !isTrue(s) {
			so.set("not", newObject())
		}
	}
	var err error
	describe(d, so, p, at, &err)
	if err != nil {
		return nil, o.wrap(err)
	}
	return so, nil
}

// pickBody chooses the body the tool sends: JSON first, then a form,
// then JSON under a wildcard media type.
func pickBody(rb *requestBody) (string, *mediaType) {
	// A wildcard media type is sent as JSON, which it admits.
	for _, takes := range []func(string) bool{jsonMedia, formMedia, anyMedia} {
		for ct, mt := range rb.Content.FromOldest() {
			if takes(ct) {
				return ct, mt
			}
		}
	}
	return "", nil
}

// mergeable reports whether a body schema is a plain object of
// properties, whose properties can sit beside the parameters; the
// patterns that refuse its readOnly properties (refused, see refuse) go
// with them.
func mergeable(s *object, refused []string) bool {
	if typ, _ := str(s.at("type")); typ != "object" {
		return false
	}
	for _, k := range s.keys {
		switch k {
		case "patternProperties":
			if pp, _ := s.at(k).(*object); pp == nil || len(refused) == 0 || pp.len() != len(refused) {
				return false
			}
		case "type", "properties", "required", "additionalProperties", "title", "description", "examples", "deprecated":
		default:
			return false
		}
	}
	return true
}

// checkForm refuses form properties the library would not encode as the
// document says, and says how the others are re-encoded from what the
// library sends (arrays as repeated fields, objects as JSON text): an
// object needs encoding contentType application/json (sent as JSON text)
// or style deepObject (name[key]=value); an array with explode false is
// joined by its style's delimiter, one with style deepObject indexed
// (name[0]=value, as bracket-style form decoders read it).
func checkForm(t *tool, o *operation, in *converter, mt *mediaType, n *node, at string) error {
	for c := range in.doc.chain(n) {
		n = c // the end of the chain
	}
	props, _ := member(n, "properties")
	if props == nil {
		return nil
	}
	for i := 0; i+1 < len(props.Content); i += 2 {
		name := props.Content[i].Value
		var enc *encoding
		if mt.Encoding != nil {
			enc = mt.Encoding.GetOrZero(name)
		}
		typ, _ := in.kindOf(props.Content[i+1])
		var style string
		explode := true
		if enc != nil {
			style = enc.Style
			explode = enc.Explode == nil || *enc.Explode
		}
		var how rule
		switch style {
		case "", "form":
			if typ == "array" && !explode {
				how = ","
			}
		case "spaceDelimited", "pipeDelimited":
			if typ == "array" && !explode {
				how = map[string]rule{"spaceDelimited": " ", "pipeDelimited": "|"}[style]
			}
		case "deepObject":
			how = deepRule(typ)
		default:
			return o.fail(at+"/encoding/"+pointerEscape(name), "form field %q: style %s is not a form style", name, style)
		}
		if typ == "object" && how == "" && (enc == nil || !jsonMedia(enc.ContentType)) {
			return o.fail(at+"/encoding", "form field %q is an object: declare its encoding contentType application/json (sent as JSON text) or style deepObject", name)
		}
		t.formRules = setRule(t.formRules, name, how)
	}
	return nil
}

// rule says how an argument the library put in a query or a form is
// re-encoded: "" as sent, a delimiter ("," " " "|") joining the repeated
// values of an array, deepObject or deepArray brackets.
type rule string

const (
	deepObject rule = "deep"
	deepArray  rule = "deep[]"
)

func deepRule(typ string) rule {
	if typ == "array" {
		return deepArray
	}
	return deepObject
}

func setRule(m map[string]rule, name string, how rule) map[string]rule {
	if how == "" {
		return m
	}
	if m == nil {
		m = map[string]rule{}
	}
	m[name] = how
	return m
}

// output derives the output schema from the 2xx JSON response: one JSON
// object schema for every 2xx answer. Otherwise the tool has none, and the
// note says why.
func (r *registrar) output(o *operation) (json.RawMessage, string, error) {
	if o.op.Responses == nil || o.op.Responses.Codes == nil {
		return nil, "", nil
	}
	var sn *node
	var at string
	var withJSON, without []string
	for code, resp := range o.op.Responses.Codes.FromOldest() {
		if !strings.HasPrefix(code, "2") {
			continue
		}
		if resp != nil && resp.err != nil {
			// Which schema it has cannot be known: none is declared, and
			// the report says why rather than leaving answers unchecked
			// without a word.
			return nil, fmt.Sprintf("no output schema: the %s answer: %v", code, resp.err), nil
		}
		var mt *mediaType
		var ct string
		if resp != nil && resp.Content != nil {
			for k, v := range resp.Content.FromOldest() {
				if jsonMedia(k) || anyMedia(k) {
					ct, mt = k, v
					break
				}
			}
		}
		if mt == nil || mt.Schema == nil {
			without = append(without, code)
			continue
		}
		withJSON = append(withJSON, code)
		sn, at = mt.Schema, o.ptr+"/responses/"+code+"/content/"+pointerEscape(ct)+"/schema"
	}
	switch {
	case len(withJSON) == 0:
		return nil, "", nil
	case len(withJSON) > 1 || len(without) > 0:
		return nil, fmt.Sprintf("no output schema: the 2xx answers %s do not share one JSON schema", strings.Join(append(withJSON, without...), ", ")), nil
	}
	out := r.doc.converter(response)
	s, err := out.inline(sn, at)
	if err != nil {
		return nil, "", o.wrap(err)
	}
	if typ, _ := str(s.at("type")); typ != "object" {
		return nil, fmt.Sprintf("no output schema: the %s answer is not a JSON object, which structured content must be", withJSON[0]), nil
	}
	defs, err := out.defs()
	if err != nil {
		return nil, "", o.wrap(err)
	}
	if defs != nil {
		s.set("$defs", defs)
	}
	return marshal(s), "", nil
}

// scopeOption is the RequireScopes option of an operation: the override's
// scopes, or the document's security requirements; nil when none.
func (r *registrar) scopeOption(o *operation, ov Override) (opt mcp.ItemOption, note string, err error) {
	scopes := ov.Scopes
	if scopes == nil {
		if scopes, note, err = r.scopes(o); err != nil {
			return nil, "", err
		}
	}
	if len(scopes) == 0 {
		return nil, note, nil
	}
	for _, s := range ov.Scopes {
		// The document's scopes were checked by r.scopes. RequireScopes
		// panics on a scope auth.ValidScope refuses.
		if !auth.ValidScope(s) {
			return nil, "", hostError(o.fail(o.ptr, "Override.Scopes: scope %q cannot be required: RFC 6750 allows printable ASCII without spaces, quotes or backslashes", s))
		}
	}
	return mcp.RequireScopes(scopes...), note, nil
}

// hostError marks a problem as the host's (see problem).
func hostError(err error) error {
	if p, ok := err.(*problem); ok {
		p.host = true
	}
	return err
}

// unionType gives a schema without a type that is a oneOf or anyOf of
// alternatives of one type each ("an id or a file name": integer or
// string) the list of those types as its own type, which changes nothing
// it accepts and which a route wildcard needs.
func unionType(s *object) {
	for _, k := range []string{"oneOf", "anyOf"} {
		alts, ok := s.at(k).([]any)
		if !ok || len(alts) == 0 {
			continue
		}
		var types []any
		for _, a := range alts {
			t, ok := str(objVal(a, "type"))
			if !ok {
				return
			}
			if !slices.ContainsFunc(types, func(v any) bool { u, _ := str(v); return u == t }) {
				types = append(types, encodeString(t)) // a type list holds each once
			}
		}
		s.set("type", types)
		return
	}
}

// objVal returns member k of a converted schema, when it is an object.
func objVal(v any, k string) any {
	if o, ok := v.(*object); ok {
		return o.at(k)
	}
	return nil
}
