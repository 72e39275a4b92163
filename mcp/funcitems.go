package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"reflect"
	"strconv"
	"strings"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/panics"
	"github.com/mcpdual/mcpdual/internal/seam"
)

// stringField is one field of a struct of strings: a prompt's arguments
// or a template's variables.
type stringField struct {
	name     string
	index    int
	kind     reflect.Kind // of the field, its pointer removed
	ptr      bool
	required bool
	desc     string
}

// stringFields lists the exported fields of the struct T, under their
// json names, for values that arrive as text. Only strings, integers and
// booleans (or pointers to them) can.
func stringFields(t reflect.Type, what string) ([]stringField, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("mcp: %s: %s must be a struct", what, t)
	}
	var out []stringField
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if !sf.IsExported() || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = sf.Name
		}
		ft, ptr := sf.Type, false
		if ft.Kind() == reflect.Pointer {
			ft, ptr = ft.Elem(), true
		}
		switch ft.Kind() {
		case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		default:
			return nil, fmt.Errorf("mcp: %s: field %s is %s; text arrives as strings, integers or booleans", what, sf.Name, sf.Type)
		}
		omit := strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,")
		out = append(out, stringField{name: name, index: i, kind: ft.Kind(), ptr: ptr, required: !omit && !ptr, desc: sf.Tag.Get("jsonschema")})
	}
	return out, nil
}

// set stores text in field f of v (a struct); ok is false when the text
// is not a value of the field's type.
func (f stringField) set(v reflect.Value, text string) bool {
	fv := v.Field(f.index)
	if f.ptr {
		p := reflect.New(fv.Type().Elem())
		fv.Set(p)
		fv = p.Elem()
	}
	switch f.kind {
	case reflect.String:
		fv.SetString(text)
	case reflect.Bool:
		b, err := strconv.ParseBool(text)
		if err != nil {
			return false
		}
		fv.SetBool(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(text, 10, fv.Type().Bits())
		if err != nil {
			return false
		}
		fv.SetInt(n)
	default:
		n, err := strconv.ParseUint(text, 10, fv.Type().Bits())
		if err != nil {
			return false
		}
		fv.SetUint(n)
	}
	return true
}

// AddPromptFunc registers p, rendered by render from arguments decoded into
// the struct Args: one argument per exported field under its json name,
// described by its jsonschema tag, required unless the field is a pointer,
// omitempty or omitzero. Fields are strings, integers or booleans (or
// pointers to them): prompt arguments arrive as text, and text that is not
// a value of its field is -32602. When p declares Arguments they must be
// the fields' names, in any order. Everything AddPrompt says about render
// holds; it panics where AddPrompt does and on such a mismatch.
func AddPromptFunc[Args any](s *Server, p Prompt, render func(ctx context.Context, args Args) (*PromptResult, error), opts ...ItemOption) {
	if render == nil {
		s.done(errors.New("mcp: prompt " + p.Name + ": nil render function"))
		return
	}
	t := reflect.TypeFor[Args]()
	fields, err := stringFields(t, "prompt "+p.Name)
	if err != nil {
		s.done(err)
		return
	}
	if p.Arguments == nil {
		for _, f := range fields {
			p.Arguments = append(p.Arguments, PromptArgument{Name: f.name, Description: f.desc, Required: f.required})
		}
	} else {
		declared := map[string]bool{}
		for _, a := range p.Arguments {
			declared[a.Name] = true
		}
		for _, f := range fields {
			if !declared[f.name] {
				s.done(fmt.Errorf("mcp: prompt %s: field %q of %s is not a declared argument", p.Name, f.name, t))
				return
			}
			delete(declared, f.name)
		}
		for a := range declared {
			s.done(fmt.Errorf("mcp: prompt %s: argument %q is no field of %s", p.Name, a, t))
			return
		}
	}
	s.AddPrompt(p, func(ctx context.Context, given map[string]string) (*PromptResult, error) {
		var args Args
		v := reflect.ValueOf(&args).Elem()
		for _, f := range fields {
			text, ok := given[f.name]
			if ok && !f.set(v, text) {
				return nil, NewError(CodeInvalidParams, "Invalid params: argument "+f.name+" is not a "+f.kind.String()).
					WithData(map[string]string{"argument": f.name})
			}
		}
		return render(ctx, args)
	}, opts...)
}

// AddTemplateFunc registers t, read by read from the URI's variables
// decoded into the struct Vars: each template variable is the exported
// field of that json name (strings, integers or booleans, or pointers to
// them), and every field is a variable. A URI whose variable is not a
// value of its field is not found. What read returns is the resource's
// one content: a string as text and a []byte as a blob, of t.MIMEType
// (text/plain and application/octet-stream when empty); anything else as
// its JSON text, application/json. An error that is fs.ErrNotExist (or
// wraps it) is "resource not found", an *Error is sent as is, and any
// other error, and a panic, is logged and answered -32603. read's context
// carries the verified identity and the Call, as a route's does.
// AddTemplateFunc panics where AddResourceTemplate does, and on a
// mismatch between the template's variables and the fields.
func AddTemplateFunc[Vars, Out any](s *Server, t ResourceTemplate, read func(ctx context.Context, vars Vars) (Out, error), opts ...ItemOption) {
	if read == nil {
		s.done(errors.New("mcp: resource template " + t.URITemplate + ": nil read function"))
		return
	}
	vt := reflect.TypeFor[Vars]()
	fields, err := stringFields(vt, "resource template "+t.URITemplate)
	if err != nil {
		s.done(err)
		return
	}
	mime := t.MIMEType
	var encode func(Out) (text string, blob []byte, err error)
	isBlob := reflect.TypeFor[Out]() == reflect.TypeFor[[]byte]() // a nil []byte is an empty blob
	switch reflect.TypeFor[Out]() {
	case reflect.TypeFor[string]():
		if mime == "" {
			mime = "text/plain"
		}
		encode = func(o Out) (string, []byte, error) { return any(o).(string), nil, nil }
	case reflect.TypeFor[[]byte]():
		if mime == "" {
			mime = "application/octet-stream"
		}
		encode = func(o Out) (string, []byte, error) { return "", any(o).([]byte), nil }
	default:
		if mime == "" {
			mime = "application/json"
		}
		encode = func(o Out) (string, []byte, error) {
			b, err := json.Marshal(o)
			return string(b), nil, err
		}
	}
	e := &template{def: t, inPath: map[string]bool{}}
	e.read = func(ctx context.Context, uri string, vals map[string]string) ([]byte, error) {
		var vars Vars
		v := reflect.ValueOf(&vars).Elem()
		for _, f := range fields {
			if !f.set(v, vals[f.name]) {
				return nil, fs.ErrNotExist
			}
		}
		out, err := read(ctx, vars)
		if err != nil {
			return nil, err
		}
		text, blob, err := encode(out)
		if err != nil {
			return nil, fmt.Errorf("encoding the resource: %w", err)
		}
		c := []byte{'['}
		if isBlob {
			c = append(c, jsonrpc.Object("uri", uri, "mimeType", mime, "blob", base64.StdEncoding.EncodeToString(blob))...)
		} else {
			c = append(c, jsonrpc.Object("uri", uri, "mimeType", mime, "text", text)...)
		}
		return append(c, ']'), nil
	}
	s.done(s.addTemplateFunc(e, fields, opts)) // panics as AddResourceTemplate does, or joins a Register's refusals
}

// addTemplateFunc registers a template read by a function: what
// AddResourceTemplate checks, without a route.
func (s *Server) addTemplateFunc(e *template, fields []stringField, opts []ItemOption) (err error) {
	t := e.def
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.notFrozen("AddTemplateFunc"); err != nil {
		return err
	}
	if t.Name == "" {
		return errors.New("mcp: resource template " + t.URITemplate + " needs a name")
	}
	if err := s.templateTaken(t.URITemplate); err != nil {
		return err
	}
	re, vars, err := compileTemplate(t.URITemplate)
	if err != nil {
		return fmt.Errorf("mcp: resource template %q: %v", t.URITemplate, err)
	}
	isVar, isField := map[string]bool{}, map[string]bool{}
	for _, v := range vars {
		isVar[v] = true
	}
	for _, f := range fields {
		if !isVar[f.name] {
			return fmt.Errorf("mcp: resource template %q: field %q is not a template variable", t.URITemplate, f.name)
		}
		isField[f.name] = true
	}
	for _, v := range vars {
		if !isField[v] {
			return fmt.Errorf("mcp: resource template %q: variable {%s} is no field", t.URITemplate, v)
		}
	}
	if err := checkIcons("resource template "+t.URITemplate, t.Icons); err != nil {
		return err
	}
	if e.meta, err = itemMeta(t.Meta, nil); err != nil {
		return fmt.Errorf("mcp: resource template %s: %v", t.URITemplate, err)
	}
	e.match, e.vars = re, vars
	if e.opts, err = applyItemOptions(opts, "resource template "+t.URITemplate, isVar); err != nil {
		return err
	}
	for i := range e.shapes {
		e.shapes[i] = renderTemplate(t, e.meta, i)
	}
	s.templates = append(s.templates, e)
	return nil
}

// readFunc reads a resource of a template served by a function.
func (req *request) readFunc(t *template, call *Call, uri string, vals map[string]string) (res seam.Result, err error) {
	ctx := req.identityContext(context.WithValue(req.HTTP.Context(), callKey{}, call))
	contents, err := func() (c []byte, err error) {
		defer func() {
			if p := recover(); p != nil {
				req.logError("mcp: resource function panicked", "uri", uri, "panic", panics.Describe(p))
				c, err = nil, errInternal()
			}
		}()
		return t.read(ctx, uri, vals)
	}()
	if call.pending {
		return req.pendingOther(call)
	}
	var e *Error
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, resourceNotFound(req, uri)
	case errors.As(err, &e):
		return nil, req.fromHandler(e)
	case err != nil:
		req.logError("mcp: resource function failed", "uri", uri, "err", err)
		return nil, errInternal()
	}
	if limit := req.handler.cfg.limits.ResponseBytes; int64(len(contents)) > limit {
		req.logError("mcp: resource response over the size limit", "uri", uri, "limit", limit)
		return nil, errInternal()
	}
	return &readResult{contents: contents}, nil
}
