package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mrtr"
)

// faultGuard is a replay guard over a store that fails: the method named
// in fault answers an error, or panics, every time it is called, until
// fault is cleared. It stands for a host's own guard (WithReplayGuard)
// whose store client breaks, or has a bug on its error path.
type faultGuard struct {
	mcp.ReplayGuard
	fault   atomic.Pointer[guardFault]
	renewed chan struct{} // a renewal was attempted
}

type guardFault struct{ method, how string }

// guardSecret is in what a panicking guard panics with: it must never
// reach a log (design record 011: a panic's value is never logged).
const guardSecret = "S3CRET-row-of-the-store"

func (g *faultGuard) hit(method string) error {
	f := g.fault.Load()
	if f == nil || f.method != method {
		return nil
	}
	if f.how == "panic" {
		panic("store: pool closed while reading " + guardSecret)
	}
	return errors.New("store: i/o timeout")
}

func (g *faultGuard) set(method, how string) { g.fault.Store(&guardFault{method, how}) }
func (g *faultGuard) clear()                 { g.fault.Store(nil) }

func (g *faultGuard) Claim(ctx context.Context, caller string, nonce []byte, until time.Time, lease time.Duration) (string, []byte, error) {
	if err := g.hit("Claim"); err != nil {
		return "", nil, err
	}
	return g.ReplayGuard.Claim(ctx, caller, nonce, until, lease)
}

func (g *faultGuard) Renew(ctx context.Context, nonce []byte, token string, lease time.Duration) (bool, error) {
	select {
	case g.renewed <- struct{}{}:
	default:
	}
	if err := g.hit("Renew"); err != nil {
		return false, err
	}
	return g.ReplayGuard.Renew(ctx, nonce, token, lease)
}

func (g *faultGuard) Complete(ctx context.Context, nonce []byte, token string, outcome []byte, until time.Time, call string) error {
	if err := g.hit("Complete"); err != nil {
		return err
	}
	return g.ReplayGuard.Complete(ctx, nonce, token, outcome, until, call)
}

func (g *faultGuard) LastRun(ctx context.Context, call string) ([]byte, error) {
	if err := g.hit("LastRun"); err != nil {
		return nil, err
	}
	return g.ReplayGuard.LastRun(ctx, call)
}

// guardFaultServer is an endpoint whose destructive route runs until its
// confirmation's lease was renewed at least once (so that a renewal
// happens while it runs), over a faultGuard, in every revision: 2025
// clients are asked over their call's stream (WithLegacyInput).
type guardFaultServer struct {
	url   string
	guard *faultGuard
	runs  atomic.Int64
	log   *syncBuffer
}

func newGuardFaultServer(t *testing.T, extra ...mcp.HandlerOption) *guardFaultServer {
	t.Helper()
	s := &guardFaultServer{guard: &faultGuard{ReplayGuard: mcp.NewMemoryGuardForTest(100), renewed: make(chan struct{}, 1)}, log: &syncBuffer{}}
	mux := http.NewServeMux()
	mux.HandleFunc("DELETE /items/{id}", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-s.guard.renewed:
		case <-time.After(10 * time.Second): // the test fails on the renewal it did not see
		}
		s.runs.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"deleted":"` + r.PathValue("id") + `"}`))
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "guardfaults", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "delete_item", InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`),
		Annotations: mcp.Annotations{Destructive: true}}, "DELETE /items/{id}", mux)
	ring := sessionRing(t, 9)
	a := auth.New(auth.Config{Resource: resourceURI, Verifier: auth.VerifierFunc(testVerifier)})
	opts := []mcp.HandlerOption{mcp.WithAuth(a), mcp.WithReplayGuard(s.guard), mcp.WithLegacyInput(mcp.LegacyInput{Wait: 10 * time.Second}),
		mcp.WithLeaseForTest(30 * time.Millisecond), mcp.WithLogger(slog.New(slog.NewTextHandler(s.log, nil)))}
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New(era2026.WithSealer(mrtr.NewSealer(ring))), era2025.New(era2025.WithSessions(mrtr.NewSealer(ring), 0))},
		append(opts, extra...)...)
	s.url = newTestServer(t, h)
	return s
}

// call sends a 2026-07-28 tools/call of delete_item as alice.
func (s *guardFaultServer) call(t *testing.T, id int, state string) *reply {
	t.Helper()
	c := rt{id: id, name: "delete_item", args: `{"id":"a"}`, caps: formCaps, header: map[string]string{"Authorization": "Bearer " + tokAlice}}
	if state != "" {
		c.state, c.responses = quoteJSON(state), `{"confirm":`+accept+`}`
	}
	return c.send(t, s.url)
}

// unavailableAnswer checks r is the guard's "cannot decide": 503, -31503,
// Retry-After, reason replay_guard_unavailable, and no result.
func unavailableAnswer(t *testing.T, r *reply) {
	t.Helper()
	if r.status != http.StatusServiceUnavailable || r.code() != -31503 || r.header.Get("Retry-After") != "1" ||
		errorReason(r) != "replay_guard_unavailable" || len(r.msg.Result) != 0 {
		t.Fatalf("want 503 -31503 replay_guard_unavailable with Retry-After, got %d %v %s", r.status, r.header, r.raw)
	}
}

// ranAnswer checks r is the route's own answer: it ran, and says so.
func ranAnswer(t *testing.T, r *reply) {
	t.Helper()
	res := asResult(t, r)
	if res.IsError || len(res.Content) != 1 || !strings.Contains(res.Content[0].Text, `"deleted":"a"`) {
		t.Fatalf("want the route's answer, got %s", r.raw)
	}
}

// TestConfirm_GuardFaults (design record 019, the two-phase guard): a
// replay guard whose store fails — an error, or a panic, which is the
// same failure written another way — at each step of a confirmed call of
// MCP 2026-07-28 over HTTP. Claim and LastRun failing answer the precise
// retryable 503 and run nothing; Renew and Complete failing leave the
// call's own answer (the route ran, and the client is told so, never an
// internal error) and the process running; the panic's value is never
// logged.
func TestConfirm_GuardFaults(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"error", "panic"} {
		t.Run("Claim "+how, func(t *testing.T) {
			t.Parallel()
			s := newGuardFaultServer(t)
			state := asInterim(t, s.call(t, 1, "")).RequestState
			s.guard.set("Claim", how)
			unavailableAnswer(t, s.call(t, 2, state))
			if n := s.runs.Load(); n != 0 {
				t.Fatalf("the route ran %d times while the guard could not decide", n)
			}
			s.guard.clear()
			ranAnswer(t, s.call(t, 3, state))
			if n := s.runs.Load(); n != 1 {
				t.Errorf("the route ran %d times, want 1", n)
			}
			checkGuardLog(t, s, "mcp: replay guard failed")
		})
		t.Run("LastRun "+how, func(t *testing.T) {
			t.Parallel()
			s := newGuardFaultServer(t)
			s.guard.set("LastRun", how)
			unavailableAnswer(t, s.call(t, 1, ""))
			s.guard.clear()
			asInterim(t, s.call(t, 2, ""))
			checkGuardLog(t, s, "mcp: replay guard failed")
		})
		t.Run("Renew "+how, func(t *testing.T) {
			t.Parallel()
			s := newGuardFaultServer(t)
			state := asInterim(t, s.call(t, 1, "")).RequestState
			s.guard.set("Renew", how)
			ranAnswer(t, s.call(t, 2, state))
			s.guard.clear()
			// The outcome was recorded: a retry is told it ran.
			res := asResult(t, s.call(t, 3, state))
			if sc := res.StructuredContent; !res.IsError || sc["outcome"] != "confirmation_already_used" || sc["executed"] != true || sc["status"] != float64(200) {
				t.Errorf("a retry: %+v", res)
			}
			if n := s.runs.Load(); n != 1 {
				t.Errorf("the route ran %d times, want 1", n)
			}
			checkGuardLog(t, s, "renewing a confirmation's lease failed")
		})
		t.Run("Complete "+how, func(t *testing.T) {
			t.Parallel()
			s := newGuardFaultServer(t)
			state := asInterim(t, s.call(t, 1, "")).RequestState
			s.guard.set("Complete", how)
			ranAnswer(t, s.call(t, 2, state))
			if n := s.runs.Load(); n != 1 {
				t.Errorf("the route ran %d times, want 1", n)
			}
			checkGuardLog(t, s, "recording a confirmation's outcome failed")
		})
	}
}

// checkGuardLog checks the endpoint logged the guard's failure as such,
// and never a panic's value.
func checkGuardLog(t *testing.T, s *guardFaultServer, want string) {
	t.Helper()
	log := s.log.String()
	if !strings.Contains(log, want) {
		t.Errorf("the log does not say %q:\n%s", want, log)
	}
	if strings.Contains(log, guardSecret) {
		t.Errorf("the log quotes a panic's value:\n%s", log)
	}
}

// TestLegacyInput_GuardFaults: the same faults for 2025 clients asked
// over their call's stream: the confirmed call's answer on the stream is
// the route's when Renew or Complete fail (error or panic), and the
// guard's precise 503 when Claim or LastRun do, with nothing run.
func TestLegacyInput_GuardFaults(t *testing.T) {
	t.Parallel()
	for _, v := range []mcp.Version{mcp.Version20251125, mcp.Version20250618, mcp.Version20250326} {
		for _, how := range []string{"error", "panic"} {
			for _, method := range []string{"Claim", "LastRun", "Renew", "Complete"} {
				t.Run(string(v)+" "+method+" "+how, func(t *testing.T) {
					t.Parallel()
					s := newGuardFaultServer(t)
					session := sessionFor(t, s.url, tokAlice, v, `{"elicitation":{}}`)
					if method == "LastRun" {
						s.guard.set(method, how)
					}
					st := openCallArgs(t, s.url, tokAlice, session, v, "delete_item", `{"id":"a"}`)
					first := st.next(t)
					if method == "LastRun" {
						legacyUnavailable(t, st.resp.StatusCode, http.StatusServiceUnavailable, first)
						return
					}
					if first["method"] != "elicitation/create" {
						t.Fatalf("question = %v", first)
					}
					s.guard.set(method, how)
					if got := answer(t, s.url, tokAlice, first["id"], acceptConfirm); got != 202 {
						t.Fatalf("answer: %d", got)
					}
					last := st.next(t)
					if method == "Claim" {
						legacyUnavailable(t, st.resp.StatusCode, http.StatusOK, last)
						if n := s.runs.Load(); n != 0 {
							t.Errorf("the route ran %d times", n)
						}
						return
					}
					if text, isErr := resultText(t, last); isErr || !strings.Contains(text, `"deleted":"a"`) {
						t.Errorf("the confirmed call's answer: %q isError=%v", text, isErr)
					}
					if n := s.runs.Load(); n != 1 {
						t.Errorf("the route ran %d times, want 1", n)
					}
					if strings.Contains(s.log.String(), guardSecret) {
						t.Errorf("the log quotes a panic's value:\n%s", s.log)
					}
				})
			}
		}
	}
}

// legacyUnavailable checks a 2025 answer (a JSON body, 503, or the last
// event of a stream, whose HTTP status is the stream's 200) is the guard's
// error with its reason.
func legacyUnavailable(t *testing.T, status, wantStatus int, m map[string]any) {
	t.Helper()
	if status != wantStatus {
		t.Errorf("HTTP status %d, want %d", status, wantStatus)
	}
	e, _ := m["error"].(map[string]any)
	data, _ := e["data"].(map[string]any)
	if e == nil || e["code"] != float64(-31503) || data["reason"] != "replay_guard_unavailable" || m["result"] != nil {
		t.Fatalf("want the guard's -31503, got %d %v", status, m)
	}
}

// faultBus is an AnswerBus whose Subscribe fails while failing is set,
// with an error or (panics) a panic: the store carrying answers between
// replicas is down.
type faultBus struct {
	*sharedBus
	failing atomic.Bool
	panics  bool
}

func (b *faultBus) Subscribe(ctx context.Context, id string) (<-chan []byte, func(), error) {
	if b.failing.Load() {
		if b.panics {
			panic("bus: pool closed")
		}
		return nil, nil, errors.New("bus: connection refused")
	}
	return b.sharedBus.Subscribe(ctx, id)
}

// TestLegacyInput_BusDown: when the answer bus cannot subscribe to a
// question's id (an error, or a panic), a 2025 call is not asked and does
// not run, and its client, who is still there, is told so precisely — the
// retryable 503 answer_bus_unavailable, not "the client disconnected" nor
// an internal error — for a confirmation and for a tool's own question;
// once the bus is back the same call is asked.
func TestLegacyInput_BusDown(t *testing.T) {
	t.Parallel()
	for _, c := range legacyFaults() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			v := c.v
			bus := &faultBus{sharedBus: &sharedBus{subs: map[string]chan []byte{}}, panics: c.panics}
			bus.failing.Store(true)
			f := newLegacyFixture(t, mcp.LegacyInput{Bus: bus})
			session := sessionFor(t, f.a, tokAlice, v, `{"elicitation":{}}`)
			for _, tool := range []string{"purge", "ask"} {
				hdr := map[string]string{"MCP-Protocol-Version": string(v), "Mcp-Session-Id": session}
				r := post(t, f.a, http.MethodPost, tokAlice, hdr, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"`+tool+`","arguments":{}}}`)
				var m struct {
					Result json.RawMessage
					Error  struct {
						Code int
						Data struct {
							Reason       string
							RetryAfterMs int
						}
					}
				}
				json.Unmarshal(r.body, &m)
				if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") != "1" || m.Error.Code != -31503 ||
					m.Error.Data.Reason != "answer_bus_unavailable" || m.Error.Data.RetryAfterMs != 1000 || m.Result != nil {
					t.Errorf("%s with the bus down: %d %v %s", tool, r.status, r.header, r.body)
				}
			}
			if n := f.executed.Load(); n != 0 {
				t.Errorf("ran %d times with the bus down", n)
			}
			bus.failing.Store(false)
			s := openCall(t, f.a, tokAlice, session, v, "purge")
			if q := s.next(t); q["method"] != "elicitation/create" {
				t.Errorf("with the bus back: %v", q)
			}
		})
	}
}

// lostReplyBus is an AnswerBus whose Publish delivers the answer and then
// fails (with an error, or panics), once: the store ran the publication,
// its reply was lost.
type lostReplyBus struct {
	*sharedBus
	lost   atomic.Bool
	panics bool
}

func (b *lostReplyBus) Publish(ctx context.Context, id string, answer []byte) (bool, error) {
	delivered, err := b.sharedBus.Publish(ctx, id, answer)
	if err == nil && b.lost.CompareAndSwap(false, true) {
		if b.panics {
			panic("bus: reply lost")
		}
		return false, errors.New("bus: i/o timeout")
	}
	return delivered, err
}

// legacyFault is one 2025 revision with a store that fails with an error
// or with a panic.
type legacyFault struct {
	name   string
	v      mcp.Version
	panics bool
}

func legacyFaults() []legacyFault {
	var out []legacyFault
	for _, v := range []mcp.Version{mcp.Version20251125, mcp.Version20250618, mcp.Version20250326} {
		out = append(out, legacyFault{string(v) + " error", v, false}, legacyFault{string(v) + " panic", v, true})
	}
	return out
}

// TestLegacyInput_AnswerBusFailsAfterDelivery: the bus delivers a 2025
// client's confirmation and then fails to say so (an error, or a panic).
// The answer's POST may not claim the call ends unanswered — the call
// runs with it — but is the precise retryable 503 answer_bus_unavailable;
// sending the answer again is refused as already answered, and the call's
// own answer says it ran.
func TestLegacyInput_AnswerBusFailsAfterDelivery(t *testing.T) {
	t.Parallel()
	for _, c := range legacyFaults() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			v := c.v
			f := newLegacyFixture(t, mcp.LegacyInput{Bus: &lostReplyBus{sharedBus: &sharedBus{subs: map[string]chan []byte{}}, panics: c.panics}})
			session := sessionFor(t, f.a, tokAlice, v, `{"elicitation":{}}`)
			s := openCall(t, f.a, tokAlice, session, v, "purge")
			id, _ := json.Marshal(s.next(t)["id"])
			r := post(t, f.b, http.MethodPost, tokAlice, nil, `{"jsonrpc":"2.0","id":`+string(id)+`,"result":`+acceptConfirm+`}`)
			var m struct {
				Error struct {
					Code    int
					Message string
					Data    struct{ Reason string }
				}
			}
			json.Unmarshal(r.body, &m)
			if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") != "1" || m.Error.Code != -31503 ||
				m.Error.Data.Reason != "answer_bus_unavailable" || !strings.Contains(m.Error.Message, "may not have been delivered") {
				t.Errorf("the answer whose delivery went unconfirmed: %d %v %s", r.status, r.header, r.body)
			}
			if got := answer(t, f.b, tokAlice, json.RawMessage(id), acceptConfirm); got != 400 {
				t.Errorf("the answer sent again: %d, want 400 (already answered)", got)
			}
			if text, isErr := resultText(t, s.next(t)); isErr || !strings.Contains(text, "purged") {
				t.Errorf("the call: %q isError=%v", text, isErr)
			}
			if n := f.executed.Load(); n != 1 {
				t.Errorf("ran %d times, want 1", n)
			}
		})
	}
}

// panicAudit is a log handler that fails (panics) on the audit line of a
// confirmed call that ran: a host's handler shipping audit lines to a
// store that is down.
type panicAudit struct{ slog.Handler }

func (h panicAudit) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == "mcp: destructive tool" {
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == "outcome" && strings.HasPrefix(a.Value.String(), "executed") {
				panic("audit store down")
			}
			return true
		})
	}
	return h.Handler.Handle(ctx, r)
}

func (h panicAudit) WithAttrs(as []slog.Attr) slog.Handler {
	return panicAudit{h.Handler.WithAttrs(as)}
}
func (h panicAudit) WithGroup(g string) slog.Handler { return panicAudit{h.Handler.WithGroup(g)} }

// TestConfirm_OutcomeRecordedBeforeItsAudit: what a confirmed route did is
// recorded before anything else can fail; when writing its audit line
// fails after the route ran, a retry of the confirmation is told that it
// ran (status 200), never that it did not, and the route does not run
// again.
func TestConfirm_OutcomeRecordedBeforeItsAudit(t *testing.T) {
	t.Parallel()
	s := newMRTRServer(t, mrtrConfig{handler: []mcp.HandlerOption{mcp.WithLogger(slog.New(panicAudit{slog.NewTextHandler(io.Discard, nil)}))}})
	in := confirmRound1(t, s.url, "delete_item", "x")
	round2 := confirmRound2("", "delete_item", "x", in.RequestState, accept)
	if r := round2.send(t, s.url); r.code() != -32603 {
		t.Fatalf("the call whose audit line failed: %d %s", r.status, r.raw)
	}
	round2.id = 3
	res := asResult(t, round2.send(t, s.url))
	if sc := res.StructuredContent; !res.IsError || sc["outcome"] != "confirmation_already_used" || sc["executed"] != true || sc["status"] != float64(200) {
		t.Errorf("a retry: %+v", res)
	}
	if n := s.executed.Load(); n != 1 {
		t.Errorf("the route ran %d times, want 1", n)
	}
	// A 2025 client cannot retry a confirmation; its next one is asked
	// knowing the call ran.
	for _, v := range []mcp.Version{mcp.Version20251125, mcp.Version20250618, mcp.Version20250326} {
		g := newGuardFaultServer(t, mcp.WithLogger(slog.New(panicAudit{slog.NewTextHandler(io.Discard, nil)})))
		session := sessionFor(t, g.url, tokAlice, v, `{"elicitation":{}}`)
		st := openCallArgs(t, g.url, tokAlice, session, v, "delete_item", `{"id":"a"}`)
		if got := answer(t, g.url, tokAlice, st.next(t)["id"], acceptConfirm); got != 202 {
			t.Fatalf("%s: answer %d", v, got)
		}
		if e, _ := st.next(t)["error"].(map[string]any); e == nil || e["code"] != float64(-32603) {
			t.Fatalf("%s: the call whose audit line failed did not fail", v)
		}
		again := openCallArgs(t, g.url, tokAlice, session, v, "delete_item", `{"id":"a"}`)
		q, _ := again.next(t)["params"].(map[string]any)
		if msg, _ := q["message"].(string); !strings.Contains(msg, "already ran") || !strings.Contains(msg, "status 200") {
			t.Errorf("%s: the next confirmation does not say the call ran: %v", v, q)
		}
		if n := g.runs.Load(); n != 1 {
			t.Errorf("%s: the route ran %d times, want 1", v, n)
		}
	}
}
