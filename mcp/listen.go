package mcp

import (
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

// listen serves subscriptions/listen. It is three steps, so that an idle
// stream's goroutine keeps a small stack: what the stream needs is set up
// (openListen) and kept on the heap (listenState), and the loop that
// waits (run) has a small frame of its own. (An idle stream's stack below
// a quarter of what the request grew it to is halved by the GC; with the
// setup's locals in the waiting frame it stayed at 16 KiB.)
func (s *Server) listen(req *request) (seam.Result, error) {
	st, err := s.openListen(req)
	if st == nil || err != nil {
		return nil, err
	}
	defer st.close()
	if !st.acknowledge() {
		return &listenEnd{id: st.subID}, nil
	}
	if !st.f.any() && len(st.tasks) == 0 {
		// Something was asked and none of it is honoured (resources the
		// caller may not read): the acknowledgement says so, as the spec
		// wants, and nothing could ever follow it, so the stream ends
		// now with its result instead of idling to its lifetime.
		return st.ended("nothing asked for can be delivered"), nil
	}
	return st.run()
}

// listenState is an open listen stream.
type listenState struct {
	s       *Server
	req     *request
	f       listenFilter
	tasks   []*watched
	reads   taskReads
	subID   []byte
	meta    []byte
	events  <-chan []byte
	stop    func() error
	epochs  epochFilter
	closers []func()
}

func (st *listenState) close() {
	for i := len(st.closers) - 1; i >= 0; i-- {
		st.closers[i]()
	}
}

// openListen checks what a listen asks for, takes its slots and its bus
// subscription: a stream ready to be acknowledged, or the refusal.
//
//go:noinline
func (s *Server) openListen(req *request) (_ *listenState, err error) {
	notes, _ := req.Param("notifications")
	h := req.handler
	rawIDs, tasksAsked := jsonrpc.Lookup(notes, "taskIds")
	if (req.local != nil && req.notify == nil) || (h.notes == nil && !tasksAsked) {
		// Nothing this server delivers on a listen stream was asked (or
		// the transport has no stream): as before this existed.
		return nil, methodNotFound(req.msg.Method)
	}
	if !jsonrpc.IsObject(notes) {
		// This server delivers list changes, and says so (listChanged):
		// a malformed listen is the client's error, not a method missing.
		return nil, NewError(CodeInvalidParams, "Invalid params: notifications is required and must be an object")
	}
	if req.notify != nil && h.closing() {
		// Before the kinds and the tasks are read (a resource's read, a
		// task's opening): a client retries this every second.
		return nil, shuttingDown()
	}
	st := &listenState{s: s, req: req}
	if h.notes != nil {
		var asked bool
		if st.f, asked, err = s.listenKinds(req, notes); err != nil {
			return nil, err
		}
		if !asked && !tasksAsked {
			// A filter naming no kind (every field omitted or false, no
			// URI) is one the spec's schema admits, but the stream could
			// never carry a notification: opened, it held a slot and sent
			// keep-alives until its lifetime ended, and a client that
			// listens again when a stream ends did so every 45 s. It is
			// the client's mistake, answered at once, as taskIds naming
			// no task is.
			return nil, NewError(CodeInvalidParams, "Invalid params: notifications asks for nothing: name at least one of "+
				"toolsListChanged, promptsListChanged, resourcesListChanged or resourceSubscriptions")
		}
	}
	if tasksAsked {
		// Tasks that do not open are left out when other kinds were
		// asked; taskIds not of the extension's shape is refused whatever
		// else was.
		tasks, malformed, terr := s.listenTasks(req, rawIDs)
		if terr != nil && (malformed || !st.f.any()) {
			return nil, terr
		}
		st.tasks = tasks
	}
	if req.notify == nil {
		return nil, httpError(http.StatusNotAcceptable, CodeInvalidRequest, "subscriptions/listen answers with an event stream: accept text/event-stream")
	}
	defer func() {
		if err != nil {
			st.close()
		}
	}()
	caller := req.callerKey()
	if st.f.any() {
		// A stream of the bus holds a notification slot; the task reads
		// it makes still draw from the caller's budget.
		if e := h.notes.slots.acquire(caller); e != nil {
			return nil, e
		}
		st.closers = append(st.closers, func() { h.notes.slots.release(caller) })
		if len(st.tasks) > 0 {
			b := h.listens.budget(caller)
			st.reads.caller = b
			st.closers = append(st.closers, func() { h.listens.dropBudget(caller, b) })
		}
	} else {
		callerReads, e := h.listens.open(caller)
		if e != nil {
			return nil, e
		}
		st.closers = append(st.closers, func() { h.listens.close(caller, callerReads) })
		st.reads.caller = callerReads
	}
	st.reads.stream = newReadBudget(listenReadsPerStream)
	st.subID = append([]byte(nil), req.msg.ID...)
	st.meta = append(append([]byte(`{"`+metaSubscriptionID+`":`), st.subID...), '}')
	if st.f.any() {
		events, stop, serr := h.notes.Bus.Subscribe(req.ctx())
		if serr != nil {
			req.logError("mcp: a listen stream cannot subscribe to the event bus", "err", serr)
			return nil, eventsLost()
		}
		st.events, st.stop = events, stop
		st.closers = append(st.closers, func() { stop() })
	}
	// The stream holds a listen slot from now on, not a concurrency slot,
	// nor one of a local transport's (it gives it back as a request that
	// waits for its client does, and never takes it again).
	h.releaseSlot(req)
	localWait(req)
	return st, nil
}

// acknowledge sends the first message: the subset the server honours. It
// reports false when the client is gone.
//
//go:noinline
func (st *listenState) acknowledge() bool {
	f, req := &st.f, st.req
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
	if len(st.tasks) > 0 {
		ack = seam.Comma(ack, len(ack) > n)
		ack = append(ack, `"taskIds":[`...)
		for i, t := range st.tasks {
			ack = seam.Comma(ack, i > 0)
			ack = jsonrpc.AppendString(ack, t.id)
		}
		ack = append(ack, ']')
	}
	ack = append(ack, `},"_meta":`...)
	ack = append(ack, st.meta...)
	ack = append(ack, '}')
	// Every write of the stream — the acknowledgement, each notification,
	// keep-alive and its end — first moves the write deadline
	// (streamWriteTimeout), whatever the stream carries: a client that
	// stops reading is dropped, and the server's WriteTimeout, a bound
	// for plain responses, does not cut a stream still reporting a task.
	req.notify.w.deadlined = true
	return req.notify.send("notifications/subscriptions/acknowledged", ack)
}

// ended is how the server ends the stream: its result, after (over a
// local transport, where the connection outlives the stream) the
// notifications/cancelled naming the listen request that the spec wants
// of a server tearing a stream down there.
//
//go:noinline
func (st *listenState) ended(reason string) seam.Result {
	if st.req.local != nil && reason != "" {
		p := append([]byte(`{"requestId":`), st.subID...)
		p = append(p, `,"reason":`...)
		p = jsonrpc.AppendString(p, reason)
		st.req.notify.send("notifications/cancelled", append(p, '}'))
	}
	return &listenEnd{id: st.subID}
}

// listenTimers are the clocks a stream waits on.
type listenTimers struct {
	end, wake      *time.Timer
	expired        <-chan time.Time
	keepAlive      <-chan time.Time
	expiry         *time.Timer
	keepAliveTimer *time.Ticker
}

//go:noinline
func (st *listenState) timers() *listenTimers {
	t := &listenTimers{end: time.NewTimer(listenLifetime), wake: time.NewTimer(0)}
	h := st.req.handler
	if a := h.cfg.auth; a != nil && !a.Expires(st.req.principal).IsZero() {
		// Whatever the stream carries, list changes or a task's status,
		// it ends with the token it was opened with, when Authenticate
		// would no longer take it.
		t.expiry = time.NewTimer(time.Until(a.Expires(st.req.principal)))
		t.expired = t.expiry.C
	}
	if h.notes != nil {
		t.keepAliveTimer = time.NewTicker(h.notes.KeepAlive)
		t.keepAlive = t.keepAliveTimer.C
	}
	if len(st.tasks) == 0 {
		t.wake.Stop()
	}
	return t
}

func (t *listenTimers) stop() {
	t.end.Stop()
	t.wake.Stop()
	if t.expiry != nil {
		t.expiry.Stop()
	}
	if t.keepAliveTimer != nil {
		t.keepAliveTimer.Stop()
	}
}

// run is the stream's loop: it waits, and hands what woke it to a
// function of its own, so that its frame stays small while it waits.
func (st *listenState) run() (seam.Result, error) {
	t := st.timers()
	defer t.stop()
	ctx, closed := st.req.ctx(), st.req.handler.closed
	for {
		var res seam.Result
		var err error
		select {
		case <-ctx.Done():
			// The client left: nothing more is read or sent.
			return &listenEnd{id: st.subID}, nil
		case <-closed:
			return st.ended("the server is shutting down: listen again"), nil
		case <-t.end.C:
			return st.ended("the stream's lifetime ended: listen again"), nil
		case <-t.expired:
			// The token the stream was opened with expired: the client
			// listens again with a fresh one.
			return st.ended("the token expired"), nil
		case <-t.keepAlive:
			if !st.req.notify.w.keepAlive() {
				return &listenEnd{id: st.subID}, nil
			}
			continue
		case b, ok := <-st.events:
			res, err = st.event(b, ok)
		case <-t.wake.C:
			res, err = st.poll(t.wake)
		}
		if res != nil || err != nil {
			return res, err
		}
	}
}

// event passes on what the bus delivered; a non-nil answer ends the
// stream.
//
//go:noinline
func (st *listenState) event(b []byte, ok bool) (seam.Result, error) {
	req := st.req
	if !ok {
		if err := st.stop(); err != nil {
			req.Log(slog.LevelWarn, "mcp: a listen stream lost its events; it ends so the client listens again", "err", err)
			st.ended("notifications were lost: listen again")
			return nil, eventsLost()
		}
		return st.ended("the event bus closed"), nil
	}
	e, err := req.handler.decodeShared(b)
	if err != nil || !st.epochs.pass(e) {
		return nil, nil
	}
	method, params, send, done := st.s.listenEvent(req, &st.f, e, st.meta)
	if done {
		return st.ended("the workspace was withdrawn"), nil
	}
	if send {
		if !req.notify.send(method, params) {
			return &listenEnd{id: st.subID}, nil
		}
	}
	return nil, nil
}

// poll reads the tasks that are due; a non-nil answer ends the stream.
//
//go:noinline
func (st *listenState) poll(wake *time.Timer) (seam.Result, error) {
	req := st.req
	// Following a task is reading it, again and again: the workspace is
	// resolved again before each round, as for a resource update
	// (mayStillRead), and a withdrawn one ends the stream.
	if req.withdrawn() {
		return st.ended("the workspace was withdrawn"), nil
	}
	// And each task is opened again, as tasks/get would open it now: in
	// the registry as it is (a tool removed or changed since), with the
	// workspace just resolved and the permission rule's answer now.
	req.server = req.handler.server.current()
	tasks, next, alive := req.pollTasks(st.tasks, st.reads, st.meta)
	st.tasks = tasks
	if !alive {
		return &listenEnd{id: st.subID}, nil
	}
	if len(tasks) > 0 {
		wake.Reset(time.Until(next))
		return nil, nil
	}
	if !st.f.any() {
		// Every task reached a final status, and nothing else was asked:
		// nothing more will come.
		return &listenEnd{id: st.subID}, nil
	}
	return nil, nil
}

// listenKinds reads what a listen asks for besides tasks. List kinds are
// honoured whenever asked (a list may appear with an Update); a resource
// URI when the caller may read it now, read as resources/read reads it
// (the route's own checks apply): one the caller may not read is left out
// of the acknowledgement, as the spec wants of what a server does not
// honour. A stream asking any of them needs a workspace its caller may act
// in, as the lists and reads it stands for do.
//
// asked reports whether the filter names any kind, honoured or not.
func (s *Server) listenKinds(req *request, notes []byte) (_ listenFilter, asked bool, _ error) {
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
		return f, false, err
	}
	if f.prompts, err = flag("promptsListChanged"); err != nil {
		return f, false, err
	}
	if f.resources, err = flag("resourcesListChanged"); err != nil {
		return f, false, err
	}
	uris, err := listenURIs(req, notes)
	if err != nil {
		return f, false, err
	}
	asked = f.tools || f.prompts || f.resources || len(uris) > 0
	if asked {
		// What the stream carries is what tools/list, prompts/list and
		// resources/read would tell this caller: in a workspace it may not
		// act in (or none, where one is needed) they are refused, and so
		// is the stream, as a 2025 GET stream is (servePush).
		if _, err := req.Workspace(); err != nil {
			return f, asked, err
		}
	}
	for _, u := range uris {
		if s.mayRead(req, u) && s.readsNow(req, u) {
			f.uris = append(f.uris, u)
		}
	}
	return f, asked, nil
}

// listenURIs reads notifications.resourceSubscriptions: an array of 1 to
// maxEventURI-byte strings, at most URIsPerStream once duplicates are
// left out.
func listenURIs(req *request, notes []byte) ([]string, error) {
	raw, ok := jsonrpc.Lookup(notes, "resourceSubscriptions")
	if !ok {
		return nil, nil
	}
	bad := NewError(CodeInvalidParams, "Invalid params: notifications.resourceSubscriptions must be an array of resource URIs of at most "+strconv.Itoa(maxEventURI)+" bytes")
	if len(raw) == 0 || raw[0] != '[' {
		return nil, bad
	}
	max := req.handler.notes.URIsPerStream
	uris, malformed, over := distinctStrings(raw, max, func(u string) bool { return u != "" && len(u) <= maxEventURI })
	switch {
	case malformed:
		return nil, bad
	case over:
		return nil, NewError(CodeInvalidParams, "Invalid params: at most "+strconv.Itoa(max)+" resourceSubscriptions on one stream")
	}
	return uris, nil
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
	var asked bool
	switch e.Kind {
	case eventTools:
		method, asked = "notifications/tools/list_changed", f.tools
	case eventPrompts:
		method, asked = "notifications/prompts/list_changed", f.prompts
	case eventResources:
		method, asked = "notifications/resources/list_changed", f.resources
	}
	if method != "" {
		if !asked {
			return "", nil, false, false
		}
		if req.withdrawn() {
			return "", nil, false, true
		}
		return method, append(append([]byte(`{"_meta":`), meta...), '}'), true, false
	}
	switch e.Kind {
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

// withdrawn reports, before a list change is delivered, whether the
// caller's workspace no longer resolves (the stream then ends, as before a
// resource update: a caller who lost the workspace is told nothing more).
func (req *request) withdrawn() bool {
	if req.handler.cfg.auth == nil {
		return false
	}
	_, err := req.accessCache.resolveAgain(req.who())
	return err != nil
}

// mayStillRead checks, before a resource update is delivered, that the
// caller still acts in the update's workspace and may still read its URI
// in the registry as it is now: its workspace resolved again, the
// permission rule and the scopes asked again, no route run. withdrawn:
// the caller's workspace no longer resolves.
func (req *request) mayStillRead(e busEvent) (allowed, withdrawn bool) {
	if req.handler.cfg.auth != nil {
		ws, err := req.accessCache.resolveAgain(req.who())
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
// identity says: the token has resources/read's scopes, the resource or a
// template matching it exists, the permission rule lets the caller know
// it, and the token has its scopes.
// The route's own checks are not run.
func (s *Server) mayRead(req *request, uri string) bool {
	if a := req.handler.cfg.auth; a != nil && !a.Satisfies(req.principal, a.MethodScopes("resources/read")) {
		return false // what resources/read needs of the token, reading through a subscription needs too
	}
	if r := s.resourceAt(uri); r != nil {
		return req.visible(auth.KindResource, r.def.URI) && req.usable(r.opts.scopes)
	}
	for _, t := range s.templates {
		if vals, ok := t.matchURI(uri); ok {
			return req.visible(auth.KindTemplate, t.def.URITemplate) && req.visibleURI(uri, t, vals) && req.usable(t.opts.scopes)
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
