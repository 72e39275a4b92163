package era2026

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"sync"
	"time"

	"github.com/mcpdual/mcpdual/headers"
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
	mcp.EraBase
	ttlMs  int64
	scope  CacheScope
	sealer *mrtr.Sealer

	meta sync.Map // *mcp.Server -> json.RawMessage: serverInfo _meta, rendered once per server
}

// Option configures an Era.
type Option interface{ apply(*Era) }

type optionFunc func(*Era)

func (f optionFunc) apply(e *Era) { f(e) }

// WithCaching sets the ttlMs and cacheScope of cacheable results
// (server/discover and lists). The default, 0 and Private, tells clients
// not to reuse them: what a caller sees may depend on who it is.
func WithCaching(ttl time.Duration, scope CacheScope) Option {
	if ttl < 0 || (scope != Private && scope != Public) {
		panic("era2026: WithCaching needs ttl >= 0 and scope Private or Public")
	}
	return optionFunc(func(e *Era) { e.ttlMs, e.scope = ttl.Milliseconds(), scope })
}

// WithSealer sets the Sealer of requestState. Replicas that may serve
// each other's retries must share its key ring. Without it, New creates a
// sealer over a random key of its own: safe, but a retry that reaches
// another process (a second replica, a restart) is refused and the client
// starts over.
func WithSealer(s *mrtr.Sealer) Option {
	if s == nil {
		panic("era2026: WithSealer needs a Sealer")
	}
	return optionFunc(func(e *Era) { e.sealer = s })
}

// New returns the era serving 2026-07-28.
func New(opts ...Option) *Era {
	e := &Era{scope: Private}
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
	}
	return e
}

// Versions implements mcp.Era.
func (e *Era) Versions() []mcp.Version { return []mcp.Version{mcp.Version20260728} }

// PerRequest implements mcp.Era: every request names its revision in _meta.
func (e *Era) PerRequest() bool { return true }

// Serve implements mcp.Era. The order of the checks follows the
// revision's validation ladder: _meta, Mcp-Method, method lookup, Mcp-Name,
// tool lookup, Mcp-Param-*.
func (e *Era) Serve(ctx context.Context, req *mcp.Request) (any, error) {
	if err := checkMeta(req); err != nil {
		return nil, err
	}
	if err := checkHeader(req, headers.Method, req.Method()); err != nil {
		return nil, err
	}
	srv := req.Server()
	switch req.Method() {
	case "server/discover":
		if err := e.openState(req); err != nil {
			return nil, err
		}
		return e.discover(req), nil
	case "tools/list":
		if !srv.HasTools() {
			break
		}
		if err := e.openState(req); err != nil {
			return nil, err
		}
		res, err := srv.ListTools(req)
		if err != nil {
			return nil, err
		}
		res.Stamp = e.listStamp(req)
		return res, nil
	case "tools/call":
		if !srv.HasTools() {
			break
		}
		name, err := checkName(req, "name")
		if err != nil {
			return nil, err
		}
		if err := checkParams(req, name); err != nil {
			return nil, err
		}
		if err := e.openState(req); err != nil {
			return nil, err
		}
		res, err := srv.CallTool(req)
		if err != nil {
			return nil, err
		}
		return e.finish(req, name, res)
	case "resources/list", "resources/templates/list", "prompts/list":
		if (req.Method() == "prompts/list" && !srv.HasPrompts()) || (req.Method() != "prompts/list" && !srv.HasResources()) {
			break
		}
		if err := e.openState(req); err != nil {
			return nil, err
		}
		var res interface{ Stamped() *mcp.Stamp }
		var err error
		switch req.Method() {
		case "resources/list":
			res, err = srv.ListResources(req)
		case "resources/templates/list":
			res, err = srv.ListResourceTemplates(req)
		default:
			res, err = srv.ListPrompts(req)
		}
		if err != nil {
			return nil, err
		}
		*res.Stamped() = e.listStamp(req)
		return res, nil
	case "resources/read", "prompts/get":
		member := "uri"
		if req.Method() == "prompts/get" {
			if !srv.HasPrompts() {
				break
			}
			member = "name"
		} else if !srv.HasResources() {
			break
		}
		target, err := checkName(req, member)
		if err != nil {
			return nil, err
		}
		if err := e.openState(req); err != nil {
			return nil, err
		}
		var res any
		if member == "uri" {
			res, err = srv.ReadResource(req)
		} else {
			res, err = srv.GetPrompt(req)
		}
		if err != nil {
			return nil, err
		}
		return e.finish(req, target, res)
	case "completion/complete":
		if !srv.HasCompletions() {
			break
		}
		if err := e.openState(req); err != nil {
			return nil, err
		}
		res, err := srv.Complete(req)
		if err != nil {
			return nil, err
		}
		res.Stamp = e.stamp(req, false)
		return res, nil
	}
	return nil, mcp.MethodNotFound(req.Method())
}

// stamp returns the members every 2026-07-28 result carries, with ttlMs and
// cacheScope on cacheable ones.
func (e *Era) stamp(req *mcp.Request, cacheable bool) mcp.Stamp {
	s := mcp.Stamp{ResultType: "complete", Meta: e.serverMeta(req.Server())}
	if cacheable {
		ttl := e.ttlMs
		s.TTLMs = &ttl
		s.CacheScope = string(e.scope)
	}
	return s
}

// listStamp stamps a list. A list filtered for the caller is private
// whatever WithCaching says; one that also depends on the workspace is not
// cacheable at all (ttlMs 0), because X-Workspace-Id is not part of the
// key a client caches under.
func (e *Era) listStamp(req *mcp.Request) mcp.Stamp {
	s := e.stamp(req, true)
	byCaller, byWorkspace := req.Personalized()
	if byCaller {
		s.CacheScope = string(Private)
	}
	if byWorkspace {
		zero := int64(0)
		s.TTLMs = &zero
	}
	return s
}

// serverMeta returns the result _meta naming srv. It is rendered on first
// use and then read without locking on every request.
func (e *Era) serverMeta(srv *mcp.Server) json.RawMessage {
	if m, ok := e.meta.Load(srv); ok {
		return m.(json.RawMessage)
	}
	info, err := json.Marshal(srv.Info())
	if err != nil {
		panic(err) // three strings always marshal
	}
	m, _ := e.meta.LoadOrStore(srv, json.RawMessage(`{"`+mcp.MetaServerInfo+`":`+string(info)+`}`))
	return m.(json.RawMessage)
}

type discoverResult struct {
	mcp.Stamp
	SupportedVersions []mcp.Version `json:"supportedVersions"`
	Capabilities      capabilities  `json:"capabilities"`
	Instructions      string        `json:"instructions,omitempty"`
}

type capabilities struct {
	Tools       *struct{} `json:"tools,omitempty"`
	Resources   *struct{} `json:"resources,omitempty"`
	Prompts     *struct{} `json:"prompts,omitempty"`
	Completions *struct{} `json:"completions,omitempty"`
}

// discover lists every revision the endpoint serves, newest first, so a
// client learns it may also fall back to the handshake revisions.
func (e *Era) discover(req *mcp.Request) discoverResult {
	srv := req.Server()
	res := discoverResult{
		Stamp:             e.stamp(req, true),
		SupportedVersions: req.SupportedVersions(),
		Instructions:      srv.Instructions(),
	}
	if srv.HasTools() {
		res.Capabilities.Tools = &struct{}{}
	}
	if srv.HasResources() {
		res.Capabilities.Resources = &struct{}{}
	}
	if srv.HasPrompts() {
		res.Capabilities.Prompts = &struct{}{}
	}
	if srv.HasCompletions() {
		res.Capabilities.Completions = &struct{}{}
	}
	return res
}
