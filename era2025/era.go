package era2025

import (
	"slices"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/mcp"
)

// Era serves revisions 2025-11-25, 2025-06-18 and 2025-03-26. Create it
// with New.
type Era struct {
	versions []mcp.Version
	seam     seam.Era
}

// Option configures an Era.
type Option interface{ apply(*Era) }

type optionFunc func(*Era)

func (f optionFunc) apply(e *Era) { f(e) }

// handshake is every revision this package can serve, newest first.
var handshake = []mcp.Version{mcp.Version20251125, mcp.Version20250618, mcp.Version20250326}

// WithVersions limits the revisions served to a subset of 2025-11-25,
// 2025-06-18 and 2025-03-26, for a host whose contract names the revisions
// it accepts. It panics on any other revision.
func WithVersions(vs ...mcp.Version) Option {
	for _, v := range vs {
		known := false
		for _, h := range handshake {
			known = known || v == h
		}
		if !known {
			panic("era2025: cannot serve revision " + string(v))
		}
	}
	return optionFunc(func(e *Era) { e.versions = append([]mcp.Version(nil), vs...) })
}

// New returns the era serving 2025-11-25, 2025-06-18 and 2025-03-26. A
// request that names no revision at all (no MCP-Protocol-Version header and
// no _meta envelope) is taken as 2025-06-18 when it is served, otherwise as
// the newest revision served.
func New(opts ...Option) *Era {
	e := &Era{versions: append([]mcp.Version(nil), handshake...)}
	for _, o := range opts {
		o.apply(e)
	}
	if len(e.versions) == 0 {
		panic("era2025: no revision to serve")
	}
	// Newest first, whatever order WithVersions was given.
	slices.SortFunc(e.versions, func(a, b mcp.Version) int { return b.Compare(a) })
	e.seam = seam.Era{Default: string(e.versions[0]), Serve: e.serve}
	for _, v := range e.versions {
		e.seam.Versions = append(e.seam.Versions, string(v))
		if v == mcp.Version20250618 {
			e.seam.Default = string(v)
		}
	}
	return e
}

// Seam implements mcp.Era.
func (e *Era) Seam() *seam.Era { return &e.seam }

// serve answers the one method this era owns: initialize.
func (e *Era) serve(req seam.Request) (seam.Result, error) {
	return e.initialize(req)
}

// initialize negotiates: the requested revision when served, otherwise the
// newest one this era serves. A client asking for 2026-07-28 here gets a
// 2025 revision, since 2026-07-28 has no handshake.
func (e *Era) initialize(req seam.Request) (seam.Result, error) {
	raw, ok := req.Param("protocolVersion")
	asked, isStr := jsonrpc.String(raw)
	if !ok || !isStr {
		return nil, &seam.Failure{Code: seam.CodeInvalidParams, Message: "Invalid params: protocolVersion must be a string"}
	}
	v := e.versions[0]
	for _, served := range e.versions {
		if string(served) == asked {
			v = served
		}
	}
	req.Negotiate(string(v))
	return &initializeResult{version: string(v), caps: req.Capabilities(), info: req.ServerInfo(string(v)),
		instructions: req.Instructions()}, nil
}

// initializeResult is the InitializeResult.
type initializeResult struct {
	stamp        seam.Stamp // always zero: these revisions stamp nothing
	version      string
	caps         seam.Capability
	info         []byte
	instructions string
}

func (r *initializeResult) Stamp() *seam.Stamp { return &r.stamp }

// AppendJSON renders the result. A stateless server pushes nothing, so
// subscribe and listChanged are said false outright: a client must not
// wait for a notification that never comes.
func (r *initializeResult) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"protocolVersion":`...)
	dst = seam.AppendString(dst, r.version)
	dst = append(dst, `,"capabilities":{`...)
	n := len(dst)
	if r.caps&seam.CapTools != 0 {
		dst = append(dst, `"tools":{"listChanged":false}`...)
	}
	if r.caps&seam.CapResources != 0 {
		dst = seam.Comma(dst, len(dst) > n)
		dst = append(dst, `"resources":{"subscribe":false,"listChanged":false}`...)
	}
	if r.caps&seam.CapPrompts != 0 {
		dst = seam.Comma(dst, len(dst) > n)
		dst = append(dst, `"prompts":{"listChanged":false}`...)
	}
	if r.caps&seam.CapCompletions != 0 {
		dst = seam.Comma(dst, len(dst) > n)
		dst = append(dst, `"completions":{}`...)
	}
	dst = append(dst, `},"serverInfo":`...)
	dst = append(dst, r.info...)
	if r.instructions != "" {
		dst = append(dst, `,"instructions":`...)
		dst = seam.AppendString(dst, r.instructions)
	}
	return append(dst, '}')
}
