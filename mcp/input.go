package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
)

// Capability is a client capability an input request depends on. A client
// declares its capabilities with every 2026-07-28 request; a server may ask
// only for what was declared.
type Capability uint8

// The capabilities input requests need.
const (
	CapElicitationForm Capability = 1 << iota // "elicitation": {} or {"form": {}}
	CapElicitationURL                         // "elicitation": {"url": {}}
	CapSampling                               // "sampling": {}
	CapSamplingTools                          // "sampling": {"tools": {}}
	CapRoots                                  // "roots": {}
)

// capabilitiesOf reads a clientCapabilities object. "elicitation": {}
// means form mode only; form is also assumed when the object names neither
// mode.
func capabilitiesOf(raw json.RawMessage) Capability {
	var c Capability
	if len(raw) == 0 || raw[0] != '{' {
		return 0
	}
	if el, ok := jsonrpc.Lookup(raw, "elicitation"); ok && isObject(el) {
		_, form := jsonrpc.Lookup(el, "form")
		url, hasURL := jsonrpc.Lookup(el, "url")
		if form || !hasURL {
			c |= CapElicitationForm
		}
		if hasURL && isObject(url) {
			c |= CapElicitationURL
		}
	}
	if s, ok := jsonrpc.Lookup(raw, "sampling"); ok && isObject(s) {
		c |= CapSampling
		if t, ok := jsonrpc.Lookup(s, "tools"); ok && isObject(t) {
			c |= CapSamplingTools
		}
	}
	if r, ok := jsonrpc.Lookup(raw, "roots"); ok && isObject(r) {
		c |= CapRoots
	}
	return c
}

func isObject(v []byte) bool { return len(v) > 0 && v[0] == '{' }

// requiredCapabilities renders the missing capabilities as a
// ClientCapabilities object, the form -32021's data.requiredCapabilities
// takes.
func requiredCapabilities(missing Capability) map[string]any {
	m := map[string]any{}
	el := map[string]any{}
	if missing&CapElicitationForm != 0 {
		el["form"] = struct{}{}
	}
	if missing&CapElicitationURL != 0 {
		el["url"] = struct{}{}
	}
	if len(el) > 0 {
		m["elicitation"] = el
	}
	switch {
	case missing&CapSamplingTools != 0:
		m["sampling"] = map[string]any{"tools": struct{}{}}
	case missing&CapSampling != 0:
		m["sampling"] = struct{}{}
	}
	if missing&CapRoots != 0 {
		m["roots"] = struct{}{}
	}
	return m
}

// InputRequest is one question a tool asks the client before it can
// finish: an elicitation, a sampling request or a roots listing. Build it
// with ElicitForm, ElicitURL, Sample or ListRoots.
type InputRequest struct {
	key    string
	kind   string // "elicitation", "sampling" or "roots"
	method string
	params json.RawMessage
	needs  Capability
	err    error
}

// Key returns the key the answer will come back under.
func (r InputRequest) Key() string { return r.key }

// ElicitForm asks the user to fill in a form: a flat object schema of
// primitive properties. Form mode must never ask for secrets (passwords,
// tokens); use ElicitURL for those.
func ElicitForm(key, message string, requestedSchema json.RawMessage) InputRequest {
	r := InputRequest{key: key, kind: "elicitation", method: "elicitation/create", needs: CapElicitationForm}
	if !isObject(requestedSchema) || jsonrpc.Validate(requestedSchema, jsonrpc.DefaultMaxDepth) != nil {
		r.err = errors.New("requestedSchema must be a JSON object")
		return r
	}
	r.params, r.err = json.Marshal(struct {
		Mode            string          `json:"mode"`
		Message         string          `json:"message"`
		RequestedSchema json.RawMessage `json:"requestedSchema"`
	}{"form", message, requestedSchema})
	return r
}

// ElicitURL sends the user to url (an https page of the host) to complete
// an interaction out of band, such as a login. The URL must carry no
// secret or personal data and must not be pre-authenticated; the page must
// check that the user completing it is the one who started it.
func ElicitURL(key, message, url string) InputRequest {
	r := InputRequest{key: key, kind: "elicitation", method: "elicitation/create", needs: CapElicitationURL}
	r.params, r.err = json.Marshal(struct {
		Mode    string `json:"mode"`
		Message string `json:"message"`
		URL     string `json:"url"`
	}{"url", message, url})
	return r
}

// SamplingMessage is one message of a sampling request.
type SamplingMessage struct {
	Role    string          `json:"role"` // "user" or "assistant"
	Content json.RawMessage `json:"content"`
}

// TextMessage returns a sampling message with one text block.
func TextMessage(role, text string) SamplingMessage {
	b := append([]byte(`{"type":"text","text":`), appendString(nil, text)...)
	return SamplingMessage{Role: role, Content: append(b, '}')}
}

// SamplingRequest asks the client's model for a completion
// (sampling/createMessage).
type SamplingRequest struct {
	Messages         []SamplingMessage `json:"messages"`
	SystemPrompt     string            `json:"systemPrompt,omitempty"`
	MaxTokens        int               `json:"maxTokens"`
	Temperature      *float64          `json:"temperature,omitempty"`
	StopSequences    []string          `json:"stopSequences,omitempty"`
	ModelPreferences json.RawMessage   `json:"modelPreferences,omitempty"`
	// Tools and ToolChoice let the model call tools; they need the
	// client's sampling.tools capability.
	Tools      json.RawMessage `json:"tools,omitempty"`
	ToolChoice json.RawMessage `json:"toolChoice,omitempty"`
}

// Sample asks the client to run its model on s.
func Sample(key string, s SamplingRequest) InputRequest {
	r := InputRequest{key: key, kind: "sampling", method: "sampling/createMessage", needs: CapSampling}
	if s.Tools != nil || s.ToolChoice != nil {
		r.needs |= CapSamplingTools
	}
	if len(s.Messages) == 0 || s.MaxTokens <= 0 {
		r.err = errors.New("a sampling request needs messages and a positive maxTokens")
		return r
	}
	r.params, r.err = json.Marshal(s)
	return r
}

// ListRoots asks the client for its roots (roots/list).
func ListRoots(key string) InputRequest {
	return InputRequest{key: key, kind: "roots", method: "roots/list", needs: CapRoots}
}

// maxInputKey bounds an input request key.
const maxInputKey = 64

// InputRequiredResult is the interim result of a 2026-07-28 tools/call,
// prompts/get or resources/read that needs input from the client first.
// The era seals State into RequestState before it is sent.
type InputRequiredResult struct {
	Stamp
	InputRequests json.RawMessage `json:"inputRequests,omitempty"`
	RequestState  string          `json:"requestState,omitempty"`

	state []byte
}

// State returns the plaintext the era must seal into RequestState. It is
// produced by this package and read back by SetInputState.
func (r *InputRequiredResult) State() []byte { return r.state }

// InvalidRequestState is the one answer to a requestState that fails
// verification, whatever the reason (the reason goes to the log only).
func InvalidRequestState() *Error {
	return NewError(CodeInvalidParams, "Invalid or expired requestState").
		WithData(map[string]string{"reason": "invalid_request_state"})
}

func invalidInputResponses(key string) *Error {
	if len(key) > maxInputKey {
		key = key[:maxInputKey]
	}
	return NewError(CodeInvalidParams, "Invalid inputResponses").
		WithData(map[string]string{"reason": "invalid_input_responses", "key": key})
}

// roundState is the plaintext of a requestState: which flow minted it,
// which keys it asked for (answers to other keys are ignored), and the
// handler's payload.
type roundState struct {
	V       int               `json:"v"`
	Purpose string            `json:"u"` // "confirm" or "tool"
	Keys    map[string]string `json:"k"` // key -> kind
	Payload []byte            `json:"p,omitempty"`
}

// round is an opened state with the answers of the retry.
type round struct {
	state     roundState
	nonce     []byte
	expires   time.Time
	responses json.RawMessage // inputResponses as sent (nil when absent)
}

// SetInputState hands the core a requestState the era opened and
// verified, with the retry's inputResponses. The era calls it before
// dispatch; state is what InputRequiredResult.State gave it to seal.
// inputResponses that are present but not an object are refused here.
func (r *Request) SetInputState(state []byte, nonce []byte, expires time.Time, inputResponses json.RawMessage) error {
	var rs roundState
	if err := json.Unmarshal(state, &rs); err != nil || rs.V != 1 || (rs.Purpose != purposeConfirm && rs.Purpose != purposeTool) {
		r.handler.cfg.logger.Warn("mcp: requestState refused", "reason", "bad_plaintext")
		return InvalidRequestState()
	}
	if inputResponses != nil && !isObject(inputResponses) {
		return invalidInputResponses("")
	}
	// Handlers may keep the answers; the body they alias is reused.
	r.round = &round{state: rs, nonce: nonce, expires: expires, responses: bytes.Clone(inputResponses)}
	return nil
}

// SetInputResponses hands the core the inputResponses of a request that
// carries no requestState. A tool's handler still sees them (a server
// that keeps no state between rounds may not need one), but they never
// count as an answer to a question the server asked: a destructive tool's
// confirmation ignores them.
func (r *Request) SetInputResponses(inputResponses json.RawMessage) error {
	if inputResponses == nil {
		return nil
	}
	if !isObject(inputResponses) {
		return invalidInputResponses("")
	}
	r.loose = bytes.Clone(inputResponses)
	return nil
}

// newCall describes req to the handler that serves target. A handler may
// keep the Call beyond the request, so nothing in it aliases the body,
// which is reused.
func (r *Request) newCall(target string, args json.RawMessage) *Call {
	return &Call{method: r.Method(), tool: target, version: r.version, caps: bytes.Clone(r.caps), capBits: r.capBits,
		args: args, perRequest: r.perRequest(), notify: r.notify}
}

// PerRequestEra reports whether the request's era is a per-request one
// (2026-07-28), the only kind that can carry input requests.
func (r *Request) perRequest() bool {
	e := r.handler.byVersion[r.version]
	return e != nil && e.PerRequest()
}

const (
	purposeConfirm = "confirm"
	purposeTool    = "tool"
)

// inputRequired builds the interim result for reqs, checking that every
// key is valid and unique and that the client declared every capability
// the requests need. A missing capability is -32021 with
// data.requiredCapabilities.
func (r *Request) inputRequired(purpose string, payload []byte, reqs []InputRequest, extra map[string]any) (*InputRequiredResult, error) {
	if len(reqs) == 0 && payload == nil {
		return nil, errors.New("mcp: an input-required answer needs an input request or a state")
	}
	have := r.capBits
	var missing Capability
	rs := roundState{V: 1, Purpose: purpose, Keys: map[string]string{}, Payload: payload}
	b := []byte{'{'}
	for i, q := range reqs {
		if q.err != nil {
			return nil, fmt.Errorf("mcp: input request %q: %w", q.key, q.err)
		}
		if q.key == "" || len(q.key) > maxInputKey {
			return nil, fmt.Errorf("mcp: input request key %q must have 1 to %d bytes", q.key, maxInputKey)
		}
		if _, dup := rs.Keys[q.key]; dup {
			return nil, fmt.Errorf("mcp: input request key %q used twice", q.key)
		}
		rs.Keys[q.key] = q.kind
		missing |= q.needs &^ have
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, q.key)
		b = append(b, `:{"method":`...)
		b = appendString(b, q.method)
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
	res := &InputRequiredResult{state: state}
	if len(reqs) > 0 {
		res.InputRequests = append(b, '}')
	}
	return res, nil
}

// answer returns the retry's response to key if this round's state asked
// for it, validated for its kind. ok is false when the key was not asked
// or not answered.
func (rd *round) answer(key string) (json.RawMessage, bool, error) {
	kind, asked := rd.state.Keys[key]
	if !asked || rd.responses == nil {
		return nil, false, nil
	}
	v, ok := jsonrpc.Lookup(rd.responses, key)
	if !ok {
		return nil, false, nil
	}
	if !validResponse(kind, v) {
		return nil, false, invalidInputResponses(key)
	}
	return v, true, nil
}

// validResponse checks the shape of an answer: an ElicitResult
// {action, content?}, a CreateMessageResult {role, content, model} or a
// ListRootsResult {roots: [...]}.
func validResponse(kind string, v []byte) bool {
	if !isObject(v) {
		return false
	}
	switch kind {
	case "elicitation":
		a, ok := jsonrpc.Lookup(v, "action")
		action, isStr := jsonrpc.String(a)
		if !ok || !isStr || (action != "accept" && action != "decline" && action != "cancel") {
			return false
		}
		if c, ok := jsonrpc.Lookup(v, "content"); ok && !isObject(c) && string(c) != "null" {
			return false
		}
		return true
	case "sampling":
		role, ok := jsonrpc.Lookup(v, "role")
		content, ok2 := jsonrpc.Lookup(v, "content")
		_, isStr := jsonrpc.String(role)
		return ok && ok2 && isStr && len(content) > 0 && (content[0] == '{' || content[0] == '[')
	case "roots":
		roots, ok := jsonrpc.Lookup(v, "roots")
		return ok && len(roots) > 0 && roots[0] == '['
	}
	return false
}

// ElicitResult is the user's answer to an elicitation.
type ElicitResult struct {
	Action  string          // "accept", "decline" or "cancel"
	Content json.RawMessage // the form's values when accepted (nil otherwise)
}

// attachRound gives call the opened state of a retry and the answers to
// the keys that state asked, checked for their shape.
func (req *Request) attachRound(call *Call) error {
	rd := req.round
	if rd == nil {
		if req.loose == nil {
			return nil
		}
		call.answers = map[string]json.RawMessage{}
		it := jsonrpc.NewIter(req.loose)
		for {
			k, v, ok := it.Next()
			if !ok {
				return nil
			}
			if !isObject(v) {
				return invalidInputResponses(string(k))
			}
			call.answers[string(k)] = v
		}
	}
	if rd.state.Purpose != purposeTool {
		req.handler.cfg.logger.Warn("mcp: requestState refused", "reason", "wrong_purpose", "method", req.Method())
		return InvalidRequestState()
	}
	call.round = rd
	call.answers = map[string]json.RawMessage{}
	for key := range rd.state.Keys {
		v, ok, err := rd.answer(key)
		if err != nil {
			return err
		}
		if ok {
			call.answers[key] = v
		}
	}
	return nil
}

// errHandlerBug marks an input request a handler got wrong (logged).
var errHandlerBug = errors.New("mcp: invalid input request")

// pendingInput turns a handler's RequireInput into the interim result, or
// the -32021 of an undeclared capability, or errHandlerBug.
func (req *Request) pendingInput(call *Call) (*InputRequiredResult, error) {
	res, err := req.inputRequired(purposeTool, call.pendingState, call.pendingReqs, nil)
	var e *Error
	switch {
	case err == nil:
		return res, nil
	case errors.As(err, &e):
		return nil, e
	}
	req.handler.cfg.logger.Error("mcp: invalid input request", "method", call.method, "target", call.tool, "err", err)
	return nil, errHandlerBug
}

// pendingTool answers a tool handler's RequireInput: isError results where
// the client cannot be asked or the handler erred.
func (req *Request) pendingTool(t *tool, call *Call) (any, error) {
	if !call.perRequest {
		return textResult("The tool "+t.def.Name+" needs input from the user or the client (elicitation, sampling or roots), "+
			"which a server can only ask for over MCP 2026-07-28. This client speaks "+string(req.Version())+"; the call did not complete.", true), nil
	}
	if t.confirms() {
		req.handler.cfg.logger.Error("mcp: a confirmed destructive tool asked for more input; turn confirmation off (WithoutConfirmation) to run your own rounds", "tool", t.def.Name)
		return textResult("The tool failed with an internal error.", true), nil
	}
	res, err := req.pendingInput(call)
	if err == errHandlerBug {
		return textResult("The tool failed with an internal error.", true), nil
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// pendingOther answers a resource's or prompt's RequireInput; these
// methods have no isError result, so failures are JSON-RPC errors.
func (req *Request) pendingOther(call *Call) (any, error) {
	if !call.perRequest {
		return nil, needsInputRevision(req.Version())
	}
	res, err := req.pendingInput(call)
	if err == errHandlerBug {
		return nil, NewError(CodeInternal, "Internal error")
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
