package era2026

import (
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mrtr"
)

// mrtrMethods are the only methods whose results may be input_required,
// and so the only ones a requestState may come back on.
var mrtrMethods = map[string]bool{"tools/call": true, "prompts/get": true, "resources/read": true}

// binding is what a state of req belongs to: who asks (principal and
// workspace, re-established from the credential on every round), which
// server, which revision, which operation and which arguments.
func binding(req *mcp.Request) (mrtr.Binding, error) {
	ws, err := req.Workspace()
	if err != nil {
		return mrtr.Binding{}, err
	}
	b := mrtr.Binding{
		Principal: req.Principal().Key(),
		Workspace: ws,
		Audience:  req.Audience(),
		Version:   string(req.Version()),
		Method:    req.Method(),
	}
	switch req.Method() {
	case "tools/call", "prompts/get":
		raw, _ := req.Param("name")
		b.Target, _ = mcp.String(raw)
		if args, ok := req.Param("arguments"); ok && string(args) != "null" {
			b.Arguments = args
		}
	case "resources/read":
		raw, _ := req.Param("uri")
		b.Target, _ = mcp.String(raw)
	}
	return b, nil
}

// openState verifies the requestState of a retry and hands it, with the
// inputResponses, to the core. inputResponses without a requestState go to
// the core as unverified answers (the server may keep no state between
// rounds); the core never counts them as a confirmation. Any failure is the one
// "Invalid or expired requestState" answer; the reason is logged.
func (e *Era) openState(req *mcp.Request) error {
	raw, ok := req.Param("requestState")
	if !ok {
		if responses, has := req.Param("inputResponses"); has && mrtrMethods[req.Method()] {
			return req.SetInputResponses(responses)
		}
		return nil
	}
	refuse := func(reason string) error {
		req.Logger().Warn("era2026: requestState refused", "reason", reason, "method", req.Method())
		return mcp.InvalidRequestState()
	}
	if !mrtrMethods[req.Method()] {
		return refuse("method_without_input")
	}
	state, isStr := mcp.String(raw)
	if !isStr {
		return refuse("not_a_string")
	}
	b, err := binding(req)
	if err != nil {
		return err
	}
	opened, err := e.sealer.Open(b, state)
	if err != nil {
		return refuse(mrtr.Reason(err))
	}
	responses, _ := req.Param("inputResponses")
	return req.SetInputState(opened.Payload, opened.Nonce[:], opened.Expires, responses)
}

// finish stamps a tools/call, prompts/get or resources/read result; an
// input_required one gets its state sealed and no cache hints.
func (e *Era) finish(req *mcp.Request, target string, res any) (any, error) {
	switch r := res.(type) {
	case *mcp.InputRequiredResult:
		b, err := binding(req)
		if err != nil {
			return nil, err
		}
		state, _, err := e.sealer.Seal(b, r.State())
		if err != nil {
			req.Logger().Error("era2026: cannot seal requestState", "method", req.Method(), "target", target, "err", err)
			return nil, mcp.NewError(mcp.CodeInternal, "Internal error")
		}
		r.RequestState = state
		r.Stamp = mcp.Stamp{ResultType: "input_required", Meta: e.serverMeta(req.Server())}
		return r, nil
	case *mcp.CallToolResult:
		r.Stamp = e.stamp(req, false)
		return r, nil
	case *mcp.GetPromptResult:
		r.Stamp = e.stamp(req, false)
		return r, nil
	case *mcp.ReadResourceResult:
		r.Stamp = e.listStamp(req) // cacheable, and private when filtered
		return r, nil
	}
	return res, nil
}
