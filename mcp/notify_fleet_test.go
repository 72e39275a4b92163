package mcp_test

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
)

// TestNotify_FleetEventNotLostToOtherTraffic: while OnFleet applies
// one fleet event, resource updates (which the follower discards) keep
// arriving; they must not make the follower's subscription fall behind,
// or a fleet event published meanwhile is lost and this replica's
// registry never gets the change the others applied.
func TestNotify_FleetEventNotLostToOtherTraffic(t *testing.T) {
	bus := mcp.NewMemoryEventBusForTest()
	var mu sync.Mutex
	var heard []string
	first, release := make(chan struct{}), make(chan struct{})
	logs := &syncBuffer{}
	h := mcp.NewHandler(mcp.NewServer(mcp.Implementation{Name: "f", Version: "1"}), []mcp.Era{era2026.New()},
		mcp.WithLogger(slog.New(slog.NewTextHandler(logs, nil))),
		mcp.WithChangeNotifications(mcp.ChangeNotifications{Bus: bus, OnFleet: func(ctx context.Context, name string, _ []byte) {
			mu.Lock()
			heard = append(heard, name)
			mu.Unlock()
			if name == "first" {
				close(first)
				<-release // a slow Update (a Redis publication, a database read)
			}
		}}))
	t.Cleanup(func() { closeWithin(t, h) })
	// The follower subscribes in a goroutine of its own: publish until it
	// hears the first event.
	deadline := time.Now().Add(5 * time.Second)
	for ready := false; !ready; {
		if time.Now().After(deadline) {
			t.Fatal("the follower never heard the first event")
		}
		if err := h.PublishFleet(t.Context(), "first", nil); err != nil {
			t.Fatal(err)
		}
		select {
		case <-first:
			ready = true
		case <-time.After(20 * time.Millisecond):
		}
	}
	// Unrelated traffic while OnFleet runs: 100 resource updates, paced
	// (about 1 ms apart: a reader that keeps reading keeps up).
	for i := range 100 {
		time.Sleep(time.Millisecond)
		if err := h.NotifyResourceUpdated(t.Context(), "", fmt.Sprintf("mail://w1/m%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.PublishFleet(t.Context(), "second", nil); err != nil {
		t.Fatal(err)
	}
	close(release)
	waitUntil := time.Now().Add(10 * time.Second) // a bound, not a measure
	for time.Now().Before(waitUntil) {
		mu.Lock()
		got := strings.Join(heard, ",")
		mu.Unlock()
		if strings.HasSuffix(got, ",second") {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	t.Fatalf("the fleet event published while OnFleet ran was lost to 100 resource updates; heard %v; logs:\n%s", heard, logs)
}

// TestNotify_ListChangeAfterWorkspaceWithdrawn: a listen stream asking
// for list changes ends once its caller's workspace is withdrawn, as one
// asking for resources does: it is told nothing more.
func TestNotify_ListChangeAfterWorkspaceWithdrawn(t *testing.T) {
	f := newFleet(t, 1)
	r := f.replicas[0]
	s, ack := r.listen(t, t.Context(), tokAlice, "w1", `"toolsListChanged":true`)
	if method(ack) != "notifications/subscriptions/acknowledged" {
		t.Fatalf("ack: %s", ack)
	}
	f.members.set(func() { f.members.members["alice"] = map[string]bool{} })
	r.addTool(t, "b")
	m := s.within(t, 10*time.Second)
	if m == nil || m["result"] == nil {
		t.Fatalf("alice, withdrawn from w1, was told %s (want the stream's end)", m)
	}
}

// TestPush_StreamNeedsItsWorkspace: a 2025 session's GET stream
// names a workspace its caller may not act in: it is refused as a POST
// acting there is (403), not opened to carry list changes for 30 minutes.
func TestPush_StreamNeedsItsWorkspace(t *testing.T) {
	f := newFleet(t, 1)
	r := f.replicas[0]
	s := newSession(t, r)
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, r.url, nil)
	req.Header = http.Header{"Accept": {"text/event-stream"}, "Authorization": {"Bearer " + tokAlice}, "X-Workspace-Id": {"w2"},
		"Mcp-Protocol-Version": {"2025-06-18"}, "Mcp-Session-Id": {s.id}}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		stream := &listenStream{resp: resp, rd: bufio.NewReader(resp.Body)}
		r.addTool(t, "b")
		m := stream.within(t, 2*time.Second)
		t.Fatalf("a GET stream in a workspace alice may not act in opened (200) and carried %s", m)
	}
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("status %d, want 403", resp.StatusCode)
	}
}

// TestNotify_OnFleetPanicLoggedWithoutItsValue: a panicking OnFleet is
// logged by its type and the line that raised it, never the value, which
// holds whatever the host had at hand (here the event's payload); the
// follower goes on to the next event.
func TestNotify_OnFleetPanicLoggedWithoutItsValue(t *testing.T) {
	const secret = "fleetPayloadS3cret"
	bus := mcp.NewMemoryEventBusForTest()
	ready, after := make(chan struct{}), make(chan struct{})
	var once sync.Once
	logs := &syncBuffer{}
	h := mcp.NewHandler(mcp.NewServer(mcp.Implementation{Name: "f", Version: "1"}), []mcp.Era{era2026.New()},
		mcp.WithLogger(slog.New(slog.NewTextHandler(logs, nil))),
		mcp.WithChangeNotifications(mcp.ChangeNotifications{Bus: bus, OnFleet: func(ctx context.Context, name string, payload []byte) {
			switch name {
			case "ready":
				once.Do(func() { close(ready) })
			case "boom":
				panic("cannot apply " + string(payload))
			case "after":
				close(after)
			}
		}}))
	t.Cleanup(func() { closeWithin(t, h) })
	// The follower subscribes in a goroutine of its own: publish until it
	// hears (bounded).
	for i := 0; ; i++ {
		if i == 250 {
			t.Fatal("the follower never heard the first event")
		}
		if err := h.PublishFleet(t.Context(), "ready", nil); err != nil {
			t.Fatal(err)
		}
		select {
		case <-ready:
		case <-time.After(20 * time.Millisecond):
			continue
		}
		break
	}
	for _, name := range []string{"boom", "after"} {
		if err := h.PublishFleet(t.Context(), name, []byte(secret)); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-after:
	case <-time.After(5 * time.Second):
		t.Fatalf("the event after the panic was not applied; logs:\n%s", logs)
	}
	out := logs.String()
	if want := `msg="mcp: OnFleet panicked" event=boom panic.type=string panic.at="github.com/mcpdual/mcpdual/mcp_test.TestNotify_OnFleetPanicLoggedWithoutItsValue.func`; !strings.Contains(out, want) || strings.Contains(out, secret) {
		t.Errorf("the log lacks %s, or holds the payload:\n%s", want, out)
	}
}
