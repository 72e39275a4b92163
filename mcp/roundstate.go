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
