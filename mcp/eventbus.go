package mcp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"
)

// The two stores change notifications need on a fleet (design record
// 032): an EventBus that carries what happened on one replica to every
// replica, and a SessionStore that keeps what a 2025 session changed after
// initialize. The endpoint does not use them yet; this file holds their
// contracts, the in-process defaults, and the event encoding and epoch
// rule the endpoint will build on.

// EventBus carries the endpoint's events (a list that changed, a resource
// that was updated, a host's fleet event) to every replica. Events are
// opaque to the bus: the endpoint encodes and checks them, so a bus is a
// broadcast pipe and nothing more. Every implementation keeps this
// contract, checked by package mcp/mcptest/storetest:
//
//   - Publish hands event to every subscription open when it returns, on
//     every replica, this one included; nothing is replayed to a later
//     subscription. Events one caller publishes one after another arrive
//     in that order. An event is 1 to 8192 bytes; Publish refuses others
//     with an error and delivers nothing. Publish does not keep event
//     (the caller may reuse it); subscriptions may share what they
//     receive, and must not change it.
//   - Publish never waits for a subscriber: a subscription that falls
//     behind (at least 16 unread events are held, never more than 1024)
//     is ended, and its reader learns it lost events.
//   - events is closed when the subscription ends: by stop, because it
//     fell behind, or because the bus failed (its backend is unreachable,
//     or the bus was closed). stop ends it if still open — it may be
//     called any number of times — and returns why it ended before: nil
//     when stop ended it, an error otherwise. A reader drains events, then
//     calls stop to learn whether the end was clean.
//   - When the backend cannot be reached, Publish and Subscribe return an
//     error within the implementation's timeout, and a subscription open
//     then ends with an error: it never waits forever for events that
//     will not come.
type EventBus interface {
	Publish(ctx context.Context, event []byte) error
	Subscribe(ctx context.Context) (events <-chan []byte, stop func() error, err error)
}

// SessionStore keeps what a sealed 2025 session (era2025.WithSessions)
// changed after initialize — the resources it subscribed to and its
// logging level — so that any replica serves it. Every implementation
// keeps this contract, checked by package mcp/mcptest/storetest:
//
//   - session is an opaque key of 43 URL-safe characters (the endpoint's
//     base64url SHA-256 of the sealed id, never the id itself); uri is 1
//     to 2048 bytes, level 1 to 16. Other values are refused with an
//     error and change nothing.
//   - Subscribe adds uri to session's subscriptions. When the session
//     already holds max others, nothing changes and ok is false; a uri
//     already held is ok whatever max. Concurrent Subscribes of one
//     session never leave it holding more than max.
//   - Unsubscribe removes uri (nothing to remove is no error); SetLevel
//     replaces the level. Load returns the session's uris (in no
//     particular order) and level, nothing for an unknown session.
//   - until is the session's expiry: what a session holds is kept until
//     the latest until given for it, and then forgotten; an until already
//     past keeps nothing.
//   - A write on one replica is seen by a Load on any other once it
//     returned.
type SessionStore interface {
	Subscribe(ctx context.Context, session, uri string, max int, until time.Time) (ok bool, err error)
	Unsubscribe(ctx context.Context, session, uri string) error
	SetLevel(ctx context.Context, session, level string, until time.Time) error
	Load(ctx context.Context, session string) (uris []string, level string, err error)
}

// Bounds every implementation states in its contract.
const (
	maxBusEvent      = 8 << 10 // bytes of one encoded event
	busBuffer        = 64      // unread events a subscription holds
	maxSessionURI    = 2048
	maxSessionLevel  = 16
	sessionKeyLength = 43 // base64url of a SHA-256
)

// Bounds of what an event carries; together they stay under maxBusEvent
// encoded.
const (
	maxEventURI       = maxSessionURI
	maxEventWorkspace = 256
	maxEventName      = 64
	maxEventPayload   = 4 << 10
)

// sessionKey is the key a session's state is kept under: a digest of its
// sealed id, so the store never holds an id that would open the session.
func sessionKey(id string) string {
	h := sha256.New()
	h.Write([]byte("mcpdual session store\x00"))
	h.Write([]byte(id))
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}

// Checks of a SessionStore call's arguments, as its contract states.
func checkSessionKey(session string) error {
	if len(session) != sessionKeyLength || !urlSafe(session) {
		return errors.New("mcp: session store: the session key is not 43 URL-safe characters")
	}
	return nil
}

func checkSessionURI(session, uri string) error {
	if uri == "" || len(uri) > maxSessionURI {
		return errors.New("mcp: session store: a URI is 1 to 2048 bytes")
	}
	return checkSessionKey(session)
}

func checkSessionLevel(session, level string) error {
	if level == "" || len(level) > maxSessionLevel {
		return errors.New("mcp: session store: a level is 1 to 16 bytes")
	}
	return checkSessionKey(session)
}

func urlSafe(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// eventKind says what an event reports.
type eventKind string

const (
	eventTools     eventKind = "tools"     // the tool list changed
	eventPrompts   eventKind = "prompts"   // the prompt list changed
	eventResources eventKind = "resources" // the resource or template list changed
	eventUpdated   eventKind = "updated"   // one resource was updated
	eventFleet     eventKind = "fleet"     // a host's event, for every replica's handler
	eventStream    eventKind = "stream"    // a 2025 session's GET stream opened (pushStreamOpened)
)

// streamIDLength is the bytes of a GET stream's random id in its
// eventStream event.
const streamIDLength = 16

// busEvent is what the endpoint publishes on an EventBus.
//
// Epoch (list changes): a digest of the list after the change
// (listEpoch). Every replica of a fleet applies the same change, and each
// publishes it: their events carry the same epoch because their lists
// are alike, whatever order the replicas started in or how often they
// restarted (a counter would disagree). A stream drops an event whose
// epoch equals the last one it passed on for that list (epochFilter), so
// N copies of one change notify once, and a change undone (A, B, A)
// notifies each time.
type busEvent struct {
	Kind      eventKind `json:"k"`
	Epoch     uint64    `json:"e,omitempty"`
	URI       string    `json:"u,omitempty"`
	Workspace string    `json:"w,omitempty"`
	Name      string    `json:"n,omitempty"`
	Payload   []byte    `json:"p,omitempty"`
}

// check refuses an event the bus must not carry: the fields that do not
// belong to its kind are empty, and what it carries is bounded.
func (e busEvent) check() error {
	switch e.Kind {
	case eventTools, eventPrompts, eventResources:
		if e.URI != "" || e.Workspace != "" || e.Name != "" || e.Payload != nil {
			return errors.New("mcp: a list-changed event carries its epoch only")
		}
	case eventUpdated:
		if e.URI == "" || len(e.URI) > maxEventURI || len(e.Workspace) > maxEventWorkspace {
			return errors.New("mcp: a resource-updated event needs a URI of at most 2048 bytes and a workspace of at most 256")
		}
		if e.Epoch != 0 || e.Name != "" || e.Payload != nil {
			return errors.New("mcp: a resource-updated event carries a URI and a workspace only")
		}
	case eventStream:
		if len(e.Name) != sessionKeyLength || !urlSafe(e.Name) || len(e.Payload) != streamIDLength {
			return errors.New("mcp: a stream event needs a session key of 43 URL-safe characters and a stream id of 16 bytes")
		}
		if e.Epoch != 0 || e.URI != "" || e.Workspace != "" {
			return errors.New("mcp: a stream event carries a session key and a stream id only")
		}
	case eventFleet:
		if e.Name == "" || len(e.Name) > maxEventName || !urlSafe(e.Name) {
			return errors.New("mcp: a fleet event needs a name of 1 to 64 URL-safe characters")
		}
		if len(e.Payload) > maxEventPayload {
			return errors.New("mcp: a fleet event's payload is larger than 4 KiB")
		}
		if e.Epoch != 0 || e.URI != "" || e.Workspace != "" {
			return errors.New("mcp: a fleet event carries a name and a payload only")
		}
	default:
		return fmt.Errorf("mcp: unknown event kind %q", e.Kind)
	}
	return nil
}

func (e busEvent) encode() ([]byte, error) {
	if err := e.check(); err != nil {
		return nil, err
	}
	// Without HTML escaping, which would make each of & < > six bytes and
	// a URI within maxEventURI too large to publish.
	b, err := marshalPlain(e)
	if err != nil {
		return nil, err
	}
	if len(b) > maxBusEvent {
		return nil, errors.New("mcp: an event is larger than 8 KiB")
	}
	return b, nil
}

// marshalPlain is json.Marshal without HTML escaping: what is sealed or
// published under a byte bound (an event, a task's job reference) is
// measured as written, and & < > are one byte each.
func marshalPlain(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

// decodeEvent reads what a bus delivered; anything else on the channel (a
// message of another version, or not the endpoint's) is an error, which
// the reader skips.
func decodeEvent(b []byte) (busEvent, error) {
	var e busEvent
	if len(b) == 0 || len(b) > maxBusEvent {
		return e, errors.New("mcp: an event of no or more than 8 KiB")
	}
	if err := json.Unmarshal(b, &e); err != nil {
		return busEvent{}, fmt.Errorf("mcp: an event that does not decode: %w", err)
	}
	if err := e.check(); err != nil {
		return busEvent{}, err
	}
	return e, nil
}

// listEpoch is the epoch of a list: a digest of its definitions as the
// list answers them, in order. Never 0, which marks "none passed yet".
func listEpoch(defs ...[]byte) uint64 {
	h := sha256.New()
	var n [8]byte
	for _, d := range defs {
		binary.BigEndian.PutUint64(n[:], uint64(len(d)))
		h.Write(n[:])
		h.Write(d)
	}
	e := binary.BigEndian.Uint64(h.Sum(nil))
	if e == 0 {
		e = 1
	}
	return e
}

// epochFilter is one stream's memory of the list-changed events it passed
// on: it drops an event whose epoch is the last one passed for its list.
// Other events always pass.
type epochFilter struct {
	last map[eventKind]uint64
}

func (f *epochFilter) pass(e busEvent) bool {
	switch e.Kind {
	case eventTools, eventPrompts, eventResources:
	default:
		return true
	}
	if f.last == nil {
		f.last = make(map[eventKind]uint64, 3)
	}
	if f.last[e.Kind] == e.Epoch {
		return false
	}
	f.last[e.Kind] = e.Epoch
	return true
}

// memoryEventBus is the default EventBus: one process is the fleet.
type memoryEventBus struct {
	mu   sync.Mutex
	subs map[*memorySub]struct{}
}

type memorySub struct {
	events chan []byte
	err    error // why it ended, once events is closed
	ended  bool
}

func newMemoryEventBus() *memoryEventBus {
	return &memoryEventBus{subs: map[*memorySub]struct{}{}}
}

var (
	errBusEventSize = errors.New("mcp: event bus: an event is 1 to 8192 bytes")
	errBusLagged    = errors.New("mcp: event bus: the subscription fell behind and lost events")
)

// Publish implements EventBus. It holds the lock while it hands the event
// to each subscription, without ever waiting: a full buffer ends that
// subscription.
func (b *memoryEventBus) Publish(_ context.Context, event []byte) error {
	if len(event) == 0 || len(event) > maxBusEvent {
		return errBusEventSize
	}
	event = append([]byte(nil), event...) // the publisher may reuse its buffer
	b.mu.Lock()
	defer b.mu.Unlock()
	for s := range b.subs {
		select {
		case s.events <- event:
		default:
			b.end(s, errBusLagged)
		}
	}
	return nil
}

// end closes s with err; b.mu is held.
func (b *memoryEventBus) end(s *memorySub, err error) {
	if s.ended {
		return
	}
	s.ended, s.err = true, err
	delete(b.subs, s)
	close(s.events)
}

// Subscribe implements EventBus.
func (b *memoryEventBus) Subscribe(context.Context) (<-chan []byte, func() error, error) {
	s := &memorySub{events: make(chan []byte, busBuffer)}
	b.mu.Lock()
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	return s.events, func() error {
		b.mu.Lock()
		defer b.mu.Unlock()
		if !s.ended {
			b.end(s, nil)
		}
		return s.err
	}, nil
}

// memorySessionStore is the default SessionStore: the state of one
// process's sessions, at most max of them.
type memorySessionStore struct {
	mu       sync.Mutex
	sessions map[string]*memorySession
	max      int
	now      func() time.Time
}

type memorySession struct {
	uris  map[string]struct{}
	level string
	until time.Time
}

func newMemorySessionStore(max int) *memorySessionStore {
	return &memorySessionStore{sessions: map[string]*memorySession{}, max: max, now: time.Now}
}

var errSessionsFull = errors.New("mcp: the in-memory session store holds as many live sessions as it may")

// session returns key's live session; with create, a new one when there
// is none, expired sessions making room when the store is full. mu is
// held.
func (m *memorySessionStore) session(key string, until time.Time, create bool) (*memorySession, error) {
	now := m.now()
	s := m.sessions[key]
	if s != nil && !now.Before(s.until) {
		delete(m.sessions, key)
		s = nil
	}
	if s != nil || !create || !now.Before(until) {
		return s, nil
	}
	if len(m.sessions) >= m.max {
		for k, o := range m.sessions {
			if !now.Before(o.until) {
				delete(m.sessions, k)
			}
		}
		if len(m.sessions) >= m.max {
			return nil, errSessionsFull
		}
	}
	s = &memorySession{uris: map[string]struct{}{}, until: until}
	m.sessions[key] = s
	return s, nil
}

// Subscribe implements SessionStore.
func (m *memorySessionStore) Subscribe(_ context.Context, session, uri string, max int, until time.Time) (bool, error) {
	if err := checkSessionURI(session, uri); err != nil {
		return false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s, err := m.session(session, until, true)
	if s == nil || err != nil {
		return err == nil, err // an until already past keeps nothing
	}
	if _, held := s.uris[uri]; !held {
		if len(s.uris) >= max {
			return false, nil
		}
		s.uris[uri] = struct{}{}
	}
	s.until = later(s.until, until)
	return true, nil
}

// Unsubscribe implements SessionStore.
func (m *memorySessionStore) Unsubscribe(_ context.Context, session, uri string) error {
	if err := checkSessionURI(session, uri); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if s, _ := m.session(session, time.Time{}, false); s != nil {
		delete(s.uris, uri)
	}
	return nil
}

// SetLevel implements SessionStore.
func (m *memorySessionStore) SetLevel(_ context.Context, session, level string, until time.Time) error {
	if err := checkSessionLevel(session, level); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s, err := m.session(session, until, true)
	if s == nil || err != nil {
		return err
	}
	s.level, s.until = level, later(s.until, until)
	return nil
}

// Load implements SessionStore.
func (m *memorySessionStore) Load(_ context.Context, session string) ([]string, string, error) {
	if err := checkSessionKey(session); err != nil {
		return nil, "", err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s, _ := m.session(session, time.Time{}, false)
	if s == nil {
		return nil, "", nil
	}
	uris := make([]string, 0, len(s.uris))
	for u := range s.uris {
		uris = append(uris, u)
	}
	sort.Strings(uris)
	return uris, s.level, nil
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
