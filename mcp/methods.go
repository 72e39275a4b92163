package mcp

import (
	"encoding/json"
	"net/http"

	"github.com/mcpdual/mcpdual/headers"
	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/seam"
)

// methodRow is one row of the method table: what the pipeline must know
// about a method, and the core's handler for it (nil for the methods an
// era answers).
type methodRow struct {
	name        string
	seam.Method // what the eras read
	// capability is the server capability the method needs (0: none).
	capability seam.Capability
	// era: the era answers the method (seam.Era.Serve), not the core.
	era bool
	// notifier is how the method's response may become an event stream
	// beyond progress and log notifications (nil: it does not): a listen
	// stream. It returns nil when this request cannot stream that way.
	notifier func(h *Handler, w http.ResponseWriter, req *request) *notifier
	// asksLegacy: the method may ask a 2025 client for input mid-call
	// (WithLegacyInput), on its response's event stream (legacyinput.go).
	asksLegacy bool
	// ownBudget: the method draws from a rate budget of its own, so that
	// spending every other request never breaks it (server/discover).
	ownBudget bool
	serve     func(s *Server, r *request) (seam.Result, error)
}

// lookup returns the row of method as the request's revision and the
// server's capabilities have it, or nil: a method the revision does not
// have, or behind a capability the server does not advertise, does not
// exist for the client.
func lookup(req *request, method string, rev *revision) *methodRow {
	row := rev.methods[method]
	if row == nil || (row.capability != 0 && req.Server.Capabilities&row.capability == 0) {
		return nil
	}
	if row.capability&(seam.CapSubscribe|seam.CapLogging) != 0 && (!rev.f.Sessions || req.local != nil) {
		return nil // the 2025 push rests on sessions, which this revision's era (or stdio) does not issue
	}
	return row
}

// dispatch runs one request through the era's hooks and the method's
// handler, in the order revision 2026-07-28's validation ladder wants:
// envelope, method lookup, routing headers, carried state, the method,
// then the result's stamp.
func (h *Handler) dispatch(req *request) (seam.Result, error) {
	e, sr, row := req.rev.era, &req.Request, req.row
	// An unknown method is refused only after the envelope's checks.
	if err := h.envelope(req, row); err != nil {
		return nil, err
	}
	if req.clientCaps != nil {
		req.capBits = req.rev.f.declared(req.clientCaps)
	}
	if row == nil {
		return nil, methodNotFound(req.msg.Method)
	}
	if err := e.Target(sr); err != nil {
		return nil, err
	}
	if row.Task && req.capBits&capTasks == 0 {
		// Before the id is opened: a client without the extension learns
		// what it lacks, not that its id is unknown.
		return nil, missingTasksExtension()
	}
	if req.server.statuses && row.Arguments {
		req.statusReference() // a task's status tool names its job (taskstatus.go)
	}
	if err := e.Open(sr); err != nil {
		return nil, err
	}
	var res seam.Result
	var err error
	switch {
	case row.era:
		var n seam.Negotiated
		res, n, err = e.Serve(sr)
		if n.Version != "" {
			req.setVersion(Version(n.Version)) // initialize negotiates it
		}
		req.sessionID = n.SessionID
	case row.serve != nil:
		res, err = row.serve(req.server, req)
		if ir, asks := res.(*seam.InputRequired); asks && err == nil && !req.rev.f.InputRequests {
			// Input for a 2025 client (legacyask.go): the questions go out
			// on the response stream, and each answer is a retry of the
			// method with the round it makes.
			res, err = h.askLegacy(req, ir, func(rd round) (seam.Result, error) {
				return row.serve(req.server, req.withRound(rd))
			})
		}
	default:
		return nil, methodNotFound(req.msg.Method)
	}
	if err != nil {
		return nil, err
	}
	return e.Finish(sr, res)
}

func (s *Server) ping(*request) (seam.Result, error) { return &emptyResult{}, nil }

// declared reads a clientCapabilities object as the revision of f defines
// it: what the revision does not define cannot be asked of its client.
// Before 2025-11-25 elicitation has no modes, so any "elicitation" object
// declares the one there is (form), and a "url" in it declares nothing
// more: a 2025-06-18 (or 2025-03-26) client gets no URL-mode request,
// which its revision does not have.
func (f *features) declared(raw json.RawMessage) Capability {
	c := capabilitiesOf(raw)
	if c&(CapElicitationForm|CapElicitationURL) != 0 && f.Elicitation && !f.URLElicitation {
		c |= CapElicitationForm | capMultiSelect // kept only where defined
	}
	return c &^ f.undefinedCaps
}

// capabilitiesOf reads a clientCapabilities object. "elicitation": {}
// means form mode only; form is also assumed when the object names neither
// mode.
func capabilitiesOf(raw json.RawMessage) Capability {
	var c Capability
	// One walk over the members: the strict scan let no name repeat.
	it := jsonrpc.NewIter(raw)
	for {
		name, v, ok := it.Next()
		if !ok {
			return c
		}
		if !jsonrpc.IsObject(v) {
			continue
		}
		switch string(name) {
		case "elicitation":
			_, form := jsonrpc.Lookup(v, "form")
			url, hasURL := jsonrpc.Lookup(v, "url")
			if form || !hasURL {
				c |= CapElicitationForm | capMultiSelect
			}
			if hasURL && jsonrpc.IsObject(url) {
				c |= CapElicitationURL
			}
		case "sampling":
			c |= CapSampling
			if t, ok := jsonrpc.Lookup(v, "tools"); ok && jsonrpc.IsObject(t) {
				c |= CapSamplingTools
			}
		case "roots":
			c |= CapRoots
		case "extensions":
			c |= declaredExtensions(v) // tasks, MCP Apps (extension.go)
		}
	}
}

// envelope has the era read what req declares, row (nil: none known) its
// method's: its client capabilities,
// its session and, for a request that named no revision, the revision its
// session negotiated, which req is then served in. What was settled before
// (the method's row, the notifier) is the same in every 2025 revision,
// which share one era and one method list. Apart from dispatch, whose
// frame a listen stream holds while it waits: bytes there are bytes of
// every open stream (design record 033).
//
//go:noinline
func (h *Handler) envelope(req *request, row *methodRow) error {
	if row != nil {
		// The eras read the row from the envelope on (a handshake
		// negotiates, so a stale session id does not stop it).
		req.Request.Method = &row.Method
	}
	var d seam.Declared
	var b *seam.Declared
	if !req.rev.f.Envelope && len(req.HTTP.Header[headers.SessionID]) == 1 {
		// Only a 2025 request carrying one Mcp-Session-Id may be a batch
		// member in a session: the others never look (member.go).
		b = batchSession(req)
	}
	if b != nil && (row == nil || !row.Negotiates) {
		// A member of a 2025-03-26 batch is in the session the batch
		// opened once for its POST (batch.go): the era is not asked again.
		d = *b
	} else {
		var err error
		if d, err = req.rev.era.Envelope(&req.Request); err != nil {
			return err
		}
	}
	if d.ClientCapabilities != nil {
		req.clientCaps = d.ClientCapabilities
	}
	req.session, req.sessionUntil = d.Session, d.SessionUntil
	if d.Version != "" && Version(d.Version) != req.version {
		rev := h.byVersion[Version(d.Version)]
		if rev == nil || rev.era != req.rev.era {
			return seam.SessionNotFound() // a revision this endpoint no longer serves here
		}
		req.rev = rev
		req.setVersion(rev.version)
	}
	return nil
}
