package stdio

import (
	"bytes"
	"errors"
	"mime"
	"net/http"
	"sync"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
)

// response is the in-memory http.ResponseWriter a message is answered
// through. A JSON answer is gathered whole. An event stream — the
// endpoint sending notifications while the request runs — is split into
// its events as it is written: each notification is handed to notify at
// once, and the stream's last message, the response, is kept as body.
type response struct {
	// mu guards what follows header: a handler may write from goroutines of
	// its own, even after it returned (which http.ResponseWriter forbids,
	// and which finish ends).
	mu     sync.Mutex
	closed bool
	header http.Header
	status int
	stream bool
	body   []byte
	notify func(msg []byte)

	pending []byte // stream bytes not yet split into lines
	data    []byte // the data of the event being read
	hasData bool
}

func newResponse(notify func([]byte)) *response {
	return &response{header: http.Header{}, notify: notify}
}

func (w *response) Header() http.Header { return w.header }

// errClosed is what a write after the handler returned gets.
var errClosed = errors.New("stdio: the response was written after its handler returned")

func (w *response) WriteHeader(code int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writeHeader(code)
}

func (w *response) writeHeader(code int) {
	if w.closed || w.status != 0 || code < 200 {
		return // 1xx informational answers are not the answer
	}
	w.status = code
	if mt, _, err := mime.ParseMediaType(w.header.Get("Content-Type")); err == nil && mt == "text/event-stream" {
		w.stream = true
	}
}

func (w *response) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return 0, errClosed
	}
	if w.status == 0 {
		w.writeHeader(http.StatusOK)
	}
	if !w.stream {
		w.body = append(w.body, p...)
		return len(p), nil
	}
	w.pending = append(w.pending, p...)
	w.split()
	return len(p), nil
}

// Flush lets the endpoint flush its events; they are handled as written.
func (w *response) Flush() {}

// split reads the complete lines of the stream written so far.
func (w *response) split() {
	rest := w.pending
	for {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			break
		}
		w.field(bytes.TrimSuffix(rest[:i], []byte{'\r'}))
		rest = rest[i+1:]
	}
	w.pending = w.pending[:copy(w.pending, rest)]
}

// field handles one line of an event stream: data lines are gathered,
// a blank line ends the event, other fields (event, id, retry) and
// comments carry nothing a stdio client needs.
func (w *response) field(line []byte) {
	if len(line) == 0 {
		w.dispatch()
		return
	}
	name, value, _ := bytes.Cut(line, []byte{':'})
	if string(name) != "data" {
		return
	}
	value = bytes.TrimPrefix(value, []byte{' '})
	if w.hasData {
		w.data = append(w.data, '\n')
	}
	w.data = append(w.data, value...)
	w.hasData = true
}

// dispatch ends an event: a notification goes out now, anything else is
// the response.
func (w *response) dispatch() {
	if !w.hasData {
		return
	}
	msg := bytes.Clone(w.data)
	w.data, w.hasData = w.data[:0], false
	if isNotification(msg) {
		w.notify(msg)
		return
	}
	w.body = msg
}

// finish closes the response once the handler returned, ending a stream
// that stopped without a blank line after its last event. What is written
// to it afterwards is refused.
func (w *response) finish() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	if !w.stream {
		return
	}
	if len(w.pending) > 0 {
		w.field(bytes.TrimSuffix(w.pending, []byte{'\r'}))
		w.pending = w.pending[:0]
	}
	w.dispatch()
}

// isNotification reports a JSON-RPC message with a method and no id.
func isNotification(msg []byte) bool {
	if jsonrpc.Validate(msg, jsonrpc.DefaultMaxDepth) != nil {
		return false
	}
	obj := bytes.TrimLeft(msg, " \t\r\n")
	if len(obj) == 0 || obj[0] != '{' {
		return false
	}
	_, hasMethod := jsonrpc.Lookup(obj, "method")
	_, hasID := jsonrpc.Lookup(obj, "id")
	return hasMethod && !hasID
}
