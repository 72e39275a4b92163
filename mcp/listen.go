package mcp

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/mcp/auth"
)

// subscriptions/listen (2026-07-28): one long response on which a client
// follows what it asked for in params.notifications — its tasks (taskIds,
// the tasks extension: tasklisten.go) and, with WithChangeNotifications,
// the tool, prompt and resource lists (toolsListChanged,
// promptsListChanged, resourcesListChanged) and resources by URI
// (resourceSubscriptions). The first message acknowledges the subset
// the server honours; every later one carries the subscription's id (the
// request's) in _meta; the result ends the stream, after listenLifetime
// or when every task it followed is final and nothing else was asked.

// listenFilter is what a listen stream passes on besides tasks.
type listenFilter struct {
	tools, prompts, resources bool
	uris                      []string // accepted resourceSubscriptions
}

func (f *listenFilter) any() bool { return f.tools || f.prompts || f.resources || len(f.uris) > 0 }

// listen serves subscriptions/listen.
func (s *Server) listen(req *request) (seam.Result, error) {
	notes, _ := req.Param("notifications")
	h := req.handler
	rawIDs, tasksAsked := jsonrpc.Lookup(notes, "taskIds")
	if (req.local != nil && req.notify == nil) || !jsonrpc.IsObject(notes) || (h.notes == nil && !tasksAsked) {
		// Nothing this server delivers on a listen stream was asked (or
		// the transport has no stream): as before this existed.
		return nil, methodNotFound(req.msg.Method)
	}
	var f listenFilter
	if h.notes != nil {
		var err error
		if f, err = s.listenKinds(req, notes); err != nil {
			return nil, err
		}
	}
	var tasks []*watched
	if tasksAsked {
		var err error
		if tasks, err = s.listenTasks(req, rawIDs); err != nil && !f.any() {
			return nil, err
		}
	}
	if req.notify == nil {
		return nil, httpError(http.StatusNotAcceptable, CodeInvalidRequest, "subscriptions/listen answers with an event stream: accept text/event-stream")
	}
	caller := req.callerKey()
	var reads taskReads
	if f.any() || h.notes != nil {
		// A stream of the bus holds a notification slot; the task reads
		// it makes still draw from the caller's budget.
		if e := h.notes.slots.acquire(caller); e != nil {
			return nil, e
		}
		defer h.notes.slots.release(caller)
		if len(tasks) > 0 {
			reads.caller = h.listens.budget(caller)
			defer h.listens.dropBudget(caller, reads.caller)
		}
	} else {
		callerReads, e := h.listens.open(caller)
		if e != nil {
			return nil, e
		}
		defer h.listens.close(caller, callerReads)
		reads.caller = callerReads
	}
	reads.stream = newReadBudget(listenReadsPerStream)
	// The stream holds a listen slot from now on, not a concurrency slot,
	// nor one of a local transport's (it gives it back as a request that
	// waits for its client does, and never takes it again).
	h.releaseSlot(req)
	localWait(req)

	subID := append([]byte(nil), req.msg.ID...)
	meta := append([]byte(`{"`+metaSubscriptionID+`":`), subID...)
	meta = append(meta, '}')
	var events <-chan []byte
	var stop func() error
	if f.any() {
		var err error
		if events, stop, err = h.notes.Bus.Subscribe(req.ctx()); err != nil {
			req.logError("mcp: a listen stream cannot subscribe to the event bus", "err", err)
			return nil, eventsLost()
		}
		defer stop()
	}

	ack := []byte(`{"notifications":{`)
	n := len(ack)
	for _, k := range [...]struct {
		on   bool
		name string
	}{{f.tools, "toolsListChanged"}, {f.prompts, "promptsListChanged"}, {f.resources, "resourcesListChanged"}} {
		if k.on {
			ack = seam.Comma(ack, len(ack) > n)
			ack = append(ack, `"`+k.name+`":true`...)
		}
	}
	if len(f.uris) > 0 {
		ack = seam.Comma(ack, len(ack) > n)
		ack = append(ack, `"resourceSubscriptions":[`...)
		for i, u := range f.uris {
			ack = seam.Comma(ack, i > 0)
			ack = jsonrpc.AppendString(ack, u)
		}
		ack = append(ack, ']')
	}
	if len(tasks) > 0 {
		ack = seam.Comma(ack, len(ack) > n)
		ack = append(ack, `"taskIds":[`...)
		for i, t := range tasks {
			ack = seam.Comma(ack, i > 0)
			ack = jsonrpc.AppendString(ack, t.id)
		}
		ack = append(ack, ']')
	}
	ack = append(ack, `},"_meta":`...)
	ack = append(ack, meta...)
	ack = append(ack, '}')
	req.notify.w.Header()["X-Accel-Buffering"] = []string{"no"}
	if h.notes != nil {
		writeDeadline(req.notify.w.ResponseWriter)
	}
	if !req.notify.send("notifications/subscriptions/acknowledged", ack) {
		return &listenEnd{id: subID}, nil
	}

	// ended is how the server ends the stream: its result, after (over a
	// local transport, where the connection outlives the stream) the
	// notifications/cancelled naming the listen request that the spec
	// wants of a server tearing a stream down there.
	ended := func(reason string) seam.Result {
		if req.local != nil && reason != "" {
			p := append([]byte(`{"requestId":`), subID...)
			p = append(p, `,"reason":`...)
			p = jsonrpc.AppendString(p, reason)
			req.notify.send("notifications/cancelled", append(p, '}'))
		}
		return &listenEnd{id: subID}
	}
	ctx := req.ctx()
	end := time.NewTimer(listenLifetime)
	defer end.Stop()
	var expired <-chan time.Time
	if p := req.principal; p != nil && !p.ExpiresAt.IsZero() && h.notes != nil {
		t := time.NewTimer(time.Until(p.ExpiresAt))
		defer t.Stop()
		expired = t.C
	}
	var keepAlive <-chan time.Time
	if h.notes != nil {
		t := time.NewTicker(h.notes.KeepAlive)
		defer t.Stop()
		keepAlive = t.C
	}
	wake := time.NewTimer(0)
	defer wake.Stop()
	if len(tasks) == 0 {
		wake.Stop()
	}
	var epochs epochFilter
	for len(tasks) > 0 || f.any() || h.notes != nil {
		select {
		case <-ctx.Done():
			// The client left: nothing more is read or sent.
			return &listenEnd{id: subID}, nil
		case <-end.C:
			return ended("the stream's lifetime ended: listen again"), nil
		case <-expired:
			// The token the stream was opened with expired: the client
			// listens again with a fresh one.
			return ended("the token expired"), nil
		case <-keepAlive:
			if !req.notify.w.keepAlive() {
				return &listenEnd{id: subID}, nil
			}
		case b, ok := <-events:
			if !ok {
				if err := stop(); err != nil {
					req.Log(slog.LevelWarn, "mcp: a listen stream lost its events; it ends so the client listens again", "err", err)
					ended("notifications were lost: listen again")
					return nil, eventsLost()
				}
				return ended("the event bus closed"), nil
			}
			e, err := decodeEvent(b)
			if err != nil || !epochs.pass(e) {
				continue
			}
			method, params, ok, done := s.listenEvent(req, &f, e, meta)
			if done {
				return ended("the workspace was withdrawn"), nil
			}
			if ok {
				writeDeadline(req.notify.w.ResponseWriter)
				if !req.notify.send(method, params) {
					return &listenEnd{id: subID}, nil
				}
			}
		case <-wake.C:
			var next time.Time
			var alive bool
			if tasks, next, alive = req.pollTasks(tasks, reads, meta); !alive {
				return &listenEnd{id: subID}, nil
			}
			if len(tasks) > 0 {
				wake.Reset(time.Until(next))
			}
			if len(tasks) == 0 && !f.any() && h.notes == nil {
				// Every task reached a final status: nothing more will come.
				return &listenEnd{id: subID}, nil
			}
		}
	}
	return &listenEnd{id: subID}, nil
}

// listenKinds reads what a listen asks for besides tasks. List kinds are
// honoured whenever asked (a list may appear with an Update); a resource
// URI when the caller may read it now, read as resources/read reads it
// (the route's own checks apply): one the caller may not read is left out
// of the acknowledgement, as the spec wants of what a server does not
// honour.
func (s *Server) listenKinds(req *request, notes []byte) (listenFilter, error) {
	var f listenFilter
	flag := func(name string) (bool, error) {
		v, ok := jsonrpc.Lookup(notes, name)
		if !ok {
			return false, nil
		}
		switch string(v) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		return false, NewError(CodeInvalidParams, "Invalid params: notifications."+name+" must be a boolean")
	}
	var err error
	if f.tools, err = flag("toolsListChanged"); err != nil {
		return f, err
	}
	if f.prompts, err = flag("promptsListChanged"); err != nil {
		return f, err
	}
	if f.resources, err = flag("resourcesListChanged"); err != nil {
		return f, err
	}
	raw, ok := jsonrpc.Lookup(notes, "resourceSubscriptions")
	if !ok {
		return f, nil
	}
	bad := NewError(CodeInvalidParams, "Invalid params: notifications.resourceSubscriptions must be an array of resource URIs")
	if len(raw) == 0 || raw[0] != '[' {
		return f, bad
	}
	max := req.handler.notes.URIsPerStream
	var asURIs []json.RawMessage // the body is bounded, and so is this
	if json.Unmarshal(raw, &asURIs) != nil {
		return f, bad
	}
	var uris []string
	for _, v := range asURIs {
		u, isStr := jsonrpc.String(v)
		if !isStr || u == "" || len(u) > maxEventURI {
			return f, bad
		}
		if !contains(uris, u) {
			uris = append(uris, u)
		}
		if len(uris) > max {
			return f, NewError(CodeInvalidParams, "Invalid params: at most "+strconv.Itoa(max)+" resourceSubscriptions on one stream")
		}
	}
	for _, u := range uris {
		if s.mayRead(req, u) && s.readsNow(req, u) {
			f.uris = append(f.uris, u)
		}
	}
	return f, nil
}

// readsNow reads uri as resources/read would, for a subscription: the
// caller may subscribe when the read succeeds.
func (s *Server) readsNow(req *request, uri string) bool {
	res, err := s.readURI(req, uri)
	if err != nil {
		return false
	}
	_, asks := res.(*seam.InputRequired)
	return !asks
}

// listenEvent is what a stream sends for e: a list change the client
// asked for, or an update of a resource it subscribed to, in its
// workspace, that it may still read. done: the caller's workspace was
// withdrawn, and the stream ends.
func (s *Server) listenEvent(req *request, f *listenFilter, e busEvent, meta []byte) (method string, params []byte, ok, done bool) {
	params = append(append([]byte(`{"_meta":`), meta...), '}')
	switch e.Kind {
	case eventTools:
		return "notifications/tools/list_changed", params, f.tools, false
	case eventPrompts:
		return "notifications/prompts/list_changed", params, f.prompts, false
	case eventResources:
		return "notifications/resources/list_changed", params, f.resources, false
	case eventUpdated:
		if !contains(f.uris, e.URI) {
			return "", nil, false, false
		}
		allowed, withdrawn := req.mayStillRead(e)
		if withdrawn {
			return "", nil, false, true
		}
		if !allowed {
			return "", nil, false, false
		}
		p := append([]byte(`{"uri":`), jsonrpc.AppendString(nil, e.URI)...)
		p = append(p, `,"_meta":`...)
		p = append(p, meta...)
		return "notifications/resources/updated", append(p, '}'), true, false
	}
	return "", nil, false, false
}

// mayStillRead checks, before a resource update is delivered, that the
// caller still acts in the update's workspace and may still read its URI
// in the registry as it is now: its workspace resolved again, the
// permission rule and the scopes asked again, no route run. withdrawn:
// the caller's workspace no longer resolves.
func (req *request) mayStillRead(e busEvent) (allowed, withdrawn bool) {
	if req.handler.cfg.auth != nil {
		req.wsDone = false
		ws, err := req.Workspace()
		if err != nil {
			return false, true
		}
		if e.Workspace != "" && e.Workspace != ws {
			return false, false
		}
	} else if e.Workspace != "" {
		// Without WithAuth no caller acts in a workspace: an update that
		// belongs to one reaches no one.
		return false, false
	}
	return req.handler.server.current().mayRead(req, e.URI), false
}

// mayRead reports whether the caller may read uri now, as far as its
// identity says: the resource or a template matching it exists, the
// permission rule lets the caller know it, and the token has its scopes.
// The route's own checks are not run.
func (s *Server) mayRead(req *request, uri string) bool {
	if r, ok := s.byURI[uri]; ok {
		return req.visible(auth.KindResource, uri) && req.usable(r.opts.scopes)
	}
	for _, t := range s.templates {
		if _, ok := t.matchURI(uri); ok {
			return req.visible(auth.KindTemplate, t.def.URITemplate) && req.visible(auth.KindResource, uri) && req.usable(t.opts.scopes)
		}
	}
	return false
}

// eventsLost ends a stream whose bus subscription ended with an error (an
// outage, or the stream fell behind): events may have been lost, so the
// client listens again rather than go on with a gap.
func eventsLost() *Error {
	return NewError(CodeInternal, "Notifications are unavailable or were lost: listen again").
		WithData(map[string]string{"reason": "events_lost"})
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
