package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
)

// TestClose_Streams: Close ends the open streams of both eras with their
// usual end, refuses new ones with 503 and Retry-After, keeps serving
// calls, and stops publishing the Server's changes; a replica that was
// not closed still publishes.
func TestClose_Streams(t *testing.T) {
	f := newFleet(t, 2)
	r := f.replicas[0]
	listen, ack := r.listen(t, t.Context(), tokAlice, "w1", `"toolsListChanged":true`)
	if method(ack) != "notifications/subscriptions/acknowledged" {
		t.Fatalf("ack: %s", ack)
	}
	s := newSession(t, r)
	push := s.get(t, r, tokAlice, s.id)
	if push.resp.StatusCode != 200 {
		t.Fatalf("GET: %d", push.resp.StatusCode)
	}

	var wg sync.WaitGroup
	for range 3 { // at once, and more than once
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := r.h.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		}()
	}
	wg.Wait()

	end := listen.within(t, 10*time.Second)
	if string(end["id"]) != "7" || !strings.HasPrefix(string(end["result"]), `{"resultType":"complete"`) {
		t.Errorf("the listen's end: %s", end)
	}
	if m := listen.within(t, 500*time.Millisecond); m != nil {
		t.Errorf("after the listen's end: %s", m)
	}
	ended := make(chan error, 1)
	go func() { _, err := io.ReadAll(push.resp.Body); ended <- err }()
	select {
	case err := <-ended:
		if err != nil {
			t.Errorf("the GET stream: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the GET stream is still open after Close")
	}

	if _, got := r.listen(t, t.Context(), tokAlice, "w1", `"toolsListChanged":true`); !strings.Contains(string(got["status"]), "503") ||
		!strings.Contains(string(got["body"]), `"reason":"shutting_down"`) {
		t.Errorf("a listen after Close: %s %s", got["status"], got["body"])
	}
	again := s.get(t, r, tokAlice, s.id)
	body, _ := io.ReadAll(again.resp.Body)
	if again.resp.StatusCode != 503 || again.resp.Header.Get("Retry-After") != "1" || !strings.Contains(string(body), `"reason":"shutting_down"`) {
		t.Errorf("a GET after Close: %d %q %s", again.resp.StatusCode, again.resp.Header.Get("Retry-After"), body)
	}
	if res := rpc(t, r.url, tokAlice, "w1", "tools/call", "a", metaNoTasks, `"name":"a","arguments":{}`); res.Error != nil {
		t.Errorf("a call after Close: %s", res.raw)
	}
	if _, body := s.post(t, r, "tools/call", `"name":"a","arguments":{}`); !strings.Contains(body, `"result"`) {
		t.Errorf("a 2025 call after Close: %s", body)
	}

	// The closed replica's Updates are no longer published; the other's are.
	events, stop, err := f.bus.Subscribe(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	r.addTool(t, "b")
	f.replicas[1].addTool(t, "c")
	select {
	case <-events:
	case <-time.After(10 * time.Second):
		t.Fatal("the open replica's change was not published")
	}
	select {
	case b := <-events:
		t.Errorf("a second event, from the closed replica: %s", b)
	case <-time.After(300 * time.Millisecond):
	}
}

// TestClose_Fleet: Close cancels the context of a running OnFleet and
// returns once it has; no fleet event reaches the handler afterwards,
// while another replica still hears them.
func TestClose_Fleet(t *testing.T) {
	bus := mcp.NewMemoryEventBusForTest()
	type heard struct {
		name      string
		cancelled bool
	}
	newReplica := func(got chan<- heard, running chan<- struct{}) *mcp.Handler {
		return mcp.NewHandler(mcp.NewServer(mcp.Implementation{Name: "f", Version: "1"}), []mcp.Era{era2026.New()},
			mcp.WithLogger(slog.New(slog.DiscardHandler)),
			mcp.WithChangeNotifications(mcp.ChangeNotifications{Bus: bus, OnFleet: func(ctx context.Context, name string, _ []byte) {
				if name == "block" && running != nil {
					running <- struct{}{}
					<-ctx.Done()
				}
				got <- heard{name, ctx.Err() != nil}
			}}))
	}
	got, running := make(chan heard, 64), make(chan struct{}, 1)
	h := newReplica(got, running)
	otherGot := make(chan heard, 64)
	other := newReplica(otherGot, nil) // never blocks
	t.Cleanup(func() { closeWithin(t, other) })

	// publishUntil publishes name through from until c hears it: the
	// followers subscribe in goroutines of their own.
	publishUntil := func(from *mcp.Handler, name string, c chan heard) {
		deadline := time.After(5 * time.Second)
		for {
			if err := from.PublishFleet(t.Context(), name, nil); err != nil {
				t.Fatal(err)
			}
			select {
			case e := <-c:
				if e.name == name {
					return
				}
			case <-time.After(20 * time.Millisecond):
			case <-deadline:
				t.Fatalf("%s was never heard", name)
			}
		}
	}
	publishUntil(h, "hello", got)
	publishUntil(h, "hello", otherGot)
	drain := func(c chan heard) {
		for {
			select {
			case <-c:
			case <-time.After(100 * time.Millisecond):
				return
			}
		}
	}
	drain(got)
	drain(otherGot)

	if err := h.PublishFleet(t.Context(), "block", nil); err != nil {
		t.Fatal(err)
	}
	select {
	case <-running:
	case <-time.After(5 * time.Second):
		t.Fatal("OnFleet did not run")
	}
	closeWithin(t, h)
	// Close returned after OnFleet did, which saw its context cancelled
	// (a "hello" the drain missed comes first: one publisher's events
	// arrive in order).
	for done := false; !done; {
		select {
		case e := <-got:
			if e.name == "hello" {
				continue
			}
			if e.name != "block" || !e.cancelled {
				t.Errorf("OnFleet: %+v", e)
			}
			done = true
		default:
			t.Fatal("Close returned before OnFleet did")
		}
	}

	publishUntil(other, "after", otherGot)
	select {
	case e := <-got:
		t.Errorf("a closed handler heard %+v", e)
	case <-time.After(200 * time.Millisecond):
	}
}

// closeWithin closes h, failing (not hanging) when Close does not return.
func closeWithin(t *testing.T, h *mcp.Handler) {
	t.Helper()
	closed := make(chan struct{})
	go func() { h.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return")
	}
}

// deadBus is a bus whose subscriptions always fail.
type deadBus struct {
	mu         sync.Mutex
	subscribes int
}

func (b *deadBus) Publish(context.Context, []byte) error { return nil }
func (b *deadBus) Subscribe(context.Context) (<-chan []byte, func() error, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.subscribes++
	return nil, nil, errors.New("unreachable")
}

// TestClose_FollowerRetrying: a follower waiting to subscribe again stops
// at Close, without another attempt.
func TestClose_FollowerRetrying(t *testing.T) {
	// A wait longer than closeWithin's: Close must cut it short.
	defer mcp.SetFleetRetryForTest(time.Minute)()
	bus := &deadBus{}
	h := mcp.NewHandler(mcp.NewServer(mcp.Implementation{Name: "f", Version: "1"}), []mcp.Era{era2026.New()},
		mcp.WithLogger(slog.New(slog.DiscardHandler)),
		mcp.WithChangeNotifications(mcp.ChangeNotifications{Bus: bus, OnFleet: func(context.Context, string, []byte) {}}))
	for {
		bus.mu.Lock()
		n := bus.subscribes
		bus.mu.Unlock()
		if n > 0 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	closeWithin(t, h)
	bus.mu.Lock()
	defer bus.mu.Unlock()
	if bus.subscribes != 1 {
		t.Errorf("%d subscriptions, want 1", bus.subscribes)
	}
}

// TestClose_TaskListen: without change notifications, a listen that
// follows tasks ends at Close with its result, and one asked for after is
// refused; the task itself is still read with tasks/get.
func TestClose_TaskListen(t *testing.T) {
	ts := newTaskServer(t)
	url := ts.urls[0]
	id := ts.start(t, url, tokAlice, "")
	s := openListen(t, t.Context(), url, tokAlice, metaTasks, taskIDs(id), "application/json, text/event-stream")
	if m := s.next(t); string(m["method"]) != `"notifications/subscriptions/acknowledged"` {
		t.Fatalf("first message: %v", m)
	}
	if err := ts.hs[0].Close(); err != nil {
		t.Fatal(err)
	}
	for {
		m := s.within(t, 10*time.Second)
		if m == nil {
			t.Fatal("the stream did not end with its result")
		}
		if m["result"] != nil {
			if string(m["id"]) != "7" {
				t.Errorf("the end: %s", m)
			}
			break
		}
		if string(m["method"]) != `"notifications/tasks"` {
			t.Fatalf("unexpected: %v", m)
		}
	}
	again := openListen(t, t.Context(), url, tokAlice, metaTasks, taskIDs(id), "application/json, text/event-stream")
	var body struct {
		Error struct {
			Code int             `json:"code"`
			Data json.RawMessage `json:"data"`
		} `json:"error"`
	}
	b, _ := io.ReadAll(again.resp.Body)
	if err := json.Unmarshal(b, &body); err != nil || again.resp.StatusCode != 503 || !strings.Contains(string(body.Error.Data), `"shutting_down"`) {
		t.Errorf("a listen after Close: %d %s", again.resp.StatusCode, b)
	}
	if res := ts.get(t, url, tokAlice, "", id); res.Error != nil {
		t.Errorf("tasks/get after Close: %s", res.raw)
	}
}
