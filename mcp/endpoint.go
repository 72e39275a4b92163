package mcp

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpdual/mcpdual/internal/origin"
	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/observe"
	"github.com/mcpdual/mcpdual/mcp/ratelimit"
)

// Handler is the MCP endpoint: one http.Handler that serves every era it was
// given, statelessly. It keeps no session state: a 2025 session id, which
// era2025.WithSessions issues, is sealed and carries all it stands for, so
// any replica can answer any request. A Handler is safe for concurrent use.
//
// For each POST it checks Host and Origin, reads the body once under the
// size limit, scans it strictly, picks the era from the body (params._meta
// names a 2026-07-28 revision; otherwise MCP-Protocol-Version or, without
// it, the handshake era's default revision — 2025-06-18 when served, see
// era2025.New — selects the handshake era) and lets that era answer.
type Handler struct {
	server    *Server
	supported []string // every served revision, newest first
	byVersion map[Version]*revision
	eras      []seam.Era                   // in the order given, asked which revision a body names
	dflt      Version                      // revision assumed when nothing names one ("" if none)
	view      atomic.Pointer[serverView]   // what every era is told about the endpoint, per snapshot (viewOf)
	extraCaps seam.Capability              // what the handler serves beyond its server's items (WithChangeNotifications)
	notes     *notifications               // nil without WithChangeNotifications (notify.go)
	lastEvent atomic.Pointer[decodedEvent] // what the streams decoded last (notify.go)
	audience  string                       // what sealed state is bound to
	cfg       handlerConfig
	warned    sync.Map // log lines kept from repeating: targets whose route refused an in-process identity (once), 503 refusal reasons (auth.go)
	// taskScopes are the scopes each tasks/* method needs (with WithAuth).
	taskScopes map[string][]string
	// listens bounds the open task listen streams (listens.go).
	listens *listens
	// getStreams: a GET may open a 2025 session's stream (push.go): the
	// handler has change notifications and a revision whose era issues
	// sessions (seam.Profile.Sessions).
	getStreams bool
	// forms memoizes the forms its tools asked, compiled (formcheck.go).
	forms formCache
	// closed is closed by Close (close.go), which runs once; unwatch and
	// stopFleet undo what startNotifications started, fleetDone is
	// closed when the fleet follower has returned.
	closed    chan struct{}
	closeOnce sync.Once
	unwatch   func()
	stopFleet context.CancelFunc
	fleetDone chan struct{}
}

type handlerConfig struct {
	limits  Limits
	admit   *admission // nil when Concurrent is 0
	hosts   origin.List
	origins origin.List
	logger  *slog.Logger

	auth        *auth.Authenticator
	limiter     ratelimit.Limiter // per principal (per client when there is no auth)
	clientLimit ratelimit.Limiter // per client address, before authentication
	clientKey   func(*http.Request) string
	replay      ReplayGuard
	replayOff   string // why single-use confirmations are off ("" when on)
	// localGuard names the in-memory guard NewHandler gave the endpoint
	// ("" for a guard replicas share, or none): confirmations are bound
	// to it (Handler.guardInstance).
	localGuard string
	lease      time.Duration
	streaming  bool
	legacy     *legacyInput // nil without WithLegacyInput
	noBatches  bool         // WithoutBatches (batch.go)
	notes      *ChangeNotifications

	routeRequest func(outer, inner *http.Request) *http.Request
	observer     observe.Observer
}

// HandlerOption configures a Handler.
type HandlerOption interface{ applyHandler(*handlerConfig) }

type handlerOptionFunc func(*handlerConfig)

func (f handlerOptionFunc) applyHandler(c *handlerConfig) { f(c) }

// WithLogger sets where internal errors are logged (default slog.Default,
// which nil also selects). Nothing logged there is ever sent to a client.
func WithLogger(l *slog.Logger) HandlerOption {
	return handlerOptionFunc(func(c *handlerConfig) {
		// A nil *slog.Logger panics at its first line, which NewHandler
		// may write itself: nil is the default, as in stdio.WithLogger.
		if l == nil {
			l = slog.Default()
		}
		c.logger = l
	})
}

// WithAuth makes every request, of every method and era, carry a bearer
// token that a verifies, before its body is read. The verified principal
// (and, when a is configured with workspaces, the workspace) reaches tool
// handlers through their request's context (auth.FromContext,
// auth.WorkspaceFromContext); the Authorization header never does. Lists
// show only what the caller may use and are then private to the caller.
// Serve the Protected Resource Metadata (auth.NewMetadataHandler) beside
// the endpoint, outside it. It panics on a nil Authenticator.
func WithAuth(a *auth.Authenticator) HandlerOption {
	if a == nil {
		panic("mcp: WithAuth needs an Authenticator")
	}
	return handlerOptionFunc(func(c *handlerConfig) { c.auth = a })
}

// WithRateLimit meters every request through l, keyed by the verified
// principal (by client address without WithAuth), at a cost of one.
// Every response then carries X-RateLimit-Limit, X-RateLimit-Remaining and
// X-RateLimit-Reset (epoch seconds); a refused request is answered 429
// with Retry-After. server/discover draws from a budget of its own under
// the same limiter, so it is never limited tighter than other methods and
// exhausting the budget with calls does not break discovery. A limiter
// error is answered 503: traffic is never let through unmetered. It panics
// on a nil Limiter.
func WithRateLimit(l ratelimit.Limiter) HandlerOption {
	if l == nil {
		panic("mcp: WithRateLimit needs a Limiter")
	}
	return handlerOptionFunc(func(c *handlerConfig) { c.limiter = l })
}

// WithClientRateLimit meters requests per client before authentication, so
// a flood of bad tokens cannot load the token verifier. key names the
// client; nil means the IP address of RemoteAddr (behind a proxy, supply a
// key that reads the address the proxy vouches for). The same key names
// unauthenticated callers for WithRateLimit. IPv6 clients are keyed by
// their /64 (see ratelimit.ClientKey and ratelimit.IPv6Prefix). With
// WithAuth, a request without an Authorization header is answered 401 (with
// the challenge) without asking l, which then cannot turn it into a 429 or,
// when l's store is down, a 503: such a request never reaches the verifier.
// It panics on a nil Limiter.
func WithClientRateLimit(l ratelimit.Limiter, key func(*http.Request) string) HandlerOption {
	if l == nil {
		panic("mcp: WithClientRateLimit needs a Limiter")
	}
	return handlerOptionFunc(func(c *handlerConfig) {
		c.clientLimit = l
		if key != nil {
			c.clientKey = key
		}
	})
}

// WithoutBatches refuses every JSON-RPC batch with 400, in every revision
// (the reference server's contract). By default an endpoint that serves
// revision 2025-03-26 accepts a 2025-03-26 client's batches, as that
// revision requires.
func WithoutBatches() HandlerOption {
	return handlerOptionFunc(func(c *handlerConfig) { c.noBatches = true })
}

// WithLimits sets the endpoint's limits (see Limits for the defaults). It
// panics on a negative field, and on PerCaller without Concurrent.
func WithLimits(l Limits) HandlerOption {
	if l.BodyBytes < 0 || l.Concurrent < 0 || l.PerCaller < 0 || l.ResponseBytes < 0 || l.ArgumentValues < 0 {
		panic("mcp: WithLimits needs limits >= 0")
	}
	if l.PerCaller > 0 && l.Concurrent == 0 {
		panic("mcp: WithLimits: PerCaller needs Concurrent")
	}
	return handlerOptionFunc(func(c *handlerConfig) {
		if l.BodyBytes > 0 {
			c.limits.BodyBytes = l.BodyBytes
		}
		if l.ResponseBytes > 0 {
			c.limits.ResponseBytes = l.ResponseBytes
		}
		if l.ArgumentValues > 0 {
			c.limits.ArgumentValues = l.ArgumentValues
		}
		c.limits.Concurrent, c.limits.PerCaller = l.Concurrent, l.PerCaller
	})
}

// WithObserver sets who is told about every request the endpoint serves
// and every route it calls in process (see package observe): an access
// log (observe.AccessLog), OpenTelemetry, the host's own metrics. Without
// one the endpoint builds no event and allocates nothing for it.
func WithObserver(o observe.Observer) HandlerOption {
	return handlerOptionFunc(func(c *handlerConfig) { c.observer = o })
}

// WithAllowedHosts replaces the default Host allow-list (loopback names on
// any port) with exact host[:port] values, such as "api.example.com" or
// "mcp.example.com:8443". "*" admits any Host; use it only behind a proxy
// that checks Host itself. A request with another Host is answered 403: the
// check defeats DNS rebinding. It panics on an empty entry or one holding
// white space or a slash, such as a URL.
func WithAllowedHosts(hosts ...string) HandlerOption {
	l := origin.Hosts(hosts)
	return handlerOptionFunc(func(c *handlerConfig) { c.hosts = l })
}

// WithAllowedOrigins replaces the default Origin allow-list (http and https
// origins on loopback names, any port) with exact origins such as
// "https://app.example.com": scheme, host and port must all match, after
// lowercasing scheme and host and dropping a default port (so
// "HTTPS://App.example.com:443" is that origin, and ":8443" is another).
// Requests without Origin (non-browser clients) are always admitted;
// "null", a duplicated Origin, an unparsable one or one not listed is 403.
// "*" admits every Origin but "null" and a duplicated one, and so any
// browser page: use it only for an endpoint no page may misuse. It panics
// on an entry that is not an http or https origin.
func WithAllowedOrigins(origins ...string) HandlerOption {
	l, bad := origin.Origins(origins)
	if bad != "" {
		panic("mcp: invalid origin " + bad)
	}
	return handlerOptionFunc(func(c *handlerConfig) { c.origins = l })
}

// WithReplayGuard sets the guard that makes confirmations single-use
// (default: one in memory, per process). It panics on a nil guard:
// WithoutReplayGuard is how to turn single use off.
func WithReplayGuard(g ReplayGuard) HandlerOption {
	if g == nil {
		panic("mcp: WithReplayGuard needs a guard; use WithoutReplayGuard to turn it off")
	}
	return handlerOptionFunc(func(c *handlerConfig) { c.replay, c.replayOff = g, "" })
}

// WithoutReplayGuard turns single-use confirmations off, for a host whose
// destructive routes all deduplicate on the Idempotency-Key they receive
// (a replay of one confirmation carries the same key). reason says why; it
// is logged when the handler is built, so the choice stays visible. It
// panics on an empty reason.
func WithoutReplayGuard(reason string) HandlerOption {
	if reason == "" {
		panic("mcp: WithoutReplayGuard needs a reason")
	}
	return handlerOptionFunc(func(c *handlerConfig) { c.replay, c.replayOff = nil, reason })
}

// WithRouteRequest sets a function that prepares every in-process request
// before its route runs: it gets the MCP request (outer, whose context
// holds the host's own values, such as a tracing span or a request id) and
// the request the route will get (inner: the verified principal and
// workspace and the Call in its context, no Authorization, no cookies), and
// returns the request to run — inner or a copy of it (Request.WithContext,
// Request.Clone) with the host's identity in the form its own middleware
// expects, or with values copied from outer. It must not return nil: a
// nil request is logged and ends the call as a route's panic does.
// WithRouteRequest panics on a nil function.
func WithRouteRequest(prepare func(outer, inner *http.Request) *http.Request) HandlerOption {
	if prepare == nil {
		panic("mcp: WithRouteRequest needs a function")
	}
	return handlerOptionFunc(func(c *handlerConfig) { c.routeRequest = prepare })
}

// WithStreaming lets a request that opts in receive the notifications its
// handler emits while it runs — progress when the request carries
// _meta.progressToken, log messages when a 2026-07-28 request names a
// _meta log level or a 2025 session set one (logging/setLevel, with
// WithChangeNotifications) — as a text/event-stream response that ends
// with the request's own response. Requests that do not opt in, or whose
// Accept does not admit text/event-stream, always get one JSON object, as
// does every request without this option (the default), but for a 2025
// tools/call that WithLegacyInput asks its questions on a stream: those
// questions are the only server-to-client requests a stream carries. A
// 2026-07-28 subscriptions/listen for task status notifications is a
// stream whatever this option says: the client asked for nothing else
// (tasklisten.go).
func WithStreaming() HandlerOption {
	return handlerOptionFunc(func(c *handlerConfig) { c.streaming = true })
}

// LegacyInput configures WithLegacyInput. Zero fields take their defaults;
// a negative one panics in WithLegacyInput.
type LegacyInput struct {
	// Bus carries a client's answer from the replica its POST reaches to
	// the one waiting for it (default: in this process only; replicas
	// share one, such as redisstore.NewAnswerBus).
	Bus AnswerBus
	// Wait bounds how long a call waits for the client's answers (default
	// 30s). Keep it below the http.Server's WriteTimeout, or the response
	// is cut before the call can end. A call not answered in time ends as
	// declined; nothing runs.
	Wait time.Duration
	// PerCaller bounds the calls one caller may have waiting at once
	// (default 4); Total, those of all callers (default 256). A call over
	// either bound is not asked and ends without running. A waiting call
	// holds one of these wait slots, not one of Limits.Concurrent: it
	// gives its concurrency slot back while it waits, and takes one again
	// to run with the answer, waiting up to 5 s for one (past that it
	// ends with the 503 "Server overloaded" error, not run).
	PerCaller, Total int
	// AnswerBytes bounds the body of an answer (default 64 KiB).
	AnswerBytes int64
}

// WithLegacyInput lets a tool ask a 2025 client for input: when its
// handler calls RequireInput, or it is a destructive tool to confirm, and
// the client declared the capability the question needs (elicitation,
// sampling, roots) on initialize — which the endpoint learns from a sealed
// session, so give the 2025 era era2025.WithSessions — the tools/call
// answer becomes an event stream carrying elicitation/create,
// sampling/createMessage or roots/list; the client's answer (a POST of a
// JSON-RPC response, to any replica) is delivered through c.Bus, and the
// handler runs again with it exactly as for a 2026-07-28 retry
// (Call.InputResponse, Call.Elicitation; a confirmed destructive call gets
// its Idempotency-Key and goes through the replay guard).
//
// Over stdio (mcp/stdio) the process is the session: the capabilities of
// its initialize decide, the questions and the answers are lines.
//
// Each question's id is unguessable and bound to the caller: an answer
// from another caller, to an unknown id, a second answer or one after the
// call ended is refused (400) and changes nothing. A client that goes away
// while asked cancels the call; nothing runs. Handler.Close ends a call
// waiting for its answer with a shutting_down error: nothing runs either.
// Without this option, without a session, or without the capability, 2025
// clients get what they got before (a destructive tool answers
// confirmation_required). 2026-07-28 requests are never asked this way. It panics on a negative bound.
func WithLegacyInput(c LegacyInput) HandlerOption {
	if c.Wait < 0 || c.PerCaller < 0 || c.Total < 0 || c.AnswerBytes < 0 {
		panic("mcp: WithLegacyInput needs bounds of 0 (the default) or more")
	}
	if c.Bus == nil {
		c.Bus = newMemoryBus()
	}
	if c.Wait == 0 {
		c.Wait = 30 * time.Second
	}
	if c.PerCaller == 0 {
		c.PerCaller = 4
	}
	if c.Total == 0 {
		c.Total = 256
	}
	if c.AnswerBytes == 0 {
		c.AnswerBytes = 64 << 10
	}
	l := &legacyInput{LegacyInput: c, waiting: &admission{limit: c.Total, perCaller: c.PerCaller, held: map[string]int{}}}
	return handlerOptionFunc(func(hc *handlerConfig) { hc.legacy = l })
}

// legacyInput is WithLegacyInput's configuration and its count of waiting
// calls (Total in all, PerCaller each).
type legacyInput struct {
	LegacyInput
	waiting *admission
}

// serverView is what a Handler derives from one snapshot of its Server:
// what every era is told about the endpoint (seam.Server).
type serverView struct {
	snap *Server
	info seam.Server
}

// ChangeNotifications configures WithChangeNotifications. The zero value
// serves one process: an in-process bus and session store, and the
// default bounds.
type ChangeNotifications struct {
	// Bus carries list changes, resource updates and fleet events to
	// every replica (nil: this process only; redisstore.NewEventBus for a
	// fleet).
	Bus EventBus
	// Sessions keeps what a 2025 session subscribed to and its log level
	// (nil: in this process, at most 10,000 sessions;
	// redisstore.NewSessionStore for a fleet).
	Sessions SessionStore
	// Streams bounds the open notification streams (listen streams
	// asking for list changes or resources, 2025 GET streams) in all,
	// StreamsPerCaller those of one caller (defaults 1024 and 8). They
	// are slots of their own: a stream never holds one of
	// Limits.Concurrent's.
	Streams, StreamsPerCaller int
	// URIsPerStream bounds the resources one listen stream subscribes to,
	// and one 2025 session (default 32).
	URIsPerStream int
	// KeepAlive is how often a quiet stream sends an SSE comment, so that
	// proxies keep it open (default 15 s).
	KeepAlive time.Duration
	// OnFleet receives every fleet event PublishFleet sends, on every
	// replica, this one included, one at a time and in the order one
	// replica published them. It should return quickly: fleet events
	// that arrive meanwhile wait in a queue of 256 (past it they are
	// lost, and logged); the bus's other traffic never waits for it. A
	// fleet applies the same Server.Update on every replica this way.
	// Lists keep the order items were added in, so replicas that applied
	// two replicas' changes in different orders list them differently
	// (a cursor of one is refused by the other): an OnFleet that applies
	// a state rather than a change, rebuilding what it adds in one order,
	// keeps replicas alike.
	OnFleet func(ctx context.Context, name string, payload []byte)
}

// WithChangeNotifications serves change notifications: a 2026-07-28
// subscriptions/listen stream may ask for toolsListChanged,
// promptsListChanged, resourcesListChanged and resourceSubscriptions
// (besides taskIds), and a 2025 client with a session (era2025.WithSessions)
// opens a GET stream for them, in a workspace it may act in, and may call
// resources/subscribe, resources/unsubscribe and logging/setLevel (its tool calls' log
// notifications then follow its level, with WithStreaming). The
// capabilities say listChanged and subscribe only with this option.
// Without it nothing is pushed, as the seed's stateless contract wants:
// listen serves taskIds only, a GET is 405.
//
// A resource update reaches a stream only for a URI its caller may read:
// when it subscribes the URI is read as resources/read reads it (the
// route's own checks apply), and before each delivery the caller's
// scopes, permission and workspace are checked again (no route runs); a
// stream ends when its token expires or its workspace is withdrawn.
// It panics on a negative bound.
func WithChangeNotifications(n ChangeNotifications) HandlerOption {
	if n.Streams < 0 || n.StreamsPerCaller < 0 || n.URIsPerStream < 0 || n.KeepAlive < 0 {
		panic("mcp: WithChangeNotifications needs bounds of 0 (the default) or more")
	}
	if n.Streams == 0 {
		n.Streams = 1024
	}
	if n.StreamsPerCaller == 0 {
		n.StreamsPerCaller = 8
	}
	if n.URIsPerStream == 0 {
		n.URIsPerStream = 32
	}
	if n.KeepAlive == 0 {
		n.KeepAlive = 15 * time.Second
	}
	return handlerOptionFunc(func(c *handlerConfig) { c.notes = &n })
}

// notifications is a Handler's side of change notifications.
type notifications struct {
	ChangeNotifications
	slots admission
}

// decodedEvent is the last event a Handler's streams decoded.
type decodedEvent struct {
	raw []byte
	e   busEvent
	err error
}
