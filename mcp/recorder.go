package mcp

import (
	"bytes"
	"errors"
	"net/http"
	"sync"
)

// recorder is the in-memory ResponseWriter a route writes to. Writes after
// the route returned (from a goroutine it left behind) are refused, so they
// can neither race with reading the response nor change it.
type recorder struct {
	header http.Header
	status int
	buf    bytes.Buffer
	limit  int64
	over   bool
	// silent: the route returned without writing (its status is 200 by
	// default); interrupted: it did so, or aborted, once its request had
	// ended (runRoute).
	silent, interrupted bool

	mu     sync.Mutex
	closed bool
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(code int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed && r.status == 0 && code >= 200 {
		r.status = code
	}
}

func (r *recorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return 0, errClosed
	}
	if r.status == 0 {
		r.status = http.StatusOK
	}
	if int64(r.buf.Len()+len(p)) > r.limit {
		r.over = true
		return 0, errTooLarge
	}
	return r.buf.Write(p)
}

// close ends the response: later writes fail.
func (r *recorder) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	if r.status == 0 {
		r.status, r.silent = http.StatusOK, true
	}
}

var (
	errTooLarge = errors.New("mcp: tool response over the size limit")
	errClosed   = errors.New("mcp: write after the route returned")
)
