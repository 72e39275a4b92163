package mcp_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mrtr"
)

// slotFixture is one endpoint with a single concurrency slot, a
// destructive tool a 2025 client confirms and a tool that holds its slot
// until told to end.
type slotFixture struct {
	url      string
	h        *mcp.Handler
	executed atomic.Int64
	entered  chan struct{}
	leave    chan struct{}
	done     sync.Once
}

// release ends every hold, at once and from now on.
func (f *slotFixture) release() { f.done.Do(func() { close(f.leave) }) }

func newSlotFixture(t *testing.T) *slotFixture {
	t.Helper()
	f := &slotFixture{entered: make(chan struct{}, 4), leave: make(chan struct{})}
	ring := sessionRing(t, 7)
	srv := mcp.NewServer(mcp.Implementation{Name: "slots", Version: "1"})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "purge", Description: "Deletes everything.", Annotations: mcp.Annotations{Destructive: true}},
		func(ctx context.Context, in struct{}) (map[string]any, error) {
			f.executed.Add(1)
			return map[string]any{"purged": true}, nil
		})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "hold", Description: "Holds its slot."},
		func(ctx context.Context, in struct{}) (map[string]any, error) {
			f.entered <- struct{}{}
			<-f.leave
			return map[string]any{"held": true}, nil
		})
	a := auth.New(auth.Config{Resource: resourceURI, Verifier: auth.VerifierFunc(testVerifier)})
	f.h = mcp.NewHandler(srv, []mcp.Era{era2026.New(era2026.WithSealer(mrtr.NewSealer(ring))),
		era2025.New(era2025.WithSessions(mrtr.NewSealer(ring), 0))},
		mcp.WithAuth(a), mcp.WithLegacyInput(mcp.LegacyInput{}), mcp.WithLimits(mcp.Limits{Concurrent: 1}))
	f.url = newTestServer(t, f.h)
	t.Cleanup(f.release) // before the server closes: a held call ends
	return f
}

// hold starts bob's call of hold and returns once it holds the slot; the
// channel gets its status when it ends.
func (f *slotFixture) hold(t *testing.T) <-chan int {
	t.Helper()
	done := make(chan int, 1)
	go func() {
		done <- post(t, f.url, "POST", tokBob, map[string]string{"MCP-Protocol-Version": "2025-06-18"},
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"hold","arguments":{}}}`).status
	}()
	select {
	case <-f.entered:
	case s := <-done:
		t.Fatalf("hold did not get the slot: %d", s)
	case <-time.After(5 * time.Second):
		t.Fatal("hold never started")
	}
	return done
}

// waitForWaiter returns once a request waits for the slot.
func (f *slotFixture) waitForWaiter(t *testing.T) {
	t.Helper()
	for range 500 {
		if mcp.SlotWaitersForTest(f.h) > 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the answered call never waited for the slot")
}

// TestLegacyInput_WaitHoldsNoSlot: a 2025 call waiting for its
// confirmation gives its concurrency slot back, so another caller is
// served meanwhile; once answered, it waits for the slot rather than
// answering 503, and runs when the slot is free.
func TestLegacyInput_WaitHoldsNoSlot(t *testing.T) {
	f := newSlotFixture(t)
	v := mcp.Version20250618
	session := sessionFor(t, f.url, tokAlice, v, `{"elicitation":{}}`)
	s := openCall(t, f.url, tokAlice, session, v, "purge")
	q := s.next(t)
	if q["method"] != "elicitation/create" {
		t.Fatalf("question = %v", q)
	}
	// The only slot is free while alice is asked: bob takes it.
	held := f.hold(t)
	if got := answer(t, f.url, tokAlice, q["id"], acceptConfirm); got != 202 {
		t.Fatalf("answer: %d", got)
	}
	f.waitForWaiter(t)
	if n := f.executed.Load(); n != 0 {
		t.Fatalf("ran %d times without a slot", n)
	}
	f.release()
	if st := <-held; st != 200 {
		t.Errorf("bob's call: %d", st)
	}
	text, isErr := resultText(t, s.next(t))
	if isErr || !strings.Contains(text, "purged") {
		t.Errorf("after the slot freed: %q isError=%v", text, isErr)
	}
	if n := f.executed.Load(); n != 1 {
		t.Errorf("executed %d times, want 1", n)
	}
}

// TestLegacyInput_RerunWaitIsBounded: an answered call that finds no slot
// within its wait ends with the overloaded error and runs nothing.
func TestLegacyInput_RerunWaitIsBounded(t *testing.T) {
	defer mcp.SetRerunSlotWaitForTest(200 * time.Millisecond)()
	f := newSlotFixture(t)
	v := mcp.Version20250618
	session := sessionFor(t, f.url, tokAlice, v, `{"elicitation":{}}`)
	s := openCall(t, f.url, tokAlice, session, v, "purge")
	q := s.next(t)
	held := f.hold(t)
	defer func() { f.release(); <-held }()
	if got := answer(t, f.url, tokAlice, q["id"], acceptConfirm); got != 202 {
		t.Fatalf("answer: %d", got)
	}
	m := s.next(t)
	e, _ := m["error"].(map[string]any)
	data, _ := e["data"].(map[string]any)
	if e == nil || e["message"] != "Server overloaded" || data["reason"] != "overloaded" {
		t.Errorf("no slot within the wait: %v", m)
	}
	if n := f.executed.Load(); n != 0 {
		t.Errorf("executed %d times, want 0", n)
	}
}
