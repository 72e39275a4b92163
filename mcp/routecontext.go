package mcp

import (
	"bytes"
	"context"
	"net/http"
)

// routeContext is the context of an in-process request: the MCP request's
// cancellation and deadline, and none of its values but the two net/http's
// server sets (http.ServerContextKey, http.LocalAddrContextKey). The MCP request was
// routed by the host's router to the endpoint, and routers keep their
// routing state in the context (chi's route context, gorilla's vars): a
// route called with the endpoint's context would be routed, or read its
// parameters, as if it were POST /mcp. Values the host wants its routes to
// see are carried by WithRouteRequest. It answers the library's own keys
// itself (the in-process mark, the Call), so building it costs one
// allocation.
type routeContext struct {
	context.Context
	call *Call
	// fn: the context of a function tool's call, which keeps the MCP
	// request's values (a function is no in-process request).
	fn bool
}

// AfterFunc lets a context the route derives (WithCancel, WithTimeout)
// hear of the MCP request's end without a goroutine of its own: the
// context package asks its parent for this method when Value does not
// lead it to a cancelable parent, as it does not here.
func (c *routeContext) AfterFunc(f func()) func() bool { return context.AfterFunc(c.Context, f) }

func (c *routeContext) Value(key any) any {
	switch key.(type) {
	case inProcessKey:
		if !c.fn {
			return true
		}
	case callKey:
		return c.call
	}
	if c.fn || key == http.ServerContextKey || key == http.LocalAddrContextKey {
		// The two values net/http's server gives every request it
		// serves, the server and the address the request arrived at,
		// are the server's and no router's: the route gets them as it
		// would from the network.
		return c.Context.Value(key)
	}
	return nil
}

// innerBody is an in-process request's body.
type innerBody struct{ bytes.Reader }

type inProcessKey struct{}
