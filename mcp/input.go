package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/url"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/schema"
	"github.com/mcpdual/mcpdual/mcp/content"
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

	// capMultiSelect: a form with a multi-select (an array property),
	// which form elicitation brings from 2025-11-25 on; before, a form's
	// properties are primitives only. Declared with form elicitation, so
	// it is never missing alone and is not exported.
	capMultiSelect Capability = 1 << 5
	// capTasks: the io.modelcontextprotocol/tasks extension, under
	// "extensions". Not an input request's need, so not exported.
	capTasks Capability = 1 << 7
)

// requiredCapabilities renders the missing capabilities as a
// ClientCapabilities object, the form -32021's data.requiredCapabilities
// takes.
func requiredCapabilities(missing Capability) map[string]any {
	m := map[string]any{}
	el := map[string]any{}
	if missing&(CapElicitationForm|capMultiSelect) != 0 {
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
	if missing&capTasks != 0 {
		m["extensions"] = map[string]any{tasksExtension: struct{}{}}
	}
	return m
}

// InputRequest is one question a tool asks the client before it can
// finish: an elicitation, a sampling request or a roots listing. Build it
// with ElicitForm, ElicitURL, Sample or ListRoots. Its key names the answer
// (Call.InputResponse): 1 to 64 bytes, used once among the requests of one
// RequireInput. Another key makes the call that asks end as an internal
// error, logged, as an invalid request does.
type InputRequest struct {
	key    string
	kind   string // "elicitation", "sampling" or "roots"
	method string
	params json.RawMessage
	needs  Capability
	err    error
	// form is a form's requestedSchema as params carries it (compact),
	// which the round's state keeps the checks of; nil for other kinds.
	form json.RawMessage
}

// ElicitForm asks the user to fill in a form: a flat object schema of
// primitive properties (string, number, integer, boolean, or an array of
// strings for a multi-select) and a non-empty message; anything else makes
// the request invalid, and a call that asks with it ends as an internal
// error, logged. So does a schema of that shape that does not compile as
// JSON Schema (2020-12 unless it names its "$schema"), since no answer
// could be checked against it. Form mode must never ask for secrets
// (passwords, tokens); use ElicitURL for those.
//
// An accepted answer's content is checked against requestedSchema before
// the handler sees it (Call.InputResponse, Call.Elicitation): content the
// form does not allow ends the call with -32602 "Invalid inputResponses",
// whose data names the key and the first violation, and the handler does
// not run. An accept without content is checked as an empty form. Over
// 2026-07-28 the schema's validation keywords (not its titles,
// descriptions or defaults) travel in the sealed requestState, and count
// toward its 4 KiB with the state's payload (sealing takes its share: the
// plaintext holds about 2 KiB, which an enum of a few hundred choices
// passes); a form whose checks do not fit is asked with its checks left
// out, its answer checked for its shape only, and a warning logged naming
// its key. format is checked only where the schema's dialect asserts it
// (before 2019-09).
func ElicitForm(key, message string, requestedSchema json.RawMessage) InputRequest {
	r := InputRequest{key: key, kind: "elicitation", method: "elicitation/create", needs: CapElicitationForm}
	if !jsonrpc.IsObject(requestedSchema) || jsonrpc.Validate(requestedSchema, jsonrpc.DefaultMaxDepth) != nil {
		r.err = errors.New("requestedSchema must be a JSON object")
		return r
	}
	if message == "" {
		r.err = errors.New("an elicitation needs a message")
		return r
	}
	if bytes.Contains(requestedSchema, []byte("true")) || bytes.Contains(requestedSchema, []byte("false")) {
		// Only a literal can be a boolean subschema, which clients refuse.
		if doc, err := schema.Decode(requestedSchema, 0); err == nil {
			if err := schema.Objects(doc); err != nil {
				r.err = errors.New("requestedSchema." + err.Error())
				return r
			}
		}
	}
	multi, err := formShape(requestedSchema)
	if err != nil {
		r.err = err
		return r
	}
	if multi {
		r.needs |= capMultiSelect
	}
	r.params, r.err = json.Marshal(struct {
		Mode            string          `json:"mode"`
		Message         string          `json:"message"`
		RequestedSchema json.RawMessage `json:"requestedSchema"`
	}{"form", message, requestedSchema})
	if r.err == nil {
		// The schema the client is shown, not the caller's bytes, which
		// it may still change before the request is asked.
		r.form, _ = jsonrpc.Lookup(r.params, "requestedSchema")
	}
	return r
}

// ElicitURL sends the user to url (an absolute http or https URL, best an
// https page of the host) to complete an interaction out of band, such as
// a login. An empty message or another URL makes the request invalid: a
// call that asks with it ends as an internal error, logged. The URL must carry no
// secret or personal data and must not be pre-authenticated; the page must
// check that the user completing it is the one who started it.
func ElicitURL(key, message, rawURL string) InputRequest {
	r := InputRequest{key: key, kind: "elicitation", method: "elicitation/create", needs: CapElicitationURL}
	if message == "" {
		r.err = errors.New("an elicitation needs a message")
		return r
	}
	if u, err := url.Parse(rawURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		r.err = errors.New("url must be an absolute http or https URL")
		return r
	}
	r.params, r.err = json.Marshal(struct {
		Mode    string `json:"mode"`
		Message string `json:"message"`
		URL     string `json:"url"`
	}{"url", message, rawURL})
	return r
}

// formShape checks what the spec allows as a form's requestedSchema: an
// object schema whose properties are all primitive (string, number,
// integer, boolean) or a multi-select array of them; nothing nests.
// Members are read by their exact names, as a client reads them: decoded
// into a struct, encoding/json would take "TYPE" or "Type" for "type",
// the last of them winning, and pass a nested object that spells its
// type twice. multi reports a multi-select, which only a client of
// 2025-11-25 or later can be asked.
func formShape(raw json.RawMessage) (multi bool, err error) {
	doc, derr := schema.Decode(raw, 0)
	root, _ := doc.(map[string]any)
	props, _ := root["properties"].(map[string]any)
	if derr != nil || root["type"] != "object" || props == nil {
		return false, errors.New(`requestedSchema must be {"type":"object","properties":{...}}`)
	}
	for name, p := range props {
		prop, ok := p.(map[string]any)
		if !ok {
			return false, errors.New("requestedSchema.properties." + name + " must be an object")
		}
		switch prop["type"] {
		case "string", "number", "integer", "boolean":
		case "array":
			items, isObject := prop["items"].(map[string]any)
			if !isObject {
				return false, errors.New("requestedSchema.properties." + name + ": an array is a multi-select of strings")
			}
			if t, typed := items["type"]; typed && t != "string" {
				return false, errors.New("requestedSchema.properties." + name + ": an array is a multi-select of strings")
			}
			multi = true
		default:
			return false, errors.New("requestedSchema.properties." + name + ": only string, number, integer, boolean or a multi-select array")
		}
	}
	return multi, nil
}

// SamplingMessage is one message of a sampling request.
type SamplingMessage struct {
	Role    content.Role  `json:"role"`
	Content content.Block `json:"content"`
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

// Sample asks the client to run its model on s: at least one message,
// each with a role (content.User or content.Assistant) and content, and a
// positive MaxTokens; anything else makes the request invalid, and a call
// that asks with it ends as an internal error, logged. Tools or ToolChoice
// make it need the client's sampling.tools capability.
func Sample(key string, s SamplingRequest) InputRequest {
	r := InputRequest{key: key, kind: "sampling", method: "sampling/createMessage", needs: CapSampling}
	if s.Tools != nil || s.ToolChoice != nil {
		r.needs |= CapSamplingTools
	}
	if len(s.Messages) == 0 || s.MaxTokens <= 0 {
		r.err = errors.New("a sampling request needs messages and a positive maxTokens")
		return r
	}
	for _, m := range s.Messages {
		if !m.Role.Valid() || m.Content.IsZero() {
			r.err = errors.New("every sampling message needs a role (content.User or content.Assistant) and content")
			return r
		}
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

// ElicitAction is what the user did with an elicitation.
type ElicitAction string

// The actions of an elicitation's answer.
const (
	ElicitAccept  ElicitAction = "accept"  // submitted the form: Content holds it
	ElicitDecline ElicitAction = "decline" // refused explicitly
	ElicitCancel  ElicitAction = "cancel"  // dismissed without choosing
)

// ElicitResult is the user's answer to an elicitation.
type ElicitResult struct {
	Action  ElicitAction
	Content json.RawMessage // the form's values when accepted (nil otherwise)
}

// tasksExtension is the extension's name in capabilities.extensions.
const tasksExtension = "io.modelcontextprotocol/tasks"
