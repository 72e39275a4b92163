package mcp

import (
	"encoding/json"
	"errors"
	"strings"
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
	// loose: responses came without a requestState (Call reads them
	// where they lie); there is no state, and nothing was asked.
	loose bool
}

// answer returns the retry's response to key if this round's state asked
// for it, validated for its kind and, for an accepted form, against the
// form asked, compiled in h's memo (its content's values bounded as h's
// Limits.ArgumentValues bounds a call's arguments). ok is false when the
// key was not asked or not answered.
func (rd *round) answer(key string, h *Handler) (json.RawMessage, bool, error) {
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
	if kind == "elicitation" && rd.state.forms != nil {
		if quoted, asked := jsonrpc.Lookup(rd.state.forms, key); asked {
			if a, _ := jsonrpc.Lookup(v, "action"); jsonrpc.StringIs(a, "accept") {
				form, ok := jsonrpc.AppendUnquoted(nil, quoted)
				if !ok {
					return nil, false, errFormKeywords
				}
				violation, err := h.forms.violation(form, v, h.cfg.limits.ArgumentValues)
				if err != nil {
					return nil, false, errFormKeywords
				}
				if violation != "" {
					return nil, false, formMismatch(key, violation)
				}
			}
		}
	}
	return v, true, nil
}

// errFormKeywords: a state carried a form that does not compile, which no
// state this library sealed holds (logged, then invalidState).
var errFormKeywords = errors.New("mcp: requestState holds a form that does not compile")

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
	// forms is {"key":"keywords",...}, the forms a handler asked, each
	// the text of its keywords in a string (see roundState.Forms), nil
	// for none.
	forms []byte
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

// validResponse checks the shape of an answer against the result its kind
// asks for: an ElicitResult {action, content?} whose content, a form's
// values, holds only strings, numbers, booleans and arrays of strings; a
// CreateMessageResult {role: "user"|"assistant", content, model: string};
// a ListRootsResult {roots: [{uri: "file://...", name?}]}. What passes is
// what the handler may read without checking again.
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
		c, ok := jsonrpc.Lookup(v, "content")
		if !ok || string(c) == "null" {
			return true
		}
		return jsonrpc.IsObject(c) && formValues(c)
	case "sampling":
		role, _ := jsonrpc.Lookup(v, "role")
		content, _ := jsonrpc.Lookup(v, "content")
		model, _ := jsonrpc.Lookup(v, "model")
		_, named := jsonrpc.String(model)
		return (jsonrpc.StringIs(role, "user") || jsonrpc.StringIs(role, "assistant")) && named &&
			len(content) > 0 && (content[0] == '{' || content[0] == '[')
	case "roots":
		roots, ok := jsonrpc.Lookup(v, "roots")
		if !ok || len(roots) == 0 || roots[0] != '[' {
			return false
		}
		for elems := jsonrpc.NewElems(roots); ; {
			root, more := elems.Next()
			if !more {
				return true
			}
			if !jsonrpc.IsObject(root) {
				return false
			}
			u, _ := jsonrpc.Lookup(root, "uri")
			// A scheme is case-insensitive (RFC 3986): FILE:// is file://.
			if s, ok := jsonrpc.String(u); !ok || len(s) < len("file://") || !strings.EqualFold(s[:len("file://")], "file://") {
				return false
			}
		}
	}
	return false
}

// formValues reports whether every member of a form's content is what a
// form can hold: a string, a number, a boolean, or an array of strings (a
// multi-select). ElicitForm asks for nothing else, so anything else is
// not an answer to the question.
func formValues(c []byte) bool {
	it := jsonrpc.NewIter(c)
	for {
		_, v, ok := it.Next()
		if !ok {
			return true
		}
		switch {
		case len(v) == 0:
			return false
		case v[0] == '"', v[0] == '-', v[0] >= '0' && v[0] <= '9', string(v) == "true", string(v) == "false":
		case v[0] == '[':
			for elems := jsonrpc.NewElems(v); ; {
				e, more := elems.Next()
				if !more {
					break
				}
				if e[0] != '"' {
					return false
				}
			}
		default:
			return false
		}
	}
}
