package mcp

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"github.com/mcpdual/mcpdual/headers"
	"github.com/mcpdual/mcpdual/internal/httpsyntax"
	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/seam"
)

// streamWriter is the response of a request that may stream. Its lock
// orders the notifications a handler (or its goroutines) sends against
// the final response; once that is written, later notifications are
// dropped rather than written to a finished response.
type streamWriter struct {
	http.ResponseWriter
	mu      sync.Mutex
	started bool
	closed  bool
	version Version
	// direct takes the notifications of a local exchange that asked for
	// them (local.Exchange.Notify): the response then stays one JSON
	// object.
	direct func(msg []byte)
	// deadlined: every write first moves the connection's write deadline
	// (a notification stream, whose client may stop reading; notify.go).
	deadlined bool
}

// newNotifier decides whether req may stream, on an endpoint that allows
// it (WithStreaming; the caller checks): the client accepts event streams,
// and the request asked for progress or logs. It returns nil otherwise.
func (h *Handler) newNotifier(w http.ResponseWriter, req *request) *notifier {
	if !req.hasMeta() || !acceptsEventStream(req.HTTP) {
		return nil
	}
	n := &notifier{minLevel: -1}
	if tok, ok := req.MetaParam("progressToken"); ok && jsonrpc.CheckID(tok) == "" {
		n.token = tok
	}
	if req.rev.f.Envelope {
		if lv, ok := req.MetaParam(seam.MetaLogLevel); ok {
			if s, isStr := jsonrpc.String(lv); isStr {
				if l, known := seam.LogLevels[s]; known {
					n.minLevel = l
				}
			}
		}
	}
	if n.token == nil && n.minLevel < 0 {
		return nil
	}
	n.w = &streamWriter{ResponseWriter: w, version: req.version}
	if req.local != nil {
		n.w.direct = req.local.Notify
	}
	return n
}

// acceptsEventStream reports whether r's Accept names text/event-stream
// (in any case) with a weight above 0. An element that weighs it q=0
// says the client does not take it (RFC 9110 §12.4.2), whatever another
// element says, and one whose weight is malformed names nothing: either
// way the answer is one JSON object, or for a request only a stream can
// answer (a listen, a 2025 session's GET) its refusal. Wildcards (*/*,
// text/*) do not count: the transports require a client to name
// text/event-stream, and an answer that could be JSON stays JSON for one
// that did not. The elements are read in place, with no allocation; a
// parameter's quoted value is read whole (httpsyntax.CutUnquoted).
func acceptsEventStream(r *http.Request) bool {
	named := false
	for _, v := range r.Header["Accept"] {
		for v != "" {
			var elem string
			elem, v = httpsyntax.CutUnquoted(v, ',')
			mt, params := httpsyntax.CutUnquoted(elem, ';')
			if !strings.EqualFold(strings.TrimSpace(mt), "text/event-stream") {
				continue
			}
			switch acceptWeight(params) {
			case weightZero:
				return false
			case weightPositive:
				named = true
			}
		}
	}
	return named
}

// An Accept element's weight, as acceptWeight reads it.
const (
	weightPositive  = iota // q absent, or above 0
	weightZero             // q=0: not acceptable
	weightMalformed        // a q that is no qvalue
)

// acceptWeight reads the q parameter among an Accept element's
// parameters (what follows its media range's first ";"). The first q
// is the weight; parameters after it are extensions, not read.
func acceptWeight(params string) int {
	for params != "" {
		var p string
		p, params = httpsyntax.CutUnquoted(params, ';')
		name, value, _ := strings.Cut(p, "=")
		if strings.EqualFold(strings.TrimSpace(name), "q") {
			return qvalue(strings.TrimSpace(value))
		}
	}
	return weightPositive
}

// qvalue reads a weight as RFC 9110 §12.4.2 spells it: "0" or "1",
// then optionally "." and up to three digits (only zeros after a 1).
func qvalue(v string) int {
	if v == "" || len(v) > 5 || v[0] != '0' && v[0] != '1' || len(v) > 1 && v[1] != '.' {
		return weightMalformed
	}
	zero := v[0] == '0'
	for i := 2; i < len(v); i++ {
		c := v[i]
		if c < '0' || c > '9' || v[0] == '1' && c != '0' {
			return weightMalformed
		}
		if c != '0' {
			zero = false
		}
	}
	if zero {
		return weightZero
	}
	return weightPositive
}

// notify writes a notification event unless the response is finished.
func (s *streamWriter) notify(data []byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	if s.direct != nil {
		s.direct(data)
		return true
	}
	s.event(data)
	return true
}

// keepAlive writes an SSE comment on a started stream, which no client
// takes for a message and which keeps proxies from closing a quiet one.
// It reports false when the response is finished.
func (s *streamWriter) keepAlive() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	if !s.started || s.direct != nil {
		return true
	}
	return streamWrite(s.ResponseWriter, []byte(": keep-alive\n\n"), s.deadlined)
}

// finish writes the response: as the stream's last event when the stream
// started, otherwise through write as one JSON object. Either way, no
// notification follows it.
func (s *streamWriter) finish(body []byte, write func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.started {
		s.event(body)
		return
	}
	write()
}

// event writes data as one SSE message event and flushes it; the caller
// holds s.mu.
func (s *streamWriter) event(data []byte) {
	if !s.started {
		s.started = true
		h := s.Header()
		h["Content-Type"] = []string{"text/event-stream"}
		h["Cache-Control"] = []string{"no-store"}
		// A proxy that buffers responses (nginx does by default) would
		// hold every event back until the stream ends: a progress report
		// until the call is done, a 2025 question until the call ends
		// without its answer, a listen's notifications for its lifetime.
		h["X-Accel-Buffering"] = []string{"no"}
		h.Del("Content-Length")
		if s.version != "" {
			h[protoHeader] = []string{string(s.version)}
		}
		s.ResponseWriter.WriteHeader(http.StatusOK)
	}
	buf := make([]byte, 0, len(data)+24)
	buf = append(buf, "event: message\ndata: "...)
	buf = append(buf, data...)
	buf = append(buf, "\n\n"...)
	streamWrite(s.ResponseWriter, buf, s.deadlined) // the headers go with it
}

// Progress reports how far the request has come (total 0 when unknown).
// It returns false, sending nothing, unless the request asked for progress
// (a progressToken) and the endpoint streams (WithStreaming). MCP wants
// each value to exceed the one before: a value that does not (a repeat, a
// step back) is dropped, and Progress returns false.
func (c *Call) Progress(progress, total float64, message string) bool {
	n := c.notify
	if n == nil || n.token == nil {
		return false
	}
	n.progressMu.Lock()
	defer n.progressMu.Unlock()
	if n.progressed && !(progress > n.lastProgress) {
		return false
	}
	p := struct {
		Token    json.RawMessage `json:"progressToken"`
		Progress float64         `json:"progress"`
		Total    float64         `json:"total,omitempty"`
		Message  string          `json:"message,omitempty"`
	}{n.token, progress, total, message}
	b, err := json.Marshal(p)
	if err != nil {
		return false
	}
	if !n.send("notifications/progress", b) {
		return false
	}
	n.lastProgress, n.progressed = progress, true
	return true
}

// Log sends a log message (notifications/message) at level with data, any
// JSON value. It returns false, sending nothing, unless a 2026-07-28
// request named a log level at or below level, or a 2025 session set one
// (WithChangeNotifications), and the endpoint streams.
//
// MCP names its levels after syslog's (RFC 5424); level maps onto them so:
//
//	below slog.LevelInfo (0)                  "debug"
//	slog.LevelInfo    .. slog.LevelInfo+1     "info"
//	slog.LevelInfo+2  .. slog.LevelInfo+3     "notice"
//	slog.LevelWarn    .. slog.LevelWarn+3     "warning"
//	slog.LevelError   .. slog.LevelError+3    "error"
//	slog.LevelError+4 .. slog.LevelError+7    "critical"
//	slog.LevelError+8 .. slog.LevelError+11   "alert"
//	slog.LevelError+12 and above              "emergency"
//
// so notice is slog.LevelInfo+2, critical slog.LevelError+4, alert
// slog.LevelError+8 and emergency slog.LevelError+12; slog.LevelDebug and
// the levels between it and slog.LevelInfo are "debug".
// Never log secrets: the client shows these to people.
func (c *Call) Log(level slog.Level, data any) bool {
	n := c.notify
	if n != nil && n.level != nil {
		n.levelOnce.Do(func() { n.minLevel = n.level() })
	}
	name, rank := wireLogLevel(level)
	if n == nil || n.minLevel < 0 || rank < n.minLevel {
		return false
	}
	p := struct {
		Level string `json:"level"`
		Data  any    `json:"data"`
	}{name, data}
	b, err := json.Marshal(p)
	if err != nil {
		return false
	}
	return n.send("notifications/message", b)
}

// wireLogLevel maps an slog level onto MCP's level name and its rank in
// seam.LogLevels (0 debug .. 7 emergency), without allocating.
func wireLogLevel(l slog.Level) (name string, rank int) {
	switch {
	case l < slog.LevelInfo:
		return "debug", 0
	case l < slog.LevelInfo+2:
		return "info", 1
	case l < slog.LevelWarn:
		return "notice", 2
	case l < slog.LevelError:
		return "warning", 3
	case l < slog.LevelError+4:
		return "error", 4
	case l < slog.LevelError+8:
		return "critical", 5
	case l < slog.LevelError+12:
		return "alert", 6
	default:
		return "emergency", 7
	}
}

var protoHeader = http.CanonicalHeaderKey(headers.ProtocolVersion)

// hasMeta reports whether params has a _meta member.
func (req *request) hasMeta() bool {
	_, ok := req.Param("_meta")
	return ok
}
