package era2026

import (
	"crypto/rand"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/mcp"
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
	ttlMs  int64
	scope  CacheScope
	sealer *mrtr.Sealer
	// ephemeral: the sealer's key was drawn by this process, so no other
	// process can open its states.
	ephemeral bool
	seam      seam.Era

	mu   sync.RWMutex
	meta map[string][]byte // serverInfo object -> the result _meta naming it
}

// Option configures an Era.
type Option interface{ apply(*Era) }

type optionFunc func(*Era)

func (f optionFunc) apply(e *Era) { f(e) }

// WithCaching sets the ttlMs and cacheScope of cacheable results
// (server/discover, lists and resource reads). The default, 0 and
// Private, tells clients not to reuse them: what a caller sees may depend
// on who it is.
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
func WithSealer(s *mrtr.Sealer) Option {
	if s == nil {
		panic("era2026: WithSealer needs a Sealer")
	}
	return optionFunc(func(e *Era) { e.sealer = s })
}

// New returns the era serving 2026-07-28.
func New(opts ...Option) *Era {
	e := &Era{scope: Private, meta: map[string][]byte{}}
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
	e.seam = seam.Era{
		Versions:   []string{string(mcp.Version20260728)},
		PerRequest: true,
		Envelope:   checkEnvelope,
		Target:     checkTarget,
		Open:       e.openState,
		Serve:      e.discover,
		Finish:     e.finish,
		Status:     status,
	}
	if e.ephemeral {
		e.seam.Warnings = []string{ephemeralWarning}
	}
	return e
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

// Seam implements mcp.Era.
func (e *Era) Seam() *seam.Era { return &e.seam }

// status is the HTTP status of an in-band error: this revision answers an
// unknown method 404 and a missing client capability 400; every other error
// of an understood request is 200.
func status(code int) int {
	switch code {
	case seam.CodeMethodNotFound:
		return http.StatusNotFound
	case seam.CodeMissingRequiredClientCapabilities:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// finish stamps a result: resultType and the server's identity in _meta on
// every one, ttlMs and cacheScope on cacheable ones. An input_required one
// gets its state sealed and no cache hints.
func (e *Era) finish(req seam.Request, res seam.Result) (seam.Result, error) {
	meta := e.serverMeta(req)
	if r, ok := res.(*seam.TaskCreated); ok {
		b, err := req.TaskBinding()
		if err != nil {
			return nil, err
		}
		id, _, err := e.sealer.SealFor(mrtr.Binding(b), r.Payload, r.TTL)
		if err != nil {
			req.Log(slog.LevelError, "era2026: cannot seal a task id", "method", req.Name(), "err", err)
			return nil, &seam.Failure{Code: -32603, Message: "Internal error"}
		}
		r.TaskID = id
		*r.Stamp() = seam.Stamp{ResultType: "task", Meta: meta}
		return r, nil
	}
	if r, ok := res.(*seam.InputRequired); ok {
		b, err := req.Binding()
		if err != nil {
			return nil, err
		}
		state, _, err := e.sealer.Seal(mrtr.Binding(b), r.State)
		if err != nil {
			req.Log(slog.LevelError, "era2026: cannot seal requestState", "method", req.Name(), "err", err)
			return nil, &seam.Failure{Code: -32603, Message: "Internal error"}
		}
		r.RequestState = state
		*r.Stamp() = seam.Stamp{ResultType: "input_required", Meta: meta}
		return r, nil
	}
	st := res.Stamp()
	st.ResultType, st.Meta = "complete", meta
	if m := req.Method(); m != nil && m.Cacheable {
		st.TTL, st.TTLMs, st.CacheScope = true, e.ttlMs, string(e.scope)
		if m.PerCaller {
			// A result filtered for the caller is private whatever
			// WithCaching says; one that also depends on the workspace
			// is not cacheable at all, because X-Workspace-Id is not part
			// of the key a client caches under.
			byCaller, byWorkspace := req.Personalized()
			if byCaller {
				st.CacheScope = string(Private)
			}
			if byWorkspace {
				st.TTLMs = 0
			}
		}
	}
	return res, nil
}

// serverMeta returns the result _meta naming the server, rendered once per
// server and then read under a read lock.
func (e *Era) serverMeta(req seam.Request) []byte {
	info := req.ServerInfo(req.Version())
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
