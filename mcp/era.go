package mcp

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/mcp/auth"
)

// Era serves the protocol revisions of one era. The endpoint picks an era
// for each request (see Handler) and hands it the parsed request; the era
// validates what is specific to it and answers through the Server's
// operations. Implementations live in other packages (era2025, era2026)
// and must embed EraBase, so that Era can grow without breaking them.
type Era interface {
	// Versions lists the revisions served, newest first.
	Versions() []Version
	// PerRequest reports whether a request names its revision in
	// params._meta (2026-07-28) rather than through an initialize handshake.
	PerRequest() bool
	// Serve answers one request (never a notification). It returns a value
	// that marshals to the JSON-RPC result, or an error; an *Error keeps its
	// code and message, any other error becomes CodeInternal.
	Serve(ctx context.Context, req *Request) (any, error)

	sealedEra()
}

// EraBase must be embedded by every Era implementation.
type EraBase struct{}

func (EraBase) sealedEra() {}

// Request is one JSON-RPC request as an Era sees it: the HTTP request, the
// strictly parsed envelope and the revision the endpoint selected. Its
// byte slices alias the request body and are valid only during Serve.
type Request struct {
	http    *http.Request
	msg     *jsonrpc.Message
	meta    []byte
	version Version
	server  *Server
	handler *Handler
	caps    json.RawMessage
	capBits Capability // caps, read once

	round  *round          // the opened requestState of a retry, nil otherwise
	loose  json.RawMessage // inputResponses sent without a requestState
	notify *notifier       // nil unless the request may stream

	principal   *auth.Principal
	lastVisible visibility // the permission rule's last answer
	wsDone      bool       // the workspace was resolved (ws, wsErr hold the outcome)
	ws          string
	wsErr       *Error
}

// HTTP returns the underlying HTTP request (for its headers).
func (r *Request) HTTP() *http.Request { return r.http }

// Method returns the JSON-RPC method.
func (r *Request) Method() string { return r.msg.Method }

// ID returns the request id exactly as sent.
func (r *Request) ID() json.RawMessage { return r.msg.ID }

// Params returns the raw params object, or nil when absent.
func (r *Request) Params() json.RawMessage { return r.msg.Params }

// Meta returns the raw params._meta object, or nil when absent.
func (r *Request) Meta() json.RawMessage { return r.meta }

// Param returns the raw value of params member name, matched exactly
// (never case-insensitively).
func (r *Request) Param(name string) (json.RawMessage, bool) {
	if r.msg.Params == nil {
		return nil, false
	}
	return jsonrpc.Lookup(r.msg.Params, name)
}

// Version returns the revision in use. It is echoed in the
// MCP-Protocol-Version response header.
func (r *Request) Version() Version { return r.version }

// Negotiate sets the revision in use; initialize uses it to answer with the
// revision it negotiated.
func (r *Request) Negotiate(v Version) { r.version = v }

// Server returns the server whose tools this request reaches.
func (r *Request) Server() *Server { return r.server }

// SupportedVersions lists every revision the endpoint serves, newest first.
func (r *Request) SupportedVersions() []Version { return r.handler.versions }

// SetClientCapabilities records the capabilities the client declared for
// this request; tool handlers read them from their Call.
func (r *Request) SetClientCapabilities(raw json.RawMessage) {
	r.caps, r.capBits = raw, capabilitiesOf(raw)
}

// Lookup returns the raw value of member name in a JSON object taken from
// this request (params, _meta, ...), matched exactly.
func Lookup(obj json.RawMessage, name string) (json.RawMessage, bool) {
	return jsonrpc.Lookup(obj, name)
}

// String decodes a raw JSON string taken from a request.
func String(raw json.RawMessage) (string, bool) { return jsonrpc.String(raw) }

// CaseVariant reports a member of obj whose name differs from one of known
// only in letter case, such as "Name" beside "name".
func CaseVariant(obj json.RawMessage, known ...string) (got, want string, found bool) {
	got, want, ok := jsonrpc.CheckCaseVariants(obj, known)
	return got, want, !ok
}
