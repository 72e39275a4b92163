// Package local marks an in-process exchange that did not come over HTTP:
// a message a transport such as stdio read and hands to the endpoint as a
// synthetic request. Only this module can set the mark (the package is
// internal), so no network request can claim it.
//
// A local exchange has no network peer and no bearer token: the host
// names the principal when it starts the transport, and the endpoint skips
// what only HTTP has (Host and Origin, the per-address limit, the token,
// the 2026-07-28 header cross-checks).
package local

import (
	"context"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/mcp/auth"
)

// Exchange is what the transport tells the endpoint about one message.
type Exchange struct {
	Transport string          // "stdio"
	Principal *auth.Principal // the identity the host runs the transport as; nil for none
	// Body and Message are the message, already read and parsed by the
	// transport (the request's body holds the same bytes; Message aliases
	// Body, which nothing writes to again), or nil when the transport did
	// not parse it. The endpoint takes them rather than read and scan the
	// message a second time.
	Body    []byte
	Message *jsonrpc.Message
	// Notify, when set, takes each notification the request sends while it
	// runs (one JSON-RPC message), in order and before its answer, instead
	// of the response turning into an event stream the transport would
	// have to parse back.
	Notify func(msg []byte)
	// Capabilities are what the client declared on the initialize that
	// set up the transport's session (a 2025 handshake: over a local
	// transport the process is the session), nil before one. The endpoint
	// reads them as it reads a sealed session's over HTTP: they decide,
	// among others, what a 2025 client may be asked (mcp.WithLegacyInput).
	Capabilities []byte
	// Wait, when set, says the transport reads the client's answers to the
	// requests the endpoint sends through Notify and hands each back as a
	// message of its own (a JSON-RPC response, which the endpoint delivers
	// to the request that asked); without it the endpoint asks nothing.
	// The endpoint calls Wait when the request starts waiting for the
	// client: the transport gives back what bounds the messages it serves
	// at once, so that requests waiting for the client cannot keep it from
	// reading the answers. resume takes it again before the request runs
	// on, and returns ctx's error when ctx ends first. Both are called from
	// the goroutine serving the request.
	Wait func() (resume func(ctx context.Context) error)
	// Refused, when set, is the transport's refusal of a message it could
	// not hand over (stdio: a line over its size bound, skipped unread).
	// The endpoint answers it as it answers a refusal of its own — with
	// Message's id when the transport found one (Message holds nothing
	// else then, and Body is empty) — so that its observer hears of the
	// message as of any other it refuses.
	Refused *Refusal
}

// Refusal is an answer the transport decided: the JSON-RPC error, and the
// HTTP status it stands for (what an observer reports).
type Refusal struct {
	Status  int
	Code    int
	Message string
	Data    []byte // one JSON value, or nil
}

type key struct{}

// NewContext returns ctx carrying x.
func NewContext(ctx context.Context, x *Exchange) context.Context {
	return context.WithValue(ctx, key{}, x)
}

// From returns the exchange ctx carries, nil for a network request.
func From(ctx context.Context) *Exchange {
	x, _ := ctx.Value(key{}).(*Exchange)
	return x
}
