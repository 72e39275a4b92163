package era2025

import (
	"context"
	"encoding/json"

	"github.com/mcpdual/mcpdual/mcp"
)

// Era serves revisions 2025-06-18 and 2025-03-26. Create it with New.
type Era struct {
	mcp.EraBase
	versions []mcp.Version
}

// Option configures an Era.
type Option interface{ apply(*Era) }

type optionFunc func(*Era)

func (f optionFunc) apply(e *Era) { f(e) }

// WithVersions limits the revisions served to a subset of 2025-06-18 and
// 2025-03-26. It panics on any other revision.
func WithVersions(vs ...mcp.Version) Option {
	for _, v := range vs {
		if v != mcp.Version20250618 && v != mcp.Version20250326 {
			panic("era2025: cannot serve revision " + string(v))
		}
	}
	return optionFunc(func(e *Era) { e.versions = append([]mcp.Version(nil), vs...) })
}

// New returns the era serving 2025-06-18 and 2025-03-26.
func New(opts ...Option) *Era {
	e := &Era{versions: []mcp.Version{mcp.Version20250618, mcp.Version20250326}}
	for _, o := range opts {
		o.apply(e)
	}
	if len(e.versions) == 0 {
		panic("era2025: no revision to serve")
	}
	return e
}

// Versions implements mcp.Era.
func (e *Era) Versions() []mcp.Version { return e.versions }

// PerRequest implements mcp.Era: these revisions negotiate with initialize.
func (e *Era) PerRequest() bool { return false }

// Serve implements mcp.Era.
func (e *Era) Serve(ctx context.Context, req *mcp.Request) (any, error) {
	srv := req.Server()
	switch req.Method() {
	case "initialize":
		return e.initialize(req)
	case "ping":
		return json.RawMessage(`{}`), nil
	case "tools/list":
		if srv.HasTools() {
			return srv.ListTools(req)
		}
	case "tools/call":
		if srv.HasTools() {
			return srv.CallTool(req)
		}
	case "resources/list":
		if srv.HasResources() {
			return srv.ListResources(req)
		}
	case "resources/templates/list":
		if srv.HasResources() {
			return srv.ListResourceTemplates(req)
		}
	case "resources/read":
		if srv.HasResources() {
			return srv.ReadResource(req)
		}
	case "prompts/list":
		if srv.HasPrompts() {
			return srv.ListPrompts(req)
		}
	case "prompts/get":
		if srv.HasPrompts() {
			return srv.GetPrompt(req)
		}
	case "completion/complete":
		if srv.HasCompletions() {
			return srv.Complete(req)
		}
	}
	return nil, mcp.MethodNotFound(req.Method())
}

type initializeResult struct {
	ProtocolVersion mcp.Version        `json:"protocolVersion"`
	Capabilities    capabilities       `json:"capabilities"`
	ServerInfo      mcp.Implementation `json:"serverInfo"`
	Instructions    string             `json:"instructions,omitempty"`
}

type capabilities struct {
	Tools       *listChanged  `json:"tools,omitempty"`
	Resources   *resourceCaps `json:"resources,omitempty"`
	Prompts     *listChanged  `json:"prompts,omitempty"`
	Completions *struct{}     `json:"completions,omitempty"`
}

type listChanged struct {
	ListChanged bool `json:"listChanged"`
}

type resourceCaps struct {
	Subscribe   bool `json:"subscribe"`
	ListChanged bool `json:"listChanged"`
}

// initialize negotiates: the requested revision when served, otherwise the
// newest one this era serves. A client asking for 2026-07-28 here gets a
// 2025 revision, since 2026-07-28 has no handshake.
func (e *Era) initialize(req *mcp.Request) (any, error) {
	raw, ok := req.Param("protocolVersion")
	asked, isStr := mcp.String(raw)
	if !ok || !isStr {
		return nil, mcp.NewError(mcp.CodeInvalidParams, "Invalid params: protocolVersion must be a string")
	}
	v := e.versions[0]
	for _, served := range e.versions {
		if string(served) == asked {
			v = served
		}
	}
	req.Negotiate(v)
	srv := req.Server()
	res := initializeResult{
		ProtocolVersion: v,
		ServerInfo:      srv.Info(),
		Instructions:    srv.Instructions(),
	}
	if !mcp.FeaturesOf(v).Titles {
		res.ServerInfo.Title = ""
	}
	if srv.HasTools() {
		// A stateless server pushes nothing, so it never promises
		// list_changed notifications.
		res.Capabilities.Tools = &listChanged{}
	}
	// subscribe and listChanged are said false outright: nothing is ever
	// pushed, and a client must not wait for it.
	if srv.HasResources() {
		res.Capabilities.Resources = &resourceCaps{}
	}
	if srv.HasPrompts() {
		res.Capabilities.Prompts = &listChanged{}
	}
	if srv.HasCompletions() {
		res.Capabilities.Completions = &struct{}{}
	}
	return res, nil
}
