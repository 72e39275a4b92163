package mcp

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/mcpdual/mcpdual/internal/panics"
	"github.com/mcpdual/mcpdual/internal/seam"
)

// Change notifications on a fleet (design record 033): what the endpoint
// tells clients when a list changes or a resource is updated, on any
// replica. A registry change (Server.Update) publishes the lists it
// changed on the EventBus, with their epochs; a host announces a resource
// update (NotifyResourceUpdated) or a fleet event (PublishFleet) the same
// way. Every stream — a 2026-07-28 subscriptions/listen (listen.go), a
// 2025 session's GET stream (push.go) — holds one subscription to the bus
// and passes on what its client asked for and may see.

// startNotifications sets h up to serve change notifications, when
// configured: the stores, the capabilities, the registry's watcher and
// the fleet's follower.
func (h *Handler) startNotifications(srv *Server) {
	c := h.cfg.notes
	if c == nil {
		return
	}
	n := &notifications{ChangeNotifications: *c,
		slots: admission{limit: c.Streams, perCaller: c.StreamsPerCaller, held: map[string]int{}}}
	if n.Bus == nil {
		n.Bus = newMemoryEventBus()
	}
	if n.Sessions == nil {
		n.Sessions = newMemorySessionStore(10_000)
	}
	h.notes = n
	h.extraCaps |= seam.CapListChanged | seam.CapSubscribe
	if h.cfg.streaming {
		// A session's level decides the log notifications of its calls,
		// which only a streaming endpoint sends.
		h.extraCaps |= seam.CapLogging
	}
	h.unwatch = srv.watch(h.publishChanges)
	if n.OnFleet != nil {
		ctx, cancel := context.WithCancel(context.Background())
		h.stopFleet, h.fleetDone = cancel, make(chan struct{})
		go h.followFleet(ctx)
	}
}

// publishTimeout bounds one publication a registry change makes.
const publishTimeout = 5 * time.Second

// publishChanges publishes, for each list that differs between two
// snapshots, its list-changed event with the new list's epoch.
func (h *Handler) publishChanges(old, next *Server) {
	ctx, cancel := context.WithTimeout(context.Background(), publishTimeout)
	defer cancel()
	for _, k := range [...]eventKind{eventTools, eventPrompts, eventResources} {
		e := next.epoch(k)
		if e == old.epoch(k) {
			continue
		}
		if err := h.publish(ctx, busEvent{Kind: k, Epoch: e}); err != nil {
			h.cfg.logger.WarnContext(ctx, "mcp: a list change was not published: streams were not told", "list", string(k), "err", err)
		}
	}
}

// epoch is the epoch of one of s's lists (listEpoch), as the newest
// revision's shape renders it.
func (s *Server) epoch(k eventKind) uint64 {
	var defs [][]byte
	switch k {
	case eventTools:
		for _, t := range s.tools {
			defs = append(defs, t.shapes[nShapes-1])
		}
	case eventPrompts:
		for _, p := range s.prompts {
			defs = append(defs, p.shapes[nShapes-1])
		}
	case eventResources:
		for _, r := range s.resources {
			defs = append(defs, r.shapes[nShapes-1])
		}
		defs = append(defs, nil) // resources, then templates
		for _, t := range s.templates {
			defs = append(defs, t.shapes[nShapes-1])
		}
	}
	return listEpoch(defs...)
}

func (h *Handler) publish(ctx context.Context, e busEvent) error {
	if h.notes == nil {
		return errNoNotifications
	}
	b, err := e.encode()
	if err != nil {
		return err
	}
	return h.notes.Bus.Publish(ctx, b)
}

var errNoNotifications = errors.New("mcp: the handler has no WithChangeNotifications")

// NotifyResourceUpdated tells every client subscribed to uri, on every
// replica, that the resource changed (notifications/resources/updated);
// the client reads it again if it cares. workspace names the workspace
// the resource belongs to ("" when it belongs to none): only callers
// acting in that workspace are told. It returns an error without
// WithChangeNotifications, for a URI of more than 2048 bytes or a
// workspace of more than 256, or when the bus does not take the event.
func (h *Handler) NotifyResourceUpdated(ctx context.Context, workspace, uri string) error {
	return h.publish(ctx, busEvent{Kind: eventUpdated, URI: uri, Workspace: workspace})
}

// PublishFleet sends a host's event to every replica's
// ChangeNotifications.OnFleet, this one's included: name is 1 to 64
// URL-safe characters, payload at most 4 KiB. A change made through one
// replica (an administrator's call, a deployment hook) reaches them all
// this way, so a fleet needs no second messaging system: each replica's
// OnFleet applies the same Server.Update, and clients are told once per
// change whichever replica they listen on. It returns an error without
// WithChangeNotifications or when the bus does not take the event.
func (h *Handler) PublishFleet(ctx context.Context, name string, payload []byte) error {
	if payload == nil {
		payload = []byte{}
	}
	return h.publish(ctx, busEvent{Kind: eventFleet, Name: name, Payload: payload})
}

// fleetRetry is how long the fleet follower first waits to subscribe
// again (a variable for tests).
var fleetRetry = time.Second

// fleetQueue bounds the fleet events read but not yet handed to OnFleet.
const fleetQueue = 256

// followFleet hands every fleet event to OnFleet until ctx ends (Close):
// a subscription that ends (an outage, falling behind) is logged and
// opened again, at most once a second at first, then less often. The
// subscription is read without waiting for OnFleet: every event of the
// fleet (resource updates, list changes) passes through it, and a slow
// OnFleet must not make it fall behind and lose the fleet events that
// arrive meanwhile; those wait in a queue of their own, run one at a
// time, in order, by one goroutine.
func (h *Handler) followFleet(ctx context.Context) {
	defer close(h.fleetDone)
	queue, ran := make(chan busEvent, fleetQueue), make(chan struct{})
	go func() {
		defer close(ran)
		for e := range queue {
			if ctx.Err() == nil {
				h.onFleet(ctx, e)
			}
		}
	}()
	defer func() { close(queue); <-ran }()
	wait := fleetRetry
	for ctx.Err() == nil {
		events, stop, err := eventSubscribe(ctx, h.notes.Bus)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			logQuietly(ctx, h.cfg.logger, slog.LevelWarn, "mcp: cannot follow fleet events; trying again", "err", err, "in", wait)
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			wait = min(2*wait, max(fleetRetry, 30*time.Second))
			continue
		}
		wait = fleetRetry
		h.followEvents(ctx, events, queue)
		if err := stop(); err != nil && ctx.Err() == nil {
			logQuietly(ctx, h.cfg.logger, slog.LevelWarn, "mcp: the fleet events' subscription ended; events may have been lost", "err", err)
		}
	}
}

// followEvents queues each fleet event of one subscription for OnFleet,
// until it ends or ctx does (the bus contract does not tie a
// subscription to its context). It never waits for OnFleet: a fleet event
// that finds the queue full is lost, and logged.
func (h *Handler) followEvents(ctx context.Context, events <-chan []byte, queue chan<- busEvent) {
	for {
		select {
		case <-ctx.Done():
			return
		case b, ok := <-events:
			if !ok {
				return
			}
			e, err := h.decodeShared(b)
			if err != nil || e.Kind != eventFleet {
				continue
			}
			select {
			case queue <- e:
			default:
				logQuietly(ctx, h.cfg.logger, slog.LevelError, "mcp: a fleet event was lost: OnFleet is too slow", "event", e.Name)
			}
		}
	}
}

// onFleet runs OnFleet, logging a panic instead of ending the follower.
func (h *Handler) onFleet(ctx context.Context, e busEvent) {
	defer func() {
		if p := recover(); p != nil {
			logQuietly(ctx, h.cfg.logger, slog.LevelError, "mcp: OnFleet panicked", "event", e.Name, "panic", panics.Describe(p))
		}
	}()
	h.notes.OnFleet(ctx, e.Name, e.Payload)
}

// decodeShared decodes what a bus delivered once per Handler rather than
// once per stream: a bus hands every subscription the same bytes (the
// EventBus contract lets them share it), so the first stream decodes it and
// the others find it by its first byte's address. Holding raw keeps that
// address from being reused while it is cached.
func (h *Handler) decodeShared(b []byte) (busEvent, error) {
	if len(b) == 0 {
		return decodeEvent(b)
	}
	if d := h.lastEvent.Load(); d != nil && len(d.raw) == len(b) && &d.raw[0] == &b[0] {
		return d.e, d.err
	}
	e, err := decodeEvent(b)
	h.lastEvent.Store(&decodedEvent{raw: b, e: e, err: err})
	return e, err
}

// streamWriteTimeout bounds one write to a notification stream: a client
// that stops reading is dropped then, and its slot freed, whatever the
// server's WriteTimeout (which a stream's deadline replaces).
//
// Tests shorten it while an earlier test's stream may still be writing,
// hence the atomic; 0 is the default.
var streamWriteTimeout atomic.Int64

const defaultStreamWriteTimeout = 10 * time.Second

// streamWrite writes b to a stream and flushes it. bounded: the write
// must be done within streamWriteTimeout, and once it is the deadline is
// lifted: a deadline bounds a write, not the quiet after it. Over HTTP/2
// a deadline left to pass resets the stream whether or not a write is
// pending, so a stream quieter than the bound (a tasks-only listen has no
// keep-alive; KeepAlive defaults to 15 s) would be cut.
func streamWrite(w http.ResponseWriter, b []byte, bounded bool) bool {
	rc := http.NewResponseController(w)
	if bounded {
		d := time.Duration(streamWriteTimeout.Load())
		if d == 0 {
			d = defaultStreamWriteTimeout
		}
		_ = rc.SetWriteDeadline(time.Now().Add(d))
	}
	if _, err := w.Write(b); err != nil || rc.Flush() != nil {
		return false
	}
	if bounded {
		_ = rc.SetWriteDeadline(time.Time{})
	}
	return true
}
