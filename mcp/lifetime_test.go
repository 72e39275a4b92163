package mcp_test

import (
	"context"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/mcp"
)

// Lifetimes: what a request starts on the server (its goroutine, a
// stream's timers and bus subscription, a lease's renewal, a wait for a
// 2025 client's answer) ends with it, whether it completes, its client
// leaves, or the handler closes — while the server keeps running, so that
// what ends only with the server cannot pass for clean.

// serving returns the stacks of the goroutines running the library's own
// code, other than the tests' (a test's goroutine, or one it started to
// read a stream). A goroutine is told apart by where it began, not by the
// frames it is in: a request's goroutine, which net/http started, is
// serving while it runs a test's route or tool function too — counted by
// its frames, it went unseen there, and a call whose client left could
// pass for settled while its route had yet to return and give its slot
// back.
func serving() []string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var ours []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if _, origin, _ := strings.Cut(g, "\ncreated by "); strings.Contains(g, "\ntesting.tRunner(") || strings.Contains(origin, "_test.go:") {
			continue // a test's goroutine, or one a test started
		}
		if libraryFrame(g) {
			ours = append(ours, g)
		}
	}
	return ours
}

// libraryFrame reports whether a goroutine's stack has a frame of the
// library's own packages (not of a test package, whose functions a
// request's goroutine may be running).
func libraryFrame(g string) bool {
	for line := range strings.SplitSeq(g, "\n") {
		fn, ok := strings.CutPrefix(line, "github.com/mcpdual/mcpdual/")
		if !ok {
			continue
		}
		if pkg, _, _ := strings.Cut(fn, "."); !strings.HasSuffix(pkg, "_test") {
			return true
		}
	}
	return false
}

// settled waits, a bounded number of times, for the library's goroutines
// to be at most want, and fails with their stacks when they stay more.
// The bound (10 s) is no measure: it is only reached when something stays,
// and a loaded 2-core machine running -race may take seconds to let a
// connection's goroutines go.
func settled(t *testing.T, want int, what string) {
	t.Helper()
	var left []string
	for range 1000 {
		if left = serving(); len(left) <= want {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s: %d of the library's goroutines left, want %d:\n%s", what, len(left), want, strings.Join(left, "\n\n"))
}

// busy waits, a bounded number of times, for at least n of the library's
// goroutines to run: the request under test is being served.
func busy(t *testing.T, n int, what string) {
	t.Helper()
	for range 1000 {
		if len(serving()) >= n {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s: the server is not serving it (%d goroutines of the library)", what, len(serving()))
}

// TestLifetime_StreamsEndWithTheirClients: a 2026-07-28 listen (every
// kind) and a 2025 session's GET stream whose clients leave leave nothing
// running, and give their stream slots back (StreamsPerCaller 3: three
// streams open again afterwards).
func TestLifetime_StreamsEndWithTheirClients(t *testing.T) {
	f := newFleet(t, 1)
	r := f.replicas[0]
	base := len(serving())
	for round := range 2 {
		ctx, cancel := context.WithCancel(t.Context())
		l, ack := r.listen(t, ctx, tokAlice, "w1", `"toolsListChanged":true,"promptsListChanged":true,"resourcesListChanged":true,"resourceSubscriptions":["mail://w1/in"]`)
		if method(ack) != "notifications/subscriptions/acknowledged" {
			t.Fatalf("round %d: listen: %s", round, ack)
		}
		s := newSession(t, r)
		get := s.get(t, r, tokAlice, s.id)
		if get.resp.StatusCode != http.StatusOK {
			t.Fatalf("round %d: GET stream: %s", round, get.resp.Status)
		}
		sub, _ := s.post(t, r, "resources/subscribe", `"uri":"mail://w1/in"`)
		if sub.StatusCode != http.StatusOK {
			t.Fatalf("round %d: subscribe: %s", round, sub.Status)
		}
		busy(t, base+2, "two streams")
		cancel()
		l.resp.Body.Close()
		get.resp.Body.Close()
		settled(t, base, "the streams' clients left")
	}
	// The slots came back: three streams of the caller open at once.
	for i := range 3 {
		if _, ack := r.listen(t, t.Context(), tokAlice, "w1", `"toolsListChanged":true`); method(ack) != "notifications/subscriptions/acknowledged" {
			t.Fatalf("stream %d after the others left: %s", i, ack)
		}
	}
}

// TestLifetime_StreamsEndOnClose: Handler.Close ends every stream it
// serves, and what each ran with, while the server goes on.
func TestLifetime_StreamsEndOnClose(t *testing.T) {
	f := newFleet(t, 1)
	r := f.replicas[0]
	base := len(serving())
	l, ack := r.listen(t, t.Context(), tokAlice, "w1", `"toolsListChanged":true,"resourceSubscriptions":["mail://w1/in"]`)
	if method(ack) != "notifications/subscriptions/acknowledged" {
		t.Fatalf("listen: %s", ack)
	}
	s := newSession(t, r)
	get := s.get(t, r, tokAlice, s.id)
	if get.resp.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: %s", get.resp.Status)
	}
	busy(t, base+2, "two streams")
	r.h.Close()
	settled(t, base, "the handler closed")
	// Both clients see their stream end (the listen with its result).
	for name, body := range map[string]io.Reader{"listen": l.rd, "GET": get.rd} {
		done := make(chan error, 1)
		go func() { _, err := io.Copy(io.Discard, body); done <- err }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("%s stream: %v", name, err)
			}
		case <-time.After(5 * time.Second):
			t.Errorf("%s stream still open after Close", name)
		}
	}
}

// TestLifetime_CallWhoseClientLeaves: a tools/call whose route waits for
// its context ends when its client leaves, in every revision, and gives
// its concurrency slot back: with one slot, the next call is served.
func TestLifetime_CallWhoseClientLeaves(t *testing.T) {
	started, ended := make(chan struct{}, 1), make(chan struct{}, 1)
	f := newFixture(t, mcp.WithLimits(mcp.Limits{Concurrent: 1, PerCaller: 1}))
	f.mux.HandleFunc("GET /wait", func(w http.ResponseWriter, r *http.Request) {
		started <- struct{}{}
		<-r.Context().Done()
		ended <- struct{}{}
	})
	if err := f.srv.Update(func(s *mcp.Server) {
		s.AddTool(mcp.Tool{Name: "wait", Description: "waits", InputSchema: objSchema}, "GET /wait", f.mux)
	}); err != nil {
		t.Fatal(err)
	}
	base := len(serving())
	for _, v := range eras {
		ctx, cancel := context.WithCancel(t.Context())
		c := call{era: v, id: "1", method: "tools/call", params: `"name":"wait","arguments":{}`}
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, f.url, strings.NewReader(c.body()))
		req.Header = headersFor(c)
		done := make(chan error, 1)
		go func() {
			resp, err := http.DefaultClient.Do(req)
			if err == nil {
				resp.Body.Close()
			}
			done <- err
		}()
		select {
		case <-started:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: the route never ran", v)
		}
		cancel()
		<-done
		// The route's goroutine is a test's while the route runs, and
		// serving() does not count it: settled could pass before the
		// server saw the client go, and the next call find the slot still
		// held (503 once on a loaded machine). Once the route returned,
		// the goroutine is the library's until the request is done.
		select {
		case <-ended:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the route did not end when its client left", v)
		}
		settled(t, base, string(v)+": the caller left")
		r := f.do(t, call{era: v, id: "2", method: "tools/call", params: `"name":"items_get","arguments":{"id":"x"}`})
		if r.status != http.StatusOK || r.code() != 0 {
			t.Fatalf("%s: the next call: %d %s", v, r.status, r.raw)
		}
	}
}

// TestLifetime_LegacyAsk: a 2025 call asked for a confirmation on its
// stream, whose client leaves, or never answers, leaves nothing running
// and gives its wait slot back (Total 1: the next call is asked, not told
// the server is busy); one answered runs, and its lease's renewal ends
// with it. The lease is an hour, so that the renewal can end only by
// being stopped: with a lease of 30 ms, a renewal left running ended by
// itself on its next tick (its lease, completed, no longer held), and a
// loaded machine could let the lease lapse between steps, which ended
// it too.
func TestLifetime_LegacyAsk(t *testing.T) {
	for _, v := range []mcp.Version{mcp.Version20251125, mcp.Version20250618} {
		t.Run(string(v), func(t *testing.T) {
			f := newLegacyFixture(t, mcp.LegacyInput{PerCaller: 1, Total: 1, Wait: time.Hour, Bus: mcp.NewMemoryBusForTest()},
				mcp.WithLeaseForTest(time.Hour))
			session := sessionFor(t, f.a, tokAlice, v, `{"elicitation":{}}`)
			base := len(serving())
			asked := func() (*stream, string) {
				s := openCall(t, f.a, tokAlice, session, v, "purge")
				q := s.next(t)
				if q["method"] != "elicitation/create" {
					t.Fatalf("question = %v", q)
				}
				return s, q["id"].(string)
			}
			for range 2 {
				s, _ := asked()
				busy(t, base+1, "a call waiting for its answer")
				s.cancel()
				settled(t, base, "the asked client left")
			}
			s, id := asked()
			if got := answer(t, f.a, tokAlice, id, acceptConfirm); got != http.StatusAccepted {
				t.Fatalf("answer: %d", got)
			}
			if text, isErr := resultText(t, s.next(t)); isErr || !strings.Contains(text, "purged") {
				t.Fatalf("result %q isError=%v", text, isErr)
			}
			<-f.idemKeys
			settled(t, base, "the confirmed call ran")
			if n := f.executed.Load(); n != 1 {
				t.Errorf("executed %d times, want 1", n)
			}
		})
	}
	t.Run("unanswered", func(t *testing.T) {
		f := newLegacyFixture(t, mcp.LegacyInput{Total: 1, Wait: 50 * time.Millisecond, Bus: mcp.NewMemoryBusForTest()})
		session := sessionFor(t, f.a, tokAlice, mcp.Version20250618, `{"elicitation":{}}`)
		base := len(serving())
		for range 2 {
			s := openCall(t, f.a, tokAlice, session, mcp.Version20250618, "purge")
			if q := s.next(t); q["method"] != "elicitation/create" {
				t.Fatalf("question = %v", q)
			}
			text, isErr := resultText(t, s.next(t))
			if !isErr || !strings.Contains(text, "confirmation_declined") {
				t.Fatalf("unanswered: %q isError=%v", text, isErr)
			}
			settled(t, base, "the question went unanswered")
		}
	})
}

// TestLifetime_LegacyAskEndsOnClose: Handler.Close ends a 2025 call
// waiting for its client's answer (Wait is an hour: nothing else would
// end it), in every revision that asks, for a destructive tool's
// confirmation and for a tool's own question: the call's stream ends at
// once with -31503 shutting_down saying what did not happen, nothing runs
// past the question, and what the wait held goes — its goroutine, its
// answer subscription (a late answer is refused, and runs nothing), its
// concurrency slot (Concurrent 1: the next call is told the server is
// shutting down, not that it is overloaded). A call that would ask after
// Close is refused before anything is asked, with 503 and Retry-After as a
// stream asked for after Close is; one that asks nothing is served.
func TestLifetime_LegacyAskEndsOnClose(t *testing.T) {
	asks := []struct {
		tool, question, reply, message string
		confirmation                   string // what the observer hears of a confirmation
	}{
		{"purge", "elicitation/create", acceptConfirm,
			"Server shutting down before the call was confirmed; the tool did not run: retry it", "unavailable"},
		{"summarize", "sampling/createMessage", `{"role":"assistant","content":{"type":"text","text":"done"},"model":"m"}`,
			"Server shutting down while the call waited for input; it did not complete: retry it", ""},
	}
	for _, v := range []mcp.Version{mcp.Version20251125, mcp.Version20250618, mcp.Version20250326} {
		for _, a := range asks {
			t.Run(string(v)+"/"+a.tool, func(t *testing.T) {
				obs := &recordingObserver{}
				f := newLegacyFixture(t, mcp.LegacyInput{PerCaller: 1, Total: 1, Wait: time.Hour, Bus: mcp.NewMemoryBusForTest()},
					mcp.WithLimits(mcp.Limits{Concurrent: 1, PerCaller: 1}), mcp.WithObserver(obs))
				session := sessionFor(t, f.a, tokAlice, v, `{"elicitation":{},"sampling":{}}`)
				base := len(serving())
				s := openCall(t, f.a, tokAlice, session, v, a.tool)
				q := s.next(t)
				if q["method"] != a.question {
					t.Fatalf("question = %v", q)
				}
				busy(t, base+1, "a call waiting for its answer")
				if err := f.ha.Close(); err != nil {
					t.Fatalf("Close: %v", err)
				}
				shutDownAnswer(t, s.next(t), a.message)
				if s.resp.StatusCode != http.StatusOK {
					t.Errorf("the stream's status %d", s.resp.StatusCode)
				}
				streamEnded(t, s)
				settled(t, base, "Close ended the wait")
				if got := answer(t, f.a, tokAlice, q["id"], a.reply); got != http.StatusBadRequest {
					t.Errorf("an answer after Close: %d, want 400 (nobody waits for it)", got)
				}

				after := openCall(t, f.a, tokAlice, session, v, a.tool)
				if after.resp.StatusCode != http.StatusServiceUnavailable || after.resp.Header.Get("Retry-After") != "1" ||
					!strings.HasPrefix(after.resp.Header.Get("Content-Type"), "application/json") {
					t.Errorf("a call after Close: %d %v", after.resp.StatusCode, after.resp.Header)
				}
				shutDownAnswer(t, after.next(t), a.message)
				streamEnded(t, after)
				list := post(t, f.a, http.MethodPost, tokAlice, map[string]string{"Mcp-Session-Id": session, "MCP-Protocol-Version": string(v)},
					`{"jsonrpc":"2.0","id":6,"method":"tools/list"}`)
				if list.status != http.StatusOK || !strings.Contains(string(list.body), `"name":"purge"`) {
					t.Errorf("tools/list after Close: %d %s", list.status, list.body)
				}
				settled(t, base, "the calls after Close")

				if n := f.executed.Load(); n != 0 {
					t.Errorf("the tool ran %d times", n)
				}
				select {
				case got := <-f.answers:
					t.Errorf("the tool ran again with an answer: %s", got)
				default:
				}
				events, _, _ := obs.take()
				calls := 0
				for _, ev := range events {
					if ev.Method != "tools/call" {
						continue
					}
					calls++
					if ev.Code != -31503 || (a.confirmation != "" && ev.Confirmation != a.confirmation) {
						t.Errorf("observed call: code %d, confirmation %q; want -31503, %q", ev.Code, ev.Confirmation, a.confirmation)
					}
				}
				if calls != 2 {
					t.Errorf("observed %d calls, want 2", calls)
				}
			})
		}
	}
}

// shutDownAnswer checks m is tools/call 5's answer when the handler
// closed: the -31503 error with its message, reason and retry hint, no
// result.
func shutDownAnswer(t *testing.T, m map[string]any, message string) {
	t.Helper()
	e, _ := m["error"].(map[string]any)
	data, _ := e["data"].(map[string]any)
	if m["id"] != float64(5) || m["result"] != nil || e == nil || e["code"] != float64(-31503) || e["message"] != message ||
		data["reason"] != "shutting_down" || data["retryAfterMs"] != float64(1000) {
		t.Fatalf("want -31503 %q shutting_down, got %v", message, m)
	}
}

// streamEnded waits, up to a bound, for s's answer to end after its last
// message.
func streamEnded(t *testing.T, s *stream) {
	t.Helper()
	select {
	case m, open := <-s.events:
		if open {
			t.Fatalf("after the call's answer: %v", m)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call's stream is still open")
	}
}
