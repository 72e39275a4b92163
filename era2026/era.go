package era2026

import (
	"crypto/rand"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/mcp/protocol"
	"github.com/mcpdual/mcpdual/mrtr"
)

// CacheScope says who may reuse a cacheable result.
type CacheScope string

const (
	// Private: the result depends on the caller; never share it.
	Private CacheScope = "private"
	// Public: any caller may be served the same result.
	Public CacheScope = "public"
)

// Era serves revision 2026-07-28. Create it with New.
type Era struct {
	settings // what New and the options decided; Seam copies it whole

	mu   sync.RWMutex
	meta map[string][]byte // serverInfo object -> the result _meta naming it
}

// settings are an Era's options, apart from its lock and cache so that
// Seam copies every one of them, including any added later.
type settings struct {
	ttlMs  int64
	scope  CacheScope
	sealer *mrtr.Sealer
	// ephemeral: the sealer's key was drawn by this process, so no other
	// process can open its states.
	ephemeral bool
	// room is the largest plaintext sealer seals into a requestState
	// (stateRoom; seam.Profile.StateRoom).
	room int
}

// Option configures an Era.
type Option interface{ apply(*Era) }

type optionFunc func(*Era)

func (f optionFunc) apply(e *Era) { f(e) }

// WithCaching sets the ttlMs and cacheScope of cacheable results
// (server/discover, lists and resource reads). The default, 0 and
// Private, tells clients not to reuse them: what a caller sees may depend
// on who it is. It panics on a negative ttl or a scope other than Private
// and Public.
func WithCaching(ttl time.Duration, scope CacheScope) Option {
	if ttl < 0 || (scope != Private && scope != Public) {
		panic("era2026: WithCaching needs ttl >= 0 and scope Private or Public")
	}
	return optionFunc(func(e *Era) { e.ttlMs, e.scope = ttl.Milliseconds(), scope })
}

// WithSealer sets the Sealer of requestState. Replicas that may serve
// each other's retries must share its key ring: load it on every replica
// from the same configuration with mrtr.LoadKeys. Without WithSealer, New
// creates a sealer over a random key of its own: safe, but a retry that
// reaches another process (a second replica, a restart) is refused and
// the client starts over, so the handler logs a warning when it is built.
// It panics on a nil Sealer.
func WithSealer(s *mrtr.Sealer) Option {
	if s == nil {
		panic("era2026: WithSealer needs a Sealer")
	}
	return optionFunc(func(e *Era) { e.sealer = s })
}

// New returns the era serving 2026-07-28.
func New(opts ...Option) *Era {
	e := &Era{settings: settings{scope: Private}, meta: map[string][]byte{}}
	for _, o := range opts {
		o.apply(e)
	}
	if e.sealer == nil {
		secret := make([]byte, mrtr.MinSecretBytes)
		if _, err := rand.Read(secret); err != nil {
			panic("era2026: no randomness for the requestState key: " + err.Error())
		}
		ring, err := mrtr.NewRing(mrtr.Key{ID: "local", Secret: secret})
		if err != nil {
			panic(err)
		}
		e.sealer = mrtr.NewSealer(ring)
		e.ephemeral = true
	}
	e.room = stateRoom(e.sealer)
	return e
}

// stateRoom measures the largest plaintext s seals into a requestState.
// mrtr bounds a sealed state (MaxMintBytes), not its plaintext: how much
// of the bound a plaintext may take depends on the ring's sealing key
// (its id, its algorithm) and on a layout mrtr keeps to itself, so the
// era finds it by sealing, once, by bisection. A state's size depends on
// its plaintext's length only (the binding is sealed as a digest), and
// on how many digits the clock's seconds have, ten until 2286.
func stateRoom(s *mrtr.Sealer) int {
	b := mrtr.Binding{Arguments: []byte("{}")}
	fits := func(n int) bool {
		_, _, err := s.Seal(b, make([]byte, n))
		return err == nil
	}
	if !fits(0) {
		return 0 // no bound the core could check: the era's own failure stands
	}
	// A plaintext of MaxMintBytes never fits: sealed, it grows.
	lo, hi := 0, mrtr.MaxMintBytes
	for hi-lo > 1 {
		if mid := (lo + hi) / 2; fits(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// ephemeralWarning is logged when a handler is built over an era whose
// requestState key is this process's own. It is a warning and not an
// error: one process (development, a single instance) works; a fleet or a
// restart refuses the retries that cross processes, which is only seen as
// clients starting over.
const ephemeralWarning = "era2026: requestState is sealed with a random key of this process only: " +
	"a multi round-trip retry (a destructive tool's confirmation) that reaches another replica, " +
	"or this one after a restart, is refused and the client must start over. " +
	"Give every replica the same key ring: era2026.WithSealer(mrtr.NewSealer(ring)) over mrtr.LoadKeys"

// Seam implements mcp.Era. What it returns has methods only: a module
// that is handed an Era can call its hooks, never replace them.
func (e *Era) Seam() seam.Era {
	// A copy: the handler built over these hooks keeps the options it was
	// built with, even if whoever holds e overwrites *e afterwards.
	c := &Era{settings: e.settings, meta: map[string][]byte{}}
	return &hooks{Era: c}
}

// hooks is the Era as the core sees it: its methods are the era's ladder,
// kept off the exported type's method set, and so is seam.Mark, which
// only a type of this module can embed (an outside type embedding *Era
// must not inherit it).
type hooks struct {
	seam.Mark
	*Era
}

// profile is revision 2026-07-28 as data. It has no handshake (no
// initialize, no ping): a request names the revision, and the client's
// capabilities, in params._meta; server/discover says what the server is;
// and a call may ask the client for input, or become a task.
var profile = seam.Profile{
	Version: string(protocol.Version20260728),
	Titles:  true, OutputSchema: true, ResourceLinks: true, Icons: true, CompletionContext: true,
	Elicitation: true, URLElicitation: true, SamplingTools: true, MultiSelect: true,
	Envelope: true, InputRequests: true, SealsTasks: true,
	ResourceNotFound: seam.CodeInvalidParams, // -32002 is forbidden in this revision
	// An unknown method is 404 and a missing client capability 400; every
	// other error of an understood request is 200.
	Statuses: map[int]int{seam.CodeMethodNotFound: http.StatusNotFound, seam.CodeMissingRequiredClientCapabilities: http.StatusBadRequest},
	Methods: []string{"server/discover", "tools/list", "tools/call", "resources/list", "resources/templates/list", "resources/read",
		"prompts/list", "prompts/get", "completion/complete", "tasks/get", "tasks/update", "tasks/cancel",
		"subscriptions/listen"},
}

func (h *hooks) Profiles() []seam.Profile {
	p := profile.Clone()
	p.StateRoom = h.room
	return []seam.Profile{p}
}
func (h *hooks) Default() string { return "" }
func (h *hooks) Warnings() []string {
	if h.ephemeral {
		return []string{ephemeralWarning}
	}
	return nil
}
func (h *hooks) Names(r *seam.Request) (string, bool, error) { return namedVersion(r) }
func (h *hooks) Unnamed(version string) error                { return unnamed(version) }
func (h *hooks) Envelope(r *seam.Request) (seam.Declared, error) {
	caps, err := checkEnvelope(r)
	return seam.Declared{ClientCapabilities: caps}, err
}
func (h *hooks) Target(r *seam.Request) error { return checkTarget(r) }
func (h *hooks) Open(r *seam.Request) error   { return h.Era.openState(r) }

// Serve answers the one method this era owns, server/discover: the core
// calls it only for a row marked as the era's, and of those this era's
// profile names server/discover alone. A second such method would be
// told apart here, by r.Name: the one place an era names a method.
func (h *hooks) Serve(r *seam.Request) (seam.Result, seam.Negotiated, error) {
	res, err := h.Era.discover(r)
	return res, seam.Negotiated{}, err
}

func (h *hooks) Finish(r *seam.Request, res seam.Result) (seam.Result, error) {
	return h.Era.finish(r, res)
}

// finish stamps a result: resultType and the server's identity in _meta on
// every one, ttlMs and cacheScope on cacheable ones. An input_required one
// gets its state sealed and no cache hints.
func (e *Era) finish(req *seam.Request, res seam.Result) (seam.Result, error) {
	meta := e.serverMeta(req)
	if r, ok := res.(*seam.TaskCreated); ok {
		b, err := req.Core.Binding(true)
		if err != nil {
			return nil, err
		}
		id, _, err := e.sealer.SealFor(mrtr.Binding(b), r.Payload, r.TTL)
		if err != nil {
			req.Core.Log(slog.LevelError, "era2026: cannot seal a task id", "method", req.Name, "err", err)
			return nil, &seam.Failure{Code: -32603, Message: "Internal error"}
		}
		r.TaskID = id
		rt := "task"
		if r.StatusTool != "" {
			rt = "complete" // a tool result naming the job, for a client without the extension
		}
		*r.Stamp() = seam.Stamp{ResultType: rt, Meta: meta}
		return r, nil
	}
	if r, ok := res.(*seam.InputRequired); ok {
		b, err := req.Core.Binding(false)
		if err != nil {
			return nil, err
		}
		state, _, err := e.sealer.Seal(mrtr.Binding(b), r.State)
		if err != nil {
			req.Core.Log(slog.LevelError, "era2026: cannot seal requestState", "method", req.Name, "err", err)
			return nil, &seam.Failure{Code: -32603, Message: "Internal error"}
		}
		r.RequestState = state
		*r.Stamp() = seam.Stamp{ResultType: "input_required", Meta: meta}
		return r, nil
	}
	st := res.Stamp()
	st.ResultType, st.Meta = "complete", meta
	if m := req.Method; m != nil && m.Cacheable {
		st.TTLMs, st.CacheScope = e.ttlMs, string(e.scope)
		if _, own := res.(*discoverResult); !own {
			// What the core builds is filtered for the caller: private
			// whatever WithCaching says; when it also depends on the
			// workspace, not cacheable at all, because X-Workspace-Id is
			// not part of the key a client caches under.
			if req.Server.Personal >= 1 {
				st.CacheScope = string(Private)
			}
			if req.Server.Personal >= 2 {
				st.TTLMs = 0
			}
		}
	}
	return res, nil
}

// serverMeta returns the result _meta naming the server, rendered once per
// server and then read under a read lock.
func (e *Era) serverMeta(req *seam.Request) []byte {
	info := req.Server.Info[req.Version]
	e.mu.RLock()
	m, ok := e.meta[string(info)]
	e.mu.RUnlock()
	if ok {
		return m
	}
	m = append(append([]byte(`{"io.modelcontextprotocol/serverInfo":`), info...), '}')
	e.mu.Lock()
	e.meta[string(info)] = m
	e.mu.Unlock()
	return m
}
