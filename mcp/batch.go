package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/mcpdual/mcpdual/headers"
	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/local"
	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/mcp/auth"
)

// JSON-RPC batches: revision 2025-03-26 requires a server to accept an
// array of messages in one POST; every later revision forbids them. An
// array is taken as a 2025-03-26 batch when nothing says it belongs to
// another revision (MCP-Protocol-Version absent, which is what 2025-03-26
// clients send, or naming 2025-03-26) and this endpoint serves 2025-03-26;
// otherwise it is refused 400 as before. Each member is served one after
// another through the whole pipeline, as if it were a POST of its own (its
// own rate token, concurrency slot, method scopes, era checks, observer
// event), and the answer is one JSON array of the members' responses.
// What the POST carries once is settled once, before any member runs
// (openBatch): the principal its token authenticated and its sealed
// session (member.go).

// maxBatchMembers bounds the members of one batch; their bytes are bounded
// by Limits.BodyBytes, the batch being one body.
const maxBatchMembers = 64

// batchable reports whether an array body sent with r is a 2025-03-26
// batch this endpoint serves.
func (h *Handler) batchable(r *http.Request) bool {
	if h.cfg.noBatches {
		return false
	}
	if _, ok := h.byVersion[Version20250326]; !ok {
		return false
	}
	v, err := headers.Get(r.Header, headers.ProtocolVersion)
	return err == headers.ErrMissing || (err == nil && v == string(Version20250326))
}

// serveBatch answers the batch body (already read, and scanned strictly
// as a whole) sent with r, serving each member with next (the Handler
// itself: a member is a POST of its own). It reports whether it served
// the members (each observed on its own), false when it refused the batch
// whole.
func (h *Handler) serveBatch(w http.ResponseWriter, r *http.Request, body []byte, next http.Handler, principal *auth.Principal) bool {
	// The members are read in place, one pass over the array the scan
	// validated, and counted as they come: decoded first, a 1 MiB array of
	// 500,000 numbers became as many copies, 66 times its size in memory,
	// only to be refused for holding more than 64. Each is probed once
	// for what the batch decides before serving it (probeMember).
	var members []json.RawMessage
	for it := jsonrpc.NewElems(body); ; {
		m, more := it.Next()
		if !more {
			break
		}
		if len(members) == maxBatchMembers {
			h.writeError(r.Context(), w, nil, "", httpError(http.StatusBadRequest, CodeInvalidRequest,
				"Invalid Request: a batch holds at most "+strconv.Itoa(maxBatchMembers)+" messages").
				WithData(map[string]any{"reason": "batch_too_large", "maxMembers": maxBatchMembers}))
			return false
		}
		members = append(members, m)
	}
	if len(members) == 0 {
		h.writeError(r.Context(), w, nil, "", httpError(http.StatusBadRequest, CodeInvalidRequest, "Invalid Request: an empty batch").
			WithData(map[string]string{"reason": "empty_batch"}))
		return false
	}
	probes := make([]memberProbe, len(members))
	for i, m := range members {
		probes[i] = probeMember(m)
	}
	batch, in, serr := h.openBatch(r, probes, principal)
	if serr != nil {
		// Refused before any member ran: one answer for the POST, as the
		// same session id on a POST of one message gets.
		h.writeError(r.Context(), w, nil, in, serr)
		return false
	}
	r = r.WithContext(context.WithValue(r.Context(), batchKey{}, batch))
	out := []byte{'['}
	answered := 0
	for i, m := range members {
		resp := h.serveMember(r, m, &probes[i], next, principal)
		if resp == nil {
			continue // a notification or a response: nothing to answer
		}
		if answered > 0 {
			out = append(out, ',')
		}
		out = append(out, resp...)
		answered++
	}
	// The answer names its revision as every answer of the endpoint does,
	// the batch's refusals included.
	hdr := w.Header()
	if answered == 0 {
		hdr["Cache-Control"] = []string{"no-store"}
		hdr[protoHeader] = []string{string(Version20250326)}
		w.WriteHeader(http.StatusAccepted)
		return true
	}
	out = append(out, ']')
	writeJSON(w, http.StatusOK, Version20250326, out, nil)
	return true
}

// openBatch settles for the batch sent with r what belongs to the POST
// and not to a member: who sent it (principal, as the POST authenticated)
// and its sealed session; that a request is a member at all is told by
// the state being there (memberOf). With a refusal it returns the
// revision the refusal is answered in.
func (h *Handler) openBatch(r *http.Request, probes []memberProbe, principal *auth.Principal) (*batchState, Version, *Error) {
	session, in, err := h.openBatchSession(r, probes, principal)
	if err != nil {
		return nil, in, err
	}
	b := &batchState{handler: h, principal: principal, session: session}
	if principal != nil {
		b.authorization = r.Header["Authorization"]
	}
	if session != nil {
		b.sessionID = r.Header[headers.SessionID][0]
	}
	return b, "", nil
}

// openBatchSession opens the sealed session of the batch sent with r. A
// batch is one HTTP request carrying one Mcp-Session-Id, so the id is
// opened once, before any member runs, and an id that does not open is
// the POST's answer (404 -32001, as a POST of one message gets), never the
// error of the members that happen to reach it after the session expired
// mid-batch, whose earlier members would have run. The id is opened only
// when some member would meet it (see meetsSession); otherwise, as before,
// nothing opens it. It returns nil without a session.
func (h *Handler) openBatchSession(r *http.Request, probes []memberProbe, principal *auth.Principal) (*seam.Declared, Version, *Error) {
	rev := h.byVersion[Version20250326]
	if !rev.f.Sessions || len(r.Header[headers.SessionID]) == 0 || !slices.ContainsFunc(probes, memberProbe.meetsSession) {
		return nil, "", nil
	}
	loc := local.From(r.Context())
	req := &request{envelope: envelope{server: h.server.current(), handler: h, principal: principal, local: loc}}
	req.HTTP, req.Core, req.Local = r, req, loc != nil
	req.rev = rev
	req.setVersion(rev.version)
	if err := h.envelope(req, nil); err != nil {
		e, _ := asError(err)
		return nil, Version20250326, e
	}
	if req.version != Version20250326 {
		// The session negotiated a later revision, which the POST named by
		// sending no MCP-Protocol-Version: there an array is no batch, and
		// it is refused as one naming that revision is.
		return nil, req.version, httpError(http.StatusBadRequest, CodeInvalidRequest, "Invalid Request: batch requests are not supported").
			WithData(map[string]string{"reason": "batch"})
	}
	if req.session == "" {
		return nil, "", nil // the era opened no session (a local transport)
	}
	return &seam.Declared{ClientCapabilities: req.clientCaps, Session: req.session, SessionUntil: req.sessionUntil}, "", nil
}

// memberProbe is what a batch reads of a member before serving it, once
// (the member was scanned strictly with the batch; a type mismatch leaves
// fields empty).
type memberProbe struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
	Params struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	} `json:"params"`
	// refusal is why the batch refuses the member itself, unserved: no
	// object, initialize, a 2026-07-28 envelope ("" when it is served).
	refusal string
}

func probeMember(m json.RawMessage) memberProbe {
	var p memberProbe
	if len(m) == 0 || m[0] != '{' {
		// Not a message; an array would be a batch in a batch, which is
		// never served (nor recursed into).
		p.refusal = "Invalid Request: a batch member must be a JSON object"
		return p
	}
	json.Unmarshal(m, &p)
	if p.Method == "initialize" {
		p.refusal = "Invalid Request: initialize must not be part of a batch"
	} else if _, ok := p.Params.Meta[seam.MetaProtocolVersion]; ok {
		p.refusal = "Invalid Request: a batch is a 2025-03-26 message; a message with a " +
			seam.MetaProtocolVersion + " _meta envelope must be sent alone"
	}
	return p
}

// meetsSession reports whether the member, served, would have its
// session opened: a request or notification the batch does not refuse
// itself, whose method does not negotiate (notifications/initialized may
// carry a stale id, as initialize may). A client's answer to a question
// is bound to its question, not to the session.
func (p memberProbe) meetsSession() bool {
	if p.refusal != "" || p.Method == "" {
		return false
	}
	row := methodsByName[p.Method]
	return row == nil || !row.Negotiates
}

// serveMember serves one member of a batch as a POST of its own and
// returns its JSON-RPC response, or nil when it has none. probe is what
// the batch read of it; principal is the batch's caller, for the
// observer's event of a member refused here.
func (h *Handler) serveMember(r *http.Request, m json.RawMessage, probe *memberProbe, next http.Handler, principal *auth.Principal) (resp []byte) {
	if probe.refusal != "" {
		var start time.Time
		if h.cfg.observer != nil {
			start = time.Now() // one served is timed as any request
		}
		return h.refuseMember(r, principal, m, probe.ID, start, probe.refusal)
	}
	sub := r.Clone(r.Context())
	sub.Body = io.NopCloser(bytes.NewReader(m))
	sub.ContentLength = int64(len(m))
	sub.Header.Set(headers.ProtocolVersion, string(Version20250326))
	sub.Header.Set("Accept", "application/json") // one JSON answer per member: no member streams
	sub.Header.Del("Content-Length")
	rec := &memberRecorder{header: http.Header{}}
	next.ServeHTTP(rec, sub)
	if rec.status == http.StatusAccepted || rec.body.Len() == 0 {
		return nil
	}
	resp = bytes.TrimSpace(rec.body.Bytes())
	// A refusal sent before a message is read (401/403/413/429/503) carries
	// no id; in a batch the member's own id tells the client which it was.
	var got struct {
		ID    json.RawMessage `json:"id"`
		Error json.RawMessage `json:"error"`
	}
	parsed := json.Unmarshal(resp, &got) == nil
	if probe.Method == "" && (probe.Result != nil || probe.Error != nil) {
		// A response is never answered, even when it is refused (it
		// answers no question, or answers are not taken): an error
		// carrying its id would read as the answer to one of the client's
		// own requests. The endpoint has logged the refusal.
		return nil
	}
	if parsed && got.ID == nil && got.Error != nil {
		var e struct {
			Code Code `json:"code"`
		}
		json.Unmarshal(got.Error, &e)
		if probe.Method != "" && probe.ID == nil && e.Code != CodeInvalidRequest && e.Code != CodeParseError {
			// A notification is never answered, in a batch as alone
			// (JSON-RPC 2.0): refused by a limit before it was read, it
			// gets no member of the answer, where a lone one gets the
			// HTTP refusal. One that is no valid message (Invalid
			// Request) is answered, with a null id.
			return nil
		}
		// In a batch every response names the member it answers: its
		// id, or null when the member's id could not be read.
		return errorResponse(probe.ID, got.Error)
	}
	return resp
}

// refuseMember answers a batch member refused before it is served
// (Invalid Request) and, on an observed endpoint, reports it: it is a
// message the endpoint received and answered, observed as the members it
// serves are (observe.go).
func (h *Handler) refuseMember(r *http.Request, principal *auth.Principal, m, id json.RawMessage, start time.Time, msg string) []byte {
	resp := memberError(id, CodeInvalidRequest, msg)
	if h.cfg.observer != nil {
		h.observeRefusedMember(r, principal, m, start, httpError(http.StatusBadRequest, CodeInvalidRequest, msg), len(resp))
	}
	return resp
}

// memberError is the JSON-RPC error response to a batch member refused
// before it is served.
func memberError(id json.RawMessage, code Code, msg string) []byte {
	e, _ := json.Marshal(struct {
		Code    Code   `json:"code"`
		Message string `json:"message"`
	}{code, msg})
	return errorResponse(id, e)
}

// errorResponse is the JSON-RPC error response carrying errJSON for id,
// null when the id could not be read.
func errorResponse(id, errJSON json.RawMessage) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	out := append([]byte(`{"jsonrpc":"2.0","id":`), id...)
	out = append(out, `,"error":`...)
	out = append(out, errJSON...)
	return append(out, '}')
}

// memberRecorder is the ResponseWriter a batch member is served into.
type memberRecorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (m *memberRecorder) Header() http.Header { return m.header }

func (m *memberRecorder) WriteHeader(code int) {
	if m.status == 0 {
		m.status = code
	}
}

func (m *memberRecorder) Write(p []byte) (int, error) {
	if m.status == 0 {
		m.status = http.StatusOK
	}
	return m.body.Write(p)
}
