package stdio_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/stdio"
)

// TestHandlerWritesAfterReturning: what a handler sends after it returned
// — from a goroutine it left running, or an endpoint behind a middleware
// that answered for it while it runs on — is never
// written: it would follow the request's answer, and once the input ended
// it reached a writer that had stopped (a send on a closed channel, which
// ended the process).
func TestHandlerWritesAfterReturning(t *testing.T) {
	t.Parallel()
	t.Run("foreign handler", func(t *testing.T) {
		t.Parallel()
		// Each request leaves a goroutine behind that writes a notification
		// event and another response event to its stream when released.
		late := make(chan chan struct{}, 4)
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			id := strings.TrimSuffix(strings.SplitN(string(body), `"id":`, 2)[1], `,"method":"ping"}`)
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{}}\n\n", id)
			release, wrote := make(chan struct{}), make(chan struct{})
			late <- release
			go func() {
				defer close(wrote)
				<-release
				fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":%s,\"progress\":1}}\n\n", id)
				fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"late\":true}}\n\n", id)
			}()
			late <- wrote
		})
		s := start(t, h)
		if m := s.call(1, `{"jsonrpc":"2.0","id":1,"method":"ping"}`); string(m.Result) != `{}` {
			t.Fatalf("answer: %s", m.raw)
		}
		release, wrote := <-late, <-late
		close(release)
		<-wrote
		// The next line is the next request's answer, not what request 1's
		// goroutine wrote after it.
		if m := s.call(2, `{"jsonrpc":"2.0","id":2,"method":"ping"}`); string(m.Result) != `{}` {
			t.Fatalf("answer: %s", m.raw)
		}
		release, wrote = <-late, <-late
		if rest := s.finish(); len(rest) != 0 {
			t.Errorf("written after the input ended: %s", rest[0].raw)
		}
		// Serve has returned: request 2's goroutine writes now.
		close(release)
		<-wrote
	})
	// An endpoint behind a host's middleware that answers for it and
	// returns while the route runs on (http.TimeoutHandler does that): the
	// route reports progress after that, in every revision.
	for _, v := range []mcp.Version{mcp.Version20260728, mcp.Version20250618, mcp.Version20250326} {
		t.Run("endpoint answered for by a middleware/"+string(v), func(t *testing.T) {
			t.Parallel()
			entered, release, reported := make(chan struct{}), make(chan struct{}), make(chan bool, 1)
			mux := http.NewServeMux()
			srv := mcp.NewServer(mcp.Implementation{Name: "late", Version: "1"})
			srv.AddTool(mcp.Tool{Name: "late", InputSchema: []byte(`{"type":"object"}`)}, "GET /late", mux)
			mux.HandleFunc("GET /late", func(w http.ResponseWriter, r *http.Request) {
				close(entered)
				<-release // until the test lets it go, long after the wrapper gave up
				reported <- mcp.CallFromContext(r.Context()).Progress(1, 2, "late")
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{}`)
			})
			h := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, mcp.WithStreaming(),
				mcp.WithLogger(slog.New(slog.DiscardHandler)))
			// The host's middleware answers the late call for the endpoint
			// and lets it run on, as http.TimeoutHandler does once its time
			// is up (without a clock here).
			detached := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				inner := r.Clone(context.WithoutCancel(r.Context()))
				inner.Body = io.NopCloser(bytes.NewReader(body))
				if !bytes.Contains(body, []byte(`"late"`)) {
					h.ServeHTTP(w, inner)
					return
				}
				go h.ServeHTTP(httptest.NewRecorder(), inner)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusServiceUnavailable)
				io.WriteString(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"Busy: try again later"}}`)
			})
			s := start(t, detached)
			call, list := toolsCall(1, "late", `{}`, strings.Replace(meta(`{}`), `"_meta":{`, `"_meta":{"progressToken":"p1",`, 1)), `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{`+meta(`{}`)+`}}`
			if v != mcp.Version20260728 {
				m := s.call(0, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+string(v)+`","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
				if m.Error != nil {
					t.Fatalf("initialize: %s", m.raw)
				}
				call, list = toolsCall(1, "late", `{}`, `"_meta":{"progressToken":"p1"}`), `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
			}
			s.send(call)
			if m := s.recv(); string(m.ID) != "1" || m.code() != -32000 {
				t.Fatalf("answer: %s", m.raw)
			}
			<-entered
			close(release)
			if !<-reported {
				t.Fatal("the route's progress was refused by the endpoint: nothing was sent late")
			}
			if m := s.call(2, list); m.Error != nil {
				t.Fatalf("answer: %s", m.raw)
			}
			if rest := s.finish(); len(rest) != 0 {
				t.Errorf("written after the input ended: %s", rest[0].raw)
			}
		})
	}
}

// TestCancel_IDReusedAfterCancel: once the client cancelled a request, its
// id is free (2026-07-28 asks ids to be unique among requests in flight
// only): a new request under it is cancellable, even while the cancelled
// one is still winding down. It was taken for a duplicate of the first,
// which nothing could cancel.
func TestCancel_IDReusedAfterCancel(t *testing.T) {
	t.Parallel()
	entered, stopped, hold := make(chan string, 4), make(chan string, 4), make(chan struct{})
	defer close(hold)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), `"ping"`) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":8,"result":{}}`)
			return
		}
		run := "second"
		if strings.Contains(string(body), `"first"`) {
			run = "first"
		}
		entered <- run
		<-r.Context().Done()
		stopped <- run
		if run == "first" {
			<-hold // winds down slowly: its flight outlives the cancellation
		}
	})
	s := start(t, h, stdio.WithConcurrency(2))
	req := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"%s"}}`
	cancel := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`
	s.send(fmt.Sprintf(req, "first"))
	expect(t, entered, "first")
	s.send(cancel)
	expect(t, stopped, "first")
	s.send(fmt.Sprintf(req, "second"))
	expect(t, entered, "second")
	s.send(cancel)
	expect(t, stopped, "second")
	// Neither cancelled request is answered: the next line answers the next
	// request.
	if m := s.call(8, `{"jsonrpc":"2.0","id":8,"method":"ping"}`); m.Error != nil {
		t.Errorf("answer: %s", m.raw)
	}
}

// TestHandlerWaitsAfterReturning: a 2025 call that starts waiting for the
// client's answer after its handler returned — the endpoint behind a
// middleware that answered for it and let it run on — holds nothing of
// the transport's bounds by then, and gives nothing back. It gave back the
// concurrency slot and the queue place its goroutine had already
// returned, taking another request's: with WithConcurrency(1) a second
// call ran beside the one holding the slot, and the slot's holders could
// no longer all give theirs back, so Serve never returned at the end of
// the input.
func TestHandlerWaitsAfterReturning(t *testing.T) {
	t.Parallel()
	for _, v := range []mcp.Version{mcp.Version20250618, mcp.Version20250326} {
		t.Run(string(v), func(t *testing.T) {
			t.Parallel()
			// No answer is ever waited for long: the question of the call
			// run on is never written (its handler returned).
			f := newFixture(t, mcp.WithLegacyInput(mcp.LegacyInput{Wait: time.Nanosecond}))
			gate, detached := make(chan struct{}), make(chan struct{})
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				if !bytes.Contains(body, []byte(`"delete_item"`)) {
					r.Body = io.NopCloser(bytes.NewReader(body))
					f.h.ServeHTTP(w, r)
					return
				}
				inner := r.Clone(context.WithoutCancel(r.Context()))
				inner.Body = io.NopCloser(bytes.NewReader(body))
				go func() {
					defer close(detached)
					<-gate
					f.h.ServeHTTP(httptest.NewRecorder(), inner)
				}()
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusServiceUnavailable)
				io.WriteString(w, `{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"Busy: try again later"}}`)
			})
			s := start(t, h, stdio.WithPrincipal(alice), stdio.WithWorkspace("ws_a"), stdio.WithConcurrency(1))
			initialize2025(s, v, `{"elicitation":{}}`)
			if m := s.call(2, toolsCall(2, "delete_item", `{"id":"x1"}`, "")); m.code() != -32000 {
				t.Fatalf("answer: %s", m.raw)
			}
			s.send(toolsCall(3, "slow", `{"id":"b"}`, ""))
			expect(t, f.entered, "b") // b holds the one slot
			close(gate)
			<-detached // the call run on asked, waited and ended
			s.send(toolsCall(4, "slow", `{"id":"c"}`, ""))
			close(f.release)
			expect(t, f.entered, "c")
			rest := s.finish()
			if len(rest) != 2 || f.deleted.Load() != 0 {
				t.Errorf("answered %d, deleted %d", len(rest), f.deleted.Load())
			}
			f.runMu.Lock()
			defer f.runMu.Unlock()
			if f.maxRunning != 1 {
				t.Errorf("%d calls ran at once with WithConcurrency(1)", f.maxRunning)
			}
		})
	}
}

// TestCancel_IDSpelling: notifications/cancelled finds the request whose
// id has the same value, however either spells a string id: a client's
// encoder may escape a character in one message and not in another. The
// id was matched as written, and a cancellation spelled otherwise was
// lost; a string and an integer stay two ids.
func TestCancel_IDSpelling(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		id, cancel string
		stops      bool
	}{
		{`"\u0061<b"`, `"a\u003cb"`, true},
		{`"a<b"`, `"\u0061\u003cb"`, true},
		{`"a\/b"`, `"a/b"`, true},
		{`"a"`, `"a"`, true},
		{`"7"`, `7`, false},
		{`7`, `"7"`, false},
	} {
		t.Run(c.id+" "+c.cancel, func(t *testing.T) {
			t.Parallel()
			running := make(chan context.Context, 1)
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				if bytes.Contains(body, []byte(`"ping"`)) {
					w.Header().Set("Content-Type", "application/json")
					io.WriteString(w, `{"jsonrpc":"2.0","id":8,"result":{}}`)
					return
				}
				running <- r.Context()
				<-r.Context().Done() // until cancelled, or Serve stops
			})
			s := start(t, h)
			s.send(`{"jsonrpc":"2.0","id":` + c.id + `,"method":"tools/call","params":{"name":"slow"}}`)
			var ctx context.Context
			select {
			case ctx = <-running:
			case <-time.After(wait):
				t.Fatal("the request did not start")
			}
			s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + c.cancel + `}}`)
			// The cancellation is handled as it is read, before this ping
			// is: by its answer, the request's context ended or never will
			// by it.
			s.call(8, `{"jsonrpc":"2.0","id":8,"method":"ping"}`)
			if stopped := ctx.Err() != nil; stopped != c.stops {
				t.Errorf("stopped %v, want %v", stopped, c.stops)
			}
		})
	}
}
