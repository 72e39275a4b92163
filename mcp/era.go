package mcp

import (
	"github.com/mcpdual/mcpdual/headers"
	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/seam"
)

// Era serves the protocol revisions of one era: era2026.New() for
// 2026-07-28, era2025.New() for the handshake revisions. The composition
// root passes the eras it wants to NewHandler. Any type may have a Seam
// method of the right signature (another module can write one with a type
// parameter, never naming the internal type), but what it returns can
// only come from the era packages of this module: seam.Era has an
// unexported method that only their types have. And it is an interface,
// so whoever holds an Era can call its hooks but never replace them.
type Era interface {
	// Seam returns the era's revisions and hooks, as the core reads them.
	Seam() seam.Era
}

// Era selection: which served revision, and so which era, a request is
// in.

// selectEra applies the era rules: the body decides, headers cross-check.
//
//   - The body names a revision (an era's Names hook finds it, and checks
//     that MCP-Protocol-Version is present and equal to it: 2026-07-28's
//     params._meta): it must be served, and its profile must have the
//     envelope (Profile.Envelope).
//   - Otherwise MCP-Protocol-Version, when present, must name a served
//     revision; a request naming one with the envelope without sending
//     it is refused (-32602), never served by silently falling back. A
//     notification is not: its _meta is optional and names no revision.
//   - Nothing names a revision: the default revision of the handshake era
//     (the seed's rule: 2025-06-18). So is a message that negotiates the
//     revision in its body (initialize) whose header names an unknown one.
//
// Any unknown revision, in the header or the envelope, is -32022 listing
// every served revision.
func (h *Handler) selectEra(req *request) (*revision, *Error) {
	r, msg := req.HTTP, &req.msg
	hv, herr := headers.Get(r.Header, headers.ProtocolVersion)
	if herr == headers.ErrDuplicate {
		return nil, mismatch(headers.ProtocolVersion, "duplicate", "MCP-Protocol-Version header "+herr.Error())
	}
	cv, named := "", false
	for _, e := range h.eras {
		v, ok, err := e.Names(&req.Request)
		if err != nil {
			e, _ := asError(err)
			return nil, e
		}
		if ok {
			cv, named = v, true
			break
		}
	}
	if named {
		// The era checked that MCP-Protocol-Version repeats it.
		rev, ok := h.byVersion[Version(cv)]
		if !ok {
			return nil, h.unsupported(cv)
		}
		if !rev.f.Envelope {
			return nil, reject(CodeInvalidParams, "Invalid params: revision "+cv+" is negotiated with initialize, not named in _meta")
		}
		return rev, nil
	}
	if herr == nil {
		rev, ok := h.byVersion[Version(hv)]
		if !ok {
			if row := methodsByName[msg.Method]; row != nil && row.Negotiates && h.dflt != "" && revisionDate(hv) {
				// The handshake negotiates the revision in its body; a
				// header naming one this server does not know (a newer
				// client's wish) must not stop it.
				// notifications/initialized, its second half, carries
				// nothing and runs nothing: a client that sends it with
				// the header it asked for, before taking up the one
				// negotiated, is not refused for a no-op. A value not
				// spelled as a revision is invalid, not a newer wish: 400.
				return h.byVersion[h.dflt], nil
			}
			return nil, h.unsupported(hv)
		}
		if rev.f.Envelope && !msg.IsNotification() {
			// A request of an envelope revision names it in _meta, which
			// its schema requires. A notification's _meta is optional and
			// holds no revision (schema.ts 2026-07-28 NotificationParams):
			// the header is all that names it, and it is accepted.
			e, _ := asError(rev.era.Unnamed(hv))
			return nil, e
		}
		return rev, nil
	}
	if h.dflt == "" {
		return nil, missingVersionHeader()
	}
	return h.byVersion[h.dflt], nil
}

// revisionDate reports whether v is spelled as a revision: YYYY-MM-DD.
func revisionDate(v string) bool {
	if len(v) != 10 || v[4] != '-' || v[7] != '-' {
		return false
	}
	for i := 0; i < len(v); i++ {
		if i != 4 && i != 7 && (v[i] < '0' || v[i] > '9') {
			return false
		}
	}
	return true
}

// mismatch is seam.HeaderMismatch as the core's error.
func mismatch(header, reason, detail string) *Error {
	e, _ := asError(seam.HeaderMismatch(header, reason, detail))
	return e
}

func missingVersionHeader() *Error {
	return mismatch(headers.ProtocolVersion, "missing", "MCP-Protocol-Version header is required")
}

type unsupportedData struct {
	Supported []string `json:"supported"`
	Requested string   `json:"requested"`
}

func (h *Handler) unsupported(requested string) *Error {
	requested = requested[:jsonrpc.CutText(requested, 64)]
	return reject(CodeUnsupportedProtocolVersion, "Unsupported protocol version").
		WithData(unsupportedData{Supported: h.supported, Requested: requested})
}

// setVersion sets the revision in use, in both its forms.
func (req *request) setVersion(v Version) {
	req.version, req.Request.Version = v, string(v)
}
