package stdio_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/stdio"
)

// recordingBus is an AnswerBus in this process that reports every answer
// it delivers, so a test sees when an answer line reached its call.
type recordingBus struct {
	mu        sync.Mutex
	subs      map[string]chan []byte
	delivered chan string
}

func newRecordingBus() *recordingBus {
	return &recordingBus{subs: map[string]chan []byte{}, delivered: make(chan string, 16)}
}

func (b *recordingBus) Subscribe(_ context.Context, id string) (<-chan []byte, func(), error) {
	ch := make(chan []byte, 1)
	b.mu.Lock()
	b.subs[id] = ch
	b.mu.Unlock()
	return ch, func() { b.mu.Lock(); delete(b.subs, id); b.mu.Unlock() }, nil
}

func (b *recordingBus) Publish(_ context.Context, id string, answer []byte) (bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ch := b.subs[id]
	if ch == nil {
		return false, nil
	}
	delete(b.subs, id) // the first answer only
	ch <- answer
	b.delivered <- id
	return true, nil
}

// initialize2025 is a 2025 handshake declaring caps.
func initialize2025(s *session, v mcp.Version, caps string) {
	s.t.Helper()
	m := s.call(1, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+string(v)+`","capabilities":`+caps+`,"clientInfo":{"name":"t","version":"1"}}}`)
	if m.Error != nil {
		s.t.Fatalf("initialize: %s", m.raw)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// question reads the next line, which must be a server-to-client request
// for method, and returns its id as the line spells it.
func (s *session) question(method string) string {
	s.t.Helper()
	q := s.recv()
	if q.Method != method || len(q.ID) == 0 || q.Result != nil || q.Error != nil {
		s.t.Fatalf("a %s request expected, got %s", method, q.raw)
	}
	return string(q.ID)
}

func answerLine(id, result string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"result":` + result + `}`
}

const accepted = `{"action":"accept","content":{"confirm":true}}`

// TestLegacyInput: a 2025 stdio client that declared elicitation on
// initialize is asked to confirm a destructive tool with an
// elicitation/create line; its answer line decides, and the route runs at
// most once — with an Idempotency-Key — exactly as over HTTP.
func TestLegacyInput(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		answer string // the answer line's member after the id: "" sends none
		runs   int64
		text   string
	}{
		{"accept", `"result":` + accepted, 1, `{"deleted":"x1"}`},
		{"decline", `"result":{"action":"decline"}`, 0, "confirmation_declined"},
		{"cancel", `"result":{"action":"cancel"}`, 0, "confirmation_cancelled"},
		{"unconfirmed", `"result":{"action":"accept","content":{"confirm":false}}`, 0, "confirmation_declined"},
		{"error", `"error":{"code":-1,"message":"no"}`, 0, "confirmation_declined"},
		{"no answer", "", 0, "no answer came within"},
	}
	for _, v := range []mcp.Version{mcp.Version20250618, mcp.Version20250326} {
		for _, c := range cases {
			t.Run(string(v)+" "+c.name, func(t *testing.T) {
				t.Parallel()
				// Short only where it is what the case tests: an answer
				// sent on a loaded machine may take longer than 300 ms to
				// arrive, and would then be "no answer" too.
				legacyWait := wait
				if c.answer == "" {
					legacyWait = 300 * time.Millisecond
				}
				f := newFixture(t, mcp.WithLegacyInput(mcp.LegacyInput{Wait: legacyWait}))
				s := start(t, f.h, stdio.WithPrincipal(alice), stdio.WithWorkspace("ws_a"))
				initialize2025(s, v, `{"elicitation":{}}`)
				s.send(toolsCall(2, "delete_item", `{"id":"x1"}`, ""))
				id := s.question("elicitation/create")
				if f.deleted.Load() != 0 {
					t.Fatal("the route ran before the answer")
				}
				if c.answer != "" {
					s.send(`{"jsonrpc":"2.0","id":` + id + `,` + c.answer + `}`)
				}
				m := s.recv()
				if string(m.ID) != "2" {
					t.Fatalf("the call's answer expected, got %s", m.raw)
				}
				r := result(t, m)
				if r.IsError != (c.runs == 0) || !strings.Contains(r.Content[0].Text, c.text) {
					t.Errorf("result: %s", m.raw)
				}
				if got := f.deleted.Load(); got != c.runs {
					t.Errorf("the route ran %d times, want %d", got, c.runs)
				}
				if c.runs == 1 {
					if key := <-f.idemKeys; len(key) < 16 {
						t.Errorf("Idempotency-Key %q", key)
					}
				}
				// A second or late answer is not taken, and nothing is
				// written for it.
				s.send(answerLine(id, accepted))
				if m := s.call(3, `{"jsonrpc":"2.0","id":3,"method":"ping"}`); m.Error != nil {
					t.Errorf("ping: %s", m.raw)
				}
				if rest := s.finish(); len(rest) != 0 {
					t.Errorf("more was written: %s", rest[0].raw)
				}
				if got := f.deleted.Load(); got != c.runs {
					t.Errorf("after a late answer the route ran %d times, want %d", got, c.runs)
				}
			})
		}
	}
}

// TestLegacyInput_NotAsked: without the capability declared, without
// WithLegacyInput, or in 2026-07-28, a destructive call is not asked over
// the line: it answers as before (confirmation_required, or
// input_required for 2026-07-28), and nothing runs.
func TestLegacyInput_NotAsked(t *testing.T) {
	t.Parallel()
	legacy := mcp.WithLegacyInput(mcp.LegacyInput{})
	cases := []struct {
		name  string
		opts  []mcp.HandlerOption
		caps  string // "" for no handshake: a 2026-07-28 call
		wants string
	}{
		{"no elicitation declared", []mcp.HandlerOption{legacy}, `{"sampling":{}}`, "declare it on initialize"},
		{"empty capabilities", []mcp.HandlerOption{legacy}, `{}`, "declare it on initialize"},
		{"without WithLegacyInput", nil, `{"elicitation":{}}`, "on MCP 2026-07-28."},
		{"2026-07-28", []mcp.HandlerOption{legacy}, "", "input_required"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, c.opts...)
			s := start(t, f.h, stdio.WithPrincipal(alice), stdio.WithWorkspace("ws_a"))
			extra := ""
			if c.caps != "" {
				initialize2025(s, mcp.Version20250618, c.caps)
			} else {
				extra = meta(`{"elicitation":{}}`)
			}
			m := s.call(2, toolsCall(2, "delete_item", `{"id":"x1"}`, extra))
			if !strings.Contains(string(m.Result), c.wants) {
				t.Errorf("answer: %s", m.raw)
			}
			if rest := s.finish(); len(rest) != 0 || f.deleted.Load() != 0 {
				t.Errorf("more was written (%d) or the route ran (%d)", len(rest), f.deleted.Load())
			}
		})
	}
	// A second initialize declares anew: what the first declared is gone.
	t.Run("initialize again", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, legacy)
		s := start(t, f.h, stdio.WithPrincipal(alice), stdio.WithWorkspace("ws_a"))
		initialize2025(s, mcp.Version20250618, `{"elicitation":{}}`)
		initialize2025(s, mcp.Version20250618, `{}`)
		if m := s.call(2, toolsCall(2, "delete_item", `{"id":"x1"}`, "")); !strings.Contains(string(m.Result), "confirmation_required") {
			t.Errorf("answer: %s", m.raw)
		}
		s.finish()
	})
}

// TestLegacyInput_Sampling: a tool that asks the client's model sends a
// sampling/createMessage line and runs again with the answer.
func TestLegacyInput_Sampling(t *testing.T) {
	t.Parallel()
	f := newFixture(t, mcp.WithLegacyInput(mcp.LegacyInput{}))
	s := start(t, f.h, stdio.WithPrincipal(alice), stdio.WithWorkspace("ws_a"))
	initialize2025(s, mcp.Version20250618, `{"sampling":{}}`)
	s.send(toolsCall(2, "summarize", `{}`, ""))
	id := s.question("sampling/createMessage")
	s.send(answerLine(id, `{"role":"assistant","content":{"type":"text","text":"short"},"model":"m"}`))
	m := s.recv()
	if r := result(t, m); string(m.ID) != "2" || r.IsError || !strings.Contains(r.Content[0].Text, "done") {
		t.Fatalf("answer: %s", m.raw)
	}
	if got := <-f.sampled; !strings.Contains(got, `"short"`) {
		t.Errorf("the tool read %s", got)
	}
	s.finish()
}

// TestLegacyInput_ConcurrencyFull: a call waiting for its answer gives
// back its WithConcurrency slot and its place in the read-ahead queue, and
// the answer line is read and delivered while the slot is taken and the
// queue full; the call then runs once a slot is free.
func TestLegacyInput_ConcurrencyFull(t *testing.T) {
	t.Parallel()
	bus := newRecordingBus()
	f := newFixture(t, mcp.WithLegacyInput(mcp.LegacyInput{Bus: bus}))
	s := start(t, f.h, stdio.WithPrincipal(alice), stdio.WithWorkspace("ws_a"), stdio.WithConcurrency(1))
	initialize2025(s, mcp.Version20250618, `{"elicitation":{}}`)
	s.send(toolsCall(2, "delete_item", `{"id":"x1"}`, ""))
	id := s.question("elicitation/create")
	// One slot, a queue of two: one slow call runs, the other waits for
	// the slot.
	s.send(toolsCall(10, "slow", `{"id":"a"}`, ""), toolsCall(11, "slow", `{"id":"b"}`, ""))
	select {
	case <-f.entered:
	case <-time.After(wait):
		t.Fatal("no slow call started: the waiting call kept its slot")
	}
	s.send(answerLine(id, accepted))
	select {
	case got := <-bus.delivered:
		if got != strings.Trim(id, `"`) {
			t.Errorf("delivered an answer to %s, want %s", got, id)
		}
	case <-time.After(wait):
		t.Fatal("the answer line was not read while the slot was taken")
	}
	if f.deleted.Load() != 0 {
		t.Fatal("the call ran without a slot")
	}
	close(f.release)
	answers := map[string]message{}
	for range 3 {
		m := s.recv()
		answers[string(m.ID)] = m
	}
	if r := result(t, answers["2"]); r.IsError || r.Content[0].Text != `{"deleted":"x1"}` {
		t.Errorf("the confirmed call: %s", answers["2"].raw)
	}
	for _, id := range []string{"10", "11"} {
		if r := result(t, answers[id]); r.IsError {
			t.Errorf("slow call %s: %s", id, answers[id].raw)
		}
	}
	if got := f.deleted.Load(); got != 1 {
		t.Errorf("the route ran %d times, want 1", got)
	}
	s.finish()
}

// TestLegacyInput_StrayAnswers: an answer line that answers no question
// waiting for one — a made-up, forged or numeric id, a malformed one, one
// sent before anything was asked — is dropped and logged; nothing is
// written for it (an error carrying the client's id would be taken for the
// answer to one of its own requests), and the question asked still waits
// for its own answer.
func TestLegacyInput_StrayAnswers(t *testing.T) {
	t.Parallel()
	f := newFixture(t, mcp.WithLegacyInput(mcp.LegacyInput{}))
	log := &syncBuffer{}
	s := start(t, f.h, stdio.WithPrincipal(alice), stdio.WithWorkspace("ws_a"), stdio.WithLogger(slog.New(slog.NewTextHandler(log, nil))))
	s.send(answerLine(`"mcpdual-q-AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAA"`, accepted))
	initialize2025(s, mcp.Version20250618, `{"elicitation":{}}`)
	s.send(toolsCall(2, "delete_item", `{"id":"x1"}`, ""))
	id := s.question("elicitation/create")
	forged := strings.TrimSuffix(id, `"`) + `x"`
	strays := []string{
		answerLine(forged, accepted),
		answerLine(`2`, accepted),
		answerLine(`"unknown"`, accepted),
		`{"jsonrpc":"2.0","id":` + id + `,"result":` + accepted + `,"error":{"code":1,"message":"both"}}`,
	}
	s.send(strays...)
	if m := s.call(3, `{"jsonrpc":"2.0","id":3,"method":"ping"}`); m.Error != nil {
		t.Fatalf("ping: %s", m.raw)
	}
	if f.deleted.Load() != 0 {
		t.Fatal("a stray answer ran the call")
	}
	s.send(answerLine(id, accepted))
	if m := s.recv(); string(m.ID) != "2" || result(t, m).IsError {
		t.Errorf("the call's answer: %s", m.raw)
	}
	if rest := s.finish(); len(rest) != 0 {
		t.Errorf("more was written: %s", rest[0].raw)
	}
	if got := f.deleted.Load(); got != 1 {
		t.Errorf("the route ran %d times, want 1", got)
	}
	if n := strings.Count(log.String(), "stdio: a JSON-RPC response from the client was ignored"); n != 1+len(strays) {
		t.Errorf("%d stray answers logged, want %d: %s", n, 1+len(strays), log)
	}
}

// TestLegacyInput_InputEnds: when the client closes the input while a call
// waits for its answer, which can then never come, the call ends at once
// as a client that went away (nothing runs), however long the wait, and
// Serve returns.
func TestLegacyInput_InputEnds(t *testing.T) {
	t.Parallel()
	f := newFixture(t, mcp.WithLegacyInput(mcp.LegacyInput{Wait: time.Hour}))
	s := start(t, f.h, stdio.WithPrincipal(alice), stdio.WithWorkspace("ws_a"))
	initialize2025(s, mcp.Version20250618, `{"elicitation":{}}`)
	s.send(toolsCall(2, "delete_item", `{"id":"x1"}`, ""))
	s.question("elicitation/create")
	rest := s.finish()
	if len(rest) != 1 || string(rest[0].ID) != "2" || rest[0].Error == nil || !strings.Contains(rest[0].Error.Message, "disconnected") {
		for _, m := range rest {
			t.Errorf("written: %s", m.raw)
		}
	}
	if f.deleted.Load() != 0 {
		t.Error("the route ran")
	}
}

// TestLegacyInput_Cancelled: notifications/cancelled for a call waiting for
// its answer ends it; nothing runs, nothing is written for it, and a later
// answer is not taken.
func TestLegacyInput_Cancelled(t *testing.T) {
	t.Parallel()
	f := newFixture(t, mcp.WithLegacyInput(mcp.LegacyInput{Wait: time.Hour}))
	s := start(t, f.h, stdio.WithPrincipal(alice), stdio.WithWorkspace("ws_a"))
	initialize2025(s, mcp.Version20250618, `{"elicitation":{}}`)
	s.send(toolsCall(2, "delete_item", `{"id":"x1"}`, ""))
	id := s.question("elicitation/create")
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`)
	// Read after the cancellation: even if it reaches the call before the
	// call sees its context end, the call does not run.
	s.send(answerLine(id, accepted))
	if m := s.call(3, `{"jsonrpc":"2.0","id":3,"method":"ping"}`); m.Error != nil {
		t.Fatalf("ping: %s", m.raw)
	}
	if rest := s.finish(); len(rest) != 0 {
		t.Errorf("more was written: %s", rest[0].raw)
	}
	if f.deleted.Load() != 0 {
		t.Error("a cancelled call ran")
	}
}

// TestLegacyInput_BatchMember: a batch member runs with the client's
// capabilities but without a wait for its answers (its answer goes in the
// batch's one array, nothing streams), so a destructive tool in a batch
// is refused as for a client without elicitation: answered, not run, and
// no question is sent.
func TestLegacyInput_BatchMember(t *testing.T) {
	t.Parallel()
	f := newFixture(t, mcp.WithLegacyInput(mcp.LegacyInput{Wait: 300 * time.Millisecond}))
	s := start(t, f.h, stdio.WithPrincipal(alice), stdio.WithWorkspace("ws_a"))
	initialize2025(s, mcp.Version20250326, `{"elicitation":{}}`)
	s.send("[" + toolsCall(2, "delete_item", `{"id":"x1"}`, "") + "]")
	select {
	case l := <-s.lines:
		if !strings.HasPrefix(string(l), `[{"jsonrpc":"2.0","id":2,"result":`) || !strings.Contains(string(l), "confirmation_required") {
			t.Errorf("the batch's answer: %s", l)
		}
	case <-time.After(wait):
		t.Fatal("no answer to the batch")
	}
	if f.deleted.Load() != 0 {
		t.Error("the destructive route ran unconfirmed")
	}
	for _, m := range s.finish() {
		t.Errorf("more was written: %s", m.raw)
	}
}
