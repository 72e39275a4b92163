package mcp

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/mcpdual/mcpdual/headers"
	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/local"
	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/mcp/auth"
)

// Era serves the protocol revisions of one era: era2026.New() for
// 2026-07-28, era2025.New() for the handshake revisions. The composition
// root passes the eras it wants to NewHandler. Only the era packages of
// this module implement Era: its method returns a type of an internal
// package, which no other package can name.
type Era interface {
	// Seam returns the hooks through which the era reaches the core.
	Seam() *seam.Era
}

// request is one JSON-RPC request on its way through the pipeline: the
// HTTP request, the strictly parsed envelope, the selected era and
// revision, and what the pipeline learns about it. Its byte slices alias
// the request body and are valid only while it is served. It is what the
// core hands an era (seam.Request).
type request struct {
	http    *http.Request
	msg     jsonrpc.Message
	meta    []byte
	members []jsonrpc.Member // params' top-level members, indexed once
	indexed bool
	memBuf  [6]jsonrpc.Member // room for members without allocating

	metaMembers []jsonrpc.Member // the same for params._meta
	metaIndexed bool
	metaBuf     [4]jsonrpc.Member
	version     Version
	era         *seam.Era
	row         *methodRow
	server      *Server
	handler     *Handler
	caps        []byte
	capBits     Capability // caps, read once

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
}

func (r *request) HTTP() *http.Request { return r.http }
func (r *request) Local() bool         { return r.local != nil }
func (r *request) Name() string        { return r.msg.Method }
func (r *request) Params() []byte      { return r.msg.Params }
func (r *request) Meta() []byte        { return r.meta }
func (r *request) Version() string     { return string(r.version) }
func (r *request) Negotiate(v string)  { r.version = Version(v) }
func (r *request) Supported() []string { return r.handler.supported }

func (r *request) Method() *seam.Method {
	if r.row == nil {
		return nil
	}
	return &r.row.Method
}

// Param returns the raw value of params member name, matched exactly
// (never case-insensitively). The members are indexed on first use, so a
// request's many lookups scan params once.
func (r *request) Param(name string) ([]byte, bool) { return member(r.params(), name) }

// MetaParam returns the raw value of params._meta member name, matched
// exactly; _meta's members are indexed once too.
func (r *request) MetaParam(name string) ([]byte, bool) { return member(r.metaParams(), name) }

func (r *request) params() []jsonrpc.Member {
	if !r.indexed {
		r.indexed = true
		r.members = jsonrpc.Members(r.msg.Params, r.memBuf[:0])
	}
	return r.members
}

func (r *request) metaParams() []jsonrpc.Member {
	if !r.metaIndexed {
		r.metaIndexed = true
		r.metaMembers = jsonrpc.Members(r.meta, r.metaBuf[:0])
	}
	return r.metaMembers
}

func member(members []jsonrpc.Member, name string) ([]byte, bool) {
	for _, m := range members {
		if string(m.Key) == name {
			return m.Value, true
		}
	}
	return nil, false
}

func (r *request) CaseVariant(inMeta bool, known []string) (got, want string, found bool) {
	if inMeta {
		return jsonrpc.MemberCaseVariant(r.metaParams(), known)
	}
	return jsonrpc.MemberCaseVariant(r.params(), known)
}

func (r *request) SetClientCapabilities(raw []byte) {
	r.caps, r.capBits = raw, capabilitiesOf(raw)
}

func (r *request) Capabilities() seam.Capability { return r.server.caps }
func (r *request) Instructions() string          { return r.server.instructions }
func (r *request) ServerInfo(v string) []byte    { return r.server.infoJSON[featuresOf(Version(v)).shape] }

func (r *request) HeaderParams(tool string) ([]headers.Param, bool) {
	t := r.visibleTool(tool)
	if t == nil {
		return nil, false
	}
	return t.params, true
}

// Binding says what a sealed state of this request belongs to: who asks
// (principal and workspace, re-established from the credential on every
// round), which server, which revision, which operation on which target,
// with which arguments.
func (r *request) Binding() (seam.Binding, error) {
	ws, err := r.Workspace()
	if err != nil {
		return seam.Binding{}, err
	}
	b := seam.Binding{Principal: r.principal.Key(), Workspace: ws, Audience: r.handler.audience,
		Version: string(r.version), Method: r.msg.Method}
	if r.row != nil && r.row.Member != "" {
		raw, _ := r.Param(r.row.Member)
		b.Target, _ = jsonrpc.String(raw)
	}
	if args, ok := r.Param("arguments"); ok && !jsonrpc.IsNull(args) {
		b.Arguments = args
	}
	return b, nil
}

func (r *request) Log(level slog.Level, msg string, args ...any) {
	r.handler.cfg.logger.Log(r.ctx(), level, msg, args...)
}

// ctx is the request's context, for logs and hooks.
func (r *request) ctx() context.Context { return r.http.Context() }

// logError logs an internal failure with the request's context.
func (r *request) logError(msg string, args ...any) { r.Log(slog.LevelError, msg, args...) }

var _ seam.Request = (*request)(nil)
