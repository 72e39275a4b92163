package mcp

import (
	"encoding/json"
	"sync"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
)

// notifier sends the notifications of one request, turning its response
// into an event stream on the first one.
type notifier struct {
	w        *streamWriter
	token    json.RawMessage // progressToken, nil when progress was not asked
	minLevel int             // lowest level to send; -1 when logs were not asked
	legacy   bool            // a 2025 call that may be asked for input (legacyinput.go)
	// level, when set, gives minLevel at the first log: a 2025 session's
	// level, which the store holds (push.go).
	level     func() int
	levelOnce sync.Once
	// progressMu orders Progress calls (a handler's goroutines may race)
	// so that each value on the wire exceeds the last one sent.
	progressMu   sync.Mutex
	lastProgress float64
	progressed   bool
}

// send writes one notification as an event, starting the stream first.
// It reports false when the response was already written.
func (n *notifier) send(method string, params []byte) bool {
	b := make([]byte, 0, len(params)+64)
	b = append(b, `{"jsonrpc":"2.0","method":`...)
	b = jsonrpc.AppendString(b, method)
	b = append(b, `,"params":`...)
	b = append(b, params...)
	b = append(b, '}')
	return n.w.notify(b)
}
