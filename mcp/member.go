package mcp

import (
	"net/http"
	"slices"

	"github.com/mcpdual/mcpdual/headers"
	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/mcp/auth"
)

// What a 2025-03-26 batch settles once for its POST (batch.go) and the
// serving of each member reads: who sent it, its session, that a request
// is a member at all.

// batchState is what a batch settled once for its whole POST before any
// member ran, which each member's serving takes instead of settling it
// again. It travels in the members' request context under batchKey, an
// unexported key: no client can set it.
type batchState struct {
	// handler settled it: a request another endpoint serves under a
	// member's context (a route calling an MCP endpoint) is no member.
	handler *Handler
	// principal is who the POST authenticated as, with authorization
	// (nil: no authentication, or a local transport's refusal, which
	// each member is answered with its id).
	principal     *auth.Principal
	authorization []string
	// sessionID is the Mcp-Session-Id the batch carried, opened once by
	// the era into session (its Version cleared: a member names
	// 2025-03-26, the revision the batch was found to be in); session is
	// nil when the batch opened none.
	sessionID string
	session   *seam.Declared
}

type batchKey struct{}

// memberOf returns what the batch r is a member of settled for it, nil
// when r is no member of a batch h serves.
func (h *Handler) memberOf(r *http.Request) *batchState {
	b, _ := r.Context().Value(batchKey{}).(*batchState)
	if b == nil || b.handler != h {
		return nil
	}
	return b
}

// memberPrincipal is who the POST of the batch r is a member of
// authenticated as, when r carries the same Authorization (nil
// otherwise): a batch is one HTTP request with one token, verified once
// for it, not once more per member (a verifier's round trip each, and a
// token that expires or is revoked mid-batch answered 401 inside a 200).
func (h *Handler) memberPrincipal(r *http.Request) *auth.Principal {
	b := h.memberOf(r)
	if b == nil || b.principal == nil || !slices.Equal(b.authorization, r.Header["Authorization"]) {
		return nil
	}
	return b.principal
}

// batchSession is the session the batch req is a member of opened for
// it (openBatchSession), nil when req is no member of a batch with one.
// Its caller asks only for a 2025 request carrying one Mcp-Session-Id:
// the others pay for no context lookup.
func batchSession(req *request) *seam.Declared {
	ids := req.HTTP.Header[headers.SessionID]
	b := req.handler.memberOf(req.HTTP)
	if b == nil || b.session == nil || len(ids) != 1 || b.sessionID != ids[0] {
		return nil
	}
	return b.session
}
