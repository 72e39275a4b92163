package mcp

import (
	"net/http"

	"github.com/mcpdual/mcpdual/headers"
	"github.com/mcpdual/mcpdual/internal/seam"
)

// Sealed 2025 sessions (era2025.WithSessions): the era seals and opens the
// id; the core binds it to the caller and sends it on initialize's answer.
// A DELETE stays 405: a sealed session cannot end before it expires
// without state somewhere, and the transport lets a server refuse
// explicit termination that way (the client forgets the id).

// SessionBinding implements seam.Core: a session belongs to the caller and
// this server, whatever workspace, method or revision a later request
// names.
func (r *request) SessionBinding() seam.Binding {
	return seam.Binding{Principal: r.principal.Key(), Audience: r.handler.audience}
}

// sessionHeader sends the id initialize sealed, if any.
func sessionHeader(hdr http.Header, req *request) {
	if req.SessionID != "" {
		hdr[headers.SessionID] = []string{req.SessionID}
	}
}
