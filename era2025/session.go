package era2025

import (
	"log/slog"
	"time"

	"github.com/mcpdual/mcpdual/headers"
	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/mrtr"
)

// DefaultSessionLifetime is how long a session id opens when WithSessions
// is given no lifetime.
const DefaultSessionLifetime = 12 * time.Hour

// WithSessions makes initialize answer an Mcp-Session-Id that is the
// session itself: the negotiated revision and the capabilities the client
// declared, sealed with s (give it the key ring of era2026.WithSealer, so
// every replica opens it) for lifetime (0: DefaultSessionLifetime), bound
// to the caller. Nothing is stored: any replica opens the id on every
// later request and so knows what the client declared (Call.ClientCapabilities,
// and the input requests of mcp.WithLegacyInput). An id that does not
// open — altered, expired, sealed under a key this replica's ring lacks,
// or presented by another caller — is answered 404, and the client
// initializes again. A request without the header is served as without
// this option. A DELETE is refused (405), which the transport allows: a
// sealed session cannot be ended before it expires, so the client just
// forgets the id.
//
// A key that sealed a session must stay in every ring for the lifetime
// plus the sealer's skew, or its sessions end early (404, then a new
// initialize).
//
// It panics on a nil Sealer or a negative lifetime.
func WithSessions(s *mrtr.Sealer, lifetime time.Duration) Option {
	if s == nil {
		panic("era2025: WithSessions needs a Sealer")
	}
	if lifetime < 0 {
		panic("era2025: WithSessions needs a lifetime of 0 (the default) or more")
	}
	if lifetime == 0 {
		lifetime = DefaultSessionLifetime
	}
	return optionFunc(func(e *Era) { e.sessions, e.lifetime = s, lifetime })
}

// sessionMethod is the Method of a session's binding: no request method
// has this name, so a session id never opens as a requestState or a task
// id, nor they as a session.
const sessionMethod = "mcp-session"

// sessionBinding is what a session id is sealed to and opened with: the
// core's session binding, under sessionMethod.
func sessionBinding(req *seam.Request) mrtr.Binding {
	b := req.Core.SessionBinding()
	b.Method = sessionMethod
	return b
}

// maxSessionCaps bounds the capabilities a session carries: what is kept
// of them (see sessionCaps) must seal into a header a client echoes.
const maxSessionCaps = 2 << 10

// sessionCaps keeps of a client's capabilities what the server reads
// (elicitation, sampling, roots, extensions), so the sealed id stays
// small whatever else a client declares; nil when they are not an object
// or what is kept is too large.
func sessionCaps(raw []byte) []byte {
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	out := []byte{'{'}
	for _, k := range [...]string{"elicitation", "sampling", "roots", "extensions"} {
		v, ok := jsonrpc.Lookup(raw, k)
		if !ok || len(v) == 0 || v[0] != '{' || jsonrpc.Validate(v, sessionDepth-2) != nil {
			// A member deeper than the session reads back is left out:
			// the others still open with it.
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = seam.AppendString(out, k)
		out = append(out, ':')
		out = append(out, v...)
	}
	out = append(out, '}')
	if len(out) > maxSessionCaps {
		return nil
	}
	return out
}

// issueSession seals the session initialize negotiated ("": none). A
// failure is logged and the client gets no id: it is then served as a
// stateless client.
func (e *Era) issueSession(req *seam.Request, version string) string {
	if e.sessions == nil || req.Local {
		return ""
	}
	caps, _ := req.Param("capabilities")
	payload := []byte(`{"v":`)
	payload = seam.AppendString(payload, version)
	// What is sealed must be no deeper than open reads back: sealed, the
	// id would never open, and the client would initialize again and
	// again. Deeper, the session opens declaring no capability.
	if c := sessionCaps(caps); c != nil && jsonrpc.Validate(c, sessionDepth-1) == nil {
		payload = append(payload, `,"c":`...)
		payload = append(payload, c...)
	}
	payload = append(payload, '}')
	id, _, err := e.sessions.SealFor(sessionBinding(req), payload, e.lifetime)
	if err != nil {
		req.Core.Log(slog.LevelError, "era2025: could not seal a session; the client is served without one", "err", err)
		return ""
	}
	return id
}

// openSession reads the Mcp-Session-Id of a request after initialize, and
// returns the capabilities it carries (nil without a session). The revision it names
// must be the one the request is in, since MCP-Protocol-Version names it
// too; a request without that header (2025-03-26 sends none) is served in
// the session's revision (Declared.Version): both sides must keep to the
// revision negotiated, and the session is how the server knows it.
func (e *Era) openSession(req *seam.Request) (seam.Declared, error) {
	if e.sessions == nil || req.Local || req.HTTP == nil {
		return seam.Declared{}, nil
	}
	id, err := headers.Get(req.HTTP.Header, headers.SessionID)
	switch {
	case err == headers.ErrMissing:
		return seam.Declared{}, nil
	case err != nil:
		return seam.Declared{}, seam.HeaderMismatch(headers.SessionID, "duplicate", "Mcp-Session-Id header "+err.Error())
	}
	if m := req.Method; m != nil && m.Negotiates {
		// A client that starts over may still send its old id.
		return seam.Declared{}, nil
	}
	opened, until, oerr := e.open(req, id)
	if oerr != nil {
		return seam.Declared{}, oerr
	}
	v, _ := jsonrpc.Lookup(opened, "v")
	negotiated, _ := jsonrpc.String(v)
	named := req.HTTP.Header.Get(headers.ProtocolVersion) != ""
	if negotiated != req.Version && named {
		return seam.Declared{}, seam.HeaderMismatch(headers.ProtocolVersion, "mismatch", "MCP-Protocol-Version does not match the revision the session negotiated")
	}
	d := seam.Declared{ClientCapabilities: []byte("{}"), Session: id, SessionUntil: until}
	if !named {
		d.Version = negotiated
	}
	if c, ok := jsonrpc.Lookup(opened, "c"); ok {
		d.ClientCapabilities = c
	}
	return d, nil
}

// sessionDepth bounds the nesting of what a session seals: the payload
// object holding the client's capabilities, one level below it.
const sessionDepth = 8

// open opens a session id for the caller, or answers 404. It returns the
// payload and the last instant the id opens: its expiry plus the sealer's
// skew (ValidUntil), during which the session is served as before its
// expiry, so what lives as long as the session (its GET stream, what the
// session store keeps for it) must live that long too.
func (e *Era) open(req *seam.Request, id string) ([]byte, time.Time, error) {
	opened, err := e.sessions.Open(sessionBinding(req), id)
	if err != nil {
		req.Core.Log(slog.LevelInfo, "era2025: session id refused", "reason", mrtr.Reason(err))
		return nil, time.Time{}, seam.SessionNotFound()
	}
	if jsonrpc.Validate(opened.Payload, sessionDepth) != nil {
		return nil, time.Time{}, seam.SessionNotFound()
	}
	return opened.Payload, opened.ValidUntil, nil
}
