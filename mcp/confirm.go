package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"strconv"
	"strings"

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
// (auth.FromContext, auth.WorkspaceFromContext); it should read what the
// call would change through the host's own storage or routes (side-effect
// free), so that the message shows server data and not what the client
// claims, and so that nobody is asked to confirm something that would be
// refused anyway. An error ends the call with an isError result that
// quotes the error's text (keep it free of secrets), and nothing runs.
//
// The SDK shows in the question, as an escape \u{XXXX}, everything a
// reader cannot see or that restyles text (control and format characters,
// bidi controls, zero-width and tag characters, fillers, spaces other than
// U+0020, stacked combining marks). A question longer than
// 500 characters is never cut, since the cut could hide what "accept"
// applies: the call ends not executed, and the error is logged. Wrap each
// value taken from data in Quote, and lists in QuoteList, which say how
// much they do not show. ConfirmWith panics on a nil function.
func ConfirmWith(prepare func(ctx context.Context, call *Call) (message string, err error)) ItemOption {
	if prepare == nil {
		panic("mcp: ConfirmWith needs a function")
	}
	return itemOptionFunc(func(o *itemOptions) { o.prepare = prepare })
}

// confirmSchema is the one-boolean form of a confirmation.
var confirmSchema = json.RawMessage(`{"type":"object","properties":{"confirm":{"type":"boolean","title":"Confirm","description":"Check to confirm. Leave unchecked to cancel.","default":false}},"required":["confirm"]}`)

const confirmKey = "confirm"

// confirm runs the confirmation of a destructive call. It returns the
// answer to send instead of running the tool, or nil, nil when the call is
// confirmed and may run (with call.idemKey set).
func (s *Server) confirm(req *request, t *tool, call *Call) (seam.Result, error) {
	f := req.rev.f
	if !call.canAsk || (!f.InputRequests && req.capBits&CapElicitationForm == 0) {
		req.confirmation = "required"
		return notExecuted(f, "confirmation_required", "Not executed (confirmation_required): "+t.def.Name+" changes or deletes data and needs the user's confirmation, "+
			req.confirmHow()+" Do not retry this call as it is; ask the user to do it in the application, "+
			"or to use a client that supports confirmations."), nil
	}
	if req.capBits&CapElicitationForm == 0 {
		req.confirmation = "required"
		return nil, NewError(CodeMissingRequiredClientCapabilities,
			t.def.Name+" requires the user's confirmation through form elicitation, which this request's client capabilities do not declare").
			WithData(map[string]any{"requiredCapabilities": requiredCapabilities(CapElicitationForm), "reason": "confirmation_required", "retryable": false})
	}
	rd := req.round
	if rd != nil && rd.state.purpose != purposeConfirm {
		req.Log(slog.LevelWarn, "mcp: requestState refused", "reason", "wrong_purpose", "tool", t.def.Name)
		return nil, invalidState()
	}
	if rd != nil && !req.handler.boundHere(rd) {
		// Only the process-local guard that saw this confirmation issued
		// could tell whether it ran: another replica, or this process
		// after a restart, asks again.
		req.Log(slog.LevelInfo, "mcp: a confirmation issued by another process or before a restart is asked again", "tool", t.def.Name,
			"hint", "with the in-memory replay guard a confirmation is answered where it was asked; replicas need a shared guard (WithReplayGuard, mcp/redisstore)")
		rd = nil
	}
	var answer json.RawMessage
	if rd != nil {
		v, ok, err := rd.answer(confirmKey, req.handler)
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
	switch {
	case jsonrpc.StringIs(a, "decline"):
		req.confirmation = "declined"
		req.audit(t, call, "declined")
		return notExecuted(f, "confirmation_declined", "Not executed (confirmation_declined): the user declined "+t.def.Name+". Do not retry unless the user asks again."), nil
	case jsonrpc.StringIs(a, "cancel"):
		req.confirmation = "cancelled"
		req.audit(t, call, "cancelled")
		return notExecuted(f, "confirmation_cancelled", "Not executed (confirmation_cancelled): the user cancelled "+t.def.Name+". Do not retry unless the user asks again."), nil
	}
	content, _ := jsonrpc.Lookup(answer, "content")
	v, _ := jsonrpc.Lookup(content, confirmKey)
	switch {
	case content == nil || !jsonrpc.IsObject(content):
		return nil, invalidInputResponses(confirmKey)
	case string(v) == "false":
		req.confirmation = "declined"
		req.audit(t, call, "declined")
		return notExecuted(f, "confirmation_declined", "Not executed (confirmation_declined): the user did not confirm "+t.def.Name+". Do not retry unless the user asks again."), nil
	case string(v) != "true":
		return nil, invalidInputResponses(confirmKey)
	}
	if g := req.handler.cfg.replay; g != nil {
		res, err := req.claimConfirmation(g, t, call, rd)
		if err != nil {
			return nil, err
		}
		if res != nil {
			return res, nil
		}
	}
	call.idemKey = base64.RawURLEncoding.EncodeToString(rd.nonce)
	req.confirmation = "accepted"
	return nil, nil
}

func (s *Server) askConfirmation(req *request, t *tool, call *Call) (seam.Result, error) {
	req.confirmation = "unavailable" // until the question is asked
	title := t.def.Title
	if title == "" {
		title = t.def.Name
	}
	msg := "Confirm " + Quote(title) + ": this changes or deletes data and may not be undoable."
	if t.opts.prepare != nil {
		m, err := t.opts.prepare(req.identityContext(req.HTTP.Context()), call)
		if err != nil {
			text, _ := clean(err.Error(), 300)
			return textResult("Not executed: "+text, true), nil
		}
		msg = m
	}
	question, whole := clean(msg, maxQuestion)
	if !whole {
		// Cutting the question could hide what "accept" applies: nothing
		// is asked, and nothing runs.
		req.logError("mcp: a confirmation question is longer than the cap; summarize it (QuoteList)",
			"tool", t.def.Name, "limit", maxQuestion)
		return notExecuted(req.rev.f, "confirmation_unavailable", "Not executed (confirmation_unavailable): "+
			"the server could not phrase a confirmation question for "+t.def.Name+". Ask the user to do it in the application."), nil
	}
	if g := req.handler.cfg.replay; g != nil {
		// The same call may have run a moment ago under another
		// confirmation (a 2025 client whose stream was lost after the
		// route ran asks again; so may a model): say so first. The
		// question itself stays within its cap; the note is ours.
		last, err := guardLastRun(req.HTTP.Context(), g, req.callDigest(t, call))
		if err != nil {
			req.logError("mcp: replay guard failed", "tool", t.def.Name, "err", err)
			return nil, unavailable("Server temporarily unavailable", "replay_guard_unavailable")
		}
		if note := ranBefore(last); note != "" {
			question = note + " " + question
		}
	}
	res, err := req.inputRequired(purposeConfirm, nil, []InputRequest{ElicitForm(confirmKey, question, confirmSchema)}, nil)
	if err != nil {
		return nil, err
	}
	req.confirmation = "asked"
	return res, nil
}

// maxQuestion bounds a confirmation question, in characters.
const maxQuestion = 500

// confirmHow says, for the client at hand, how a confirmation could be
// given: what is true depends on whether this endpoint asks 2025 clients
// (WithLegacyInput) and on what this client declared.
func (req *request) confirmHow() string {
	if req.rev.f.InputRequests || req.handler.cfg.legacy == nil {
		return "which needs a client that declares form elicitation, on MCP 2026-07-28."
	}
	if req.capBits&CapElicitationForm != 0 && req.local != nil {
		return "which needs a client that declares form elicitation, on MCP 2026-07-28."
	}
	if req.capBits&CapElicitationForm != 0 && req.handler.memberOf(req.HTTP) != nil {
		// Declared, and the client accepts a stream, but a batch member
		// never streams (batch.go): the call must come alone.
		return "which this server asks for on the call's event stream, and a call in a batch has none: send the call alone, with Accept: text/event-stream, or use MCP 2026-07-28 with form elicitation."
	}
	if req.capBits&CapElicitationForm != 0 {
		// Declared, yet this call could not be asked: it cannot stream.
		return "which this server asks for on the call's event stream: send the call with Accept: text/event-stream, or use MCP 2026-07-28 with form elicitation."
	}
	return "which needs a client that declares the elicitation capability: declare it on initialize (this server then asks for the confirmation during the call), or use MCP 2026-07-28 with form elicitation."
}

// notExecuted is the isError result of a destructive call that did not
// run. The text names the outcome (a 2025-03-26 client has no
// structuredContent to read it from); structuredContent tells a program
// why, where the revision has it.
func notExecuted(f features, outcome, text string) *toolResult {
	return notExecutedRetry(f, outcome, text, false)
}

// notExecutedRetry is notExecuted saying whether the same call may
// succeed later (the server was busy, nobody was asked).
func notExecutedRetry(f features, outcome, text string, retryable bool) *toolResult {
	res := textResult(text, true)
	if f.OutputSchema {
		res.structured = json.RawMessage(`{"outcome":"` + outcome + `","executed":false,"retryable":` + strconv.FormatBool(retryable) + `}`)
	}
	return res
}

// maxQuoted bounds a value Quote shows whole, in characters.
const maxQuoted = 80

// Quote renders a value taken from data for a confirmation question: in
// double quotes, with everything a person could misread shown as an
// escape \u{XXXX} — invisible, format and blank characters, fillers,
// variation selectors, stacked combining marks and marks with no base,
// and, inside the quotes, line breaks and tabs, the double quote, the
// backslash, every look-alike of a quotation mark and two apostrophes (or
// grave accents, or look-alikes of either) side by side — so the value reads
// the same to the person as to the program. A value longer than 80
// characters shows its start and its end and says how many characters in
// between are not shown (an escape is never cut): the end of an address or
// a URL is where a look-alike differs.
func Quote(s string) string {
	const head, tail = 48, 24
	var b strings.Builder
	var last [tail]string // the last units, in a ring
	headLen, units := 0, 0
	visible(s, true, func(u string) bool {
		if units < maxQuoted {
			b.WriteString(u)
		}
		last[units%tail] = u
		units++
		if units == head {
			headLen = b.Len()
		}
		return true
	})
	if units <= maxQuoted {
		return `"` + b.String() + `"`
	}
	out := `"` + b.String()[:headLen] + "…"
	for i := units - tail; i < units; i++ {
		out += last[i%tail]
	}
	return out + `" (` + strconv.Itoa(units-head-tail) + " characters not shown)"
}

// QuoteList renders values for a confirmation question: each one Quoted,
// separated by commas, at most max of them, then how many more there are
// ("and 3 more, not shown"), so a long list never hides silently that it
// is long. A max below 1 shows no value, only the count ("3 values, not
// shown"). Show the count of what will change beside it.
func QuoteList(values []string, max int) string {
	if max < 1 {
		// At most max values is none, for a negative max too (it is
		// not "no bound"): the count alone, with no " and" after nothing.
		switch len(values) {
		case 0:
			return ""
		case 1:
			return "1 value, not shown"
		}
		return strconv.Itoa(len(values)) + " values, not shown"
	}
	var b strings.Builder
	for i, v := range values {
		if i == max {
			b.WriteString(" and " + strconv.Itoa(len(values)-max) + " more, not shown")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(Quote(v))
	}
	return b.String()
}

// clean shows s as a person can read it: line breaks and tabs become
// spaces, and everything else that could hide, reorder or restyle text
// around it is escaped (see visible). It keeps at most max characters
// (max < 0: all), an escape counting as the characters it shows and never
// cut, marks a cut with "…", and reports whether nothing was cut.
func clean(s string, max int) (string, bool) {
	var b strings.Builder
	n, whole := 0, true
	visible(s, false, func(u string) bool {
		l := unitLen(u)
		if max >= 0 && n+l > max {
			whole = false
			return false
		}
		b.WriteString(u)
		n += l
		return true
	})
	if !whole {
		return b.String() + "…", false
	}
	return b.String(), true
}
