package mcp

import (
	"encoding/json"
	"errors"
	"net/http"
	"time"
)

// Error is a JSON-RPC error with a code, a message safe to show the client,
// and optional data. Any other error that reaches the endpoint is answered
// as CodeInternal with a generic message; its text goes only to the log.
//
// An Error is either in-band (the request was understood and the answer is
// an error, HTTP 200) or a rejection (see Reject), answered with the HTTP
// status that belongs to its code.
type Error struct {
	code     Code
	message  string
	data     any
	rejected bool
	status   int

	challenge  string        // WWW-Authenticate value, for 401/403/400 auth refusals
	retryAfter time.Duration // Retry-After, for 429/503
}

// NewError returns an in-band error: the response is HTTP 200 with the error
// in the JSON-RPC body, as the 2025 eras require for every error of a
// well-formed request and 2026-07-28 allows for errors found in dispatch
// (except -32601, always 404 there, and -32021, always 400).
func NewError(c Code, message string) *Error {
	return &Error{code: c, message: message}
}

// Reject returns an error that refuses a request before dispatch: HTTP 404
// for CodeMethodNotFound, 400 otherwise. Revision 2026-07-28 requires these
// statuses for header, version, capability and _meta failures.
func Reject(c Code, message string) *Error {
	return &Error{code: c, message: message, rejected: true}
}

// httpError refuses a request at the HTTP level with an explicit status.
func httpError(status int, c Code, message string) *Error {
	return &Error{code: c, message: message, status: status, rejected: true}
}

// WithData returns e with data attached; data must marshal to JSON.
func (e *Error) WithData(data any) *Error {
	e.data = data
	return e
}

// Code returns the JSON-RPC code.
func (e *Error) Code() Code { return e.code }

// Message returns the message sent to the client.
func (e *Error) Message() string { return e.message }

func (e *Error) Error() string { return e.code.String() + ": " + e.message }

// MethodNotFound is the answer to a method the era does not serve, or one
// behind a capability the server does not advertise. The era decides
// nothing about its status: 2026-07-28 requires 404, the 2025 eras get the
// error in-band.
func MethodNotFound(method string) *Error {
	if len(method) > 128 {
		method = method[:128]
	}
	return NewError(CodeMethodNotFound, "Method not found").WithData(map[string]string{"method": method})
}

// HeaderMismatch rejects a request whose header disagrees with its body, or
// is missing, duplicated or badly encoded. reason is a stable key
// ("missing", "mismatch", "duplicate", "invalid_chars", "bad_encoding");
// detail must not quote client values.
func HeaderMismatch(header, reason, detail string) *Error {
	return Reject(CodeHeaderMismatch, "Header mismatch: "+detail).
		WithData(map[string]string{"header": header, "reason": reason})
}

// httpStatus derives the HTTP status of an error, in one place for every era.
// perRequest is true for a 2026-07-28 style era, where method-not-found is
// always 404 and a missing client capability always 400.
func (e *Error) httpStatus(perRequest bool) int {
	switch {
	case e.status != 0:
		return e.status
	case e.rejected && e.code == CodeMethodNotFound:
		return http.StatusNotFound
	case e.rejected:
		return http.StatusBadRequest
	case perRequest && e.code == CodeMethodNotFound:
		return http.StatusNotFound
	case perRequest && e.code == CodeMissingRequiredClientCapabilities:
		return http.StatusBadRequest
	default:
		return http.StatusOK
	}
}

// CodeOf returns the code of err: its own when err is an *Error, and
// CodeInternal for anything else.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.code
	}
	return CodeInternal
}

// appendError renders the error object (the value of "error").
func (e *Error) appendJSON(dst []byte) []byte {
	dst = append(dst, `{"code":`...)
	dst = appendInt(dst, int64(e.code))
	dst = append(dst, `,"message":`...)
	dst = appendString(dst, e.message)
	if e.data != nil {
		b, err := json.Marshal(e.data)
		if err == nil {
			dst = append(dst, `,"data":`...)
			dst = append(dst, b...)
		}
	}
	return append(dst, '}')
}
