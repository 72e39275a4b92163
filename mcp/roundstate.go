package mcp

import (
	"encoding/json"
	"time"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
)

// asked reports whether the state asked for key as an input of kind.
func (rd *round) asked(key, kind string) bool {
	k, ok := rd.state.kind(key)
	return ok && k == kind
}

// round is an opened state with the answers of the retry.
type round struct {
	state     openedState
	nonce     []byte
	until     time.Time       // the last instant the state opens (expiry plus the sealer's skew)
	responses json.RawMessage // inputResponses as sent (nil when absent)
}

// answer returns the retry's response to key if this round's state asked
// for it, validated for its kind. ok is false when the key was not asked
// or not answered.
func (rd *round) answer(key string) (json.RawMessage, bool, error) {
	kind, asked := rd.state.kind(key)
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

func invalidInputResponses(key string) *Error {
	key = key[:jsonrpc.CutText(key, maxInputKey)]
	return NewError(CodeInvalidParams, "Invalid inputResponses").
		WithData(map[string]string{"reason": "invalid_input_responses", "key": key})
}

// openedState is a roundState read back. Keys stays the raw object, read
// by kind, so that opening a state builds no map: the second round of a
// confirmed call should cost little more than the call.
type openedState struct {
	purpose string
	keys    []byte // {"key":"kind",...}
	payload []byte

	// instance is the guard instance a confirmation is bound to, nil for
	// none.
	instance []byte
	// def is the definition digest of the tool the state was made for,
	// nil for none (update.go).
	def []byte
}

// kind returns the kind of input the state asked for under key.
func (st *openedState) kind(key string) (string, bool) {
	raw, ok := jsonrpc.Lookup(st.keys, key)
	if !ok {
		return "", false
	}
	// The kinds are few: name them without a copy.
	for _, k := range [...]string{"elicitation", "sampling", "roots"} {
		if len(raw) == len(k)+2 && string(raw[1:len(raw)-1]) == k {
			return k, true
		}
	}
	s, _ := jsonrpc.String(raw)
	return s, true
}

// validResponse checks the shape of an answer: an ElicitResult
// {action, content?}, a CreateMessageResult {role, content, model} or a
// ListRootsResult {roots: [...]}.
func validResponse(kind string, v []byte) bool {
	if !jsonrpc.IsObject(v) {
		return false
	}
	switch kind {
	case "elicitation":
		a, _ := jsonrpc.Lookup(v, "action")
		if !jsonrpc.StringIs(a, "accept") && !jsonrpc.StringIs(a, "decline") && !jsonrpc.StringIs(a, "cancel") {
			return false
		}
		if c, ok := jsonrpc.Lookup(v, "content"); ok && !jsonrpc.IsObject(c) && string(c) != "null" {
			return false
		}
		return true
	case "sampling":
		role, ok := jsonrpc.Lookup(v, "role")
		content, ok2 := jsonrpc.Lookup(v, "content")
		return ok && ok2 && len(role) > 0 && role[0] == '"' && len(content) > 0 && (content[0] == '{' || content[0] == '[')
	case "roots":
		roots, ok := jsonrpc.Lookup(v, "roots")
		return ok && len(roots) > 0 && roots[0] == '['
	}
	return false
}
