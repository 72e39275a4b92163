package mcp

import (
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/seam"
)

// Error is a JSON-RPC error with a code, a message safe to show the client,
// and optional data. A prompt or completion function returns one to answer
// with it; any other error that reaches the endpoint is answered as
// CodeInternal with a generic message, and its text goes only to the log.
// On 2026-07-28 a code that revision forbids is not sent as it is: -32002
// is answered CodeInvalidParams, and -32042 or a code of -32020 to -32099
// (but -32021 with its data) as CodeInternal.
//
// An error from NewError is in-band: the request was understood and the
// answer is an error. Its HTTP status belongs to the revision: 200 on the
// handshake revisions; on 2026-07-28 also 200, except -32601 (404) and
// -32021 (400).
type Error struct {
	code    Code
	message string
	data    any
	status  int // the HTTP status when fixed; 0: the era's rule for in-band errors

	challenge  string        // WWW-Authenticate value, for 401/403/400 auth refusals
	retryAfter time.Duration // Retry-After, for 429/503
}

// NewError returns an in-band error.
func NewError(c Code, message string) *Error {
	return &Error{code: c, message: message}
}

// httpError refuses a request with an explicit HTTP status.
func httpError(status int, c Code, message string) *Error {
	return &Error{code: c, message: message, status: status}
}

// reject refuses a request before dispatch: 404 for an unknown method,
// 400 otherwise.
func reject(c Code, message string) *Error {
	if c == CodeMethodNotFound {
		return httpError(http.StatusNotFound, c, message)
	}
	return httpError(http.StatusBadRequest, c, message)
}

// WithData attaches data to e and returns e; data must marshal to JSON,
// and is left out of the error sent when it does not.
func (e *Error) WithData(data any) *Error {
	e.data = data
	return e
}

// Code returns the JSON-RPC code.
func (e *Error) Code() Code { return e.code }

// Message returns the message sent to the client.
func (e *Error) Message() string { return e.message }

func (e *Error) Error() string { return e.code.name() + ": " + e.message }

// errInternal is the one answer to anything that went wrong inside: the
// cause is logged where it happened, never sent.
func errInternal() *Error { return NewError(CodeInternal, "Internal error") }

// methodNotFound answers a method the revision does not have, or one
// behind a capability the server does not advertise.
func methodNotFound(method string) *Error {
	method = method[:jsonrpc.CutText(method, 128)]
	return NewError(CodeMethodNotFound, "Method not found").WithData(map[string]string{"method": method})
}

// asError turns what the pipeline returned into the error to send: an
// *Error as is, an era's *seam.Failure in the same shape, anything else
// (logged by the caller) as an internal error.
func asError(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	var f *seam.Failure
	if errors.As(err, &f) {
		return &Error{code: Code(f.Code), message: f.Message, data: f.Data, status: f.Status}, true
	}
	return errInternal(), false
}

// httpStatus is the status of e under a revision's statuses (nil before
// a revision is selected, or for a revision that answers every in-band
// error 200).
func (e *Error) httpStatus(statuses map[int]int) int {
	if e.status != 0 {
		return e.status
	}
	if s, ok := statuses[int(e.code)]; ok {
		return s
	}
	return http.StatusOK
}

// appendJSON renders the error object (the value of "error").
func (e *Error) appendJSON(dst []byte) []byte {
	dst = append(dst, `{"code":`...)
	dst = jsonrpc.AppendInt(dst, int64(e.code))
	dst = append(dst, `,"message":`...)
	dst = jsonrpc.AppendString(dst, e.message)
	if e.data != nil {
		b, err := json.Marshal(e.data)
		if err == nil {
			dst = append(dst, `,"data":`...)
			dst = append(dst, b...)
		}
	}
	return append(dst, '}')
}
