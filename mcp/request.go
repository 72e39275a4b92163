package mcp

import (
	"context"
	"log/slog"
	"net/url"
	"time"

	"github.com/mcpdual/mcpdual/internal/inproc"
	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/local"
	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/mcp/auth"
)

// request is one JSON-RPC request on its way through the pipeline, made
// of the parts its stages own: each part is written by one stage and read
// by those after it. The access, call and round stages are methods of
// their parts (accessCache, callPart, roundPart), which the request hands
// what they read — the caller (who), the header values, an opened task —
// and only those methods write a part's fields, apart from the exceptions
// internal/layering's TestPartsOwned lists with their reasons. It embeds
// what the core hands an era (seam.Request: the HTTP request, the
// method's name and row, the revision, params indexed once), so that
// handing it over costs nothing, and its parts, so that one allocation
// holds them all. Its byte slices alias the request
// body and are valid only while it is served.
type request struct {
	seam.Request
	envelope
	accessCache
	callPart
	roundPart
	task   *openTask // the task a tasks/* request names, opened (taskstate.go)
	notify *notifier // nil unless the request may stream (notifier.go)
	// bodyBuf holds a short body (readBody): most requests need no
	// buffer of their own. Never written again once read.
	bodyBuf [bodyBufSize]byte
	// slot: the request holds one of Limits.Concurrent's slots, which a
	// wait gives back (Handler.releaseSlot).
	slot bool
	// tw is what the request's answer is written through (Handler.serveHTTP).
	tw trackedWriter
}

// envelope is what parsing and era selection fill (handler.go, era.go,
// methods.go): the strictly parsed message, the revision, the method's
// row, who sent it.
type envelope struct {
	msg        jsonrpc.Message
	version    Version   // Request.Version, typed
	rev        *revision // the revision in use (nil until selected)
	row        *methodRow
	server     *Server
	handler    *Handler
	clientCaps []byte     // the client capabilities the era found (seam.Era.Envelope)
	capBits    Capability // and what they declare, read once
	sessionID  string     // a sealed session initialize issued (seam.Negotiated)
	// session is the sealed 2025 session the request is in ("": none),
	// as its era opened it, and until when it opens (seam.Declared).
	session      string
	sessionUntil time.Time
	principal    *auth.Principal
	local        *local.Exchange // a message that did not come over HTTP, nil otherwise
	values       headerValues    // the header values this request's responses own
}

// accessCache is what access (visibility.go, rate.go) learns once and answers again:
// the workspace, the tool the caller may see, the caller's rate key.
type accessCache struct {
	tool      *tool  // the tool toolName names, if the caller may see it
	toolName  string // what visibleTool was last asked
	toolKnown bool
	wsDone    bool // the workspace was resolved (ws, wsErr hold the outcome)
	ws        string
	wsErr     *Error
	caller    string // callerKey's answer, "" until asked (see callerKey)
}

// callPart is the call a request makes (calltool.go, route.go): the Call,
// the route's request and what it wrote, the result.
type callPart struct {
	call      Call            // the one call a request makes
	toolRes   toolResult      // and its result, when it is a tool's
	rec       inproc.Recorder // what the route it runs wrote
	routeCtx  routeContext    // the context of that route's request
	innerBody innerBody       // and its body
	innerURL  url.URL         // and its URL
	// recBuf is where rec's body starts: a short answer needs no buffer
	// of its own. Its size keeps a request's allocation within 1,792
	// bytes (TestRequestSize).
	recBuf [recBufSize]byte
}

// roundPart is the round of a retry and a confirmation's course (round.go,
// confirm.go, claim.go).
type roundPart struct {
	round *round // the opened requestState of a retry, nil otherwise
	loose []byte // inputResponses sent without a requestState
	// confirmation is what a destructive tool's confirmation came to, for
	// observers ("" when none was involved).
	confirmation string
	// claim is the replay guard's lease on a confirmed call while it runs.
	claim *claimed
}

// ctx is the request's context, for logs and hooks.
func (req *request) ctx() context.Context { return req.HTTP.Context() }

// logError logs an internal failure with the request's context.
func (req *request) logError(msg string, args ...any) { req.Log(slog.LevelError, msg, args...) }

var _ seam.Core = (*request)(nil)

// recBufSize is callPart.recBuf's and bodyBufSize request.bodyBuf's: with
// them a request, plus the 8-byte header the allocator puts before an
// object of its size, fills 1,792 bytes, a size class of the allocator
// (one byte more and it takes 2,048). Bytes are what a busy endpoint's
// collector works for (design record 034).
const (
	recBufSize  = 32
	bodyBufSize = 232 // 256 before request.tw (24 bytes) joined the block
)

// Log writes to the endpoint's log with the request's context.
func (req *request) Log(level slog.Level, msg string, args ...any) {
	req.handler.cfg.logger.Log(req.ctx(), level, msg, args...)
}

// fromHandler is the error a prompt, completion or resource function
// returned, as this request's revision may carry it. Revision 2026-07-28
// forbids -32002 (resource not found, -32602 there) and -32042, and
// reserves -32020 to -32099 for codes it defines, used only with their
// meaning, which a handler's error cannot have (-32021 only with its
// data). -32002 is answered -32602, the others as an internal error
// (logged). The rest of -32000 to -32019 is a legacy range the revision
// does not forbid: an application's code there passes, as on the
// handshake revisions, which get the handler's code as it is.
func (req *request) fromHandler(e *Error) *Error {
	c := e.code
	if !req.rev.f.Envelope || c < -32099 || c > -32000 {
		return e
	}
	switch {
	case c == codeResourceNotFound:
		return &Error{code: CodeInvalidParams, message: e.message, data: e.data}
	case c == CodeMissingRequiredClientCapabilities && e.data != nil:
		return e
	case c > CodeHeaderMismatch:
		return e // -32019 to -32000: legacy, not forbidden
	}
	req.logError("mcp: a handler returned an error code reserved in this revision; answered as an internal error", "method", req.msg.Method, "code", int(c))
	return errInternal()
}
