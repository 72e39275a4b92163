package storetest

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/mcp"
)

// Bounds of mcp.EventBus's contract the suite checks exactly.
const (
	maxEvent  = 8192 // bytes of one event
	minBuffer = 16   // unread events a subscription holds at least
	maxBehind = 1024 // unread events past which a subscription is ended
)

// EventBus runs the contract of mcp.EventBus against the buses open
// returns, one new bus per subtest (the subtests run in parallel), the
// publishers and subscribers spread over the fleet's replicas:
//
//   - delivery: an event published once Subscribe returned reaches every
//     subscription, on every replica (the publisher's too), whole, once,
//     unchanged when the publisher reuses its bytes; one published before
//     is not replayed.
//   - order: the events of one publisher arrive in the order published,
//     also while several publish at once.
//   - size: 8192 bytes pass, bytes of any value; an empty event and one of
//     8193 bytes are refused and reach nobody.
//   - stop: events is closed, stop returns nil (again on a second call),
//     and the others' subscriptions go on.
//   - a subscriber that does not read never delays the publisher or the
//     others: it is ended, with an error, once more than 1024 events wait
//     for it, after receiving (when it reads at last) some of what was
//     published in order; a subscriber that keeps up (within 16) loses
//     nothing.
func EventBus(t *testing.T, open func(t *testing.T) Fleet[mcp.EventBus]) {
	t.Helper()
	run := func(name string, f func(t *testing.T, fl Fleet[mcp.EventBus])) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fl := open(t)
			check(t, fl)
			f(t, fl)
		})
	}

	run("Delivery", func(t *testing.T, fl Fleet[mcp.EventBus]) {
		pub := replica(fl, 0)
		publishEvent(t, pub, []byte("before"))
		var subs []*eventSub
		for i := range 2 * len(fl.Replicas) {
			subs = append(subs, subscribeEvents(t, replica(fl, i)))
		}
		buf := []byte("first")
		publishEvent(t, pub, buf)
		copy(buf, "reuse") // Publish does not keep the caller's bytes
		publishEvent(t, replica(fl, 1), []byte("second"))
		for i, s := range subs {
			s.want(t, fmt.Sprintf("subscription %d", i), "first", "second")
		}
		// Once: a marker published after shows nothing came in between.
		publishEvent(t, pub, []byte("marker"))
		for i, s := range subs {
			s.want(t, fmt.Sprintf("subscription %d, after the two", i), "marker")
		}
	})

	run("Size", func(t *testing.T, fl Fleet[mcp.EventBus]) {
		s := subscribeEvents(t, replica(fl, 1))
		whole := make([]byte, maxEvent)
		for i := range whole {
			whole[i] = byte(i * 7) // every byte value, NUL and invalid UTF-8 included
		}
		publishEvent(t, replica(fl, 0), whole)
		for _, bad := range [][]byte{nil, {}, make([]byte, maxEvent+1)} {
			if err := replica(fl, 0).Publish(context.Background(), bad); err == nil {
				t.Errorf("Publish of %d bytes: no error", len(bad))
			}
		}
		publishEvent(t, replica(fl, 0), []byte("marker"))
		if got := s.next(t); !bytes.Equal(got, whole) {
			t.Errorf("an event of %d bytes arrived as %d bytes, or altered", len(whole), len(got))
		}
		s.want(t, "after the refused events", "marker")
	})

	run("Order", func(t *testing.T, fl Fleet[mcp.EventBus]) {
		subs := []*eventSub{subscribeEvents(t, replica(fl, 0)), subscribeEvents(t, replica(fl, 1))}
		// 16 in all: what a subscription holds unread, so nobody reads
		// while they publish.
		const publishers, each = 4, minBuffer / 4
		var wg sync.WaitGroup
		for p := range publishers {
			wg.Go(func() {
				for i := range each {
					if err := replica(fl, p).Publish(context.Background(), []byte(fmt.Sprintf("%d:%d", p, i))); err != nil {
						t.Errorf("Publish: %v", err)
						return
					}
				}
			})
		}
		wg.Wait()
		for n, s := range subs {
			next := make([]int, publishers)
			for range publishers * each {
				got := string(s.next(t))
				var p, i int
				if _, err := fmt.Sscanf(got, "%d:%d", &p, &i); err != nil || p < 0 || p >= publishers {
					t.Fatalf("subscription %d: unexpected event %q", n, got)
				}
				if i != next[p] {
					t.Errorf("subscription %d: publisher %d's event %d arrived when %d was due", n, p, i, next[p])
				}
				next[p] = i + 1
			}
		}
	})

	run("Stop", func(t *testing.T, fl Fleet[mcp.EventBus]) {
		stopped := subscribeEvents(t, replica(fl, 0))
		other := subscribeEvents(t, replica(fl, 0))
		if err := stopped.stop(); err != nil {
			t.Errorf("stop of an open subscription: %v, want nil", err)
		}
		publishEvent(t, replica(fl, 1), []byte("after stop"))
		other.want(t, "the other subscription", "after stop")
		stopped.closed(t, "after stop")
		if err := stopped.stop(); err != nil {
			t.Errorf("a second stop: %v, want nil", err)
		}
	})

	run("SlowSubscriber", func(t *testing.T, fl Fleet[mcp.EventBus]) {
		slow := subscribeEvents(t, replica(fl, 0))
		reader := subscribeEvents(t, replica(fl, 0))
		remote := subscribeEvents(t, replica(fl, 1))
		// The readers read all along; the publisher waits for them every
		// batch (never for slow), so they never fall further behind than
		// the 16 a subscription holds, whatever the machine's speed.
		const total, batch = maxBehind + 100, minBuffer
		var got [2]atomic.Int64
		var wg sync.WaitGroup
		var failed atomic.Bool
		for i, s := range []*eventSub{reader, remote} {
			wg.Go(func() {
				for n := range total {
					select {
					case ev, ok := <-s.events:
						if !ok {
							t.Errorf("a subscription that keeps up ended after %d events: %v", n, s.stop())
							failed.Store(true)
							return
						}
						if string(ev) != strconv.Itoa(n) {
							t.Errorf("a subscription that keeps up got %q for event %d", ev, n)
						}
						got[i].Add(1)
					case <-time.After(deliveryWait):
						t.Errorf("a subscription that keeps up: event %d did not arrive within %v", n, deliveryWait)
						failed.Store(true)
						return
					}
				}
			})
		}
		for n := 0; n < total && !failed.Load(); n++ {
			publishEvent(t, replica(fl, n), []byte(strconv.Itoa(n)))
			if (n+1)%batch == 0 {
				waitFor(t, func() bool { return failed.Load() || got[0].Load() >= int64(n+1) && got[1].Load() >= int64(n+1) })
			}
		}
		wg.Wait()
		// slow never read: it held some events, in order, then was ended.
		n := 0
		for ev := range slow.drain(t, total) {
			if string(ev) != strconv.Itoa(n) {
				t.Fatalf("the slow subscription's event %d is %q", n, ev)
			}
			n++
		}
		if n >= total || n > maxBehind {
			t.Errorf("the slow subscription held %d of %d events, want it ended past %d", n, total, maxBehind)
		}
		if err := slow.stop(); err == nil {
			t.Error("stop of a subscription ended for falling behind: nil, want an error")
		}
	})
}

// eventSub is one subscription of the suite, stopped at the end of the
// test.
type eventSub struct {
	events <-chan []byte
	stop   func() error
}

func subscribeEvents(t *testing.T, b mcp.EventBus) *eventSub {
	t.Helper()
	events, stop, err := b.Subscribe(context.Background())
	if err != nil || events == nil || stop == nil {
		t.Fatalf("Subscribe: channel %v, stop %v, err %v", events != nil, stop != nil, err)
	}
	t.Cleanup(func() { stop() })
	return &eventSub{events: events, stop: stop}
}

func publishEvent(t *testing.T, b mcp.EventBus, event []byte) {
	t.Helper()
	if err := b.Publish(context.Background(), event); err != nil {
		t.Fatalf("Publish of %d bytes: %v", len(event), err)
	}
}

// next returns the next event, failing t when none arrives or the
// subscription ended.
func (s *eventSub) next(t *testing.T) []byte {
	t.Helper()
	select {
	case ev, ok := <-s.events:
		if !ok {
			t.Fatalf("the subscription ended: %v", s.stop())
		}
		return ev
	case <-time.After(deliveryWait):
		t.Fatalf("no event within %v", deliveryWait)
		return nil
	}
}

// want checks that the next events are want, in order.
func (s *eventSub) want(t *testing.T, what string, want ...string) {
	t.Helper()
	for _, w := range want {
		if got := s.next(t); string(got) != w {
			t.Errorf("%s: got %q, want %q", what, got, w)
		}
	}
}

// closed checks that events is closed, once what was already in it is
// read.
func (s *eventSub) closed(t *testing.T, what string) {
	t.Helper()
	for ev := range s.drain(t, maxBehind) {
		t.Errorf("%s: %q arrived", what, ev)
	}
}

// drain yields what s holds until events is closed, at most max events,
// failing t when it is not closed by then or within deliveryWait of the
// last one.
func (s *eventSub) drain(t *testing.T, max int) func(yield func([]byte) bool) {
	return func(yield func([]byte) bool) {
		t.Helper()
		for range max + 1 {
			select {
			case ev, ok := <-s.events:
				if !ok {
					return
				}
				if !yield(ev) {
					return
				}
			case <-time.After(deliveryWait):
				t.Errorf("the subscription did not end within %v", deliveryWait)
				return
			}
		}
		t.Errorf("the subscription held more than %d events", max)
	}
}

// waitFor polls cond every millisecond for at most deliveryWait.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for range int(deliveryWait / time.Millisecond) {
		if cond() {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("still waiting after %v", deliveryWait)
}
