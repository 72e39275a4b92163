package mcp

import (
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
	// negotiates: the method negotiates the revision in its body
	// (initialize and its notification), so a header naming a revision the
	// server does not know must not stop it.
	negotiates bool
	// ownBudget: the method draws from a rate budget of its own, so that
	// spending every other request never breaks it (server/discover).
	ownBudget bool
	serve     func(s *Server, r *request) (seam.Result, error)
}

// lookup returns the row of method as the request's revision and the
// server's capabilities have it, or nil: a method the revision does not
// have, or behind a capability the server does not advertise, does not
// exist for the client.
func (h *Handler) lookup(method string, rev *revision) *methodRow {
	row := rev.methods[method]
	if row == nil || (row.capability != 0 && h.server.caps&row.capability == 0) {
		return nil
	}
	return row
}

// dispatch runs one request through the era's hooks and the method's
// handler, in the order revision 2026-07-28's validation ladder wants:
// envelope, method lookup, routing headers, carried state, the method,
// then the result's stamp.
func (h *Handler) dispatch(req *request) (seam.Result, error) {
	e, sr := req.rev.era, &req.Request
	if err := e.Envelope(sr); err != nil {
		return nil, err
	}
	if sr.ClientCapabilities != nil {
		req.capBits = capabilitiesOf(sr.ClientCapabilities)
	}
	row := h.lookup(req.msg.Method, req.rev)
	if row == nil {
		return nil, methodNotFound(req.msg.Method)
	}
	req.row, sr.Method = row, &row.Method
	if err := e.Target(sr); err != nil {
		return nil, err
	}
	if row.Task && req.capBits&capTasks == 0 {
		// Before the id is opened: a client without the extension learns
		// what it lacks, not that its id is unknown.
		return nil, missingTasksExtension()
	}
	if h.server.statuses && row.Arguments {
		req.statusReference() // a task's status tool names its job (taskstatus.go)
	}
	if err := e.Open(sr); err != nil {
		return nil, err
	}
	var res seam.Result
	var err error
	switch {
	case row.era:
		res, err = e.Serve(sr)
		req.setVersion(Version(sr.Version)) // initialize negotiates it
	case row.serve != nil:
		res, err = row.serve(h.server, req)
		if ir, asks := res.(*seam.InputRequired); asks && err == nil && !req.rev.f.inputRequests {
			res, err = h.askLegacy(req, row, ir)
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
