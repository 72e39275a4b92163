package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mcpdual/mcpdual/headers"
	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/mcp/auth"
)

// The 2025 push (WithChangeNotifications on top of era2025.WithSessions):
// a session's GET stream, opened on whichever replica a GET reaches,
// carries list changes and updates of the resources the session
// subscribed to; resources/subscribe, resources/unsubscribe and
// logging/setLevel keep what they change in the SessionStore under the
// session's key (sessionKey), until the session expires, so that every
// replica serves it. Nothing is kept on a replica.

// pushMethods are the 2025 methods of the push.
var pushMethods = []*methodRow{
	{name: "resources/subscribe", capability: seam.CapSubscribe, serve: (*Server).subscribe},
	{name: "resources/unsubscribe", capability: seam.CapSubscribe, serve: (*Server).unsubscribe},
	{name: "logging/setLevel", capability: seam.CapLogging, serve: (*Server).setLevel},
}

// pushLifetime is how long a GET stream stays open at most (the client
// opens another); a session's expiry or its token's ends it sooner.
var pushLifetime = 30 * time.Minute

// storeTimeout bounds one call of the session store.
const storeTimeout = 2 * time.Second

// sessionOf returns the key the session store knows req's session by, or
// the refusal of a request outside a session.
func sessionOf(req *request, method string) (string, *Error) {
	if req.session == "" {
		return "", NewError(CodeInvalidRequest, method+" needs a session: send the Mcp-Session-Id initialize answered")
	}
	return sessionKey(req.session), nil
}

// uriParam reads params.uri: at most maxPushURI bytes, so that with its
// workspace it fits the session store's bound on what it keeps.
func uriParam(req *request) (string, *Error) {
	raw, _ := req.Param("uri")
	uri, ok := jsonrpc.String(raw)
	if !ok || uri == "" || len(uri) > maxPushURI || strings.ContainsRune(uri, '\n') {
		return "", NewError(CodeInvalidParams, "Invalid params: uri must be a resource URI of at most 1536 bytes")
	}
	return uri, nil
}

// maxPushURI bounds a 2025 subscription's URI: 1536 bytes, with the
// workspace (at most 256) and a separator within the store's 2048.
const maxPushURI = 1536

// subscription is what the session store keeps of a subscription: the
// URI, after the workspace it was made in, so that an update reaches it
// only in that workspace whichever workspace the GET stream names.
func subscription(workspace, uri string) string {
	if workspace == "" {
		return uri
	}
	return workspace + "\n" + uri
}

// subscribed reports whether a session's subscriptions (as subscription
// stores them) hold an update of uri in workspace. An update of a resource
// that belongs to no workspace ("") reaches a subscription to uri made in
// any, as it reaches a 2026 listen (listenEvent): whether the caller may
// still read it is mayStillRead's to say.
func subscribed(uris []string, workspace, uri string) bool {
	if workspace != "" {
		return contains(uris, subscription(workspace, uri))
	}
	for _, u := range uris {
		if _, rest, inWorkspace := strings.Cut(u, "\n"); u == uri || inWorkspace && rest == uri {
			return true
		}
	}
	return false
}

// storeFailed answers a request the session store could not serve.
func storeFailed(req *request, err error) *Error {
	req.logError("mcp: the session store failed", "method", req.msg.Method, "err", err)
	return NewError(CodeInternal, "Subscriptions are unavailable: try again later")
}

// subscribe serves resources/subscribe: the caller may subscribe to a URI
// it may read now, read as resources/read reads it.
func (s *Server) subscribe(req *request) (seam.Result, error) {
	key, e := sessionOf(req, "resources/subscribe")
	if e != nil {
		return nil, e
	}
	uri, e := uriParam(req)
	if e != nil {
		return nil, e
	}
	if _, err := req.Workspace(); err != nil {
		return nil, err
	}
	if !s.mayRead(req, uri) || !s.readsNow(req, uri) {
		return nil, resourceNotFound(req, uri)
	}
	ws, _ := req.Workspace()
	ctx, cancel := context.WithTimeout(req.ctx(), storeTimeout)
	defer cancel()
	max := req.handler.notes.URIsPerStream
	ok, err := req.handler.notes.Sessions.Subscribe(ctx, key, subscription(ws, uri), max, req.sessionUntil)
	if err != nil {
		return nil, storeFailed(req, err)
	}
	if !ok {
		return nil, NewError(CodeInvalidParams, "Too many subscriptions: a session subscribes to at most "+strconv.Itoa(max)+" resources")
	}
	return &emptyResult{}, nil
}

// unsubscribe serves resources/unsubscribe; a URI the session did not
// subscribe to is no error (the subscription may have been made through
// another replica, or be gone with its session).
func (s *Server) unsubscribe(req *request) (seam.Result, error) {
	key, e := sessionOf(req, "resources/unsubscribe")
	if e != nil {
		return nil, e
	}
	uri, e := uriParam(req)
	if e != nil {
		return nil, e
	}
	ws, err := req.Workspace()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(req.ctx(), storeTimeout)
	defer cancel()
	if err := req.handler.notes.Sessions.Unsubscribe(ctx, key, subscription(ws, uri)); err != nil {
		return nil, storeFailed(req, err)
	}
	return &emptyResult{}, nil
}

// setLevel serves logging/setLevel: the session's calls send the log
// notifications at and above level from then on.
func (s *Server) setLevel(req *request) (seam.Result, error) {
	key, e := sessionOf(req, "logging/setLevel")
	if e != nil {
		return nil, e
	}
	raw, _ := req.Param("level")
	level, ok := jsonrpc.String(raw)
	if _, known := seam.LogLevels[level]; !ok || !known {
		return nil, NewError(CodeInvalidParams, "Invalid params: level must be one of debug, info, notice, warning, error, critical, alert, emergency")
	}
	ctx, cancel := context.WithTimeout(req.ctx(), storeTimeout)
	defer cancel()
	if err := req.handler.notes.Sessions.SetLevel(ctx, key, level, req.sessionUntil); err != nil {
		return nil, storeFailed(req, err)
	}
	return &emptyResult{}, nil
}

// sessionNotifier makes a 2025 request in a session able to stream its
// log notifications at the level the session set: the level is read from
// the store at the first log (Call.Log), once the era opened the session.
// n is the request's notifier so far (progress), nil for none; it is
// returned as it is when the request cannot be in a session or stream.
func (h *Handler) sessionNotifier(w http.ResponseWriter, req *request, n *notifier) *notifier {
	if req.rev.f.Envelope || req.local != nil || req.row == nil || req.row.serve == nil ||
		len(req.HTTP.Header[headers.SessionID]) == 0 || !acceptsEventStream(req.HTTP) {
		return n
	}
	if n == nil {
		n = &notifier{minLevel: -1, w: &streamWriter{ResponseWriter: w, version: req.version}}
	}
	n.level = func() int { return req.sessionLevel() }
	return n
}

// sessionLevel is the log level req's session set (-1: none, or no
// session).
func (req *request) sessionLevel() int {
	if req.session == "" {
		return -1
	}
	ctx, cancel := context.WithTimeout(req.ctx(), storeTimeout)
	defer cancel()
	_, level, err := req.handler.notes.Sessions.Load(ctx, sessionKey(req.session))
	if err != nil {
		req.logError("mcp: the session store failed; the call's logs are not sent", "err", err)
		return -1
	}
	if l, ok := seam.LogLevels[level]; ok {
		return l
	}
	return -1
}

// servePush serves a GET on the endpoint whose Host and Origin were
// checked: a 2025 session's notification stream. Without a session id it is 405, as without push; an id that
// does not open is 404 (the client initializes again).
func (h *Handler) servePush(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	var principal *auth.Principal
	if a := h.cfg.auth; a != nil {
		p, f := a.Authenticate(r)
		if f != nil {
			h.writeError(r.Context(), w, nil, "", h.failure(r.Context(), f))
			return
		}
		principal = p
	}
	if len(r.Header[headers.SessionID]) == 0 || !acceptsEventStream(r) {
		hdr["Allow"] = []string{"POST"}
		h.writeError(r.Context(), w, nil, "", httpError(http.StatusMethodNotAllowed, CodeInvalidRequest,
			"Method not allowed: a GET opens a session's notification stream, with its Mcp-Session-Id, accepting text/event-stream"))
		return
	}
	snap := h.server.current()
	req := &request{envelope: envelope{server: snap, handler: h, principal: principal}}
	req.HTTP, req.Server, req.Core = r, h.viewOf(snap), req
	rev := h.byVersion[h.dflt]
	switch v, err := headers.Get(r.Header, headers.ProtocolVersion); {
	case err == headers.ErrDuplicate:
		// Read as a POST's is (selectEra): two values name no revision.
		h.writeError(r.Context(), w, nil, "", mismatch(headers.ProtocolVersion, "duplicate", "MCP-Protocol-Version header "+err.Error()))
		return
	case err == nil:
		if rev = h.byVersion[Version(v)]; rev == nil {
			// Read as a POST's is (selectEra): a revision this endpoint
			// does not serve is 400 with the ones it does, which the
			// transports require of any request, a GET included.
			h.writeError(r.Context(), w, nil, "", h.unsupported(v))
			return
		}
	}
	if rev == nil || rev.f.Envelope {
		// Every 405 names the methods the endpoint takes, as the one above.
		hdr["Allow"] = []string{"POST"}
		h.writeError(r.Context(), w, nil, "", httpError(http.StatusMethodNotAllowed, CodeInvalidRequest,
			"Method not allowed: only a 2025 session opens a notification stream with GET"))
		return
	}
	req.rev = rev
	req.setVersion(rev.version)
	// The session is opened as a POST's is (Handler.envelope): a revision
	// this endpoint does not serve is the session gone, for a stream that
	// named none too, so the stream never outlives a session every
	// request of which is 404.
	err := h.envelope(req, nil)
	if err == nil && req.session == "" {
		err = seam.SessionNotFound() // an era that issues no sessions opens none
	}
	if err != nil {
		h.writeError(r.Context(), w, nil, rev.version, err)
		return
	}
	rev = req.rev // the session's revision, for a stream that named none
	caller := req.callerKey()
	if h.cfg.limiter != nil {
		// Opening a stream is metered as a request of the caller's.
		if e := h.takePrincipalRate(w, r, caller, ""); e != nil {
			h.writeError(r.Context(), w, nil, rev.version, e)
			return
		}
	}
	if _, err := req.Workspace(); err != nil {
		// The stream carries the workspace's resource updates: it opens in
		// a workspace its caller may act in, as a POST acting there does.
		h.writeError(r.Context(), w, nil, rev.version, err)
		return
	}
	if h.closing() {
		h.writeError(r.Context(), w, nil, rev.version, shuttingDown())
		return
	}
	if e := h.notes.slots.acquire(caller); e != nil {
		h.writeError(r.Context(), w, nil, rev.version, e)
		return
	}
	defer h.notes.slots.release(caller)
	ctx := r.Context()
	events, stop, serr := h.notes.Bus.Subscribe(ctx)
	if serr != nil {
		req.logError("mcp: a session's stream cannot subscribe to the event bus", "err", serr)
		h.writeError(ctx, w, nil, rev.version, eventsLost())
		return
	}
	defer stop()
	key := sessionKey(req.session)
	var opened pushStreamOpened
	if err := opened.announce(ctx, h, key); err != nil {
		req.logError("mcp: a session's stream cannot announce itself on the event bus", "err", err)
		h.writeError(ctx, w, nil, rev.version, eventsLost())
		return
	}
	hdr["Content-Type"] = []string{"text/event-stream"}
	hdr["Cache-Control"] = []string{"no-store"}
	hdr["X-Accel-Buffering"] = []string{"no"}
	hdr[protoHeader] = []string{string(rev.version)}
	w.WriteHeader(http.StatusOK)
	if !streamWrite(w, nil, true) { // the headers, at once
		return
	}
	p := pushStream{w: w, id: time.Now().UnixNano()}
	end := time.NewTimer(min(pushLifetime, time.Until(req.sessionUntil)))
	defer end.Stop()
	var expired <-chan time.Time
	if a := h.cfg.auth; a != nil && !a.Expires(principal).IsZero() {
		t := time.NewTimer(time.Until(a.Expires(principal)))
		defer t.Stop()
		expired = t.C
	}
	keep := time.NewTicker(h.notes.KeepAlive)
	defer keep.Stop()
	var epochs epochFilter
	for {
		select {
		case <-ctx.Done():
			return
		case <-h.closed:
			return // as at the lifetime's end: the client opens another
		case <-end.C:
			return
		case <-expired:
			return
		case <-keep.C:
			if !p.comment() {
				return
			}
		case b, ok := <-events:
			if !ok {
				if err := stop(); err != nil {
					req.Log(slog.LevelWarn, "mcp: a session's stream lost its events; it ends so the client opens another", "err", err)
				}
				return
			}
			e, err := h.decodeShared(b)
			if err != nil || !epochs.pass(e) {
				continue
			}
			if opened.superseded(key, e) {
				return // the session's newer stream carries its messages
			}
			msg, ok, done := h.pushEvent(req, key, e)
			if done {
				return
			}
			if ok && !p.send(msg) {
				return
			}
		}
	}
}

// pushEvent is the message a session's stream sends for e: every list
// change, and an update of a resource the session subscribed to in the
// update's workspace, that it may still read. done: the stream ends (the
// caller's workspace was withdrawn, or the store failed).
func (h *Handler) pushEvent(req *request, key string, e busEvent) (msg []byte, ok, done bool) {
	switch e.Kind {
	case eventTools, eventPrompts, eventResources:
		if req.withdrawn() {
			return nil, false, true
		}
		return []byte(`{"jsonrpc":"2.0","method":"notifications/` + string(e.Kind) + `/list_changed"}`), true, false
	case eventUpdated:
		ctx, cancel := context.WithTimeout(req.ctx(), storeTimeout)
		uris, _, err := h.notes.Sessions.Load(ctx, key)
		cancel()
		if err != nil {
			// What the session subscribed to is unknown: the stream ends
			// rather than drop updates silently, and the client opens it
			// again.
			req.logError("mcp: the session store failed; a session's stream ends", "err", err)
			return nil, false, true
		}
		if len(e.Workspace) > maxEventWorkspace || !subscribed(uris, e.Workspace, e.URI) {
			return nil, false, false
		}
		allowed, withdrawn := req.mayStillRead(e)
		if withdrawn || !allowed {
			return nil, false, withdrawn
		}
		m := append([]byte(`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":`), jsonrpc.AppendString(nil, e.URI)...)
		return append(m, "}}"...), true, false
	}
	return nil, false, false
}

// pushStreamOpened keeps a session to one GET stream across the fleet.
// The 2025 transports let a client hold several streams but forbid a
// server to send one message on more than one of them; every stream of a
// session hears every list change and update, so two streams (a client
// that reconnected before the server saw its old connection drop, on this
// replica or another) each carried every message. A stream announces
// itself on the event bus when it opens, and a stream that hears a later
// announcement of its session ends: the newest stream is the one that
// lives, which is the one a reconnecting client reads.
//
// "Later" is the bus's order, not a clock's (replicas' clocks differ): a
// stream ends on an announcement that comes after its own. Two streams
// opened at once both hear both announcements; on a bus that hands every
// subscription the events in one order (the in-process bus and
// redisstore's, one channel), exactly one of them hears the other's
// after its own. On a bus without that order both may end, and the
// client opens one again. An announcement that comes before a stream's
// own is an older stream's, which ends on hearing this one's.
type pushStreamOpened struct {
	id    [streamIDLength]byte
	heard bool // its own announcement came back
}

// announce draws the stream's id and publishes it for the session key.
func (o *pushStreamOpened) announce(ctx context.Context, h *Handler, key string) error {
	if _, err := rand.Read(o.id[:]); err != nil {
		return err
	}
	return h.publish(ctx, busEvent{Kind: eventStream, Name: key, Payload: o.id[:]})
}

// superseded reports whether e announces a newer stream of the session.
func (o *pushStreamOpened) superseded(key string, e busEvent) bool {
	if e.Kind != eventStream || e.Name != key {
		return false
	}
	if bytes.Equal(e.Payload, o.id[:]) {
		o.heard = true
		return false
	}
	return o.heard
}

// pushStream writes a session's stream: each message an SSE event with an
// id that only grows (clients that resume send the last one; nothing is
// replayed, the stream is live only).
type pushStream struct {
	w  http.ResponseWriter
	id int64
}

func (p *pushStream) send(msg []byte) bool {
	p.id++
	b := make([]byte, 0, len(msg)+64)
	b = append(b, "id: "...)
	b = strconv.AppendInt(b, p.id, 10)
	b = append(b, "\nevent: message\ndata: "...)
	b = append(b, msg...)
	b = append(b, "\n\n"...)
	return streamWrite(p.w, b, true)
}

func (p *pushStream) comment() bool {
	return streamWrite(p.w, []byte(": keep-alive\n\n"), true)
}
