package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/content"
	"github.com/mcpdual/mcpdual/mrtr"
)

// sharedBus is an AnswerBus two handlers share, as replicas share Redis:
// a map of waiting ids, each taking one answer.
type sharedBus struct {
	mu        sync.Mutex
	subs      map[string]chan []byte
	published atomic.Int64
}

func (b *sharedBus) Subscribe(_ context.Context, id string) (<-chan []byte, func(), error) {
	ch := make(chan []byte, 1)
	b.mu.Lock()
	b.subs[id] = ch
	b.mu.Unlock()
	return ch, func() { b.mu.Lock(); delete(b.subs, id); b.mu.Unlock() }, nil
}

func (b *sharedBus) Publish(_ context.Context, id string, answer []byte) (bool, error) {
	b.published.Add(1)
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case b.subs[id] <- answer:
		// Delivered once: a second answer is refused even after the
		// waiter has read the first (as AnswerBus asks), not only while
		// the first still fills the channel.
		delete(b.subs, id)
		return true, nil
	default:
		return false, nil // nobody waits (a nil channel), or answered
	}
}

// legacyFixture is two replicas sharing a key ring and an answer bus,
// with a destructive tool, a tool that asks for a form and one that asks
// the client's model.
type legacyFixture struct {
	a, b, plain string
	ha          *mcp.Handler // a's, for Close
	executed    atomic.Int64
	idemKeys    chan string
	answers     chan string
	kept        chan *mcp.Call // the keep tool's first round's Call
}

// clientLeft is what a handler logs once a 2025 call whose client left
// while asked has ended: its wait slot and its answer's subscription are
// given back by then.
const clientLeft = "a 2025 client left while asked for input"

// loggedTimes waits, a bounded number of times, until log holds line n
// times: what the server did once it noticed something, where a pause
// would guess how long noticing takes.
func loggedTimes(t *testing.T, log *syncBuffer, line string, n int) {
	t.Helper()
	for range 1000 {
		if strings.Count(log.String(), line) >= n {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%q logged %d times in 10 s, want %d:\n%s", line, strings.Count(log.String(), line), n, log.String())
}

func newLegacyFixture(t *testing.T, cfg mcp.LegacyInput, extra ...mcp.HandlerOption) *legacyFixture {
	t.Helper()
	f := &legacyFixture{idemKeys: make(chan string, 16), answers: make(chan string, 16), kept: make(chan *mcp.Call, 1)}
	ring := sessionRing(t, 7)
	if cfg.Bus == nil {
		cfg.Bus = &sharedBus{subs: map[string]chan []byte{}}
	}
	build := func(legacy bool) (string, *mcp.Handler) {
		srv := mcp.NewServer(mcp.Implementation{Name: "legacy", Version: "1"})
		mcp.AddToolFunc(srv, mcp.Tool{Name: "purge", Description: "Deletes everything.", Annotations: mcp.Annotations{Destructive: true}},
			func(ctx context.Context, in struct{}) (map[string]any, error) {
				f.executed.Add(1)
				f.idemKeys <- mcp.CallFromContext(ctx).IdempotencyKey()
				return map[string]any{"purged": true}, nil
			})
		mcp.AddToolFunc(srv, mcp.Tool{Name: "ask", Description: "Asks for a name."},
			func(ctx context.Context, in struct{}) (map[string]any, error) {
				c := mcp.CallFromContext(ctx)
				if e, ok := c.Elicitation("name"); ok {
					f.answers <- string(e.Action) + " " + string(e.Content) + " state=" + string(c.State())
					return map[string]any{"action": e.Action}, nil
				}
				c.RequireInput([]byte("s1"), mcp.ElicitForm("name", "Your name?", json.RawMessage(`{"type":"object","properties":{"n":{"type":"string"}}}`)))
				return nil, nil
			})
		// keep asks once, keeping its first round's Call (as a handler
		// may, beyond the request), and on the answer tells what that
		// Call says of the round it was handed for.
		mcp.AddToolFunc(srv, mcp.Tool{Name: "keep", Description: "Keeps its Call."},
			func(ctx context.Context, in struct{}) (map[string]any, error) {
				c := mcp.CallFromContext(ctx)
				if _, ok := c.Elicitation("name"); !ok {
					f.kept <- c
					c.RequireInput([]byte("k1"), mcp.ElicitForm("name", "Your name?", json.RawMessage(`{"type":"object","properties":{"n":{"type":"string"}}}`)))
					return nil, nil
				}
				first := <-f.kept
				_, answered := first.Elicitation("name")
				f.answers <- fmt.Sprintf("first round's Call answered=%v state=%q", answered, first.State())
				return map[string]any{"ok": true}, nil
			})
		mcp.AddToolFunc(srv, mcp.Tool{Name: "summarize", Description: "Asks the client's model."},
			func(ctx context.Context, in struct{}) (map[string]any, error) {
				c := mcp.CallFromContext(ctx)
				if v, ok := c.InputResponse("llm"); ok {
					f.answers <- string(v)
					return map[string]any{"ok": true}, nil
				}
				c.RequireInput(nil, mcp.Sample("llm", mcp.SamplingRequest{MaxTokens: 10,
					Messages: []mcp.SamplingMessage{{Role: content.User, Content: content.Text("hi")}}}))
				return nil, nil
			})
		a := auth.New(auth.Config{Resource: resourceURI, Verifier: auth.VerifierFunc(testVerifier)})
		opts := append([]mcp.HandlerOption{mcp.WithAuth(a)}, extra...)
		if legacy {
			opts = append(opts, mcp.WithLegacyInput(cfg))
		}
		h := mcp.NewHandler(srv, []mcp.Era{era2026.New(era2026.WithSealer(mrtr.NewSealer(ring))),
			era2025.New(era2025.WithSessions(mrtr.NewSealer(ring), 0))}, opts...)
		return newTestServer(t, h), h
	}
	f.a, f.ha = build(true)
	f.b, _ = build(true)
	f.plain, _ = build(false)
	return f
}

// stream is a tools/call whose answer is being read as it comes.
type stream struct {
	resp   *http.Response
	events chan map[string]any
	cancel context.CancelFunc
}

// openCall starts a tools/call of tool, without arguments, at url with
// session and reads its events.
func openCall(t *testing.T, url, token, session string, v mcp.Version, tool string) *stream {
	t.Helper()
	return openCallArgs(t, url, token, session, v, tool, `{}`)
}

// openCallArgs is openCall with arguments, a raw JSON object.
func openCallArgs(t *testing.T, url, token, session string, v mcp.Version, tool, args string) *stream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	body := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("MCP-Protocol-Version", string(v))
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") && resp.Header.Get("X-Accel-Buffering") != "no" {
		// A buffering proxy would hold the question until the call ends.
		t.Errorf("the call's stream does not ask proxies not to buffer it: %v", resp.Header)
	}
	s := &stream{resp: resp, events: make(chan map[string]any, 8), cancel: cancel}
	go func() {
		defer close(s.events)
		defer resp.Body.Close()
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			var m map[string]any
			_ = json.NewDecoder(resp.Body).Decode(&m)
			s.events <- m
			return
		}
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var m map[string]any
				_ = json.Unmarshal([]byte(data), &m)
				s.events <- m
			}
		}
	}()
	t.Cleanup(cancel)
	return s
}

func (s *stream) next(t *testing.T) map[string]any {
	t.Helper()
	select {
	case m, ok := <-s.events:
		if !ok {
			t.Fatal("stream ended")
		}
		return m
	case <-time.After(5 * time.Second):
		t.Fatal("no event")
	}
	return nil
}

// answer posts a JSON-RPC response to a question.
func answer(t *testing.T, url, token string, id any, result string) int {
	t.Helper()
	idj, _ := json.Marshal(id)
	return post(t, url, http.MethodPost, token, nil, `{"jsonrpc":"2.0","id":`+string(idj)+`,"result":`+result+`}`).status
}

func sessionFor(t *testing.T, url, token string, v mcp.Version, caps string) string {
	t.Helper()
	id := initialize(t, url, token, v, caps).header.Get("Mcp-Session-Id")
	if id == "" {
		t.Fatal("no session id")
	}
	return id
}

func resultText(t *testing.T, m map[string]any) (string, bool) {
	t.Helper()
	res, ok := m["result"].(map[string]any)
	if !ok {
		t.Fatalf("not a result: %v", m)
	}
	content := res["content"].([]any)
	isErr, _ := res["isError"].(bool)
	return content[0].(map[string]any)["text"].(string), isErr
}

const acceptConfirm = `{"action":"accept","content":{"confirm":true}}`

// TestLegacyInput_ConfirmAcrossReplicas: a 2025 client that declared
// elicitation confirms a destructive call over the stream; its answer
// reaches the other replica and the call runs once, with an
// Idempotency-Key. A refused answer (another caller's, a forged id) and a
// second or late one change nothing.
func TestLegacyInput_ConfirmAcrossReplicas(t *testing.T) {
	t.Parallel()
	for _, v := range []mcp.Version{mcp.Version20251125, mcp.Version20250618} {
		t.Run(string(v), func(t *testing.T) {
			f := newLegacyFixture(t, mcp.LegacyInput{})
			session := sessionFor(t, f.a, tokAlice, v, `{"elicitation":{}}`)
			s := openCall(t, f.a, tokAlice, session, v, "purge")
			q := s.next(t)
			if q["method"] != "elicitation/create" || q["id"] == nil {
				t.Fatalf("question = %v", q)
			}
			params := q["params"].(map[string]any)
			if _, hasMode := params["mode"]; hasMode != (v == mcp.Version20251125) {
				t.Errorf("mode present = %v in %s", hasMode, v)
			}
			id := q["id"].(string)
			if got := answer(t, f.b, tokBob, id, acceptConfirm); got != 400 {
				t.Errorf("another caller's answer: %d, want 400", got)
			}
			if got := answer(t, f.b, tokAlice, id+"x", acceptConfirm); got != 400 {
				t.Errorf("forged id: %d, want 400", got)
			}
			if got := answer(t, f.b, tokAlice, "mcpdual-q-AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAA", acceptConfirm); got != 400 {
				t.Errorf("made-up id: %d, want 400", got)
			}
			if f.executed.Load() != 0 {
				t.Fatal("ran before the answer")
			}
			if got := answer(t, f.b, tokAlice, id, acceptConfirm); got != 202 {
				t.Fatalf("answer on the other replica: %d, want 202", got)
			}
			text, isErr := resultText(t, s.next(t))
			if isErr || !strings.Contains(text, "purged") {
				t.Errorf("result %q isError=%v", text, isErr)
			}
			if key := <-f.idemKeys; len(key) < 16 {
				t.Errorf("Idempotency-Key %q", key)
			}
			if got := answer(t, f.b, tokAlice, id, acceptConfirm); got != 400 {
				t.Errorf("late answer: %d, want 400", got)
			}
			if f.executed.Load() != 1 {
				t.Errorf("executed %d times, want 1", f.executed.Load())
			}
		})
	}
}

// TestLegacyInput_Outcomes: declined, unanswered and disconnected calls
// run nothing; the other answers (a JSON-RPC error, a duplicate) are what
// a retry's would be.
func TestLegacyInput_Outcomes(t *testing.T) {
	t.Parallel()
	f := newLegacyFixture(t, mcp.LegacyInput{Wait: 300 * time.Millisecond})
	v := mcp.Version20250618
	session := sessionFor(t, f.a, tokAlice, v, `{"elicitation":{}}`)
	// The answered cases wait long: on a loaded machine an answer may take
	// longer than 300 ms to arrive, and the call would end unanswered.
	answeredLog := &syncBuffer{}
	answered := newLegacyFixture(t, mcp.LegacyInput{Wait: 10 * time.Second}, mcp.WithLogger(slog.New(slog.NewTextHandler(answeredLog, nil))))
	answeredSession := sessionFor(t, answered.a, tokAlice, v, `{"elicitation":{}}`)

	t.Run("declined", func(t *testing.T) {
		s := openCall(t, answered.a, tokAlice, answeredSession, v, "purge")
		id := s.next(t)["id"]
		if got := answer(t, answered.a, tokAlice, id, `{"action":"decline"}`); got != 202 {
			t.Fatalf("answer: %d", got)
		}
		if got := answer(t, answered.a, tokAlice, id, acceptConfirm); got != 400 {
			t.Errorf("second answer: %d, want 400", got)
		}
		if text, isErr := resultText(t, s.next(t)); !isErr || !strings.Contains(text, "confirmation_declined") {
			t.Errorf("%q %v", text, isErr)
		}
	})
	t.Run("error answer", func(t *testing.T) {
		s := openCall(t, answered.a, tokAlice, answeredSession, v, "purge")
		id, _ := json.Marshal(s.next(t)["id"])
		r := post(t, answered.a, http.MethodPost, tokAlice, nil, `{"jsonrpc":"2.0","id":`+string(id)+`,"error":{"code":-1,"message":"no"}}`)
		if r.status != 202 {
			t.Fatalf("answer: %d %s", r.status, r.body)
		}
		if text, isErr := resultText(t, s.next(t)); !isErr || !strings.Contains(text, "confirmation_declined") {
			t.Errorf("%q %v", text, isErr)
		}
	})
	t.Run("no answer", func(t *testing.T) {
		s := openCall(t, f.a, tokAlice, session, v, "purge")
		id := s.next(t)["id"]
		if text, isErr := resultText(t, s.next(t)); !isErr || !strings.Contains(text, "confirmation_declined") || !strings.Contains(text, "no answer") {
			t.Errorf("%q %v", text, isErr)
		}
		if got := answer(t, f.a, tokAlice, id, acceptConfirm); got != 400 {
			t.Errorf("late answer: %d, want 400", got)
		}
	})
	t.Run("disconnect", func(t *testing.T) {
		// On the long wait, so that only the client's leaving ends the
		// call; the answer is sent once the server has seen it leave (a
		// pause of 50 ms let a loaded machine take the answer first).
		s := openCall(t, answered.a, tokAlice, answeredSession, v, "purge")
		id := s.next(t)["id"]
		s.cancel()
		loggedTimes(t, answeredLog, clientLeft, 1)
		if got := answer(t, answered.a, tokAlice, id, acceptConfirm); got != 400 {
			t.Errorf("answer after the client left: %d, want 400", got)
		}
	})
	t.Run("too large", func(t *testing.T) {
		big := `{"action":"accept","content":{"confirm":true,"pad":"` + strings.Repeat("x", 70<<10) + `"}}`
		if got := answer(t, f.a, tokAlice, "mcpdual-q-x", big); got != 413 {
			t.Errorf("large answer: %d, want 413", got)
		}
	})
	time.Sleep(50 * time.Millisecond)
	if n := f.executed.Load() + answered.executed.Load(); n != 0 {
		t.Errorf("executed %d times, want 0", n)
	}
}

// TestLegacyInput_AsksAndSamples: RequireInput's form and sampling reach
// a 2025 client as elicitation/create and sampling/createMessage, and the
// handler reads the answers (and its state) as on a retry.
func TestLegacyInput_AsksAndSamples(t *testing.T) {
	t.Parallel()
	f := newLegacyFixture(t, mcp.LegacyInput{})
	v := mcp.Version20251125
	session := sessionFor(t, f.a, tokAlice, v, `{"elicitation":{"form":{}},"sampling":{}}`)
	s := openCall(t, f.a, tokAlice, session, v, "ask")
	q := s.next(t)
	if q["method"] != "elicitation/create" || q["params"].(map[string]any)["message"] != "Your name?" {
		t.Fatalf("question %v", q)
	}
	if got := answer(t, f.b, tokAlice, q["id"], `{"action":"accept","content":{"n":"Ann"}}`); got != 202 {
		t.Fatal(got)
	}
	if _, isErr := resultText(t, s.next(t)); isErr {
		t.Error("isError")
	}
	if got := <-f.answers; got != `accept {"n":"Ann"} state=s1` {
		t.Errorf("handler saw %q", got)
	}

	s = openCall(t, f.b, tokAlice, session, v, "summarize")
	q = s.next(t)
	if q["method"] != "sampling/createMessage" {
		t.Fatalf("question %v", q)
	}
	const llm = `{"role":"assistant","content":{"type":"text","text":"done"},"model":"m"}`
	if got := answer(t, f.a, tokAlice, q["id"], llm); got != 202 {
		t.Fatal(got)
	}
	if _, isErr := resultText(t, s.next(t)); isErr {
		t.Error("isError")
	}
	if got := <-f.answers; got != llm {
		t.Errorf("handler saw %q", got)
	}
}

// TestLegacyInput_Unchanged: without the option, without a session,
// without the capability, and on 2026-07-28, a call gets what it got
// before, as one JSON object with no question in it.
func TestLegacyInput_Unchanged(t *testing.T) {
	t.Parallel()
	f := newLegacyFixture(t, mcp.LegacyInput{})
	v := mcp.Version20250618
	// The refusal says what is true for the client at hand: declaring
	// elicitation helps only where this server asks 2025 clients.
	const declare, modern = "declare it on initialize", "on MCP 2026-07-28."
	for _, c := range []struct {
		name, url, session, tool, want, not string
	}{
		{"without the option", f.plain, sessionFor(t, f.plain, tokAlice, v, `{"elicitation":{}}`), "purge", "confirmation_required", declare},
		{"without the option, its advice", f.plain, sessionFor(t, f.plain, tokAlice, v, `{"elicitation":{}}`), "purge", modern, ""},
		{"without a session", f.a, "", "purge", declare, modern},
		{"without elicitation", f.a, sessionFor(t, f.a, tokAlice, v, `{"sampling":{}}`), "purge", declare, modern},
		{"asks what was not declared", f.a, sessionFor(t, f.a, tokAlice, v, `{"sampling":{}}`), "ask", "did not declare", ""},
		{"nothing declared", f.a, sessionFor(t, f.a, tokAlice, v, `{}`), "ask", "2026-07-28", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := openCall(t, c.url, tokAlice, c.session, v, c.tool)
			if ct := s.resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			text, isErr := resultText(t, s.next(t))
			if !isErr || !strings.Contains(text, c.want) || (c.not != "" && strings.Contains(text, c.not)) {
				t.Errorf("%q %v, want %q (and not %q)", text, isErr, c.want, c.not)
			}
		})
	}
	// 2026-07-28: input_required in the JSON answer, never a question on
	// a stream.
	r := post(t, f.a, http.MethodPost, tokAlice, map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "purge"},
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"purge","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}`)
	if r.status != 200 || !strings.Contains(string(r.body), `"input_required"`) || strings.Contains(r.header.Get("Content-Type"), "event-stream") {
		t.Errorf("2026-07-28: %d %s %s", r.status, r.header.Get("Content-Type"), r.body)
	}
	if f.executed.Load() != 0 {
		t.Error("executed")
	}
}

// TestLegacyInput_Bounds: one caller cannot hold every wait, and past its
// own bound a call is not asked and runs nothing.
func TestLegacyInput_Bounds(t *testing.T) {
	t.Parallel()
	log := &syncBuffer{}
	f := newLegacyFixture(t, mcp.LegacyInput{PerCaller: 2, Total: 3}, mcp.WithLogger(slog.New(slog.NewTextHandler(log, nil))))
	v := mcp.Version20250618
	alice := sessionFor(t, f.a, tokAlice, v, `{"elicitation":{}}`)
	bob := sessionFor(t, f.a, tokBob, v, `{"elicitation":{}}`)
	var waiting []*stream
	for i := 0; i < 2; i++ {
		s := openCall(t, f.a, tokAlice, alice, v, "purge")
		if q := s.next(t); q["method"] != "elicitation/create" {
			t.Fatalf("call %d: %v", i, q)
		}
		waiting = append(waiting, s)
	}
	// Alice's third waits for nothing: it ends at once, not run.
	text, isErr := resultText(t, openCall(t, f.a, tokAlice, alice, v, "purge").next(t))
	if !isErr || !strings.Contains(text, "too many") {
		t.Errorf("over the caller's bound: %q %v", text, isErr)
	}
	// Bob is still asked; then the total is reached.
	s := openCall(t, f.a, tokBob, bob, v, "purge")
	if q := s.next(t); q["method"] != "elicitation/create" {
		t.Fatalf("bob: %v", q)
	}
	text, _ = resultText(t, openCall(t, f.a, tokBob, bob, v, "purge").next(t))
	if !strings.Contains(text, "too many") {
		t.Errorf("over the total: %q", text)
	}
	// Answered, the slots free up.
	for _, w := range waiting {
		w.cancel()
	}
	s.cancel()
	// The three calls' clients left: once the server has seen each go,
	// its wait slots are free (a pause of 100 ms let a loaded machine
	// find them still held).
	loggedTimes(t, log, clientLeft, 3)
	s = openCall(t, f.a, tokAlice, alice, v, "purge")
	q := s.next(t)
	if q["method"] != "elicitation/create" {
		t.Fatalf("after release: %v", q)
	}
	if got := answer(t, f.a, tokAlice, q["id"], acceptConfirm); got != 202 {
		t.Fatal(got)
	}
	if _, isErr := resultText(t, s.next(t)); isErr {
		t.Error("isError")
	}
	if f.executed.Load() != 1 {
		t.Errorf("executed %d", f.executed.Load())
	}
}

// TestLegacyInput_HundredCallers: 100 calls of one principal at once hold
// at most its share of the waits; the rest end at once, not run, and
// another principal is still asked.
func TestLegacyInput_HundredCallers(t *testing.T) {
	t.Parallel()
	f := newLegacyFixture(t, mcp.LegacyInput{PerCaller: 4, Total: 10})
	v := mcp.Version20250618
	alice := sessionFor(t, f.a, tokAlice, v, `{"elicitation":{}}`)
	var asked, refused atomic.Int64
	var wg sync.WaitGroup
	var streams sync.Map
	for i := 0; i < 100; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := openCall(t, f.a, tokAlice, alice, v, "purge")
			m := s.next(t)
			if m["method"] == "elicitation/create" {
				asked.Add(1)
				streams.Store(i, s)
				return
			}
			if text, isErr := resultText(t, m); isErr && strings.Contains(text, "too many") {
				refused.Add(1)
			}
		}()
	}
	wg.Wait()
	if asked.Load() != 4 || refused.Load() != 96 {
		t.Errorf("asked %d, refused %d; want 4 and 96", asked.Load(), refused.Load())
	}
	bob := sessionFor(t, f.a, tokBob, v, `{"elicitation":{}}`)
	if q := openCall(t, f.a, tokBob, bob, v, "purge").next(t); q["method"] != "elicitation/create" {
		t.Errorf("another principal was not asked: %v", q)
	}
	streams.Range(func(_, s any) bool { s.(*stream).cancel(); return true })
	if f.executed.Load() != 0 {
		t.Errorf("executed %d", f.executed.Load())
	}
}
