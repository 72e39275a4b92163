package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/mcp"
)

// deliveryWait bounds how long the suite waits for an answer that must
// arrive: a failure, never a measurement.
const deliveryWait = 10 * time.Second

// AnswerBus runs the contract of mcp.AnswerBus against the buses open
// returns, one new store per subtest (the subtests run in parallel). The
// subscriber and the publisher are different replicas wherever the fleet
// has more than one:
//
//   - delivery: an answer published once Subscribe has returned arrives on
//     the channel, whole, and Publish says delivered.
//   - none without a subscriber: an id nobody listens to is not delivered
//     (delivered false, no error), and that does not spend the id: once
//     it is subscribed, an answer is delivered.
//   - stop: after stop nothing is delivered and nothing arrives.
//   - a second answer to an id is not delivered and never arrives.
//   - ids are isolated, also when many wait and are answered at once.
func AnswerBus(t *testing.T, open func(t *testing.T) Fleet[mcp.AnswerBus]) {
	t.Helper()
	ctx := context.Background()
	run := func(name string, f func(t *testing.T, fl Fleet[mcp.AnswerBus])) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fl := open(t)
			check(t, fl)
			f(t, fl)
		})
	}

	run("Delivery", func(t *testing.T, fl Fleet[mcp.AnswerBus]) {
		ch, stop := subscribe(t, replica(fl, 0), "q-delivery")
		defer stop()
		answer := []byte(`{"action":"accept","content":{"confirm":true}}`)
		publish(t, replica(fl, 1), "q-delivery", answer, true)
		receive(t, ch, string(answer))
	})

	run("NoSubscriber", func(t *testing.T, fl Fleet[mcp.AnswerBus]) {
		publish(t, replica(fl, 1), "q-nobody", []byte(`early`), false)
		ch, stop := subscribe(t, replica(fl, 0), "q-nobody")
		defer stop()
		publish(t, replica(fl, 1), "q-nobody", []byte(`on time`), true)
		receive(t, ch, "on time")
	})

	run("Stop", func(t *testing.T, fl Fleet[mcp.AnswerBus]) {
		ch, stop := subscribe(t, replica(fl, 0), "q-stop")
		stop()
		publish(t, replica(fl, 1), "q-stop", []byte(`late`), false)
		none(t, ch, "after stop")
		stop() // a second stop is harmless
	})

	run("SecondAnswer", func(t *testing.T, fl Fleet[mcp.AnswerBus]) {
		ch, stop := subscribe(t, replica(fl, 0), "q-twice")
		defer stop()
		publish(t, replica(fl, 1), "q-twice", []byte(`first`), true)
		receive(t, ch, "first")
		for i := range 2 * len(fl.Replicas) {
			publish(t, replica(fl, i), "q-twice", []byte(`again`), false)
		}
		none(t, ch, "after a second answer")
	})

	run("Isolated", func(t *testing.T, fl Fleet[mcp.AnswerBus]) {
		a, stopA := subscribe(t, replica(fl, 0), "q-a")
		defer stopA()
		b, stopB := subscribe(t, replica(fl, 1), "q-b")
		defer stopB()
		publish(t, replica(fl, 2), "q-b", []byte(`for b`), true)
		receive(t, b, "for b")
		none(t, a, "on a, after b was answered")
		publish(t, replica(fl, 2), "q-a", []byte(`for a`), true)
		receive(t, a, "for a")
	})

	run("Concurrent", func(t *testing.T, fl Fleet[mcp.AnswerBus]) {
		const n = 16
		chans := make([]<-chan []byte, n)
		var wg sync.WaitGroup
		var mu sync.Mutex
		var stops []func()
		for i := range n {
			wg.Go(func() {
				ch, stop, err := replica(fl, i).Subscribe(ctx, fmt.Sprintf("q-many-%d", i))
				if err != nil {
					t.Errorf("Subscribe %d: %v", i, err)
					return
				}
				mu.Lock()
				chans[i], stops = ch, append(stops, stop)
				mu.Unlock()
			})
		}
		wg.Wait()
		defer func() {
			for _, stop := range stops {
				stop()
			}
		}()
		if t.Failed() {
			return
		}
		for i := range n {
			wg.Go(func() {
				id := fmt.Sprintf("q-many-%d", i)
				if ok, err := replica(fl, i+1).Publish(ctx, id, []byte("answer "+id)); !ok || err != nil {
					t.Errorf("Publish %s: delivered %v, err %v", id, ok, err)
				}
			})
		}
		wg.Wait()
		for i, ch := range chans {
			receive(t, ch, fmt.Sprintf("answer q-many-%d", i))
		}
		for i, ch := range chans {
			none(t, ch, fmt.Sprintf("on q-many-%d, after its answer", i))
		}
	})
}

func subscribe(t *testing.T, b mcp.AnswerBus, id string) (<-chan []byte, func()) {
	t.Helper()
	ch, stop, err := b.Subscribe(context.Background(), id)
	if err != nil || ch == nil || stop == nil {
		t.Fatalf("Subscribe(%q): channel %v, stop %v, err %v", id, ch != nil, stop != nil, err)
	}
	return ch, stop
}

func publish(t *testing.T, b mcp.AnswerBus, id string, answer []byte, want bool) {
	t.Helper()
	ok, err := b.Publish(context.Background(), id, answer)
	if err != nil || ok != want {
		t.Errorf("Publish(%q, %s): delivered %v, err %v; want delivered %v", id, answer, ok, err, want)
	}
}

func receive(t *testing.T, ch <-chan []byte, want string) {
	t.Helper()
	select {
	case got := <-ch:
		if string(got) != want {
			t.Errorf("received %q, want %q", got, want)
		}
	case <-time.After(deliveryWait):
		t.Errorf("no answer within %v, want %q", deliveryWait, want)
	}
}

// none checks that nothing is waiting on ch. It is called only where
// nothing was delivered since what ch last received (Publish said so), so
// a late arrival is not possible and no wait is needed.
func none(t *testing.T, ch <-chan []byte, what string) {
	t.Helper()
	select {
	case got, ok := <-ch:
		if ok {
			t.Errorf("%s: %q arrived", what, got)
		}
	default:
	}
}
