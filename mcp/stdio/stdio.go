package stdio

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/mcpdual/mcpdual/headers"
	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/local"
	"github.com/mcpdual/mcpdual/internal/panics"
	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/mcp/auth"
)

// Option configures Serve.
type Option interface{ apply(*config) }

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

type config struct {
	principal  *auth.Principal
	workspace  string
	maxMessage int
	concurrent int
	logger     *slog.Logger
}

// DefaultMaxMessageBytes is the longest line Serve reads by default, the
// endpoint's default body limit.
const DefaultMaxMessageBytes = 1 << 20

// DefaultConcurrency is how many messages Serve serves at once by default.
const DefaultConcurrency = 16

// WithPrincipal names who the messages come from. A stdio client presents
// no token: the host that starts the transport vouches for the user, and
// every message is served as p — its scopes decide what it may call, and
// tool handlers see it (auth.FromContext) as they would a verified
// token's principal. Without it, messages are anonymous.
func WithPrincipal(p *auth.Principal) Option {
	return optionFunc(func(c *config) { c.principal = p })
}

// WithWorkspace selects the workspace messages act on, sent as the
// X-Workspace-Id header (auth.WorkspaceHeader) of every request, for a
// principal that belongs to several. The endpoint's workspace resolver
// still decides whether the principal may use it.
func WithWorkspace(id string) Option {
	return optionFunc(func(c *config) { c.workspace = id })
}

// WithMaxMessageBytes bounds a line (default DefaultMaxMessageBytes). A
// longer line is answered with an Invalid Request error naming the bound
// — echoing its id when one is found — and skipped without being held in
// memory. The endpoint's own body limit (mcp.Limits.BodyBytes) still
// applies to the lines read. It panics on a size below 1.
func WithMaxMessageBytes(n int) Option {
	if n <= 0 {
		panic("stdio: WithMaxMessageBytes needs a positive size")
	}
	return optionFunc(func(c *config) { c.maxMessage = n })
}

// WithConcurrency bounds how many messages are served at once (default
// DefaultConcurrency). As many again may wait, read ahead so that a
// cancellation behind them is seen; past that, Serve stops reading until
// one finishes. A request waiting for the client's answer to a question
// (mcp.WithLegacyInput) counts in neither until the answer comes, and the
// answers themselves are read whatever the count. It panics on a count
// below 1.
func WithConcurrency(n int) Option {
	if n <= 0 {
		panic("stdio: WithConcurrency needs a positive count")
	}
	return optionFunc(func(c *config) { c.concurrent = n })
}

// WithLogger sets where Serve logs what it cannot tell the client: a
// handler that answered something other than a JSON-RPC message, a
// refused notification, a failed write (default slog.Default, which
// writes to stderr unless the host changed it). Never point it at the
// output Serve writes to.
func WithLogger(l *slog.Logger) Option {
	return optionFunc(func(c *config) { c.logger = l })
}

// Serve reads newline-delimited JSON-RPC messages from in and serves each
// through h as an HTTP POST to /mcp, in process, writing every answer to
// out as one line. h is the *mcp.Handler (or a handler that routes /mcp
// to it). See the package documentation for what a message goes through.
//
// Serve returns nil when in ends, once the messages in flight are
// answered; ctx's error when ctx is done, once the handlers in flight,
// whose contexts end with it, have returned (their answers are dropped);
// the error of a failed write to out, or of a failed read from in. It
// closes neither in nor out. A client that closes its end of the process's
// standard output is such a failed write: while Serve writes, it catches
// SIGPIPE (signal.Notify), which would otherwise end a Go program at its
// first write to a broken standard output, with no chance to log why. Neither can be interrupted: a Read on in, or
// a Write on out, that is blocked when ctx ends is left to return on its
// own, after Serve has (closing them, or the process exiting, ends it).
// Serve panics on a nil handler, input or output.
func Serve(ctx context.Context, h http.Handler, in io.Reader, out io.Writer, opts ...Option) error {
	if h == nil || in == nil || out == nil {
		panic("stdio: Serve needs a handler, an input and an output")
	}
	cfg := config{maxMessage: DefaultMaxMessageBytes, concurrent: DefaultConcurrency, logger: slog.Default()}
	for _, o := range opts {
		o.apply(&cfg)
	}
	if cfg.logger == nil {
		cfg.logger = slog.Default()
	}
	s := newServer(ctx, h, out, cfg)
	defer s.stop(nil)
	return s.run(newLineReader(in, cfg.maxMessage))
}

// newServer prepares one Serve call; run starts it.
func newServer(ctx context.Context, h http.Handler, out io.Writer, cfg config) *server {
	// Every message's context descends from this one, marked local once.
	ctx = local.NewContext(ctx, &local.Exchange{Transport: "stdio", Principal: cfg.principal})
	ctx, cancel := context.WithCancelCause(ctx)
	return &server{
		h:       h,
		cfg:     cfg,
		out:     out,
		ctx:     ctx,
		stop:    cancel,
		lines:   make(chan []byte),
		wdone:   make(chan struct{}),
		slots:   make(chan struct{}, cfg.concurrent),
		queue:   make(chan struct{}, 2*cfg.concurrent),
		flights: map[string]*flight{},
		waiters: map[*flight]bool{},
	}
}

// server is one Serve call.
type server struct {
	h    http.Handler
	cfg  config
	ctx  context.Context // marked local; cancelled when Serve's ctx is, or when out fails
	stop context.CancelCauseFunc

	out      io.Writer
	lines    chan []byte   // to the writer, which alone writes to out
	wdone    chan struct{} // closed when the writer has stopped
	errMu    sync.Mutex
	writeErr error // the first failed write; nothing is written after it

	slots chan struct{} // messages being served
	queue chan struct{} // messages accepted: served or waiting for a slot
	wg    sync.WaitGroup

	mu       sync.Mutex
	flights  map[string]*flight // requests in flight by raw id
	waiters  map[*flight]bool   // requests waiting for the client's answer
	inputEnd bool               // in ended: no answer can come any more

	version atomic.Pointer[string] // the revision initialize negotiated
	caps    atomic.Pointer[[]byte] // the capabilities its client declared
}

// flight is one request in flight.
type flight struct {
	cancel    context.CancelFunc
	cancelled atomic.Bool // the client cancelled it: its answer is dropped
	// key is the id it is registered under in server.flights (idKey), "" for
	// none (a notification, a batch, the second of two with one id). It
	// stays registered until it is cancelled or its answer is decided, and
	// no longer: from then on the id is the client's to use again.
	key string
	// mu orders the request's notifications against its end: once done
	// (its handler returned), nothing more is written for it, whatever a
	// goroutine the handler left behind still sends.
	mu   sync.Mutex
	done bool
	// What the request holds of the transport's bounds, under mu: Wait
	// and its resume may be called from a goroutine the handler started,
	// even after it returned, when they hold and take nothing. A request
	// waiting for the client's answer holds neither (see wait).
	queued, slot bool
}

// drop gives up what held says f holds, reporting whether it held it.
func (f *flight) drop(held *bool) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	h := *held
	*held = false
	return h
}

// read is what the reading goroutine hands over.
type read struct {
	line []byte
	over *oversized
	err  error
}

func (s *server) run(lr *lineReader) error {
	go s.writer()
	reads := make(chan read)
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			line, over, err := lr.next()
			select {
			case reads <- read{line, over, err}:
			case <-done:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	for {
		var r read
		select {
		case <-s.ctx.Done():
			// The requests in flight see their context end and give up
			// their answers; a write already blocked on out is left to
			// finish on its own.
			s.wg.Wait()
			close(s.lines)
			return s.result(context.Cause(s.ctx))
		case r = <-reads:
		}
		switch {
		case r.err == io.EOF:
			// Every request read is answered before Serve returns; one
			// waiting for the client's answer, which can no longer come,
			// ends now as a client that went away.
			s.endInput()
			s.wg.Wait()
			close(s.lines)
			select {
			case <-s.wdone:
				return s.result(nil)
			case <-s.ctx.Done():
				return s.result(context.Cause(s.ctx))
			}
		case r.err != nil:
			s.stop(r.err)
			s.wg.Wait()
			close(s.lines)
			return s.result(r.err)
		case r.over != nil:
			s.tooLarge(r.over)
		default:
			s.accept(r.line)
		}
	}
}

// log writes one line of the transport's own log. Its calls run on the
// transport's goroutines (the reader's loop, one per message, the
// writer), where nothing recovers a panic as net/http recovers a
// handler's: a host's log handler that panics loses the line instead of
// ending the process or leaving Serve's caller without its answers.
func (s *server) log(ctx context.Context, level slog.Level, msg string, args ...any) {
	defer func() { _ = recover() }()
	s.cfg.logger.Log(ctx, level, msg, args...)
}

// result is what Serve returns: a failed write wins, since it is why
// everything stopped.
func (s *server) result(err error) error {
	s.errMu.Lock()
	defer s.errMu.Unlock()
	if s.writeErr != nil {
		return s.writeErr
	}
	return err
}

// tooLarge answers a line over the limit, unless it was a notification
// or a response: a response is never answered (an error carrying its id
// would read as the answer to one of the client's own requests). The
// question it answered is not told: its wait ends it, as over HTTP, where
// an answer over LegacyInput.AnswerBytes is refused and the question
// waits on.
//
// A request or a notification is refused through the handler, as the
// endpoint refuses a body over its limit, so that the endpoint's observer
// (mcp.WithObserver: an access log, metrics, traces) hears of it as of any
// message it refuses; a response is no operation of the server's and is
// observed over HTTP neither.
func (s *server) tooLarge(o *oversized) {
	s.log(s.ctx, slog.LevelWarn, "stdio: message over the size limit skipped", "bytes", o.size, "maxBytes", s.cfg.maxMessage,
		"response", o.Response())
	if o.Response() {
		return
	}
	msg := []byte(`Message too large: a line may hold at most `)
	msg = strconv.AppendInt(msg, int64(s.cfg.maxMessage), 10)
	msg = append(msg, ` bytes`...)
	data := []byte(`{"reason":"message_too_large","maxBytes":`)
	data = strconv.AppendInt(data, int64(s.cfg.maxMessage), 10)
	data = append(data, '}')
	x := *local.From(s.ctx)
	x.Refused = &local.Refusal{Status: http.StatusRequestEntityTooLarge, Code: -32600, Message: string(msg), Data: data}
	if id := o.ID(); id != nil {
		x.Message = &jsonrpc.Message{ID: id}
	}
	if c := s.caps.Load(); c != nil {
		x.Capabilities = *c
	}
	r := s.post(local.NewContext(s.ctx, &x), nil)
	if v := s.version.Load(); v != nil {
		r.Header[protocolHeader] = []string{*v}
	}
	w := newResponse(func([]byte) {})
	panicked := s.call(w, r)
	if o.Notification() {
		return
	}
	if !panicked && len(w.body) > 0 && jsonrpc.Validate(w.body, jsonrpc.DefaultMaxDepth) == nil {
		s.write(w.body)
		return
	}
	// A handler that is not the endpoint (or a middleware before it that
	// answered for it) did not say it: the transport does, as it did
	// before the endpoint took part.
	answer := appendEnvelope(make([]byte, 0, 160), o.ID())
	answer = append(answer, `"error":{"code":-32600,"message":`...)
	answer = jsonrpc.AppendString(answer, string(msg))
	answer = append(answer, `,"data":`...)
	answer = append(answer, data...)
	s.write(append(answer, `}}`...))
}

// accept starts serving one line.
func (s *server) accept(line []byte) {
	if len(bytes.TrimLeft(line, " \t\r")) == 0 {
		return // blank lines separate nothing and ask nothing
	}
	var msg jsonrpc.Message
	perr := jsonrpc.ParseInto(line, jsonrpc.DefaultMaxDepth, &msg)
	parsed := perr == nil
	if perr != nil && (perr.Reason == "unexpected_response" || looksLikeResponse(line)) {
		s.answer(line)
		return
	}
	if parsed && msg.IsNotification() && msg.Method == "notifications/cancelled" {
		s.cancelled(msg.Params)
		return
	}
	// Waiting here for room stops reading: the client is ahead of what
	// this process will hold.
	select {
	case s.queue <- struct{}{}:
	case <-s.ctx.Done():
		return
	}
	fctx, cancel := context.WithCancel(s.ctx)
	f := &flight{cancel: cancel, queued: true}
	if parsed && !msg.IsNotification() {
		key := idKey(msg.ID)
		s.mu.Lock()
		if _, dup := s.flights[key]; !dup { // the first of two with one id is the one cancellable
			s.flights[key], f.key = f, key
		}
		s.mu.Unlock()
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer func() {
			if f.drop(&f.queued) {
				<-s.queue
			}
		}()
		defer cancel()
		defer func() {
			s.mu.Lock()
			s.release(f)         // a request that never ran still holds its id
			delete(s.waiters, f) // a wait that ended without resuming
			s.mu.Unlock()
		}()
		select {
		case s.slots <- struct{}{}:
			f.mu.Lock()
			f.slot = true
			f.mu.Unlock()
		case <-fctx.Done():
			return // cancelled while it waited: it never ran
		}
		defer func() {
			if f.drop(&f.slot) {
				<-s.slots
			}
		}()
		s.serve(fctx, f, line, &msg, parsed)
	}()
}

// cancelled handles notifications/cancelled: the request it names stops,
// and its answer, if any still comes, is not sent.
func (s *server) cancelled(params []byte) {
	id, ok := jsonrpc.Lookup(params, "requestId")
	if !ok {
		return
	}
	s.mu.Lock()
	f := s.flights[idKey(id)]
	if f != nil {
		// The client is done with the id: a request it sends next under the
		// same id is a new one, cancellable in its turn, even while this one
		// is still winding down.
		s.release(f)
		f.cancelled.Store(true)
	}
	s.mu.Unlock()
	if f != nil {
		f.cancel()
	}
}

// idKey is what a request's id is known by in server.flights: a string
// id by its value, not its spelling — "\u0061" is "a", and a client's
// encoder may escape a character in one message and not in another (Go's
// escapes <, > and &, JavaScript's does not) — and an integer as written.
func idKey(raw []byte) string {
	if v, ok := jsonrpc.String(raw); ok {
		return `"` + v
	}
	return string(raw)
}

// release unregisters f's id, unless another request holds it now; the
// caller holds s.mu.
func (s *server) release(f *flight) {
	if f.key != "" && s.flights[f.key] == f {
		delete(s.flights, f.key)
	}
}

// settle decides, once f's handler has returned, whether its answer is
// written: not when the client cancelled it. Either way its id is released
// now, before the answer is handed to the writer: a client that read the
// answer may send its id again at once (2026-07-28 asks ids to be unique
// among requests in flight only), and a cancellation of that new request
// must find it. A cancellation read after this is of a finished request,
// and changes nothing.
func (s *server) settle(f *flight) (cancelled bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.release(f)
	return f.cancelled.Load()
}

// serve runs one message through the handler and writes what it answers.
func (s *server) serve(ctx context.Context, f *flight, line []byte, msg *jsonrpc.Message, parsed bool) {
	notify := func(n []byte) {
		f.mu.Lock()
		defer f.mu.Unlock()
		if !f.done && !f.cancelled.Load() {
			s.write(n)
		}
	}
	c := s.caps.Load()
	if parsed || c != nil {
		x := *local.From(ctx)
		// What the client declared on initialize, for a message alone and
		// for each member of a batch (a line not parsed here, served
		// member by member with this exchange): over HTTP every member
		// carries the session's Mcp-Session-Id as a message alone does.
		if c != nil {
			x.Capabilities = *c
		}
		if parsed {
			// The endpoint takes the message as parsed here, instead of
			// scanning it again, and hands over the notifications the
			// request sends as messages, instead of an event stream to
			// parse back. A batch gets neither: its members are answered
			// in one array, none streams, and none is asked anything.
			x.Body, x.Message, x.Notify = line, msg, notify
			x.Wait = func() func(context.Context) error { return s.wait(f) }
		}
		ctx = local.NewContext(ctx, &x)
	}
	r := s.post(ctx, line)
	initialize := parsed && msg.Method == "initialize"
	if v := s.version.Load(); v != nil && (!parsed || !initialize && !namesRevision(msg.Params)) {
		// What an HTTP client sends after the handshake; a line that did
		// not parse as one message, a batch, gets it too, so that a batch
		// is served only after a 2025-03-26 handshake (or before any).
		r.Header[protocolHeader] = []string{*v}
	}
	var notification bool
	if parsed {
		notification = msg.IsNotification()
	}
	w := newResponse(notify) // for a handler that streams all the same
	panicked := s.call(w, r)
	// What the handler (or a goroutine it left running) sends from now on
	// would follow the answer, or reach a writer that has stopped: the
	// response refuses it, and so does notify.
	w.finish()
	f.mu.Lock()
	f.done = true
	f.mu.Unlock()
	if s.settle(f) {
		return
	}
	switch {
	case notification:
		if w.status != http.StatusAccepted || panicked {
			// The method is the client's, as long as a line: cut as an
			// observer's event cuts it.
			method := msg.Method[:jsonrpc.CutText(msg.Method, 128)]
			s.log(ctx, slog.LevelWarn, "stdio: a notification was refused", append([]any{"method", method, "status", w.status}, refusal(w.body)...)...)
		}
		return
	case !parsed && !panicked && w.status == http.StatusAccepted && len(w.body) == 0 && isBatch(line):
		return // a batch of notifications and responses: nothing to answer
	case !panicked && len(w.body) > 0 && jsonrpc.Validate(w.body, jsonrpc.DefaultMaxDepth) == nil:
		if initialize && w.status == http.StatusOK {
			s.negotiated(w.body, msg.Params)
		}
		s.write(w.body)
	default:
		if !panicked {
			s.log(ctx, slog.LevelError, "stdio: the handler did not answer with a JSON-RPC message", "status", w.status,
				"contentType", w.header.Get("Content-Type"), "bytes", len(w.body))
		}
		var id []byte
		if parsed {
			id = msg.ID
		}
		s.write(internalError(id))
	}
}

// call runs the handler, turning a panic into an answer as net/http's
// server would turn it into a closed connection: one message fails, the
// process goes on.
func (s *server) call(w http.ResponseWriter, r *http.Request) (panicked bool) {
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				return
			}
			panicked = true
			s.log(r.Context(), slog.LevelError, "stdio: the handler panicked", "panic", panics.Describe(p))
		}
	}()
	s.h.ServeHTTP(w, r)
	return false
}

// negotiated remembers the revision an initialize result names, and the
// capabilities the client declared in params: for the process, as a
// sealed session keeps them for an HTTP client.
func (s *server) negotiated(body, params []byte) {
	result, ok := jsonrpc.Lookup(body, "result")
	if !ok {
		return
	}
	raw, ok := jsonrpc.Lookup(result, "protocolVersion")
	if !ok {
		return
	}
	if v, ok := jsonrpc.String(raw); ok && v != "" {
		caps, _ := jsonrpc.Lookup(params, "capabilities")
		if len(caps) == 0 || caps[0] != '{' {
			caps = []byte("{}") // a new handshake declares anew
		}
		s.caps.Store(&caps)
		s.version.Store(&v)
	}
}

// answer hands a JSON-RPC response line — the client's answer to a
// question the endpoint asked (mcp.WithLegacyInput) — to the handler,
// which delivers it to the request waiting for it. It is served here, on
// the reading goroutine, outside WithConcurrency's bound: the request it
// answers may be what fills it, and would otherwise never be answered.
// Nothing is written back: an answer to an unknown, expired or another's
// id, or one the endpoint did not ask for, is logged and dropped, as an
// error carrying the client's id would be taken for the answer to one of
// its own requests (over HTTP the endpoint's 400 goes back on the
// answer's own POST).
func (s *server) answer(line []byte) {
	r := s.post(s.ctx, line)
	w := newResponse(func([]byte) {})
	panicked := s.call(w, r)
	if !panicked && w.status == http.StatusAccepted {
		return
	}
	s.log(s.ctx, slog.LevelWarn, "stdio: a JSON-RPC response from the client was ignored: it answers no question waiting for one",
		append([]any{"status", w.status}, refusal(w.body)...)...)
}

// wait is local.Exchange.Wait for f: while the request waits for the
// client's answer it holds neither a slot nor a place in the queue, so
// that requests waiting for the client never stop the reader (LegacyInput
// bounds how many may wait). The resume it returns takes a slot again
// to run with the answer; the queue's place is not taken back: the
// queue bounds what is read ahead, and this request was read long ago.
//
// A request whose handler returned holds nothing any more, and takes
// nothing again: Wait called then (from a goroutine the handler left
// running, as behind a middleware that answered for it) gives back
// nothing — its slot and queue place went back as its goroutine ended, and
// giving them back again took another request's — and its resume fails as
// for a client gone.
func (s *server) wait(f *flight) func(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done {
		return func(context.Context) error { return context.Canceled }
	}
	if f.slot {
		f.slot = false
		<-s.slots
	}
	if f.queued {
		f.queued = false
		<-s.queue
	}
	s.mu.Lock()
	s.waiters[f] = true
	if s.inputEnd {
		f.cancel() // no answer can come
	}
	s.mu.Unlock()
	return func(ctx context.Context) error {
		s.mu.Lock()
		delete(s.waiters, f)
		s.mu.Unlock()
		if err := ctx.Err(); err != nil {
			return err // cancelled, even if its answer came too
		}
		f.mu.Lock()
		held, done := f.slot, f.done
		f.mu.Unlock()
		switch {
		case done:
			return context.Canceled
		case held:
			return nil
		}
		select {
		case s.slots <- struct{}{}:
			f.mu.Lock()
			defer f.mu.Unlock()
			if f.done {
				<-s.slots
				return context.Canceled
			}
			f.slot = true
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// endInput ends the waits of the requests waiting for an answer: the
// input ended, so none can come.
func (s *server) endInput() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inputEnd = true
	for f := range s.waiters {
		f.cancel()
	}
}

// namesRevision reports whether params._meta names a protocol revision
// (a 2026-07-28 message), which then needs no header.
func namesRevision(params []byte) bool {
	if params == nil {
		return false
	}
	meta, ok := jsonrpc.Lookup(params, "_meta")
	if !ok {
		return false
	}
	_, ok = jsonrpc.Lookup(meta, seam.MetaProtocolVersion)
	return ok
}

// write hands one message to the writer as one line. It gives up when
// Serve stops, so that no request waits on an output nobody reads.
func (s *server) write(msg []byte) {
	if bytes.ContainsAny(msg, "\r\n") {
		var b bytes.Buffer
		if err := json.Compact(&b, msg); err != nil {
			s.log(s.ctx, slog.LevelError, "stdio: an answer could not be put on one line", "err", err)
			return
		}
		msg = b.Bytes()
	}
	line := make([]byte, 0, len(msg)+1)
	line = append(append(line, msg...), '\n')
	select {
	case s.lines <- line:
	case <-s.ctx.Done():
	}
}

// writer writes the lines, one Write each, so they never interleave.
// After a failed write, or once Serve is stopping, nothing more is
// written.
func (s *server) writer() {
	defer close(s.wdone)
	defer catchSIGPIPE()()
	for line := range s.lines {
		if s.ctx.Err() != nil {
			continue
		}
		if _, err := s.out.Write(line); err != nil {
			s.errMu.Lock()
			s.writeErr = fmt.Errorf("stdio: writing an answer: %w", err)
			s.errMu.Unlock()
			s.log(s.ctx, slog.LevelError, "stdio: the output failed; stopping", "err", err)
			s.stop(err)
		}
	}
}

func internalError(id []byte) []byte {
	b := appendEnvelope(make([]byte, 0, 96), id)
	return append(b, `"error":{"code":-32603,"message":"Internal error"}}`...)
}

// appendEnvelope opens an answer: the version, and the id when there is
// one, each followed by a comma.
func appendEnvelope(dst, id []byte) []byte {
	dst = append(dst, `{"jsonrpc":"2.0",`...)
	if id != nil {
		dst = append(dst, `"id":`...)
		dst = append(dst, id...)
		dst = append(dst, ',')
	}
	return dst
}

// refusal is what the log says of an answer nobody is sent: its error's
// code and data.reason. Not the answer itself: its message and data may
// echo what the client sent (data.requested echoes a protocol version
// written anywhere in _meta), which the client reads on a request and
// nobody should read in a log (design record 011).
func refusal(answer []byte) []any {
	e, ok := jsonrpc.Lookup(answer, "error")
	if !ok {
		return []any{"bytes", len(answer)}
	}
	raw, _ := jsonrpc.Lookup(e, "code")
	code, _ := strconv.Atoi(string(raw))
	var reason string
	if data, ok := jsonrpc.Lookup(e, "data"); ok {
		if r, ok := jsonrpc.Lookup(data, "reason"); ok {
			reason, _ = jsonrpc.String(r)
		}
	}
	return []any{"code", code, "reason", reason[:jsonrpc.CutText(reason, 64)]}
}

// post is the POST a line is served as, with ctx: what an HTTP client
// sends (the endpoint's URL, a copy the handler may change; JSON and the
// media types it accepts; the transport's workspace), line its body (none
// when nil).
func (s *server) post(ctx context.Context, line []byte) *http.Request {
	u := *endpointURL
	body := io.ReadCloser(http.NoBody)
	if line != nil {
		body = io.NopCloser(bytes.NewReader(line))
	}
	r := (&http.Request{Method: http.MethodPost, URL: &u, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Host: endpointURL.Host, RequestURI: endpointURL.Path, ContentLength: int64(len(line)), Body: body,
		Header: http.Header{"Content-Type": jsonType, "Accept": acceptTypes}}).WithContext(ctx)
	if s.cfg.workspace != "" {
		r.Header[workspaceHeader] = []string{s.cfg.workspace}
	}
	return r
}

// endpointURL is where every synthetic request goes.
var endpointURL = &url.URL{Scheme: "http", Host: "localhost", Path: "/mcp"}

var (
	jsonType        = []string{"application/json"}
	acceptTypes     = []string{"application/json, text/event-stream"}
	protocolHeader  = http.CanonicalHeaderKey(headers.ProtocolVersion)
	workspaceHeader = http.CanonicalHeaderKey(auth.WorkspaceHeader)
)

// looksLikeResponse reports a line the strict parser refused that is
// shaped as a JSON-RPC response all the same: one object with a "result"
// or an "error" and no "method" — with a null or malformed id, a wrong or
// missing "jsonrpc", a member twice, invalid UTF-8 in a string. It is no
// more answered than a valid response (a line over the limit shaped so
// is not either): an error with no id would answer the error with a null
// id a client sends for a line of ours it could not read, inviting one
// back for ours; one echoing the client's id would be taken for the
// answer to one of its own requests.
func looksLikeResponse(line []byte) bool {
	var pr probe
	pr.feed(line)
	return pr.state == probeDone && pr.Response()
}

// isBatch reports whether line is a JSON array: a 2025-03-26 batch.
func isBatch(line []byte) bool {
	line = bytes.TrimLeft(line, " \t\r")
	return len(line) > 0 && line[0] == '['
}
