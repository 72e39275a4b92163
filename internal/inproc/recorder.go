package inproc

import (
	"bytes"
	"errors"
	"net/http"
	"sync"
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

	mu     sync.Mutex
	closed bool
}

// Header returns the response's header map; once the response has ended
// (Close), a map of its own that nothing reads, so that a goroutine the
// route left behind can touch neither the map being read nor, once the
// map is released, another run's.
func (r *Recorder) Header() http.Header {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return http.Header{}
	}
	return r.Headers
}

// headerPool holds released header maps (Release). A route's answer sets a
// header or two; a map that has its slots already saves a run two
// allocations, its header and the slots its first Set would add.
var headerPool = sync.Pool{New: func() any { return make(http.Header, 2) }}

// maxPooledHeaders: a map that grew past this many entries (past a map's
// first group of slots) is left to the collector rather than kept.
const maxPooledHeaders = 8

// Start readies r for a route's run: no status, an empty header map (the
// one an earlier run left in r, cleared, else one from the pool), the body
// written from buf's start and kept to limit bytes. A route may not use
// its ResponseWriter once it has returned (net/http's Handler contract), so
// the map of a run that has ended can serve the next.
func (r *Recorder) Start(buf []byte, limit int64) {
	h := r.Headers
	if h == nil {
		h = headerPool.Get().(http.Header)
	} else {
		clear(h)
	}
	*r = Recorder{Headers: h, Limit: limit, Body: *bytes.NewBuffer(buf)}
}

// Release gives r's header map back to the pool: nothing reads r's
// headers after. It is for the end of what r recorded, once its response
// has been read; a Recorder that was never started needs none.
func (r *Recorder) Release() {
	h := r.Headers
	r.Headers = nil
	if h == nil || len(h) > maxPooledHeaders {
		return
	}
	clear(h)
	headerPool.Put(h)
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
	if int64(r.Body.Len()+len(p)) > r.Limit {
		r.Over = true
		return 0, ErrTooLarge
	}
	return r.Body.Write(p)
}

// Close ends the response: later writes fail.
func (r *Recorder) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	if r.Status == 0 {
		r.Status, r.Silent = http.StatusOK, true
	}
}

var (
	ErrTooLarge = errors.New("mcp: tool response over the size limit")
	ErrClosed   = errors.New("mcp: write after the route returned")
)
