package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
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

// interruptFixture serves tools whose route or function waits for its
// request to end and then gives up, behind a middleware that ends the
// request (a server-side cancellation, or a deadline) once the tool has
// started: the client is still there to read what it is told.
type interruptFixture struct {
	url     string
	started chan struct{} // one per tool that began
	runs    atomic.Int64  // route or function bodies that finished their work
	mu      sync.Mutex
	keys    []string // Idempotency-Keys the destructive tools saw
	finish  atomic.Bool
	log     *syncBuffer
}

// body is a tool's work: it finishes (and counts a run) when f.finish is
// set, else it waits for its context to end and reports why.
func (f *interruptFixture) body(ctx context.Context, key string) error {
	f.mu.Lock()
	f.keys = append(f.keys, key)
	f.mu.Unlock()
	if f.finish.Load() {
		f.runs.Add(1)
		return nil
	}
	f.started <- struct{}{}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(10 * time.Second):
		return nil // the middleware did not cancel: the test fails on what it gets
	}
}

func newInterruptFixture(t *testing.T, opts ...mcp.HandlerOption) *interruptFixture {
	t.Helper()
	f := &interruptFixture{started: make(chan struct{}, 4), log: &syncBuffer{}}
	mux := http.NewServeMux()
	mux.HandleFunc("DELETE /items/{id}", func(w http.ResponseWriter, r *http.Request) {
		if f.body(r.Context(), r.Header.Get("Idempotency-Key")) != nil {
			return // gave up: nothing written
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"deleted":"` + r.PathValue("id") + `"}`))
	})
	mux.HandleFunc("DELETE /abort/{id}", func(w http.ResponseWriter, r *http.Request) {
		if f.body(r.Context(), r.Header.Get("Idempotency-Key")) != nil {
			panic(http.ErrAbortHandler)
		}
		w.Write([]byte(`{}`))
	})
	mux.HandleFunc("GET /silent/{id}", func(w http.ResponseWriter, r *http.Request) {
		// Returns at once, writing nothing, with its request live: 200.
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "interrupt", Version: "1"})
	idArg := json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`)
	type in struct {
		ID string `json:"id"`
	}
	destructive := mcp.Annotations{Destructive: true}
	srv.AddTool(mcp.Tool{Name: "delete_item", InputSchema: idArg, Annotations: destructive}, "DELETE /items/{id}", mux)
	srv.AddTool(mcp.Tool{Name: "remove_item", InputSchema: idArg, Annotations: destructive}, "DELETE /items/{id}", mux, mcp.WithoutConfirmation())
	srv.AddTool(mcp.Tool{Name: "abort_item", InputSchema: idArg}, "DELETE /abort/{id}", mux)
	srv.AddTool(mcp.Tool{Name: "silent_item", InputSchema: idArg, Annotations: mcp.Annotations{ReadOnly: true}}, "GET /silent/{id}", mux)
	fn := func(ctx context.Context, in in) (map[string]string, error) {
		if err := f.body(ctx, mcp.CallFromContext(ctx).IdempotencyKey()); err != nil {
			return nil, err
		}
		return map[string]string{"deleted": in.ID}, nil
	}
	mcp.AddToolFunc(srv, mcp.Tool{Name: "fn_delete", Annotations: destructive}, fn)
	mcp.AddToolFunc(srv, mcp.Tool{Name: "fn_remove", Annotations: destructive}, fn, mcp.WithoutConfirmation())
	mcp.AddToolFunc(srv, mcp.Tool{Name: "fn_own_deadline"}, func(ctx context.Context, in in) (map[string]string, error) {
		// The function's own deadline passed, its request's did not: a
		// failure it reports, not an interruption.
		own, cancel := context.WithTimeout(ctx, time.Nanosecond)
		defer cancel()
		<-own.Done()
		return nil, own.Err()
	})
	opts = append([]mcp.HandlerOption{mcp.WithLogger(slog.New(slog.NewTextHandler(f.log, nil)))}, opts...)
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, opts...)
	f.url = serveEndingWhenStarted(t, h, f.started)
	return f
}

// serveEndingWhenStarted serves h over HTTP behind a middleware that ends
// each request's context as soon as something is sent on started (a route
// or function began): the request is interrupted while the client is
// still there to read what it is told.
func serveEndingWhenStarted(t *testing.T, h http.Handler, started chan struct{}) string {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		go func() {
			select {
			case <-started:
				if ctx.Err() != nil {
					// This request had ended (select picks at random
					// among ready cases): the signal is a later
					// request's, which would otherwise never end.
					started <- struct{}{}
					return
				}
				cancel()
			case <-ctx.Done():
			}
		}()
		h.ServeHTTP(w, r.WithContext(ctx))
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// interruptedAnswer checks r is the answer to an interrupted call: a
// JSON-RPC error -31503 with reason and retryAfterMs, which says neither
// that the tool ran nor that it did not.
func interruptedAnswer(t *testing.T, v mcp.Version, r *reply, reason string) {
	t.Helper()
	// Every revision answers this one 503, as it does
	// confirmation_in_progress: a retry is due, not a result.
	if r.status != http.StatusServiceUnavailable || r.code() != -31503 || r.header.Get("Retry-After") != "1" {
		t.Fatalf("%s: %d %v %s, want 503 -31503 with Retry-After: 1", v, r.status, r.header, r.raw)
	}
	var d struct {
		Reason       string
		RetryAfterMs int
	}
	json.Unmarshal(r.msg.Error.Data, &d)
	msg := r.msg.Error.Message
	if d.Reason != reason || d.RetryAfterMs != 1000 || !strings.Contains(msg, "interrupted") || !strings.Contains(msg, "retry") ||
		strings.Contains(msg, "ran") || strings.Contains(msg, "not executed") || strings.Contains(msg, "did not run") {
		t.Errorf("%s: %s", v, r.raw)
	}
	if len(r.msg.Result) != 0 {
		t.Errorf("%s: a result beside the error: %s", v, r.raw)
	}
}

// TestInterrupted_EveryEra (design record 019, an interrupted call): in every revision, a route
// that gives up without writing once its request ended, one that aborts
// (http.ErrAbortHandler), and a function that returns its context's
// error are interrupted: answered "retry for the outcome", never a result
// saying it ran (200, or "returned") or failed. A route that writes
// nothing with its request live is a 200 as net/http says, and a function
// whose own deadline passed failed.
func TestInterrupted_EveryEra(t *testing.T) {
	t.Parallel()
	f := newInterruptFixture(t)
	for _, v := range []mcp.Version{mcp.Version20260728, mcp.Version20251125, mcp.Version20250618, mcp.Version20250326} {
		for _, tool := range []string{"remove_item", "abort_item", "fn_remove"} {
			r := rt{era: v, name: tool, args: `{"id":"a"}`}.send(t, f.url)
			interruptedAnswer(t, v, r, "call_interrupted")
		}
		res := asResult(t, rt{era: v, name: "silent_item", args: `{"id":"a"}`}.send(t, f.url))
		if res.IsError || len(res.Content) != 1 || res.Content[0].Text != "" {
			t.Errorf("%s: a route that wrote nothing with its request live: %+v", v, res)
		}
		res = asResult(t, rt{era: v, name: "fn_own_deadline", args: `{"id":"a"}`}.send(t, f.url))
		if !res.IsError || res.Content[0].Text != "The tool failed with an internal error." {
			t.Errorf("%s: a function whose own deadline passed: %+v", v, res)
		}
	}
	if n := f.runs.Load(); n != 0 {
		t.Errorf("%d bodies finished, want none", n)
	}
	log := f.log.String()
	if strings.Contains(log, "executed") || strings.Contains(log, "tool handler panicked") ||
		strings.Count(log, `msg="mcp: a tool call was interrupted: its request ended before the tool answered"`) != 12 {
		t.Errorf("log:\n%s", log)
	}
}

// TestInterrupted_Confirmed (design record 019, an interrupted call): a confirmed call whose
// route or function is interrupted records nothing in the guard: the
// client is told to retry for the outcome (503 confirmation_interrupted),
// the audit line says "interrupted", and the retry with the same
// requestState runs the tool at once (the lease was released, so it is
// not "in progress") with the same Idempotency-Key; only that run's
// outcome is what later retries are told.
func TestInterrupted_Confirmed(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"delete_item", "fn_delete"} {
		t.Run(tool, func(t *testing.T) {
			t.Parallel()
			f := newInterruptFixture(t)
			in := confirmRound1(t, f.url, tool, "a")
			round2 := confirmRound2("", tool, "a", in.RequestState, accept)
			interruptedAnswer(t, mcp.Version20260728, round2.send(t, f.url), "confirmation_interrupted")
			if f.runs.Load() != 0 {
				t.Fatal("the interrupted body finished")
			}
			f.finish.Store(true)
			round2.id = 3
			res := asResult(t, round2.send(t, f.url))
			if res.IsError || !strings.Contains(res.Content[0].Text, `"deleted":"a"`) {
				t.Fatalf("the retry: %+v", res)
			}
			round2.id = 4
			res = asResult(t, round2.send(t, f.url))
			if !res.IsError || res.StructuredContent["outcome"] != "confirmation_already_used" || res.StructuredContent["executed"] != true {
				t.Errorf("a retry after the run: %+v", res)
			}
			if f.runs.Load() != 1 || len(f.keys) != 2 || f.keys[0] == "" || f.keys[0] != f.keys[1] {
				t.Errorf("runs %d, keys %q: want one finished run, both with the same Idempotency-Key", f.runs.Load(), f.keys)
			}
			log := f.log.String()
			if strings.Count(log, "outcome=interrupted") != 1 || strings.Count(log, `outcome="executed`) != 1 {
				t.Errorf("audit lines:\n%s", log)
			}
		})
	}
}

// TestInterrupted_ClientLeaves (design record 019, an interrupted call; the reliability run's
// repro): a confirmed route that sleeps 2 s, whose client leaves 500 ms in
// (a real cancellation over HTTP: the connection closes), recorded
// nothing: the retry is not told it ran, nor that it is in progress (the
// lease was released), and runs the route again with the same
// Idempotency-Key; the client is told it ran only after a route body
// completed.
func TestInterrupted_ClientLeaves(t *testing.T) {
	t.Parallel()
	var bodies atomic.Int64 // route bodies that completed
	var keys sync.Map
	var runs atomic.Int64
	gaveUp, entered := make(chan struct{}, 1), make(chan struct{}, 1)
	mux := http.NewServeMux()
	mux.HandleFunc("DELETE /slow/{id}", func(w http.ResponseWriter, r *http.Request) {
		keys.Store(r.Header.Get("Idempotency-Key"), true)
		// The first run lasts until its client leaves (10 s bound a
		// client that never does); a retry's completes at once.
		if runs.Add(1) == 1 {
			entered <- struct{}{}
			select {
			case <-time.After(10 * time.Second):
			case <-r.Context().Done():
				gaveUp <- struct{}{}
				return // as the inbox's wrapper did: nothing written
			}
		}
		bodies.Add(1)
		w.Write([]byte(`{"deleted":true}`))
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "slow", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "delete_slow", InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`),
		Annotations: mcp.Annotations{Destructive: true}}, "DELETE /slow/{id}", mux)
	log := &syncBuffer{}
	// A lease far longer than the test: a retry that runs proves the
	// interrupted call released its claim, not that the lease lapsed.
	ts := httptest.NewServer(mcp.NewHandler(srv, []mcp.Era{era2026.New()}, mcp.WithLogger(slog.New(slog.NewTextHandler(log, nil))),
		mcp.WithLeaseForTest(time.Minute)))
	t.Cleanup(ts.Close)

	in := confirmRound1(t, ts.URL, "delete_slow", "x")
	round2 := confirmRound2("", "delete_slow", "x", in.RequestState, accept)
	round2.method = "tools/call"
	// The client leaves once the route runs (a timeout of its own could
	// run out before a loaded machine reached the route, which then never
	// ran, and the test waited for it).
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-entered:
			cancel()
		case <-ctx.Done():
		}
	}()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL, strings.NewReader(round2.body()))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "delete_slow")
	if resp, err := http.DefaultClient.Do(req); err == nil {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("the call answered %d before its client left: %s", resp.StatusCode, b)
	}
	cancel()
	select {
	case <-gaveUp: // the route saw its request end
	case <-time.After(20 * time.Second): // past the route's own bound: it ran to the end instead
		t.Fatal("the route never saw its request end")
	}
	// The retries of the held-out check: never told it ran until a body
	// completed; a few at most, since nothing holds a lease now (the
	// bound, 10 s of retries, leaves a loaded machine time to release it).
	for i := 0; ; i++ {
		if i == 200 {
			t.Fatal("no retry ran the route")
		}
		round2.id = 10 + i
		r := round2.send(t, ts.URL)
		if r.status == 503 {
			// The route gave up; the endpoint releases the claim as the
			// call returns, which a retry may overtake for a moment.
			if i < 199 && strings.Contains(string(r.raw), "confirmation_in_progress") {
				time.Sleep(50 * time.Millisecond)
				continue
			}
			t.Fatalf("retry %d: %s (the interrupted call's lease was not released)", i, r.raw)
		}
		res := asResult(t, r)
		if res.StructuredContent["outcome"] == "confirmation_already_used" {
			t.Fatalf("retry %d told %q with %d bodies completed", i, res.Content[0].Text, bodies.Load())
		}
		if !res.IsError && strings.Contains(res.Content[0].Text, "deleted") {
			break
		}
		t.Fatalf("retry %d: %s", i, r.raw)
	}
	if bodies.Load() != 1 {
		t.Errorf("%d bodies completed, want the retry's", bodies.Load())
	}
	n := 0
	keys.Range(func(any, any) bool { n++; return true })
	if n != 1 {
		t.Errorf("%d Idempotency-Keys, want one for both runs", n)
	}
	round2.id = 99
	res := asResult(t, round2.send(t, ts.URL))
	if res.StructuredContent["outcome"] != "confirmation_already_used" || res.StructuredContent["status"] != float64(200) {
		t.Errorf("after the run: %+v", res)
	}
	if l := log.String(); strings.Count(l, "outcome=interrupted") != 1 || strings.Count(l, `outcome="executed, status 200"`) != 1 {
		t.Errorf("audit lines:\n%s", l)
	}
}

// TestInterrupted_LegacyInput (design record 019, an interrupted call; 2025 clients asked over
// the call's stream): a confirmed function that the server interrupts
// after the user accepted is answered on the stream with the same
// confirmation_interrupted error, never a result; nothing is recorded,
// so the next question says nothing of a run.
func TestInterrupted_LegacyInput(t *testing.T) {
	t.Parallel()
	ring := sessionRing(t, 9)
	// The tool cancels the request that carries it, found in its own
	// context: a shared signal could be taken by an earlier call whose
	// client left but whose server side has not yet noticed, and the
	// call under test would then never end.
	type cancelKey struct{}
	srv := mcp.NewServer(mcp.Implementation{Name: "legacy", Version: "1"})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "purge", Annotations: mcp.Annotations{Destructive: true}},
		func(ctx context.Context, in struct{}) (map[string]any, error) {
			cancel, ok := ctx.Value(cancelKey{}).(context.CancelFunc)
			if !ok {
				return nil, errors.New("the call's context lost the test's cancel")
			}
			cancel()
			<-ctx.Done()
			return nil, ctx.Err()
		})
	a := auth.New(auth.Config{Resource: resourceURI, Verifier: auth.VerifierFunc(testVerifier)})
	log := &syncBuffer{}
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New(era2026.WithSealer(mrtr.NewSealer(ring))),
		era2025.New(era2025.WithSessions(mrtr.NewSealer(ring), 0))},
		mcp.WithAuth(a), mcp.WithLegacyInput(mcp.LegacyInput{}), mcp.WithLogger(slog.New(slog.NewTextHandler(log, nil))))
	url := newTestServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Only the tools/call is cancelled when the tool starts: the
		// answer's POST, still being served when the tool starts on the
		// call's goroutine, must not be the request that ends.
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		h.ServeHTTP(w, r.WithContext(context.WithValue(ctx, cancelKey{}, cancel)))
	}))
	for _, v := range []mcp.Version{mcp.Version20251125, mcp.Version20250618} {
		session := sessionFor(t, url, tokAlice, v, `{"elicitation":{}}`)
		s := openCall(t, url, tokAlice, session, v, "purge")
		q := s.next(t)
		if got := answer(t, url, tokAlice, q["id"], acceptConfirm); got != 202 {
			t.Fatalf("%s: answer %d", v, got)
		}
		m := s.next(t)
		e, _ := m["error"].(map[string]any)
		data, _ := e["data"].(map[string]any)
		if m["result"] != nil || e["code"] != float64(-31503) || data["reason"] != "confirmation_interrupted" {
			t.Errorf("%s: %v", v, m)
		}
		s.cancel()
		next := openCall(t, url, tokAlice, session, v, "purge")
		if msg := next.next(t)["params"].(map[string]any)["message"].(string); strings.HasPrefix(msg, "Note:") {
			t.Errorf("%s: the question after an interrupted call: %q", v, msg)
		}
		next.cancel()
	}
	if l := log.String(); strings.Count(l, "outcome=interrupted") != 2 || strings.Contains(l, "executed") {
		t.Errorf("audit lines:\n%s", l)
	}
}

// TestInterrupted_ResourceAndPromptRoutes: a resource's or a prompt's
// route that gives up without writing once its request ended (a
// server-side deadline or cancellation, its client still reading), or
// aborts then, answered nothing: resources/read and prompts/get say to
// retry, as a tool call and a task's route do, in every revision — never
// a read of empty contents (the recorder's default 200 taken as the
// route's answer) nor an internal error logged as the route's fault.
func TestInterrupted_ResourceAndPromptRoutes(t *testing.T) {
	t.Parallel()
	started := make(chan struct{}, 4)
	giveUp := func(abort bool) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			started <- struct{}{}
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
				return // the middleware did not cancel: the test fails on what it gets
			}
			if abort {
				panic(http.ErrAbortHandler)
			}
		}
	}
	mux := http.NewServeMux()
	mux.Handle("GET /doc", giveUp(false))
	mux.Handle("GET /aborting", giveUp(true))
	mux.Handle("GET /greeting", giveUp(false))
	srv := mcp.NewServer(mcp.Implementation{Name: "interrupted-reads", Version: "1"})
	srv.AddResource(mcp.Resource{URI: "docs://doc", Name: "doc"}, "GET /doc", mux)
	srv.AddResource(mcp.Resource{URI: "docs://aborting", Name: "aborting"}, "GET /aborting", mux)
	srv.AddPromptRoute(mcp.Prompt{Name: "greeting"}, "GET /greeting", mux)
	log := &syncBuffer{}
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, mcp.WithLogger(slog.New(slog.NewTextHandler(log, nil))))
	url := serveEndingWhenStarted(t, h, started)
	for _, v := range []mcp.Version{mcp.Version20260728, mcp.Version20251125, mcp.Version20250618, mcp.Version20250326} {
		for _, uri := range []string{"docs://doc", "docs://aborting"} {
			interruptedAnswer(t, v, rt{era: v, method: "resources/read", uri: uri}.send(t, url), "call_interrupted")
		}
		interruptedAnswer(t, v, rt{era: v, method: "prompts/get", name: "greeting"}.send(t, url), "call_interrupted")
	}
	if out := log.String(); strings.Contains(out, "level=ERROR") {
		t.Errorf("an interrupted read logged as a failure:\n%s", out)
	}
}
