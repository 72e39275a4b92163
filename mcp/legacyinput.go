package mcp

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mcpdual/mcpdual/headers"
	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/mcp/auth"
)

// Input requests for 2025 clients (WithLegacyInput). A 2025 revision has
// no input_required round: the server asks in the middle of the request,
// as a JSON-RPC request on the response's event stream, and the client
// answers with a POST of its own, which may reach another replica. The
// core turns the handler's interim answer (the seam.InputRequired a
// 2026-07-28 client would get) into those requests, waits for the answers
// through an AnswerBus, and runs the handler again with them as the round
// of a retry: the handler cannot tell the two apart.

// LegacyInput configures WithLegacyInput. Zero fields take their defaults.
type LegacyInput struct {
	// Bus carries a client's answer from the replica its POST reaches to
	// the one waiting for it (default: in this process only; replicas
	// share one, such as redisstore.NewAnswerBus).
	Bus AnswerBus
	// Wait bounds how long a call waits for the client's answers (default
	// 30s). Keep it below the http.Server's WriteTimeout, or the response
	// is cut before the call can end. A call not answered in time ends as
	// declined; nothing runs.
	Wait time.Duration
	// PerCaller bounds the calls one caller may have waiting at once
	// (default 4); Total, those of all callers (default 256). A call over
	// either bound is not asked and ends without running. A waiting call
	// holds one of these wait slots, not one of Limits.Concurrent: it
	// gives its concurrency slot back while it waits, and takes one again
	// to run with the answer, waiting up to 5 s for one (past that it
	// ends with the 503 "Server overloaded" error, not run).
	PerCaller, Total int
	// AnswerBytes bounds the body of an answer (default 64 KiB).
	AnswerBytes int64
}

// AnswerBus delivers the answer to a server-to-client request to the
// request waiting for it, on whichever replica that is.
type AnswerBus interface {
	// Subscribe starts listening for answers to id. Answers published
	// from now on arrive on the channel until stop is called.
	Subscribe(ctx context.Context, id string) (answers <-chan []byte, stop func(), err error)
	// Publish hands answer to whoever listens to id. delivered is false
	// when nobody does (an unknown, answered or expired id).
	Publish(ctx context.Context, id string, answer []byte) (delivered bool, err error)
}

// WithLegacyInput lets a tool ask a 2025 client for input: when its
// handler calls RequireInput, or it is a destructive tool to confirm, and
// the client declared the capability the question needs (elicitation,
// sampling, roots) on initialize — which the endpoint learns from a sealed
// session, so give the 2025 era era2025.WithSessions — the tools/call
// answer becomes an event stream carrying elicitation/create,
// sampling/createMessage or roots/list; the client's answer (a POST of a
// JSON-RPC response, to any replica) is delivered through c.Bus, and the
// handler runs again with it exactly as for a 2026-07-28 retry
// (Call.InputResponse, Call.Elicitation; a confirmed destructive call gets
// its Idempotency-Key and goes through the replay guard).
//
// Over stdio (mcp/stdio) the process is the session: the capabilities of
// its initialize decide, the questions and the answers are lines.
//
// Each question's id is unguessable and bound to the caller: an answer
// from another caller, to an unknown id, a second answer or one after the
// call ended is refused (400) and changes nothing. A client that goes away
// while asked cancels the call; nothing runs. Without this option, without
// a session, or without the capability, 2025 clients get what they got
// before (a destructive tool answers confirmation_required). 2026-07-28
// requests are never asked this way.
func WithLegacyInput(c LegacyInput) HandlerOption {
	if c.Wait < 0 || c.PerCaller < 0 || c.Total < 0 || c.AnswerBytes < 0 {
		panic("mcp: WithLegacyInput needs bounds of 0 (the default) or more")
	}
	if c.Bus == nil {
		c.Bus = newMemoryBus()
	}
	if c.Wait == 0 {
		c.Wait = 30 * time.Second
	}
	if c.PerCaller == 0 {
		c.PerCaller = 4
	}
	if c.Total == 0 {
		c.Total = 256
	}
	if c.AnswerBytes == 0 {
		c.AnswerBytes = 64 << 10
	}
	l := &legacyInput{LegacyInput: c, waiting: &admission{limit: c.Total, perCaller: c.PerCaller, held: map[string]int{}}}
	return handlerOptionFunc(func(hc *handlerConfig) { hc.legacy = l })
}

// legacyInput is WithLegacyInput's configuration and its count of waiting
// calls (Total in all, PerCaller each).
type legacyInput struct {
	LegacyInput
	waiting *admission
}

// rerunSlotWait bounds how long a call whose answer came waits for a
// concurrency slot (Limits.Concurrent) to run again in. A variable for
// tests.
var rerunSlotWait = 5 * time.Second

// maxLegacyRounds bounds how many times one call asks: a handler that
// keeps asking ends as an internal error rather than holding a slot.
const maxLegacyRounds = 8

// legacyNotifier makes a 2025 tools/call that may be asked for input able
// to stream (the stream starts only when a question is sent). It returns
// nil when the call cannot be asked this way.
func (h *Handler) legacyNotifier(w http.ResponseWriter, req *request) *notifier {
	if h.cfg.legacy == nil || req.rev.f.envelope || req.rev.f.inputRequests ||
		req.msg.Method != "tools/call" || !acceptsEventStream(req.HTTP) {
		return nil
	}
	if loc := req.local; loc != nil {
		// A local transport (stdio) is two-way already: the question goes
		// out as a message of its own, the answer comes back as one, when
		// the transport says it carries answers.
		if loc.Wait == nil || loc.Notify == nil {
			return nil
		}
	} else if len(req.HTTP.Header[headers.SessionID]) == 0 {
		return nil
	}
	if n := req.notify; n != nil {
		n.legacy = true
		return n
	}
	n := &notifier{minLevel: -1, legacy: true, w: &streamWriter{ResponseWriter: w, version: req.version}}
	if req.local != nil {
		n.w.direct = req.local.Notify
	}
	return n
}

// localSession gives a 2025 message of a local transport the capabilities
// its client declared on initialize: over stdio the process is the
// session, and the transport keeps what a sealed Mcp-Session-Id carries
// over HTTP.
func localSession(req *request) {
	if loc := req.local; loc != nil && loc.Capabilities != nil && !req.rev.f.envelope {
		req.ClientCapabilities = loc.Capabilities
	}
}

// localWait tells a local transport that req starts waiting for its
// client's answer (local.Exchange.Wait), and returns what takes the
// transport's bound again; a no-op over HTTP.
func localWait(req *request) func(context.Context) error {
	if loc := req.local; loc != nil && loc.Wait != nil {
		return loc.Wait()
	}
	return func(context.Context) error { return nil }
}

// askLegacy asks the client ir's questions on the response stream, waits
// for the answers and runs the method again with them, as many rounds as
// the handler needs (at most maxLegacyRounds).
func (h *Handler) askLegacy(req *request, row *methodRow, ir *seam.InputRequired) (seam.Result, error) {
	l := h.cfg.legacy
	caller := req.callerKey()
	for n := 0; ; n++ {
		st, ok := parseRoundState(ir.State)
		if !ok || n == maxLegacyRounds {
			req.logError("mcp: a tool kept asking a 2025 client for input", "tool", req.call.tool, "rounds", n)
			return textResult("The tool failed with an internal error.", true), nil
		}
		if l.waiting.acquire(caller) != nil {
			req.Log(slog.LevelWarn, "mcp: too many calls waiting for a 2025 client's answer", "tool", req.call.tool)
			return h.unanswered(req, st, "the server is waiting for too many answers; try again later"), nil
		}
		// While it waits the call holds a wait slot, not a concurrency
		// slot: calls waiting for people cannot starve the endpoint.
		h.releaseSlot(req)
		resume := localWait(req) // and, over stdio, the transport's slot
		answers, err := h.waitAnswers(req, ir.Requests, &st)
		l.waiting.release(caller)
		if err == nil {
			err = resume(req.ctx())
		}
		if err == nil {
			// The answer came: the call runs again, as any request, in a
			// concurrency slot, for which a user who just confirmed
			// waits a little rather than being told the server is busy.
			if e := h.retakeSlot(req, rerunSlotWait); e != nil {
				if req.ctx().Err() != nil {
					err = req.ctx().Err()
				} else {
					req.Log(slog.LevelWarn, "mcp: no concurrency slot for a 2025 call answered; it did not run", "tool", req.call.tool, "waited", rerunSlotWait)
					return nil, e
				}
			}
		}
		switch {
		case errors.Is(err, errNoAnswer):
			return h.unanswered(req, st, "no answer came within "+l.Wait.String()), nil
		case errors.Is(err, errAnswerRefused):
			return h.unanswered(req, st, "the client refused the request"), nil
		case err != nil:
			// The client went away: nothing runs, and nobody reads the
			// answer.
			req.Log(slog.LevelInfo, "mcp: a 2025 client left while asked for input; the call did not run", "tool", req.call.tool, "err", err)
			req.confirmation = "cancelled"
			return nil, httpError(http.StatusBadRequest, CodeInvalidRequest, "The client disconnected while asked for input")
		}
		var nonce [16]byte
		if _, err := rand.Read(nonce[:]); err != nil {
			return nil, err
		}
		// The round is this process's own: its nonce never leaves it, so
		// the replay guard's record must only outlive the call.
		req.roundBuf = round{state: st, nonce: nonce[:], until: time.Now().Add(l.Wait + time.Minute), responses: answers}
		req.round = &req.roundBuf
		res, err := row.serve(h.server, req)
		next, again := res.(*seam.InputRequired)
		if err != nil || !again {
			return res, err
		}
		ir = next
	}
}

// unanswered ends a call whose questions got no usable answer: nothing
// ran. A confirmation ends declined.
func (h *Handler) unanswered(req *request, st openedState, why string) seam.Result {
	if st.purpose == purposeConfirm {
		req.confirmation = "declined"
		return notExecuted(req.rev.f, "confirmation_declined", "Not executed (confirmation_declined): "+req.call.tool+
			" was not confirmed: "+why+". Do not retry unless the user asks again.")
	}
	return textResult("The tool "+req.call.tool+" needs input from the user or the client, which it did not get: "+why+
		"; the call did not complete.", true)
}

var (
	errNoAnswer      = errors.New("mcp: no answer in time")
	errAnswerRefused = errors.New("mcp: the client answered with an error")
)

// waitAnswers sends each question of requests ({"key":{"method",
// "params"}}) as a JSON-RPC request on the response stream and waits for
// every answer. It returns the inputResponses object a retry would carry.
// An elicitation the client answers with a JSON-RPC error counts as
// declined; any other question so answered ends the call.
func (h *Handler) waitAnswers(req *request, requests []byte, st *openedState) (json.RawMessage, error) {
	l := h.cfg.legacy
	ctx := req.ctx()
	deadline := time.NewTimer(l.Wait)
	defer deadline.Stop()
	type question struct {
		key string
		ch  <-chan []byte
	}
	var asked []question
	// A proxy that buffers responses (nginx does by default) would hold
	// the question back until the call ends, which it cannot without the
	// answer: ask it not to.
	req.notify.w.Header()["X-Accel-Buffering"] = []string{"no"}
	it := jsonrpc.NewIter(requests)
	for {
		k, q, more := it.Next()
		if !more {
			break
		}
		method, _ := jsonrpc.Lookup(q, "method")
		params, _ := jsonrpc.Lookup(q, "params")
		m, _ := jsonrpc.String(method)
		id := answerID(req.principal, h.audience)
		ch, stop, err := l.Bus.Subscribe(ctx, id)
		if err != nil {
			return nil, err
		}
		defer stop()
		msg := []byte(`{"jsonrpc":"2.0","id":`)
		msg = appendString(msg, id)
		msg = append(msg, `,"method":`...)
		msg = appendString(msg, m)
		if params != nil {
			msg = append(msg, `,"params":`...)
			msg = append(msg, legacyParams(req.version, m, params)...)
		}
		msg = append(msg, '}')
		if !req.notify.w.notify(msg) {
			return nil, errors.New("mcp: the response is already written")
		}
		asked = append(asked, question{key: string(k), ch: ch})
	}
	if len(asked) == 0 {
		// A round with a state and no question: nothing to wait for.
		return nil, nil
	}
	req.confirmation = "asked"
	out := []byte{'{'}
	for i, q := range asked {
		var answer []byte
		select {
		case answer = <-q.ch:
		case <-deadline.C:
			return nil, errNoAnswer
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		var resp struct {
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(answer, &resp); err != nil {
			return nil, errAnswerRefused
		}
		v := resp.Result
		if resp.Result == nil || resp.Error != nil {
			kind, _ := st.kind(q.key)
			if kind != "elicitation" {
				return nil, errAnswerRefused
			}
			v = json.RawMessage(`{"action":"decline"}`)
		}
		if i > 0 {
			out = append(out, ',')
		}
		out = appendString(out, q.key)
		out = append(out, ':')
		out = append(out, v...)
	}
	return append(out, '}'), nil
}

// legacyParams adapts a question's params to the client's revision:
// before 2025-11-25 an elicitation has no mode (form is all there is).
func legacyParams(v Version, method string, params []byte) []byte {
	if method != "elicitation/create" || v == Version20251125 {
		return params
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(params, &m) != nil {
		return params
	}
	delete(m, "mode")
	b, err := json.Marshal(m)
	if err != nil {
		return params
	}
	return b
}

// answerIDPrefix starts every id of a question to a 2025 client.
const answerIDPrefix = "mcpdual-q-"

// answerID returns a question's id: 16 random bytes and a tag that binds
// them to the caller and the server. The random part makes the id
// unguessable; the tag lets the replica an answer reaches refuse it when
// its sender is not the caller asked, with no state and no key (it is
// checked against the sender's verified identity).
func answerID(p *auth.Principal, audience string) string {
	var r [16]byte
	_, _ = rand.Read(r[:])
	tag := answerTag(r[:], p, audience)
	return answerIDPrefix + base64.RawURLEncoding.EncodeToString(r[:]) + "." + base64.RawURLEncoding.EncodeToString(tag[:12])
}

func answerTag(random []byte, p *auth.Principal, audience string) [32]byte {
	h := sha256.New()
	h.Write([]byte("mcpdual answer\x00"))
	h.Write(random)
	h.Write([]byte{0})
	h.Write([]byte(p.Key()))
	h.Write([]byte{0})
	h.Write([]byte(audience))
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}

// answerFor reports whether id is a question's id bound to p.
func answerFor(id string, p *auth.Principal, audience string) bool {
	rest, ok := strings.CutPrefix(id, answerIDPrefix)
	if !ok {
		return false
	}
	r64, t64, ok := strings.Cut(rest, ".")
	random, err1 := base64.RawURLEncoding.Strict().DecodeString(r64)
	tag, err2 := base64.RawURLEncoding.Strict().DecodeString(t64)
	if !ok || err1 != nil || err2 != nil || len(random) != 16 || len(tag) != 12 {
		return false
	}
	want := answerTag(random, p, audience)
	return subtle.ConstantTimeCompare(want[:12], tag) == 1
}

// acceptAnswer takes a POST of a JSON-RPC response: the answer to a
// question this endpoint (this replica or another) asked. It is 202 when
// delivered to the call waiting for it, 400 otherwise: an id that is not
// a question's, one asked of another caller, one already answered or no
// longer waited for.
func (h *Handler) acceptAnswer(w http.ResponseWriter, r *http.Request, p *auth.Principal, body []byte) {
	l := h.cfg.legacy
	refuse := func(reason string) {
		h.cfg.logger.InfoContext(r.Context(), "mcp: an answer to a question was refused", "reason", reason)
		h.writeError(r.Context(), w, nil, "", httpError(http.StatusBadRequest, CodeInvalidRequest, "Unknown, answered or expired request id").
			WithData(map[string]string{"reason": "unknown_request_id"}))
	}
	if int64(len(body)) > l.AnswerBytes {
		h.writeError(r.Context(), w, nil, "", httpError(http.StatusRequestEntityTooLarge, CodeInvalidRequest, "Answer too large").
			WithData(map[string]int64{"maxBytes": l.AnswerBytes}))
		return
	}
	var resp struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &resp) != nil || (resp.Result == nil) == (resp.Error == nil) {
		refuse("malformed")
		return
	}
	id, ok := jsonrpc.String(resp.ID)
	if !ok || !answerFor(id, p, h.audience) {
		refuse("not_this_callers")
		return
	}
	delivered, err := l.Bus.Publish(r.Context(), id, body)
	if err != nil {
		h.cfg.logger.ErrorContext(r.Context(), "mcp: the answer bus failed", "err", err)
		h.writeError(r.Context(), w, nil, "", httpError(http.StatusServiceUnavailable, codeUnavailable, "The answer could not be delivered; the call ends when its wait does"))
		return
	}
	if !delivered {
		refuse("not_waited_for")
		return
	}
	w.Header()["Cache-Control"] = []string{"no-store"}
	w.WriteHeader(http.StatusAccepted)
}

// memoryBus is the AnswerBus of one process.
type memoryBus struct {
	mu   sync.Mutex
	subs map[string]chan []byte
}

func newMemoryBus() *memoryBus { return &memoryBus{subs: map[string]chan []byte{}} }

func (b *memoryBus) Subscribe(_ context.Context, id string) (<-chan []byte, func(), error) {
	ch := make(chan []byte, 1)
	b.mu.Lock()
	b.subs[id] = ch
	b.mu.Unlock()
	return ch, func() {
		b.mu.Lock()
		if b.subs[id] == ch {
			delete(b.subs, id)
		}
		b.mu.Unlock()
	}, nil
}

// Publish delivers the first answer only: delivering it removes the id,
// so a second one, even after the waiter has read the first, is refused.
func (b *memoryBus) Publish(_ context.Context, id string, answer []byte) (bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ch := b.subs[id]
	if ch == nil {
		return false, nil
	}
	select {
	case ch <- answer:
		delete(b.subs, id)
		return true, nil
	default:
		return false, nil
	}
}
