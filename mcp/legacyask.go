package mcp

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/seam"
)

// The ask loop of input for 2025 clients (WithLegacyInput, endpoint.go):
// the questions go out on the tools/call's response stream, the answers
// come back through the AnswerBus, and the method runs again with them as
// the round of a retry.

// rerunSlotWait bounds how long a call whose answer came waits for a
// concurrency slot (Limits.Concurrent) to run again in. A variable for
// tests.
var rerunSlotWait = 5 * time.Second

// maxLegacyRounds bounds how many times one call asks: a handler that
// keeps asking ends as an internal error rather than holding a slot.
const maxLegacyRounds = 8

// retryFunc runs a method again as a retry that carries rd, the round a
// 2026-07-28 client would have sent: the method cannot tell the two apart.
type retryFunc func(rd round) (seam.Result, error)

// askLegacy asks the client ir's questions on the response stream, waits
// for the answers and runs the method again with them through retry, as
// many rounds as the handler needs (at most maxLegacyRounds). It never
// writes the request's round itself: the dispatcher says, in retry, how a
// retry runs.
func (h *Handler) askLegacy(req *request, ir *seam.InputRequired, retry retryFunc) (seam.Result, error) {
	l := h.cfg.legacy
	caller := req.callerKey()
	for n := 0; ; n++ {
		st, ok := parseRoundState(ir.State)
		if !ok || n == maxLegacyRounds {
			req.logError("mcp: a tool kept asking a 2025 client for input", "tool", req.call.tool, "rounds", n)
			return textResult("The tool failed with an internal error.", true), nil
		}
		if h.closing() {
			// After Close a wait would end as soon as it began, leaving
			// the question on the client's screen: nothing is asked.
			return nil, h.closedAsking(req, st, false)
		}
		if l.waiting.acquire(caller) != nil {
			req.Log(slog.LevelWarn, "mcp: too many calls waiting for a 2025 client's answer", "tool", req.call.tool)
			return h.busy(req, st), nil
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
		case errors.Is(err, errClosed):
			return nil, h.closedAsking(req, st, true)
		case errors.Is(err, errBusFailed):
			// The store that carries answers between replicas failed
			// before the question went out: nothing was asked, nothing
			// runs, and the client, still there, may ask again.
			req.logError("mcp: the answer bus failed; a 2025 call was not asked and did not run", "tool", req.call.tool, "err", err)
			return nil, unavailable("Server temporarily unavailable", "answer_bus_unavailable")
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
		res, err := retry(round{state: st, nonce: nonce[:], until: time.Now().Add(l.Wait + time.Minute), responses: answers})
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

// busy ends a call the server would not wait for (LegacyInput's PerCaller
// or Total): nobody was asked, so a confirmation was not declined, and the
// same call may succeed later, which its outcome says.
func (h *Handler) busy(req *request, st openedState) seam.Result {
	const why = "the server is waiting for too many answers; try again later"
	if st.purpose != purposeConfirm {
		return h.unanswered(req, st, why)
	}
	req.confirmation = "unavailable"
	return notExecutedRetry(req.rev.f, "confirmation_unavailable",
		"Not executed (confirmation_unavailable): "+req.call.tool+" was not confirmed, because the user could not be asked: "+why+".", true)
}

// closedAsking ends a call that Close found waiting for its client's
// answer (asked), or that was about to wait after Close (nothing asked):
// such a wait would hold http.Server.Shutdown up to LegacyInput.Wait. What
// the call asked for never came, so the round that would use it never
// ran: a confirmed tool runs only once the answer confirms it, and a
// tool's own round ran only as far as asking. The error says so, in the
// words that are true of each, and says shutting_down as a stream refused
// after Close does: the client retries, on a replica still serving, and
// is asked again.
func (h *Handler) closedAsking(req *request, st openedState, asked bool) *Error {
	req.Log(slog.LevelInfo, "mcp: the handler closed while a 2025 call needed its client's answer; the call did not complete",
		"tool", req.call.tool, "asked", asked)
	if st.purpose == purposeConfirm {
		req.confirmation = "unavailable"
		return unavailable("Server shutting down before the call was confirmed; the tool did not run: retry it", "shutting_down")
	}
	return unavailable("Server shutting down while the call waited for input; it did not complete: retry it", "shutting_down")
}

var (
	// errClosed: Close ended the wait (Handler.closed).
	errClosed        = errors.New("mcp: the handler closed")
	errNoAnswer      = errors.New("mcp: no answer in time")
	errAnswerRefused = errors.New("mcp: the client answered with an error")
	// errBusFailed: the AnswerBus could not subscribe to a question's id
	// while the client was still there (not its leaving).
	errBusFailed = errors.New("mcp: the answer bus failed")
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
		ch, stop, err := busSubscribe(ctx, l.Bus, id)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("%w: %w", errBusFailed, err)
		}
		defer stop()
		msg := []byte(`{"jsonrpc":"2.0","id":`)
		msg = jsonrpc.AppendString(msg, id)
		msg = append(msg, `,"method":`...)
		msg = jsonrpc.AppendString(msg, m)
		if params != nil {
			msg = append(msg, `,"params":`...)
			msg = append(msg, legacyParams(req.version, m, params, id)...)
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
		case <-h.closed:
			// As a listen ends on Close: Shutdown waits for this call.
			return nil, errClosed
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
		out = jsonrpc.AppendString(out, q.key)
		out = append(out, ':')
		out = append(out, v...)
	}
	return append(out, '}'), nil
}

// legacyParams adapts a question's params to the client's revision:
// before 2025-11-25 an elicitation has no mode (form is all there is; the
// core asks such a client nothing else). In 2025-11-25 a URL-mode
// elicitation MUST carry an elicitationId, which 2026-07-28 dropped: the
// question's id, id, is one, unique to this question (design record 007).
func legacyParams(v Version, method string, params []byte, id string) []byte {
	if method != "elicitation/create" {
		return params
	}
	if v == Version20251125 {
		mode, _ := jsonrpc.Lookup(params, "mode")
		if _, has := jsonrpc.Lookup(params, "elicitationId"); has || !jsonrpc.StringIs(mode, "url") {
			return params
		}
		// A URL-mode question has a message and a url: the object is not
		// empty, and the id goes first.
		out := jsonrpc.AppendString([]byte(`{"elicitationId":`), id)
		return append(append(out, ','), params[1:]...)
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
