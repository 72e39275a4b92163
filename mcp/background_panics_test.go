package mcp_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
)

// panicOn is a log handler that panics on every line whose message
// contains one of its phrases: a host's handler shipping lines to a store
// that is down.
type panicOn struct {
	slog.Handler
	phrases []string
}

func (h panicOn) Handle(ctx context.Context, r slog.Record) error {
	for _, p := range h.phrases {
		if strings.Contains(r.Message, p) {
			panic("log store down")
		}
	}
	return h.Handler.Handle(ctx, r)
}

func (h panicOn) WithAttrs(as []slog.Attr) slog.Handler {
	return panicOn{h.Handler.WithAttrs(as), h.phrases}
}
func (h panicOn) WithGroup(g string) slog.Handler { return panicOn{h.Handler.WithGroup(g), h.phrases} }

// TestConfirm_RenewalLogPanics: the lease of a running confirmation is
// renewed on a goroutine of the handler's own, where nothing recovers a
// panic; a host's log handler that panics on the renewal's warning (the
// guard failed to renew) loses that line, and the process and the call go
// on: the route's answer is sent and the outcome recorded. It ended the
// process.
func TestConfirm_RenewalLogPanics(t *testing.T) {
	t.Parallel()
	s := newGuardFaultServer(t, mcp.WithLogger(slog.New(panicOn{slog.NewTextHandler(io.Discard, nil), []string{"renewing a confirmation's lease failed"}})))
	state := asInterim(t, s.call(t, 1, "")).RequestState
	s.guard.set("Renew", "error")
	ranAnswer(t, s.call(t, 2, state))
	s.guard.clear()
	res := asResult(t, s.call(t, 3, state))
	if sc := res.StructuredContent; !res.IsError || sc["outcome"] != "confirmation_already_used" || sc["executed"] != true {
		t.Errorf("a retry: %+v", res)
	}
	if n := s.runs.Load(); n != 1 {
		t.Errorf("the route ran %d times, want 1", n)
	}
}

// panickyEventBus panics in its first Subscribe; its second subscription
// carries nothing until the test ends it, and its stop panics.
type panickyEventBus struct {
	mcp.EventBus
	subscribes atomic.Int64
	second     chan []byte
}

func (b *panickyEventBus) Subscribe(ctx context.Context) (<-chan []byte, func() error, error) {
	switch b.subscribes.Add(1) {
	case 1:
		panic("bus: pool closed")
	case 2:
		return b.second, func() error { panic("bus: stop on a closed pool") }, nil
	}
	return b.EventBus.Subscribe(ctx)
}

// TestNotify_FleetFollowerSurvivesPanics: the fleet follower runs on a
// goroutine of the handler's own. An event bus whose Subscribe panics, or
// whose stop does, is taken as one that failed (logged, subscribed
// again), and a log handler that panics on the follower's lines loses
// them; the follower goes on, and a fleet event published later reaches
// OnFleet. Each of these ended the process.
func TestNotify_FleetFollowerSurvivesPanics(t *testing.T) {
	defer mcp.SetFleetRetryForTest(time.Millisecond)()
	bus := &panickyEventBus{EventBus: mcp.NewMemoryEventBusForTest(), second: make(chan []byte)}
	heard := make(chan struct{})
	var once sync.Once
	h := mcp.NewHandler(mcp.NewServer(mcp.Implementation{Name: "f", Version: "1"}), []mcp.Era{era2026.New()},
		mcp.WithLogger(slog.New(panicOn{slog.NewTextHandler(io.Discard, nil), []string{"fleet events"}})),
		mcp.WithChangeNotifications(mcp.ChangeNotifications{Bus: bus, OnFleet: func(ctx context.Context, name string, _ []byte) {
			if name == "after" {
				once.Do(func() { close(heard) })
			}
		}}))
	t.Cleanup(func() { closeWithin(t, h) })
	for i := 0; bus.subscribes.Load() < 2; i++ {
		if i == 500 {
			t.Fatal("the follower never subscribed a second time")
		}
		time.Sleep(5 * time.Millisecond)
	}
	// The second subscription ends: the follower calls its stop, which
	// panics, logs (its handler panics), and subscribes a third time.
	close(bus.second)
	for i := 0; ; i++ {
		if i == 250 {
			t.Fatal("a fleet event after the panics never reached OnFleet")
		}
		if err := h.PublishFleet(t.Context(), "after", nil); err != nil {
			t.Fatal(err)
		}
		select {
		case <-heard:
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
}
