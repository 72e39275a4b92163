package mcp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/seam"
)

// claimConfirmation asks the guard whether this confirmed call may run. It
// returns the answer to send instead of running, or nil, nil with
// req.claim set: the request holds the lease, renewed until settle.
func (req *request) claimConfirmation(g ReplayGuard, t *tool, call *Call, rd *round) (*toolResult, error) {
	// The caller key lets the guard cap each caller's share (the
	// in-memory one does), so one tenant confirming at full speed cannot
	// fill it for every other.
	token, outcome, err := guardClaim(req.HTTP.Context(), g, req.callerKey(), rd.nonce, rd.until, req.handler.lease())
	switch {
	case err != nil:
		req.logError("mcp: replay guard failed", "tool", t.def.Name, "err", err)
		return nil, unavailable("Server temporarily unavailable", "replay_guard_unavailable")
	case outcome != nil:
		req.confirmation = "already_used"
		req.audit(t, call, "already_used")
		if readRecorded(outcome).Unreadable {
			// The bytes are not quoted: storage any client of it may write.
			req.Log(slog.LevelWarn, "mcp: replay guard: a used confirmation's recorded outcome cannot be read; the client is told its outcome is unknown",
				"tool", t.def.Name)
		}
		return alreadyRan(req.rev.f, outcome), nil
	case token == "":
		// Another call holds a live lease: it is running now, or its
		// replica died and the lease has not lapsed yet. Either way the
		// answer is worth waiting for.
		req.confirmation = "in_progress"
		return nil, unavailable("The confirmed call is still running; retry shortly for its outcome", "confirmation_in_progress")
	}
	c := &claimed{h: req.handler, ctx: context.WithoutCancel(req.HTTP.Context()), g: g, nonce: rd.nonce, token: token, until: rd.until,
		call: req.callDigest(t, call), stop: make(chan struct{}), done: make(chan struct{})}
	go c.renew()
	req.claim = c
	return nil, nil
}

// callDigest names what a confirmation confirms, for the guard's record of
// runs (ReplayGuard.LastRun): the caller's rate key, the workspace, the
// tool and the arguments in a canonical form, so that a new confirmation
// of the same call — a 2025 client asking again after its stream was
// lost, or a model calling the tool again — is recognised. Each part is
// length-prefixed, so no two calls share a digest by concatenation.
func (req *request) callDigest(t *tool, call *Call) string {
	ws, _ := req.Workspace()
	h := sha256.New()
	var n [binary.MaxVarintLen64]byte
	for _, part := range [...][]byte{[]byte(req.callerKey()), []byte(ws), []byte(t.def.Name), canonicalArguments(call.args)} {
		h.Write(binary.AppendUvarint(n[:0], uint64(len(part))))
		h.Write(part)
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}

// canonicalArguments is args decoded and encoded again: members sorted by
// name, no insignificant space, strings escaped one way, numbers as
// written. Two encodings of the same arguments then digest alike. The
// arguments passed the input schema, so they decode; should they not,
// they are taken as they are.
func canonicalArguments(args []byte) []byte {
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return args
	}
	b, err := json.Marshal(v)
	if err != nil {
		return args
	}
	return b
}

// interrupted answers a tool call whose route returned without writing
// while its request's context was done (the caller left, the call was
// cancelled or timed out), or whose function returned its context's
// error: no outcome. Nothing is recorded for it — a confirmed call's
// lease is released, so the next retry runs the route again, with the same
// Idempotency-Key — and the answer says neither that it ran nor that it
// did not: it says to retry for the outcome, as confirmation_in_progress
// does. The audit line says "interrupted", never "executed".
func (req *request) interrupted(t *tool, call *Call) (seam.Result, error) {
	if call.idemKey != "" {
		req.claim.interrupt()
		req.confirmation = "interrupted"
		req.audit(t, call, "interrupted")
		return nil, unavailable("The confirmed call was interrupted before its outcome was known; retry shortly for its outcome", "confirmation_interrupted")
	}
	req.Log(slog.LevelInfo, "mcp: a tool call was interrupted: its request ended before the tool answered", "tool", t.def.Name)
	return nil, unavailable("The call was interrupted before the tool answered; retry it for its outcome", "call_interrupted")
}

// recorded is an outcome summary read back.
type recorded struct {
	Executed bool  `json:"executed"`
	Panicked bool  `json:"panicked"`
	Failed   bool  `json:"failed"`
	Status   int   `json:"status"`
	At       int64 `json:"at"`
	// Unreadable: the summary is none the endpoint writes (corrupt,
	// truncated, written by something else), so what became of the call
	// is not known; every other field is zero.
	Unreadable bool `json:"-"`
}

// unreadable is the record of a summary that cannot be read.
var unreadable = recorded{Unreadable: true}

// maxRecordedAt bounds a summary's time (the year 10000), so that a value
// from storage always formats as RFC 3339.
const maxRecordedAt = 253402300800

// readRecorded reads a summary from the guard's storage as untrusted: only
// its known fields, by their exact names, each once, checked. Anything
// else is Unreadable: the confirmation was used, but whether the tool ran
// is not known, and reading it as "did not run" would tell a client a
// destructive call had no effect when it may have had one. encoding/json
// matches a struct's names without regard to case, so
// {"executed":false,"EXECUTED":true} read as a run: only outcomeSummary
// and settle write a summary, always with "executed", and never that.
func readRecorded(summary []byte) recorded {
	var fields map[string]json.RawMessage
	if json.Unmarshal(summary, &fields) != nil || fields == nil {
		return unreadable
	}
	members := 0
	for it := jsonrpc.NewIter(summary); ; members++ {
		if _, _, ok := it.Next(); !ok {
			break
		}
	}
	if members != len(fields) { // a name twice: which one is meant?
		return unreadable
	}
	if _, ok := fields["executed"]; !ok {
		return unreadable
	}
	for name := range fields {
		if name != "executed" && strings.EqualFold(name, "executed") {
			// {"executed":false,"Executed":true}: a decoder that ignores
			// case reads a run, this one would not; which is meant is not
			// known. (A variant of another name only hides a detail of a
			// run, and is ignored as any unknown member is.)
			return unreadable
		}
	}
	var o recorded
	for name, dst := range map[string]any{"executed": &o.Executed, "panicked": &o.Panicked, "failed": &o.Failed, "status": &o.Status, "at": &o.At} {
		if v, ok := fields[name]; ok && json.Unmarshal(v, dst) != nil {
			return unreadable
		}
	}
	if o.Status < 0 || o.Status > 999 {
		return unreadable
	}
	if o.At < 0 || o.At >= maxRecordedAt {
		o.At = 0
	}
	return o
}

// ranHow says how a recorded run went, after "the tool ran".
func ranHow(o recorded) string {
	switch {
	case o.Panicked:
		return " and failed with an internal error"
	case o.Failed:
		return " and reported an error"
	case o.Status > 0:
		return " and its service answered status " + strconv.Itoa(o.Status)
	}
	return ""
}

// alreadyRan answers a retry of a confirmation that ran: the recorded
// outcome, not a bare refusal. The summary comes from the guard's storage
// and is read as untrusted: only its known fields, checked, are shown.
func alreadyRan(f features, summary []byte) *toolResult {
	o := readRecorded(summary)
	text := "Not executed again (confirmation_already_used): this confirmation was already used"
	structured := []byte(`{"outcome":"confirmation_already_used","executed":` + strconv.FormatBool(o.Executed))
	switch {
	case o.Executed && o.Panicked:
		structured = append(structured, `,"panicked":true`...)
	case o.Executed && o.Failed:
		structured = append(structured, `,"failed":true`...)
	case o.Executed && o.Status > 0:
		structured = append(structured, `,"status":`...)
		structured = strconv.AppendInt(structured, int64(o.Status), 10)
	}
	switch {
	case o.Unreadable:
		// As a call interrupted before its outcome was known is answered
		// (interrupted), it neither ran nor did not: executed is null.
		// Unlike that call, this one is not retried for its outcome: the
		// record will not read better, and the confirmation is spent.
		structured = []byte(`{"outcome":"confirmation_already_used","executed":null`)
		return unknownOutcome(f, text, structured)
	case o.Executed:
		text += "; the tool ran" + ranHow(o)
	default:
		text += "; the tool did not run"
	}
	if o.At > 0 {
		at := time.Unix(o.At, 0).UTC().Format(time.RFC3339)
		text += " at " + at
		structured = append(structured, `,"at":"`+at+`"`...)
	}
	text += ". Call the tool again to get a new confirmation if the user wants to repeat it."
	res := textResult(text, true)
	if f.OutputSchema {
		res.structured = json.RawMessage(append(structured, `,"retryable":false}`...))
	}
	return res
}

// unknownOutcome answers a retry of a used confirmation whose recorded
// outcome cannot be read: whether the tool ran is not known, and the
// answer says so rather than either way.
func unknownOutcome(f features, text string, structured []byte) *toolResult {
	text += "; its outcome is not known (the record of it cannot be read), so the tool may or may not have run. " +
		"Check whether it took effect before calling the tool again to get a new confirmation."
	res := textResult(text, true)
	if f.OutputSchema {
		res.structured = json.RawMessage(append(structured, `,"retryable":false}`...))
	}
	return res
}

// ranBefore is what a confirmation question says first when the same call
// ran within LastRunTTL (summary is the guard's LastRun, nil for none):
// when it ran and what its route answered, so the user decides knowing
// it. "" when nothing is known to have run.
func ranBefore(summary []byte) string {
	if summary == nil {
		return ""
	}
	o := readRecorded(summary)
	if !o.Executed {
		return ""
	}
	text := "Note: this call, with the same arguments, already ran"
	if o.At > 0 {
		text += " at " + time.Unix(o.At, 0).UTC().Format(time.RFC3339)
	}
	return text + ranHow(o) + ". Confirm only if it should run again."
}

// guardInstance names the process-local guard that enforces single use of
// this endpoint's confirmations, or is "" when the guard is shared (or
// there is none): a confirmation is bound to it when it is asked.
func (h *Handler) guardInstance() string { return h.cfg.localGuard }

// boundHere reports whether a confirmation's state was issued under this
// endpoint's guard instance. A key ring outlives a process; the in-memory
// guard does not, so a state it cannot have recorded must not run here.
func (h *Handler) boundHere(rd *round) bool {
	return string(rd.state.instance) == h.guardInstance()
}

// audit logs what became of a confirmed destructive call: who (principal
// and workspace), what (tool, a digest of the arguments, the idempotency
// key) and the outcome — the route's status once it ran, or why it did
// not run.
func (req *request) audit(t *tool, call *Call, outcome string) {
	if !req.handler.cfg.logger.Enabled(req.ctx(), slog.LevelInfo) {
		return
	}
	ws, _ := req.Workspace()
	sum := sha256.Sum256(call.args)
	req.Log(slog.LevelInfo, "mcp: destructive tool", "tool", t.def.Name, "outcome", outcome,
		"principal", req.principal.Key(), "workspace", ws, "arguments", hex.EncodeToString(sum[:8]),
		"idempotencyKey", call.idemKey)
}
