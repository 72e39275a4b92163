package mcp

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/seam"
)

// Purposes of a round: which flow minted its state.
const (
	purposeConfirm = "confirm"
	purposeTool    = "tool"
)

// invalidState is seam.InvalidState as the core's error.
func invalidState() *Error {
	e, _ := asError(seam.InvalidState())
	return e
}

// roundState is the plaintext of a requestState: which flow minted it,
// which keys it asked for (answers to other keys are ignored), and the
// handler's payload.
type roundState struct {
	V       int               `json:"v"`
	Purpose string            `json:"u"` // "confirm" or "tool"
	Keys    map[string]string `json:"k"` // key -> kind
	Payload []byte            `json:"p,omitempty"`
	// Instance binds a confirmation to the process-local guard that
	// enforces its single use (see boundHere); "" with a shared guard.
	Instance string `json:"i,omitempty"`
	// Def is the definition digest of the tool it was made for: a retry
	// after the tool changed is refused (update.go).
	Def string `json:"d,omitempty"`
	// Forms holds, for each form elicitation a handler asked, the
	// validation keywords of its requestedSchema (formKeywords), as JSON
	// text in a string: an accepted answer is checked against them when
	// the retry comes. A string, not the object, so that the plaintext
	// stays within roundStateDepth however deep the form: a replica of
	// the version before forms were checked refuses a deeper one, and
	// during a rollout it would refuse every retry that answers a form,
	// where it can ignore "f" and answer unchecked. A confirmation's one
	// boolean is checked by confirm itself.
	Forms map[string]string `json:"f,omitempty"`
}

// roundStateDepth bounds the nesting of a round's plaintext. Replicas
// before "f" refuse more, and read such states otherwise alike: keep it.
const roundStateDepth = 4

// parseRoundState reads the plaintext an earlier round minted. It is
// authenticated, but is checked as if it were not.
func parseRoundState(b []byte) (openedState, bool) {
	var st openedState
	if jsonrpc.Validate(b, roundStateDepth) != nil {
		return st, false
	}
	var version bool
	it := jsonrpc.NewIter(b)
	for {
		k, v, ok := it.Next()
		if !ok {
			break
		}
		switch string(k) {
		case "v":
			version = string(v) == "1"
		case "u":
			switch string(v) {
			case `"` + purposeConfirm + `"`:
				st.purpose = purposeConfirm
			case `"` + purposeTool + `"`:
				st.purpose = purposeTool
			}
		case "k":
			if !jsonrpc.IsObject(v) {
				return st, false
			}
			kinds := jsonrpc.NewIter(v)
			for {
				_, kind, ok := kinds.Next()
				if !ok {
					break
				}
				if len(kind) == 0 || kind[0] != '"' {
					return st, false
				}
			}
			st.keys = v
		case "f":
			if !jsonrpc.IsObject(v) {
				return st, false
			}
			forms := jsonrpc.NewIter(v)
			for {
				_, form, ok := forms.Next()
				if !ok {
					break
				}
				// A form's text is compiled when an answer is checked:
				// one that is not a schema leaves the state invalid
				// then (errFormKeywords).
				if len(form) < 2 || form[0] != '"' {
					return st, false
				}
			}
			st.forms = v
		case "i":
			// An instance id is base32 text: a string with no escape.
			if len(v) < 2 || v[0] != '"' || bytes.IndexByte(v, '\\') >= 0 {
				return st, false
			}
			st.instance = v[1 : len(v)-1]
		case "d":
			// A digest is hex text: a string with no escape.
			if len(v) < 2 || v[0] != '"' || bytes.IndexByte(v, '\\') >= 0 {
				return st, false
			}
			st.def = v[1 : len(v)-1]
		case "p":
			if jsonrpc.IsNull(v) {
				continue
			}
			text, ok := jsonrpc.String(v)
			if !ok {
				return st, false
			}
			p, err := base64.StdEncoding.DecodeString(text)
			if err != nil {
				return st, false
			}
			st.payload = p
		}
	}
	return st, version && st.purpose != ""
}

// newCall describes req to the handler that serves target. What it holds
// aliases the request body, which is never reused, so a handler may keep
// the Call beyond the request. The first run's Call lives in the request;
// a run after it (the 2025 ask loop runs the method again with each
// answer) gets one of its own, since the Call handed to the run before
// may still be held, and read, by what that run left behind.
func (req *request) newCall(target string, args json.RawMessage) *Call {
	c := &req.call
	if c.method != "" {
		c = new(Call)
	}
	*c = Call{method: req.msg.Method, tool: target, version: req.version, caps: req.clientCaps, capBits: req.capBits,
		args: args, canAsk: req.rev.f.InputRequests || req.legacyAsks(), notify: req.notify}
	return c
}

// inputRequired builds the interim result for reqs, checking that every
// key is valid and unique and that the client declared every capability
// the requests need. A missing capability is -32021 with
// data.requiredCapabilities.
func (req *request) inputRequired(purpose string, payload []byte, reqs []InputRequest, extra map[string]any) (*seam.InputRequired, error) {
	if len(reqs) == 0 && payload == nil {
		return nil, errors.New("mcp: an input-required answer needs an input request or a state")
	}
	have := req.capBits
	var missing Capability
	rs := roundState{V: 1, Purpose: purpose, Keys: map[string]string{}, Payload: payload}
	if purpose == purposeConfirm {
		rs.Instance = req.handler.guardInstance()
	}
	if t := req.tool; t != nil {
		rs.Def = t.digest
	}
	b := []byte{'{'}
	for i, q := range reqs {
		if q.err != nil {
			return nil, fmt.Errorf("mcp: input request %q: %w", q.key, q.err)
		}
		if q.key == "" || len(q.key) > maxInputKey {
			return nil, fmt.Errorf("mcp: input request key %q must have 1 to %d bytes", q.key, maxInputKey)
		}
		if !utf8.ValidString(q.key) {
			// JSON would carry it with U+FFFD in place of the bad bytes:
			// the answer would come back under a key the handler never
			// looks up, and the client would be asked forever.
			return nil, fmt.Errorf("mcp: input request key %q is not valid UTF-8", q.key)
		}
		if _, dup := rs.Keys[q.key]; dup {
			return nil, fmt.Errorf("mcp: input request key %q used twice", q.key)
		}
		rs.Keys[q.key] = q.kind
		if q.form != nil && purpose == purposeTool {
			keywords, err := req.handler.forms.asked(q.form)
			if err != nil {
				return nil, fmt.Errorf("mcp: input request %q: %w", q.key, err)
			}
			if rs.Forms == nil {
				rs.Forms = map[string]string{}
			}
			rs.Forms[q.key] = string(keywords)
		}
		missing |= q.needs &^ have
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonrpc.AppendString(b, q.key)
		b = append(b, `:{"method":`...)
		b = jsonrpc.AppendString(b, q.method)
		if q.params != nil {
			b = append(b, `,"params":`...)
			b = append(b, q.params...)
		}
		b = append(b, '}')
	}
	if missing != 0 {
		data := map[string]any{"requiredCapabilities": requiredCapabilities(missing)}
		for k, v := range extra {
			data[k] = v
		}
		return nil, NewError(CodeMissingRequiredClientCapabilities, "The request needs client capabilities it did not declare").WithData(data)
	}
	state, err := json.Marshal(rs)
	if err != nil {
		return nil, err
	}
	if req.rev != nil && req.rev.f.StateRoom > 0 && len(state) > req.rev.f.StateRoom {
		large := newStateTooLarge(rs, len(state), req.rev.f.StateRoom)
		if large.named == 0 {
			return nil, large // the payload does not fit: the handler's bug
		}
		// The forms' checks are what does not fit. A form is asked as it
		// was before answers were checked against it: the largest forms'
		// checks stay out of the state, as few as make it fit, and their
		// answers are checked for their shape only. Logged, naming them.
		for _, f := range large.forms[:large.named] {
			delete(rs.Forms, f.key)
		}
		if state, err = json.Marshal(rs); err != nil {
			return nil, err
		}
		if len(state) > req.rev.f.StateRoom {
			return nil, large
		}
		large.warn(req)
	}
	res := &seam.InputRequired{State: state}
	if len(reqs) > 0 {
		res.Requests = append(b, '}')
	}
	return res, nil
}

// attachRound gives call the opened state of a retry and the answers to
// the keys that state asked, checked for their shape and, an accepted
// form, against the form asked.
func (req *request) attachRound(call *Call) error {
	err := req.roundPart.attach(call, req.handler)
	switch err {
	case errWrongPurpose:
		req.Log(slog.LevelWarn, "mcp: requestState refused", "reason", "wrong_purpose", "method", req.msg.Method)
		return invalidState()
	case errFormKeywords:
		req.Log(slog.LevelWarn, "mcp: requestState refused", "reason", "bad_form", "method", req.msg.Method)
		return invalidState()
	}
	return err
}

// errWrongPurpose: a call (a tool's, a prompt's, a resource read) came
// back with a requestState minted for a confirmation; logged, then
// invalidState.
var errWrongPurpose = errors.New("mcp: requestState of another purpose")

// attach is the round stage's attachRound: the answers a retry carries,
// under the keys its state asked (or, with no state, every loose answer).
// h checks an accepted form's content (round.answer).
func (rp *roundPart) attach(call *Call, h *Handler) error {
	rd := rp.round
	if rd == nil {
		if rp.loose == nil {
			return nil
		}
		// Checked here, read where they lie (Call.InputResponse): a map of
		// every member cost 22 times the body, for 1 MiB of answers no
		// handler asked for.
		it := jsonrpc.NewIter(rp.loose)
		for {
			k, v, ok := it.Next()
			if !ok {
				call.round = &round{responses: rp.loose, loose: true}
				return nil
			}
			if !jsonrpc.IsObject(v) {
				return invalidInputResponses(string(k))
			}
		}
	}
	if rd.state.purpose != purposeTool {
		return errWrongPurpose
	}
	call.round = rd
	call.answers = map[string]json.RawMessage{}
	keys := jsonrpc.NewIter(rd.state.keys)
	for {
		k, _, more := keys.Next()
		if !more {
			return nil
		}
		key := string(k)
		v, ok, err := rd.answer(key, h)
		if err != nil {
			return err
		}
		if ok {
			call.answers[key] = v
		}
	}
}

// errHandlerBug marks an input request a handler got wrong (logged).
var errHandlerBug = errors.New("mcp: invalid input request")

// stateTooLarge measures a round whose plaintext would not fit in a
// sealed requestState (seam.Profile.StateRoom). A form's checks travel in
// the state (record 004) and are most often what does not fit (an enum of
// a few hundred choices is kilobytes of them): the largest (named) are
// then left out and logged (warn). When the payload is what does not fit
// it is inputRequired's refusal, the handler's bug as any other of its
// input requests, logged saying so (log).
type stateTooLarge struct {
	size, room int
	payload    int        // bytes of the handler's payload
	forms      []formCost // each form's share of the plaintext, largest first
	named      int        // how many of forms, largest first, are left out (0: the payload does not fit)
}

// formCost is a form's share of a round's plaintext: its key and its
// keywords as the plaintext spells them.
type formCost struct {
	key   string
	bytes int
}

func newStateTooLarge(rs roundState, size, room int) *stateTooLarge {
	e := &stateTooLarge{size: size, room: room, payload: len(rs.Payload)}
	total := 0
	for key, keywords := range rs.Forms {
		k, _ := json.Marshal(key)
		v, _ := json.Marshal(keywords)
		e.forms = append(e.forms, formCost{key: key, bytes: len(k) + len(v) + 2}) // the colon, a comma
		total += len(k) + len(v) + 2
	}
	slices.SortFunc(e.forms, func(a, b formCost) int {
		return cmp.Or(cmp.Compare(b.bytes, a.bytes), strings.Compare(a.key, b.key))
	})
	if total < size-room {
		return e // without every form's checks the state would still not fit
	}
	// The largest forms, as many as leaving out would make the state fit.
	for over := size - room; over > 0; e.named++ {
		over -= e.forms[e.named].bytes
	}
	return e
}

func (e *stateTooLarge) Error() string {
	return fmt.Sprintf("mcp: the requestState would be %d bytes before sealing, past the %d the era seals", e.size, e.room)
}

// warn logs the forms whose checks were left out of a state they did not
// fit (named, largest first): their answers are checked for their shape
// only. It names their keys and sizes, never their keywords, which hold
// the choices a handler offers.
func (e *stateTooLarge) warn(req *request) {
	args := []any{"method", req.call.method, "target", req.call.tool}
	args = append(args, e.keysOf(e.forms[:e.named])...)
	args = append(args, "state_bytes", e.size, "limit_bytes", e.room)
	req.Log(slog.LevelWarn, "mcp: the checks of the forms named do not fit in the sealed requestState, so their answers are not checked "+
		"against them, only for their shape: a form's validation keywords travel in the state (its titles and descriptions do not); "+
		"ask fewer choices or properties, or split the form over rounds", args...)
}

func (e *stateTooLarge) keysOf(forms []formCost) []any {
	keys, sizes := make([]string, len(forms)), make([]int, len(forms))
	for i, f := range forms {
		keys[i], sizes[i] = f.key, f.bytes
	}
	return []any{"keys", keys, "form_bytes", sizes}
}

// log writes the one line that says what makes the state too large, the
// payload, listing the keys and sizes of the forms asked beside it.
func (e *stateTooLarge) log(req *request, call *Call) {
	args := []any{"method", call.method, "target", call.tool}
	args = append(args, "payload_bytes", e.payload, "state_bytes", e.size, "limit_bytes", e.room)
	if len(e.forms) > 0 {
		args = append(args, e.keysOf(e.forms)...)
	}
	req.logError("mcp: the payload of RequireInput does not fit in the sealed requestState; keep it small and large data in your own storage", args...)
}

// pendingInput turns a handler's RequireInput into the interim result, or
// the -32021 of an undeclared capability, or errHandlerBug.
func (req *request) pendingInput(call *Call) (*seam.InputRequired, error) {
	res, err := req.inputRequired(purposeTool, call.pendingState, call.pendingReqs, nil)
	var e *Error
	var large *stateTooLarge
	switch {
	case err == nil:
		return res, nil
	case errors.As(err, &e):
		return nil, e
	case errors.As(err, &large):
		large.log(req, call)
		return nil, errHandlerBug
	}
	req.logError("mcp: invalid input request", "method", call.method, "target", call.tool, "err", err)
	return nil, errHandlerBug
}

// pendingTool answers a tool handler's RequireInput: isError results where
// the client cannot be asked or the handler erred.
func (req *request) pendingTool(t *tool, call *Call) (seam.Result, error) {
	if !call.canAsk {
		return textResult("The tool "+t.def.Name+" needs input from the user or the client (elicitation, sampling or roots), "+
			"which a server can only ask for over MCP 2026-07-28. This client speaks "+string(req.version)+"; the call did not complete.", true), nil
	}
	if t.confirms() {
		req.logError("mcp: a confirmed destructive tool asked for more input; turn confirmation off (WithoutConfirmation) to run your own rounds", "tool", t.def.Name)
		return textResult("The tool failed with an internal error.", true), nil
	}
	res, err := req.pendingInput(call)
	if err == errHandlerBug {
		return textResult("The tool failed with an internal error.", true), nil
	}
	if err != nil && !req.rev.f.InputRequests {
		// A 2025 client asked over its stream (WithLegacyInput) that did
		// not declare what this question needs: what it got before.
		return textResult("The tool "+t.def.Name+" needs input from the user or the client that this client did not declare it can give; the call did not complete.", true), nil
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// pendingOther answers a resource's or prompt's RequireInput; these
// methods have no isError result, so failures are JSON-RPC errors.
func (req *request) pendingOther(call *Call) (seam.Result, error) {
	if !call.canAsk {
		return nil, needsInputRevision(req.version)
	}
	res, err := req.pendingInput(call)
	if err == errHandlerBug {
		return nil, errInternal()
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// needsInputRevision answers a 2025 request whose prompt or resource asks
// the client for input: these revisions cannot carry input requests, and
// prompts/get and resources/read have no isError result to say so in, so
// it is a precise protocol error rather than an internal one.
func needsInputRevision(v Version) *Error {
	return NewError(CodeInvalidRequest, "This request needs input from the client, which a server can only ask for over MCP "+
		string(Version20260728)+"; this client speaks "+string(v)+". Connect with a client that supports "+string(Version20260728)+".").
		WithData(map[string]string{"reason": "input_requires_newer_revision", "requiredVersion": string(Version20260728)})
}

// SetRound implements seam.Core: it takes a requestState the era opened and verified,
// with the retry's inputResponses. The era calls it before dispatch; state
// is the State of the seam.InputRequired it sealed, until the last instant
// the sealer would open it. inputResponses that are present but not an
// object are refused here.
func (req *request) SetRound(state, nonce []byte, until time.Time, inputResponses []byte) error {
	if state == nil {
		return req.roundPart.setAnswers(inputResponses)
	}
	rs, ok := parseRoundState(state)
	if !ok {
		req.Log(slog.LevelWarn, "mcp: requestState refused", "reason", "bad_plaintext")
		return invalidState()
	}
	if inputResponses != nil && !jsonrpc.IsObject(inputResponses) {
		return invalidInputResponses("")
	}
	req.roundPart.retry(round{state: rs, nonce: nonce, until: until, responses: inputResponses})
	return nil
}

// withRound makes rd the round of req, as a retry that carries it, and
// returns req: the 2025 ask loop's explicit retry (its serve, in
// methods.go).
func (req *request) withRound(rd round) *request {
	req.roundPart.retry(rd)
	return req
}

// retry makes rd the round: the era's SetRound and the 2025 ask loop are
// the two places that give a request one. A retry allocates its round; a
// first call, by far the most frequent, does not carry room for one.
func (rp *roundPart) retry(rd round) {
	rp.round = &rd
}

// setAnswers takes the inputResponses of a request that carries
// no requestState. A tool's handler still sees them (a server
// that keeps no state between rounds may not need one), but they never
// count as an answer to a question the server asked: a destructive tool's
// confirmation ignores them.
func (rp *roundPart) setAnswers(inputResponses []byte) error {
	if inputResponses == nil {
		return nil
	}
	if !jsonrpc.IsObject(inputResponses) {
		return invalidInputResponses("")
	}
	rp.loose = inputResponses
	return nil
}

// confirms reports whether calls of t wait for the user's confirmation.
func (t *tool) confirms() bool {
	return t.def.Annotations.Destructive && !t.def.Annotations.ReadOnly && !t.opts.noConfirm
}

// legacyAsks reports whether this 2025 call can be asked for input: it can
// stream and its session declared something the server may ask for.
func (req *request) legacyAsks() bool {
	return req.notify != nil && req.notify.legacy && req.capBits&(CapElicitationForm|CapElicitationURL|CapSampling|CapRoots) != 0
}
