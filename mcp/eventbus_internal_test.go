package mcp

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestBusEvent_Codec: every kind encodes and decodes to itself; fields of
// another kind, unknown kinds, unbounded fields and what is not an event
// are refused on both sides; nothing encoded passes 8 KiB.
func TestBusEvent_Codec(t *testing.T) {
	good := []busEvent{
		{Kind: eventTools, Epoch: listEpoch([]byte(`{"name":"a"}`))},
		{Kind: eventPrompts, Epoch: 1},
		{Kind: eventResources, Epoch: 1<<64 - 1},
		{Kind: eventUpdated, URI: "kobana://ws-1/inbox", Workspace: "ws-1"},
		{Kind: eventUpdated, URI: "test://" + strings.Repeat("u", maxEventURI-7)},
		{Kind: eventFleet, Name: "tool-change"},
		{Kind: eventFleet, Name: strings.Repeat("n", maxEventName), Payload: bytes.Repeat([]byte{0, 0xff}, maxEventPayload/2)},
		{Kind: eventStream, Name: sessionKey("s"), Payload: bytes.Repeat([]byte{0xff}, streamIDLength)},
	}
	for _, e := range good {
		b, err := e.encode()
		if err != nil || len(b) > maxBusEvent {
			t.Errorf("encode %+.60v: %d bytes, %v", e, len(b), err)
			continue
		}
		got, err := decodeEvent(b)
		if err != nil || got.Kind != e.Kind || got.Epoch != e.Epoch || got.URI != e.URI || got.Workspace != e.Workspace || got.Name != e.Name || !bytes.Equal(got.Payload, e.Payload) {
			t.Errorf("decode of %.80s: %+.60v, %v", b, got, err)
		}
	}
	bad := []busEvent{
		{},
		{Kind: "other"},
		{Kind: eventTools, Epoch: 1, URI: "test://a"},
		{Kind: eventPrompts, Name: "x"},
		{Kind: eventUpdated},
		{Kind: eventUpdated, URI: "test://a", Epoch: 2},
		{Kind: eventUpdated, URI: "test://" + strings.Repeat("u", maxEventURI)},
		{Kind: eventUpdated, URI: "test://a", Workspace: strings.Repeat("w", maxEventWorkspace+1)},
		{Kind: eventUpdated, URI: "test://" + strings.Repeat("\x01", 2000)}, // escapes past 8 KiB
		{Kind: eventFleet},
		{Kind: eventFleet, Name: "has space"},
		{Kind: eventFleet, Name: strings.Repeat("n", maxEventName+1)},
		{Kind: eventFleet, Name: "x", Payload: make([]byte, maxEventPayload+1)},
		{Kind: eventFleet, Name: "x", URI: "test://a"},
		{Kind: eventStream, Payload: make([]byte, streamIDLength)},
		{Kind: eventStream, Name: sessionKey("s")[1:], Payload: make([]byte, streamIDLength)},
		{Kind: eventStream, Name: sessionKey("s")[1:] + "+", Payload: make([]byte, streamIDLength)},
		{Kind: eventStream, Name: sessionKey("s"), Payload: make([]byte, streamIDLength-1)},
		{Kind: eventStream, Name: sessionKey("s"), Payload: make([]byte, streamIDLength+1)},
		{Kind: eventStream, Name: sessionKey("s"), Payload: make([]byte, streamIDLength), Epoch: 1},
		{Kind: eventStream, Name: sessionKey("s"), Payload: make([]byte, streamIDLength), Workspace: "w"},
	}
	for _, e := range bad {
		if b, err := e.encode(); err == nil {
			t.Errorf("encode %+.60v: %.60s, no error", e, b)
		}
	}
	for _, b := range []string{``, `null`, `{}`, `[]`, `{"k":"tools","u":"test://a"}`, `{"k":"fleet","n":"a b"}`, `{"k":"updated"}`,
		`{"k":"fleet","n":"x","p":"` + strings.Repeat("A", maxBusEvent) + `"}`} {
		if e, err := decodeEvent([]byte(b)); err == nil {
			t.Errorf("decode %.60q: %+v, no error", b, e)
		}
	}
}

// TestEpochFilter: N copies of one change pass once; a change undone
// passes each time; lists are filtered apart; other kinds always pass.
func TestEpochFilter(t *testing.T) {
	a, b := listEpoch([]byte(`{"name":"a"}`)), listEpoch([]byte(`{"name":"a"}`), []byte(`{"name":"b"}`))
	if a == b || a == 0 || listEpoch() == 0 {
		t.Fatalf("epochs %d %d %d", a, b, listEpoch())
	}
	if listEpoch([]byte("ab"), []byte("c")) == listEpoch([]byte("a"), []byte("bc")) {
		t.Error("the epoch does not tell definitions apart")
	}
	var f epochFilter
	steps := []struct {
		e    busEvent
		pass bool
	}{
		{busEvent{Kind: eventTools, Epoch: b}, true},
		{busEvent{Kind: eventTools, Epoch: b}, false}, // the same change from another replica
		{busEvent{Kind: eventTools, Epoch: b}, false},
		{busEvent{Kind: eventPrompts, Epoch: b}, true}, // another list
		{busEvent{Kind: eventTools, Epoch: a}, true},   // undone
		{busEvent{Kind: eventTools, Epoch: a}, false},
		{busEvent{Kind: eventTools, Epoch: b}, true}, // done again
		{busEvent{Kind: eventUpdated, URI: "test://a"}, true},
		{busEvent{Kind: eventUpdated, URI: "test://a"}, true},
		{busEvent{Kind: eventFleet, Name: "x"}, true},
		{busEvent{Kind: eventFleet, Name: "x"}, true},
	}
	for i, s := range steps {
		if got := f.pass(s.e); got != s.pass {
			t.Errorf("step %d (%s %d): pass %v, want %v", i, s.e.Kind, s.e.Epoch, got, s.pass)
		}
	}
}

// TestSessionKey: the key is the store's shape, differs per id, and never
// contains the id.
func TestSessionKey(t *testing.T) {
	id := "v1.k1.c2VhbGVkLXNlc3Npb24taWQ"
	k := sessionKey(id)
	if checkSessionKey(k) != nil || k == sessionKey(id+"x") || strings.Contains(k, id) || k != sessionKey(id) {
		t.Errorf("sessionKey(%q) = %q", id, k)
	}
}

// TestMemorySessionStore_Full: the in-memory store holds at most max live
// sessions; a new one past that is an error until one expires, and a
// session already held keeps working.
func TestMemorySessionStore_Full(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	m := newMemorySessionStore(2)
	m.now = func() time.Time { return now }
	ctx := context.Background()
	keys := []string{sessionKey("a"), sessionKey("b"), sessionKey("c")}
	if _, err := m.Subscribe(ctx, keys[0], "test://a", 4, now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := m.SetLevel(ctx, keys[1], "info", now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Subscribe(ctx, keys[2], "test://c", 4, now.Add(time.Hour)); err != errSessionsFull {
		t.Errorf("a third session in a store of 2: %v, want %v", err, errSessionsFull)
	}
	if err := m.SetLevel(ctx, keys[2], "info", now.Add(time.Hour)); err != errSessionsFull {
		t.Errorf("a third session's level in a store of 2: %v, want %v", err, errSessionsFull)
	}
	if ok, err := m.Subscribe(ctx, keys[1], "test://b", 4, now.Add(time.Hour)); !ok || err != nil {
		t.Errorf("a held session in a full store: %v %v", ok, err)
	}
	now = now.Add(2 * time.Minute) // the first session expired
	if ok, err := m.Subscribe(ctx, keys[2], "test://c", 4, now.Add(time.Hour)); !ok || err != nil {
		t.Errorf("a third session once one expired: %v %v", ok, err)
	}
	if len(m.sessions) != 2 {
		t.Errorf("%d sessions held, want 2", len(m.sessions))
	}
}

// TestMemoryEventBus_NoWait: a publisher facing a subscription that never
// reads returns at once, every time; the subscription is ended with the
// lag error once its buffer is full.
func TestMemoryEventBus_NoWait(t *testing.T) {
	b := newMemoryEventBus()
	events, stop, _ := b.Subscribe(context.Background())
	for range busBuffer + 10 {
		if err := b.Publish(context.Background(), []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	for range events {
		n++
	}
	if n != busBuffer {
		t.Errorf("%d events held, want %d", n, busBuffer)
	}
	if err := stop(); err != errBusLagged {
		t.Errorf("stop: %v, want %v", err, errBusLagged)
	}
	if len(b.subs) != 0 {
		t.Errorf("%d subscriptions left", len(b.subs))
	}
}

// FuzzDecodeEvent: what a bus delivers is any process's bytes (Redis
// trusts its clients). decodeEvent never panics, and an event it takes
// is one the endpoint could have published: it encodes again, within the
// bus's bound, and decodes to itself.
func FuzzDecodeEvent(f *testing.F) {
	for _, e := range []busEvent{
		{Kind: eventTools, Epoch: 7}, {Kind: eventUpdated, URI: "mail://w1/a&b<c>", Workspace: "w1"},
		{Kind: eventFleet, Name: "reload", Payload: []byte(`{"v":1}`)}, {Kind: eventResources},
	} {
		b, err := e.encode()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"k":"fleet","n":"x","p":""}`))
	f.Add([]byte(`{"k":"updated","u":"\ud800","w":""}`))
	f.Add([]byte(`{"k":"tools","e":18446744073709551615,"k":"updated"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := decodeEvent(b)
		if err != nil {
			return
		}
		again, err := e.encode()
		if err != nil {
			t.Fatalf("%q decoded to %+v, which does not encode: %v", b, e, err)
		}
		e2, err := decodeEvent(again)
		if err != nil || e2.Kind != e.Kind || e2.Epoch != e.Epoch || e2.URI != e.URI || e2.Workspace != e.Workspace ||
			e2.Name != e.Name || !bytes.Equal(e2.Payload, e.Payload) {
			t.Fatalf("%q: %+v encodes as %q, which decodes to %+v (%v)", b, e, again, e2, err)
		}
	})
}

// TestPushStreamOpened_BusOrder: a GET stream ends on an announcement of
// its session that comes after its own on the bus, never on one before
// it (an older stream's, which ends on hearing this one's) nor on
// another session's; so of two streams opened at once, on a bus that
// hands both the announcements in one order, exactly one lives.
func TestPushStreamOpened_BusOrder(t *testing.T) {
	key, otherKey := sessionKey("a"), sessionKey("b")
	var x, y pushStreamOpened
	x.id[0], y.id[0] = 1, 2
	announce := func(o *pushStreamOpened, k string) busEvent {
		return busEvent{Kind: eventStream, Name: k, Payload: o.id[:]}
	}
	// Both opened at once; the bus delivers x's announcement, then y's,
	// to both.
	order := []busEvent{announce(&x, otherKey), announce(&x, key), {Kind: eventTools, Epoch: 1}, announce(&y, key)}
	var xEnds, yEnds []bool
	for _, e := range order {
		xEnds = append(xEnds, x.superseded(key, e))
		yEnds = append(yEnds, y.superseded(key, e))
	}
	if want := []bool{false, false, false, true}; !slices.Equal(xEnds, want) {
		t.Errorf("the first announced: ends %v, want %v (at the second's announcement)", xEnds, want)
	}
	if want := []bool{false, false, false, false}; !slices.Equal(yEnds, want) {
		t.Errorf("the second announced: ends %v, want never", yEnds)
	}
	// Another session's announcement after its own ends nothing.
	var z pushStreamOpened
	z.id[0] = 3
	if z.superseded(key, announce(&z, key)) || z.superseded(key, announce(&y, otherKey)) {
		t.Error("a stream ended on its own announcement or another session's")
	}
}
