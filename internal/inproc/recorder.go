package inproc

import (
	"bytes"
	"errors"
	"net/http"
	"sync"
	"time"
)

// Recorder is the in-memory ResponseWriter a route writes to. Writes after
// the route returned (from a goroutine it left behind) are refused, so they
// can neither race with reading the response nor change it.
type Recorder struct {
	Headers http.Header
	Status  int          // 0 until written
	Body    bytes.Buffer // what the route wrote, at most Limit bytes
	Limit   int64
	Over    bool // a write went past Limit (and was refused)
	// Silent: the route returned without writing (its status is 200 by
	// default); Interrupted: it did so, or aborted, once its request had
	// ended (package mcp's runRoute sets it).
	Silent, Interrupted bool
	// Unreached: the route's handler was never called (preparing its
	// request failed): nothing ran (package mcp's runRoute sets it).
	Unreached bool

	mu     sync.Mutex
	closed bool
	late   http.Header // what Header hands out once the status is written
}

// Header returns the response's header map; once the response has ended
// (Close), a map of its own that nothing reads, so that a goroutine the
// route left behind does not write the map while it is being read. Once
// the status is written (WriteHeader, a first Write, Flush), it is a copy
// of the headers as they stood then, the same copy each time: net/http's
// server sends those, so a header set afterwards (a Content-Type after
// WriteHeader) must not change the answer in process either, while a
// middleware that reads the headers after its handler still reads them.
// A route that kept the map from before the status and writes it later
// still reaches Headers: catching that would take a copy on every answer.
func (r *Recorder) Header() http.Header {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.closed:
		return http.Header{}
	case r.Status != 0:
		if r.late == nil {
			r.late = r.Headers.Clone()
		}
		return r.late
	}
	return r.Headers
}

// Start readies r for a route's run: no status, a header map of its own,
// the body written from buf's start and kept to limit bytes. The map is
// new on every run, never a pooled one nor an earlier run's, though
// net/http forbids a handler its ResponseWriter once it has returned: a
// goroutine a route left behind that writes a map it fetched in time would
// then write one another call is using, and "concurrent map writes" ends
// the process (design record 034).
func (r *Recorder) Start(buf []byte, limit int64) {
	*r = Recorder{Headers: http.Header{}, Limit: limit, Body: *bytes.NewBuffer(buf)}
}

func (r *Recorder) WriteHeader(code int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed && r.Status == 0 && code >= 200 {
		r.Status = code
	}
}

func (r *Recorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return 0, ErrClosed
	}
	if r.Status == 0 {
		r.Status = http.StatusOK
	}
	if len(p) > 0 && (r.Status == http.StatusNoContent || r.Status == http.StatusNotModified) {
		// As net/http's server: these answers carry no body, and a
		// write after them fails rather than sending bytes the network
		// would have dropped.
		return 0, http.ErrBodyNotAllowed
	}
	if int64(r.Body.Len()+len(p)) > r.Limit {
		r.Over = true
		return 0, ErrTooLarge
	}
	return r.Body.Write(p)
}

// Flush commits the response as net/http's Flush does: its status, 200
// unless written, is fixed. Nothing leaves the process early (the answer
// is read once the route returns), but a route or middleware that
// flushes — through the http.Flusher assertion, which would panic on a
// writer without the method, or http.ResponseController, which would
// answer ErrNotSupported — answers as it does from the network.
func (r *Recorder) Flush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed && r.Status == 0 {
		r.Status = http.StatusOK
	}
}

// SetReadDeadline, SetWriteDeadline and EnableFullDuplex are what
// http.ResponseController asks of a connection. An in-process request's
// body and its answer are in memory: no read or write waits, so there is
// nothing for a deadline to cut short, and the body can be read while the
// answer is written. Each succeeds, so that a route that extends its
// deadlines (a long download) and fails when it cannot answers as it does
// from the network, where it would otherwise get ErrNotSupported.
func (r *Recorder) SetReadDeadline(time.Time) error  { return nil }
func (r *Recorder) SetWriteDeadline(time.Time) error { return nil }
func (r *Recorder) EnableFullDuplex() error          { return nil }

// Close ends the response: later writes fail. A body the route wrote
// without a Content-Type gets the one net/http's server would have sent
// for it (http.DetectContentType of its first bytes), so that a route
// answers in process what it answers from the network: a PNG written
// without a header is an image there, not text. As net/http does, a
// Content-Type present with no value (set to nil), a Content-Encoding or
// a Transfer-Encoding, and a status that carries no body, leave it out.
func (r *Recorder) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	if r.Status == 0 {
		r.Status, r.Silent = http.StatusOK, true
	}
	if r.Body.Len() == 0 || r.Status == http.StatusNoContent || r.Status == http.StatusNotModified {
		return
	}
	if _, typed := r.Headers["Content-Type"]; typed || r.Headers.Get("Content-Encoding") != "" || r.Headers.Get("Transfer-Encoding") != "" {
		return
	}
	r.Headers["Content-Type"] = []string{http.DetectContentType(r.Body.Bytes())}
}

var (
	ErrTooLarge = errors.New("mcp: tool response over the size limit")
	ErrClosed   = errors.New("mcp: write after the route returned")
)
