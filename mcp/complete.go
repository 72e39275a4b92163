package mcp

import (
	"errors"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/mcp/auth"
)

// WithCompletion registers a completion source for argument (a prompt argument
// or a template variable). The completions capability is advertised once
// any source exists. It panics on a tool or a fixed resource, or when the
// item has no such argument.
func WithCompletion(argument string, f CompletionFunc) ItemOption {
	if f == nil {
		panic("mcp: WithCompletion needs a function")
	}
	return itemOptionFunc(func(o *itemOptions) {
		if o.completions == nil {
			o.completions = map[string]CompletionFunc{}
		}
		o.completions[argument] = f
	})
}

// maxCompletions is the most values one completion result holds.
const maxCompletions = 100

// complete answers completion/complete for a prompt argument
// (ref/prompt) or a template variable (ref/resource with the template's
// URI template). An unknown or hidden reference is -32602; an argument
// without a source has no suggestions.
func (s *Server) complete(req *request) (seam.Result, error) {
	ref, _ := req.Param("ref")
	argument, _ := req.Param("argument")
	if !jsonrpc.IsObject(ref) || !jsonrpc.IsObject(argument) {
		return nil, NewError(CodeInvalidParams, "Invalid params: ref and argument must be objects")
	}
	typ, _ := jsonrpc.Lookup(ref, "type")
	refType, _ := jsonrpc.String(typ)
	rawName, _ := jsonrpc.Lookup(argument, "name")
	rawValue, _ := jsonrpc.Lookup(argument, "value")
	argName, ok1 := jsonrpc.String(rawName)
	value, ok2 := jsonrpc.String(rawValue)
	if !ok1 || !ok2 {
		return nil, NewError(CodeInvalidParams, "Invalid params: argument needs a string name and value")
	}
	if _, err := req.Workspace(); err != nil {
		return nil, err
	}
	var sources map[string]CompletionFunc
	var scopes []string
	declares := func([]byte) bool { return false } // the item's arguments, which context may give
	switch refType {
	case "ref/prompt":
		n, _ := jsonrpc.Lookup(ref, "name")
		name, _ := jsonrpc.String(n)
		p, err := s.lookupPrompt(req, name)
		if err != nil {
			return nil, err
		}
		sources, scopes, declares = p.opts.completions, p.opts.scopes, p.declares
	case "ref/resource":
		u, _ := jsonrpc.Lookup(ref, "uri")
		uri, _ := jsonrpc.String(u)
		found := false
		for _, t := range s.templates {
			if t.def.URITemplate == uri && req.visible(auth.KindTemplate, uri) {
				sources, scopes, declares, found = t.opts.completions, t.opts.scopes, t.declares, true
				break
			}
		}
		if r, ok := s.byURI[uri]; !found && ok && req.visible(auth.KindResource, uri) {
			scopes, found = r.opts.scopes, true
		}
		if !found {
			// -32602 in every revision, as for an unknown prompt: -32002
			// is resources/read's answer, and a 2025 client taking it
			// for that would drop a resource it never asked to read.
			uri = uri[:jsonrpc.CutText(uri, 512)]
			return nil, NewError(CodeInvalidParams, "Unknown resource reference").WithData(map[string]string{"uri": uri})
		}
	default:
		return nil, NewError(CodeInvalidParams, "Invalid params: ref.type must be ref/prompt or ref/resource")
	}
	if err := req.scopeError(scopes); err != nil {
		return nil, err
	}
	others := map[string]string{}
	if req.rev.f.CompletionContext {
		if c, ok := req.Param("context"); ok && jsonrpc.IsObject(c) {
			a, _ := jsonrpc.Lookup(c, "arguments")
			m, err := stringMap(a, "context.arguments", declares)
			if err != nil {
				return nil, err
			}
			others = m
		}
	}
	res := &completeResult{values: []string{}}
	f := sources[argName]
	if f == nil {
		return res, nil
	}
	values, err := f(req.identityContext(req.HTTP.Context()), value, others)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return nil, req.fromHandler(e)
		}
		req.logError("mcp: completion failed", "argument", argName, "err", err)
		return nil, errInternal()
	}
	res.total = len(values)
	if len(values) > maxCompletions {
		values, res.hasMore = values[:maxCompletions], true
	}
	// The values sent are bounded as any function's result is.
	size, limit := int64(0), req.handler.cfg.limits.ResponseBytes
	for _, v := range values {
		if size += int64(len(v)); size > limit {
			req.logError("mcp: completion response over the size limit", "argument", argName, "limit", limit)
			return nil, errInternal()
		}
	}
	if values != nil {
		res.values = values
	}
	return res, nil
}

// declares reports whether name is one of t's variables.
func (t *template) declares(name []byte) bool {
	for _, v := range t.vars {
		if v == string(name) {
			return true
		}
	}
	return false
}

// completionMethods are the method table's rows of completions (see
// methodTable).
var completionMethods = []*methodRow{
	{name: "completion/complete", capability: seam.CapCompletions, serve: (*Server).complete},
}
