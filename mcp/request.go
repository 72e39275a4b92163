package mcp

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/mcpdual/mcpdual/headers"
	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/local"
	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/mcp/auth"
)

// request is one JSON-RPC request on its way through the pipeline: the
// strictly parsed envelope, the selected revision, and what the pipeline
// learns about it. It embeds what the core hands an era (seam.Request:
// the HTTP request, the method's name and row, the revision, params
// indexed once), so that handing it over costs nothing. Its byte slices
// alias the request body and are valid only while it is served.
type request struct {
	seam.Request
	msg     jsonrpc.Message
	version Version   // Request.Version, typed
	rev     *revision // the revision in use (nil until selected)
	row     *methodRow
	server  *Server
	handler *Handler
	capBits Capability // the client capabilities, read once

	call      Call         // the one call a request makes
	toolRes   toolResult   // and its result, when it is a tool's
	rec       recorder     // what the route it runs wrote
	routeCtx  routeContext // the context of that route's request
	innerBody innerBody    // and its body
	round     *round       // the opened requestState of a retry, nil otherwise
	roundBuf  round        // where round points, so a retry allocates no round
	loose     []byte       // inputResponses sent without a requestState
	// confirmation is what a destructive tool's confirmation came to, for
	// observers ("" when none was involved).
	confirmation string
	notify       *notifier // nil unless the request may stream

	// claim is the replay guard's lease on a confirmed call while it runs.
	claim *claimed

	local     *local.Exchange // a message that did not come over HTTP, nil otherwise
	task      *openTask       // the task a tasks/* request names, opened
	principal *auth.Principal
	tool      *tool  // the tool toolName names, if the caller may see it
	toolName  string // what visibleTool was last asked
	toolKnown bool
	wsDone    bool // the workspace was resolved (ws, wsErr hold the outcome)
	ws        string
	wsErr     *Error
	values    headerValues // the header values this request's responses own
	caller    string       // callerKey's answer, "" until asked (see callerKey)
	// slot: the request holds one of Limits.Concurrent's slots, which a
	// wait gives back (Handler.releaseSlot).
	slot bool
}

// callerKey is Handler.callerKey for this request, made once: the
// per-principal limit and the concurrency slot both key on it.
func (r *request) callerKey() string {
	if r.caller == "" {
		r.caller = r.handler.callerKey(r.HTTP, r.principal)
	}
	return r.caller
}

// setVersion sets the revision in use, in both its forms.
func (r *request) setVersion(v Version) {
	r.version, r.Request.Version = v, string(v)
}

// HeaderParams implements seam.Core.
func (r *request) HeaderParams(tool string) ([]headers.Param, bool) {
	t := r.visibleTool(tool)
	if t == nil {
		return nil, false
	}
	return t.params, true
}

// Binding implements seam.Core. A sealed state of this request belongs
// to who asks (principal and workspace, re-established from the
// credential on every round), which server, which revision, which
// operation on which target, with which arguments. A task id belongs to
// the caller and the server, whatever tasks/* method reads it.
func (r *request) Binding(task bool) (seam.Binding, error) {
	ws, err := r.Workspace()
	if err != nil {
		return seam.Binding{}, err
	}
	if task {
		return seam.Binding{Principal: r.principal.Key(), Workspace: ws, Audience: r.handler.audience,
			Version: string(r.version), Method: tasksExtension}, nil
	}
	b := seam.Binding{Principal: r.principal.Key(), Workspace: ws, Audience: r.handler.audience,
		Version: string(r.version), Method: r.msg.Method}
	if r.row != nil && r.row.Member != "" {
		raw, _ := r.Param(r.row.Member)
		b.Target, _ = jsonrpc.String(raw)
	}
	if args, ok := r.Param("arguments"); ok && !jsonrpc.IsNull(args) {
		if err := r.boundArguments(args); err != nil {
			return seam.Binding{}, err
		}
		b.Arguments = args
	}
	return b, nil
}

// ctx is the request's context, for logs and hooks.
func (r *request) ctx() context.Context { return r.HTTP.Context() }

// logError logs an internal failure with the request's context.
func (r *request) logError(msg string, args ...any) { r.Log(slog.LevelError, msg, args...) }

var _ seam.Core = (*request)(nil)

// SetRound implements seam.Core: it takes a requestState the era opened and verified,
// with the retry's inputResponses. The era calls it before dispatch; state
// is the State of the seam.InputRequired it sealed, until the last instant
// the sealer would open it. inputResponses that are present but not an
// object are refused here.
func (r *request) SetRound(state, nonce []byte, until time.Time, inputResponses []byte) error {
	if state == nil {
		return r.setAnswers(inputResponses)
	}
	rs, ok := parseRoundState(state)
	if !ok {
		r.Log(slog.LevelWarn, "mcp: requestState refused", "reason", "bad_plaintext")
		return invalidState()
	}
	if inputResponses != nil && !isObject(inputResponses) {
		return invalidInputResponses("")
	}
	r.roundBuf = round{state: rs, nonce: nonce, until: until, responses: inputResponses}
	r.round = &r.roundBuf
	return nil
}

// setAnswers takes the inputResponses of a request that carries
// no requestState. A tool's handler still sees them (a server
// that keeps no state between rounds may not need one), but they never
// count as an answer to a question the server asked: a destructive tool's
// confirmation ignores them.
func (r *request) setAnswers(inputResponses []byte) error {
	if inputResponses == nil {
		return nil
	}
	if !isObject(inputResponses) {
		return invalidInputResponses("")
	}
	r.loose = inputResponses
	return nil
}

// SetTask implements seam.Core: it takes the opened payload of a task id. A task whose tool is gone, no longer
// runs as a task, or is no longer the caller's to use is unknown.
func (r *request) SetTask(payload []byte) error {
	var p taskPayload
	if err := json.Unmarshal(payload, &p); err != nil {
		return unknownTask()
	}
	t := r.server.byName[p.Tool]
	if t == nil || t.opts.task == nil || (t.appOnly && r.capBits&capUI == 0) || !r.visible(auth.KindTool, p.Tool) || !r.usable(t.opts.scopes) {
		return unknownTask()
	}
	ot := &openTask{tool: t, values: p.Values, created: time.UnixMilli(p.Created),
		ttl: time.Duration(p.TTL) * time.Millisecond, poll: time.Duration(p.Poll) * time.Millisecond}
	// The sealer accepts an id up to its skew past its expiry; the task
	// itself lives its TTL (a job store keeps the job that long, no
	// longer), so it is unknown from then on.
	if !time.Now().Before(ot.created.Add(ot.ttl)) {
		return unknownTask()
	}
	r.task = ot
	return nil
}

// Log writes to the endpoint's log with the request's context.
func (r *request) Log(level slog.Level, msg string, args ...any) {
	r.handler.cfg.logger.Log(r.ctx(), level, msg, args...)
}

// hasMeta reports whether params has a _meta member.
func (r *request) hasMeta() bool {
	_, ok := r.Param("_meta")
	return ok
}
