package mcp

import (
	"net/http"

	"github.com/mcpdual/mcpdual/headers"
	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/mcp/auth"
)

// Sealed 2025 sessions (era2025.WithSessions): the era seals and opens the
// id; the core sends it on initialize's answer, binds it to the caller and
// acknowledges a DELETE.

// SessionBinding implements seam.Core: a session belongs to the caller and
// this server, whatever workspace, method or revision a later request
// names.
func (r *request) SessionBinding() seam.Binding {
	return seam.Binding{Principal: r.principal.Key(), Audience: r.handler.audience}
}

// noteSessions remembers an era that issues sessions: only then is a
// DELETE anything but 405.
func (h *Handler) noteSessions(e seam.Era) {
	if s, ok := e.(seam.Sessions); ok && s.Issues() && h.sessions == nil {
		h.sessions = s
	}
}

// endSession answers a DELETE: 204 for a session id that opens for this
// caller, 404 otherwise. A sealed session holds nothing to discard; the
// client forgets the id, which is what ending it means here.
func (h *Handler) endSession(w http.ResponseWriter, r *http.Request, principal *auth.Principal) {
	req := &request{server: h.server, handler: h, principal: principal}
	req.HTTP, req.Server, req.Core = r, &h.info, req
	if err := h.sessions.EndSession(&req.Request); err != nil {
		h.writeError(r.Context(), w, nil, "", err)
		return
	}
	w.Header()["Cache-Control"] = []string{"no-store"}
	w.WriteHeader(http.StatusNoContent)
}

// sessionHeader sends the id initialize sealed, if any.
func sessionHeader(hdr http.Header, req *request) {
	if req.SessionID != "" {
		hdr[headers.SessionID] = []string{req.SessionID}
	}
}
