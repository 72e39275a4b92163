package mcp

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/mcpdual/mcpdual/headers"
	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/seam"
)

// The writers: every answer the endpoint sends, a result or an error, goes
// out through here, as one JSON body or, while a request streams, as the
// last event of its stream.

// writeError answers err for the request with raw id (nil when unknown).
func (h *Handler) writeError(ctx context.Context, w http.ResponseWriter, id []byte, version Version, err error) {
	e, known := asError(err)
	if !known {
		h.cfg.logger.ErrorContext(ctx, "mcp: internal error", "err", err)
	}
	if h.cfg.observer != nil {
		if ev := eventOf(w); ev != nil {
			ev.Code, ev.Message = int(e.code), e.message
		}
	}
	bp := bufPool.Get().(*[]byte)
	buf := append((*bp)[:0], `{"jsonrpc":"2.0",`...)
	if id != nil {
		buf = append(buf, `"id":`...)
		buf = append(buf, id...)
		buf = append(buf, ',')
	}
	buf = append(buf, `"error":`...)
	buf = e.appendJSON(buf)
	buf = append(buf, '}')
	if e.challenge != "" {
		w.Header()["Www-Authenticate"] = []string{e.challenge}
	}
	if e.retryAfter > 0 {
		w.Header()["Retry-After"] = []string{strconv.FormatInt(ceilSeconds(e.retryAfter), 10)}
	}
	var statuses map[int]int
	if rev := h.byVersion[version]; rev != nil {
		statuses = rev.statuses
	}
	h.write(w, e.httpStatus(statuses), version, buf, nil)
	putBuf(bp, buf)
}

// bufPool holds the buffers answers are encoded into; an answer is
// written before its buffer is put back.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

// putBuf puts buf, grown from *bp, back into bufPool, unless it grew past
// 64 KiB (a rare large answer is not kept).
func putBuf(bp *[]byte, buf []byte) {
	if cap(buf) <= 64<<10 {
		*bp = buf[:0]
		bufPool.Put(bp)
	}
}

func (h *Handler) writeResult(w http.ResponseWriter, id []byte, version Version, result seam.Result, values *headerValues) {
	if h.cfg.observer != nil {
		if ev := eventOf(w); ev != nil {
			ev.ResultType = result.Stamp().ResultType
			if r, ok := result.(*toolResult); ok {
				ev.ToolError = r.isError
			}
		}
	}
	if r, ok := result.(*toolResult); ok && (r.isText && len(r.text) > streamAbove || r.blocks != nil) {
		if _, sse := w.(*streamWriter); !sse {
			h.writeLarge(w, id, version, r, values)
			return
		}
	}
	bp := bufPool.Get().(*[]byte)
	if s, ok := result.(interface{ sizeHint() int }); ok {
		if n := s.sizeHint() + len(id) + 64; n > cap(*bp) {
			b := make([]byte, 0, n)
			bp = &b
		}
	}
	buf := append((*bp)[:0], `{"jsonrpc":"2.0","id":`...)
	buf = append(buf, id...)
	buf = append(buf, `,"result":`...)
	buf = result.AppendJSON(buf)
	buf = append(buf, '}')
	h.write(w, http.StatusOK, version, buf, values)
	putBuf(bp, buf)
}

// streamAbove is the size past which a result's content goes to the
// connection in pieces instead of being copied into a buffer of its own
// first: a route's text, quoted a piece at a time, or a function's blocks,
// written as its builders made them (functool.go). A large answer then
// costs no copy more.
const streamAbove = 64 << 10

// textPiece is how much text is quoted at a time.
const textPiece = 16 << 10

// quotePool holds the buffers a large text is quoted into, a piece at a
// time; a piece is written before its buffer is reused. Each is the size
// of textPiece's longest quoting (\u00XX for every byte), so none grows.
var quotePool = sync.Pool{New: func() any { b := make([]byte, 0, textPiece*6+8); return &b }}

// writeLarge writes r whole, with its exact Content-Length, its content in
// pieces: a text is measured by quoting it once into a scratch buffer
// before it is written.
func (h *Handler) writeLarge(w http.ResponseWriter, id []byte, version Version, r *toolResult, values *headerValues) {
	bp := bufPool.Get().(*[]byte)
	head := append((*bp)[:0], `{"jsonrpc":"2.0","id":`...)
	head = append(head, id...)
	head = append(head, `,"result":`...)
	var sp *[]byte
	var scratch []byte
	closing := "]"
	if r.isText {
		head = r.appendHead(head)
		sp = quotePool.Get().(*[]byte)
		scratch, closing = *sp, `"}]`
	} else {
		head = append(r.appendOpen(head), '[')
	}
	member, tail := r.structuredMember(), r.tail()
	size := len(head) + len(closing) + len(member) + len(r.structured) + len(tail) + len("}")
	r.eachPiece(scratch, func(q []byte) { size += len(q) })

	writeJSONHeader(w, http.StatusOK, version, size, values)
	// A failed write is a client gone: the rest is not written.
	var failed bool
	write := func(b []byte) {
		if !failed {
			_, err := w.Write(b)
			failed = err != nil
		}
	}
	write(head)
	r.eachPiece(scratch, write)
	// What follows the content goes out of head's buffer, written already.
	end := append(append(head[:0], closing...), member...)
	write(end)
	write(r.structured)
	end = append(append(end[:0], tail...), '}')
	write(end)
	putBuf(bp, end)
	if sp != nil {
		quotePool.Put(sp)
	}
}

// eachPiece hands each the result's content a piece at a time: a text
// quoted textPiece bytes at a time into scratch, or the blocks with their
// commas. A method called directly, not a func value chosen per kind, so
// that each and what it captures stay on writeLarge's stack.
func (r *toolResult) eachPiece(scratch []byte, each func([]byte)) {
	if !r.isText {
		r.eachBlock(each)
		return
	}
	for rest := r.text; len(rest) > 0; {
		n := jsonrpc.CutText(rest, textPiece)
		scratch = jsonrpc.AppendEscaped(scratch[:0], rest[:n])
		each(scratch)
		rest = rest[n:]
	}
}

func (h *Handler) write(w http.ResponseWriter, status int, version Version, body []byte, values *headerValues) {
	if sw, ok := w.(*streamWriter); ok {
		// If the status line went out with a notification, the response
		// is the stream's last event. The stream's writer may be called
		// from the route's goroutines: the values are its own.
		sw.finish(body, func() { writeJSON(sw.ResponseWriter, status, version, body, nil) })
		return
	}
	writeJSON(w, status, version, body, values)
}

func writeJSON(w http.ResponseWriter, status int, version Version, body []byte, values *headerValues) {
	writeJSONHeader(w, status, version, len(body), values)
	_, _ = w.Write(body)
}

// writeJSONHeader writes the status line and headers of a JSON answer of
// size bytes, with values from values (nil: allocated).
func writeJSONHeader(w http.ResponseWriter, status int, version Version, size int, values *headerValues) {
	hdr := w.Header()
	// The request's early headers (handler.go) may say the same already:
	// kept, not written again.
	if !holds(hdr, "Cache-Control", "no-store") {
		hdr["Cache-Control"] = values.one("no-store")
	}
	hdr["Content-Type"] = values.one("application/json")
	hdr["Content-Length"] = values.one(lengthText(size))
	if version != "" && !holds(hdr, protoHeader, string(version)) {
		hdr[protoHeader] = values.one(string(version))
	}
	w.WriteHeader(status)
}

// holds reports whether header key has the one value v.
func holds(hdr http.Header, key, v string) bool {
	vs := hdr[key]
	return len(vs) == 1 && vs[0] == v
}

// headerValues hands out header values that one response, or the request
// of one route, owns. w.Header() belongs to whoever holds w, so a host's
// middleware may edit a value in place (h["Content-Type"][0] += "; ...");
// a slice shared by every response would carry that edit into every
// later one, and race. The values come from an array in the request, so
// owning them costs no allocation.
type headerValues struct {
	buf [7]string // a route call's: two early, three for its request, two for the answer
	n   int
}

// one returns a slice holding s alone, with no room to grow into its
// neighbour; a nil v, or a full one, allocates it.
func (v *headerValues) one(s string) []string {
	if v == nil || v.n == len(v.buf) {
		return []string{s}
	}
	i := v.n
	v.n++
	v.buf[i] = s
	return v.buf[i : i+1 : i+1]
}

// Content-Length texts up to 8 KiB are made once each and shared: strings
// cannot be edited in place, unlike the slices holding them.
var lengthTexts [8 << 10]atomic.Pointer[string]

func lengthText(n int) string {
	if n >= len(lengthTexts) {
		return strconv.Itoa(n)
	}
	if p := lengthTexts[n].Load(); p != nil {
		return *p
	}
	t := strconv.Itoa(n)
	lengthTexts[n].Store(&t)
	return t
}

// sessionHeader sends the session id initialize sealed, if any
// (seam.Request.SessionID).
func sessionHeader(hdr http.Header, id string) {
	if id != "" {
		hdr[headers.SessionID] = []string{id}
	}
}

// trackedWriter notes whether anything of an answer was written, for a
// panic that escapes serving (Handler.recovered).
type trackedWriter struct {
	http.ResponseWriter
	wrote bool
}

func (w *trackedWriter) WriteHeader(status int) {
	w.wrote = true
	w.ResponseWriter.WriteHeader(status)
}

func (w *trackedWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

func (w *trackedWriter) Flush() { _ = w.FlushError() }

// FlushError is what http.ResponseController.Flush calls: the stream
// writes (streamWrite) learn from a failed flush that their client is
// gone or stopped reading (a write deadline passed), as they do from
// net/http's own writer.
func (w *trackedWriter) FlushError() error {
	w.wrote = true
	return http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *trackedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
