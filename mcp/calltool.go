package mcp

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/schema"
	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/mcp/task"
)

// callTool answers tools/call for req. Protocol problems (no name, unknown
// tool, arguments not an object) are CodeInvalidParams errors; everything
// the model can act on, including arguments that fail the input schema and
// the route's 4xx answers, is an isError result.
//
// The result is a *toolResult, or, on a revision with input requests, a
// *seam.InputRequired when the tool needs input (its handler called
// RequireInput, or it is destructive and not yet confirmed).
func (s *Server) callTool(req *request) (seam.Result, error) {
	raw, _ := req.Param("name")
	name, ok := req.accessCache.toolAsked(raw)
	if !ok {
		_, name, ok = s.toolNamed(raw)
	}
	if !ok {
		return nil, NewError(CodeInvalidParams, "Invalid params: name must be a string")
	}
	if _, err := req.Workspace(); err != nil {
		return nil, err
	}
	t := req.visibleTool(name)
	if t == nil {
		return nil, unknownTool(name)
	}
	if err := req.scopeError(t.opts.scopes); err != nil {
		return nil, err
	}
	if rd := req.round; rd != nil && rd.state.def != nil && string(rd.state.def) != t.digest {
		return nil, toolChanged(name) // a state made for an earlier definition (update.go)
	}
	args, ok := req.Param("arguments")
	switch {
	case !ok || string(args) == "null":
		args = json.RawMessage(`{}`)
	case args[0] != '{':
		return nil, NewError(CodeInvalidParams, "Invalid params: arguments must be an object")
	}
	features := req.rev.f
	if res, err := checkArguments(t, name, args, req.handler.cfg.limits.ArgumentValues); res != nil || err != nil {
		return res, err
	}
	if t.statusOf != nil {
		return req.followTask(t)
	}
	// The task stage, for a task's tool only: the call may become a task
	// (tasks.go), or a job its status tool follows (taskstatus.go).
	var taskable, follow bool
	if sp := t.opts.task; sp != nil {
		taskable = req.acceptsTask(t)
		follow = !taskable && req.followsTask(t)
		if sp.support == task.Required && !taskable && !follow {
			return taskRequired(features, t)
		}
	}
	call := req.newCall(name, args)
	if t.confirms() {
		res, err := s.confirm(req, t, call)
		if res != nil || err != nil {
			return res, err
		}
		defer req.claim.settle() // records the outcome in the replay guard
	} else if err := req.attachRound(call); err != nil {
		return nil, err
	}
	if t.fn != nil {
		return req.runFunc(t, call)
	}
	in, msg := t.place(call, s.literals)
	if msg != "" {
		return textResult(msg, true), nil
	}
	in.async = taskable || follow
	rec, p := req.runRoute(t.handler, call, in)
	if rec.Interrupted {
		return req.interrupted(t, call)
	}
	switch {
	case call.idemKey != "" && rec.Unreached:
		// Preparing the route's request failed (WithRouteRequest, the
		// observer): the route never ran, and settle records so.
		req.audit(t, call, "not executed, internal error")
	case call.idemKey != "":
		// Recorded first: what the route did is a fact that nothing after
		// it (a host's log handler writing the audit line) may turn into
		// "did not run" for a retry.
		req.claim.record(rec.Status, p != nil)
		outcome := "status " + strconv.Itoa(rec.Status)
		if p != nil {
			outcome = "panicked"
		}
		req.audit(t, call, "executed, "+outcome)
	}
	if p != nil {
		req.logError("mcp: tool handler panicked", "tool", name, "panic", p)
		return textResult("The tool failed with an internal error.", true), nil
	}
	if call.pending {
		return req.pendingTool(t, call)
	}
	if (taskable || follow) && rec.Status == http.StatusAccepted && !rec.Over {
		return req.createTask(t, rec, follow)
	}
	return t.result(req, rec, features)
}

func unknownTool(name string) *Error {
	shown := name[:jsonrpc.CutText(name, 128)]
	return NewError(CodeInvalidParams, "Unknown tool: "+shown).WithData(map[string]string{"name": shown})
}

// toolMethods are the method table's rows of tools (see methodTable).
var toolMethods = []*methodRow{
	{name: "tools/list", Method: seam.Method{Cacheable: true}, capability: seam.CapTools, serve: (*Server).listTools},
	{name: "tools/call", Method: seam.Method{InputRequired: true, Member: "name", Arguments: true}, capability: seam.CapTools, serve: (*Server).callTool,
		asksLegacy: true},
}

// checkArguments validates a call's arguments against the tool's input
// schema: the quick check on the raw bytes when it can vouch for them
// (internal/schema's Conforms, no decoding), else the decoded value
// through the compiled schema, which decides and words the violations.
// It returns nil, nil when they conform.
func checkArguments(t *tool, name string, args []byte, maxValues int) (seam.Result, error) {
	if t.input.Conforms(args) && (maxValues <= 0 || jsonrpc.CountValues(args, maxValues) <= maxValues) {
		return nil, nil
	}
	// args is part of the request body, which is read once into memory of
	// its own and never written again: validation may alias it.
	decoded, err := schema.DecodeShared(args, maxValues)
	if errors.Is(err, jsonrpc.ErrTooManyValues) {
		return textResult("Invalid arguments for tool "+name+": more than "+strconv.Itoa(maxValues)+
			" values; send fewer items per call", true), nil
	}
	if errors.Is(err, jsonrpc.ErrNumberTooLarge) {
		return textResult("Invalid arguments for tool "+name+": a number with more than "+strconv.Itoa(jsonrpc.MaxNumberDigits)+
			" digits or an exponent beyond ±"+strconv.Itoa(jsonrpc.MaxNumberExponent)+"; send it as a string", true), nil
	}
	if err != nil {
		return nil, NewError(CodeInvalidParams, "Invalid params: arguments are not valid JSON")
	}
	if v := t.input.Validate(decoded, maxViolations); v != nil {
		return textResult("Invalid arguments for tool "+name+":\n"+strings.Join(v, "\n"), true), nil
	}
	return nil, nil
}
