package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/seam"
)

// WithoutConfirmation turns off the SDK's confirmation round for a
// destructive tool: the host confirms some other way (or runs its own
// rounds with RequireInput).
func WithoutConfirmation() ItemOption {
	return itemOptionFunc(func(o *itemOptions) { o.noConfirm = true })
}

// ConfirmWith sets how the confirmation question of a destructive tool is
// written. prepare runs before the question is asked, with the call's
// arguments and a context carrying the caller's verified identity
// (auth.FromContext, auth.WorkspaceFromContext); it should read what the call would change through the host's
// own storage or routes (side-effect free), so that the message shows
// server data and not what the client claims, and so that nobody is asked
// to confirm something that would be refused anyway. An error ends the call
// with an isError result that quotes the error's text (keep it free of
// secrets), and nothing runs. The SDK strips control and bidi characters
// from the message and caps it at 500 characters; wrap each value taken
// from data in Quote.
func ConfirmWith(prepare func(ctx context.Context, call *Call) (message string, err error)) ItemOption {
	if prepare == nil {
		panic("mcp: ConfirmWith needs a function")
	}
	return itemOptionFunc(func(o *itemOptions) { o.prepare = prepare })
}

// ReplayGuard records that a confirmation was used, for hosts with
// storage shared by every replica (SET nonce NX PX ttl, or a unique row).
// Consume returns first=false when nonce was consumed before. Without a
// guard, a confirmation stays valid until it expires and the route gets its
// nonce as Idempotency-Key to deduplicate.
type ReplayGuard interface {
	Consume(ctx context.Context, nonce []byte, until time.Time) (first bool, err error)
}

// WithReplayGuard makes each destructive-tool confirmation single-use
// across the fleet.
func WithReplayGuard(g ReplayGuard) HandlerOption {
	if g == nil {
		panic("mcp: WithReplayGuard needs a guard")
	}
	return handlerOptionFunc(func(c *handlerConfig) { c.replay = g })
}

// confirms reports whether calls of t wait for the user's confirmation.
func (t *tool) confirms() bool {
	return t.def.Annotations.Destructive && !t.def.Annotations.ReadOnly && !t.opts.noConfirm
}

// confirmSchema is the one-boolean form of a confirmation.
var confirmSchema = json.RawMessage(`{"type":"object","properties":{"confirm":{"type":"boolean","title":"Confirm","description":"Check to confirm. Leave unchecked to cancel.","default":false}},"required":["confirm"]}`)

const confirmKey = "confirm"

// confirm runs the confirmation of a destructive call. It returns the
// answer to send instead of running the tool, or nil, nil when the call is
// confirmed and may run (with call.idemKey set).
func (s *Server) confirm(req *request, t *tool, call *Call) (seam.Result, error) {
	f := featuresOf(req.version)
	if !call.perRequest {
		return notExecuted(f, "confirmation_required", "Not executed (confirmation_required): "+t.def.Name+" changes or deletes data and needs the user's confirmation, "+
			"which only MCP 2026-07-28 clients with form elicitation can give. Do not retry this call; ask the user to do it in the application, "+
			"or to use a client that supports confirmations."), nil
	}
	if req.capBits&CapElicitationForm == 0 {
		return nil, NewError(CodeMissingRequiredClientCapabilities,
			t.def.Name+" requires the user's confirmation through form elicitation, which this request's client capabilities do not declare").
			WithData(map[string]any{"requiredCapabilities": requiredCapabilities(CapElicitationForm), "reason": "confirmation_required", "retryable": false})
	}
	rd := req.round
	if rd != nil && rd.state.Purpose != purposeConfirm {
		req.Log(slog.LevelWarn, "mcp: requestState refused", "reason", "wrong_purpose", "tool", t.def.Name)
		return nil, invalidState()
	}
	var answer json.RawMessage
	if rd != nil {
		v, ok, err := rd.answer(confirmKey)
		if err != nil {
			return nil, err
		}
		if ok {
			answer = v
		}
	}
	if answer == nil {
		// A first call, inputResponses without a state we issued, or a
		// retry that did not answer: ask (again), never execute.
		return s.askConfirmation(req, t, call)
	}
	a, _ := jsonrpc.Lookup(answer, "action")
	action, _ := jsonrpc.String(a)
	switch action {
	case "decline":
		return notExecuted(f, "confirmation_declined", "Not executed (confirmation_declined): the user declined "+t.def.Name+". Do not retry unless the user asks again."), nil
	case "cancel":
		return notExecuted(f, "confirmation_cancelled", "Not executed (confirmation_cancelled): the user cancelled "+t.def.Name+". Do not retry unless the user asks again."), nil
	}
	content, _ := jsonrpc.Lookup(answer, "content")
	v, _ := jsonrpc.Lookup(content, confirmKey)
	switch {
	case content == nil || !isObject(content):
		return nil, invalidInputResponses(confirmKey)
	case string(v) == "false":
		return notExecuted(f, "confirmation_declined", "Not executed (confirmation_declined): the user did not confirm "+t.def.Name+". Do not retry unless the user asks again."), nil
	case string(v) != "true":
		return nil, invalidInputResponses(confirmKey)
	}
	if g := req.handler.cfg.replay; g != nil {
		first, err := g.Consume(req.http.Context(), rd.nonce, rd.until)
		if err != nil {
			req.logError("mcp: replay guard failed", "tool", t.def.Name, "err", err)
			e := httpError(http.StatusServiceUnavailable, codeUnavailable, "Server temporarily unavailable").
				WithData(map[string]any{"reason": "replay_guard_unavailable", "retryAfterMs": 1000})
			e.retryAfter = time.Second
			return nil, e
		}
		if !first {
			return notExecuted(f, "confirmation_already_used", "Not executed (confirmation_already_used): this confirmation was already used. Call the tool again to get a new one if the user wants to repeat it."), nil
		}
	}
	call.idemKey = base64.RawURLEncoding.EncodeToString(rd.nonce)
	req.Log(slog.LevelInfo, "mcp: destructive tool confirmed", "tool", t.def.Name, "idempotencyKey", call.idemKey)
	return nil, nil
}

func (s *Server) askConfirmation(req *request, t *tool, call *Call) (seam.Result, error) {
	title := t.def.Title
	if title == "" {
		title = t.def.Name
	}
	msg := "Confirm " + Quote(title) + ": this changes or deletes data and may not be undoable."
	if t.opts.prepare != nil {
		m, err := t.opts.prepare(req.identityContext(req.http.Context()), call)
		if err != nil {
			return textResult("Not executed: "+sanitize(err.Error(), 300), true), nil
		}
		msg = m
	}
	res, err := req.inputRequired(purposeConfirm, nil, []InputRequest{ElicitForm(confirmKey, sanitize(msg, 500), confirmSchema)}, nil)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// notExecuted is the isError result of a destructive call that did not
// run. The text names the outcome (a 2025-03-26 client has no
// structuredContent to read it from); structuredContent tells a program
// why, where the revision has it.
func notExecuted(f features, outcome, text string) *toolResult {
	res := textResult(text, true)
	if f.outputSchema {
		res.structured = json.RawMessage(`{"outcome":"` + outcome + `","executed":false,"retryable":false}`)
	}
	return res
}

// Quote renders a value for a confirmation message: in double quotes,
// control and bidi characters removed, at most 80 characters.
func Quote(s string) string {
	return `"` + strings.ReplaceAll(sanitize(s, 80), `"`, `'`) + `"`
}

// sanitize removes control characters, line breaks and bidi overrides,
// so that a value cannot restyle or reorder the message around it, and
// truncates to max runes.
func sanitize(s string, max int) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) || isBidi(r) {
			if r == '\n' || r == '\r' || r == '\t' {
				r = ' '
			} else {
				continue
			}
		}
		if n == max {
			b.WriteString("…")
			break
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

func isBidi(r rune) bool {
	switch {
	case r == 0x061C, r == 0x200E, r == 0x200F:
		return true
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}
