package era2025

import (
	"slices"
	"time"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/mcp/protocol"
	"github.com/mcpdual/mcpdual/mrtr"
)

// Era serves revisions 2025-11-25, 2025-06-18 and 2025-03-26. Create it
// with New.
type Era struct {
	versions []protocol.Version
	dflt     protocol.Version
	sessions *mrtr.Sealer  // nil: no session ids (WithSessions)
	lifetime time.Duration // of a session id
	tasks    *mrtr.Sealer  // nil: no job references (WithSealer; else sessions')
}

// Option configures an Era.
type Option interface{ apply(*Era) }

type optionFunc func(*Era)

func (f optionFunc) apply(e *Era) { f(e) }

// handshake is every revision this package can serve, newest first.
var handshake = []protocol.Version{protocol.Version20251125, protocol.Version20250618, protocol.Version20250326}

// WithVersions limits the revisions served to a subset of 2025-11-25,
// 2025-06-18 and 2025-03-26, for a host whose contract names the revisions
// it accepts. It panics on any other revision.
func WithVersions(vs ...protocol.Version) Option {
	for _, v := range vs {
		known := false
		for _, h := range handshake {
			known = known || v == h
		}
		if !known {
			panic("era2025: cannot serve revision " + string(v))
		}
	}
	return optionFunc(func(e *Era) { e.versions = append([]protocol.Version(nil), vs...) })
}

// New returns the era serving 2025-11-25, 2025-06-18 and 2025-03-26. A
// request that names no revision at all (no MCP-Protocol-Version header and
// no _meta envelope) is taken as 2025-06-18 when it is served, otherwise as
// the newest revision served. It panics when WithVersions leaves no
// revision to serve.
func New(opts ...Option) *Era {
	e := &Era{versions: append([]protocol.Version(nil), handshake...)}
	for _, o := range opts {
		o.apply(e)
	}
	if len(e.versions) == 0 {
		panic("era2025: no revision to serve")
	}
	// Newest first, whatever order WithVersions was given.
	slices.SortFunc(e.versions, func(a, b protocol.Version) int { return b.Compare(a) })
	e.dflt = e.versions[0]
	if slices.Contains(e.versions, protocol.Version20250618) {
		e.dflt = protocol.Version20250618
	}
	return e
}

// Seam implements mcp.Era. What it returns has methods only: a module
// that is handed an Era can call its hooks, never replace them.
func (e *Era) Seam() seam.Era {
	// A copy: the handler built over these hooks keeps the options it was
	// built with, even if whoever holds e overwrites *e afterwards.
	c := *e
	return &hooks{Era: &c}
}

// hooks is the Era as the core sees it: its methods are the era's ladder,
// kept off the exported type's method set, and so is seam.Mark, which
// only a type of this module can embed (an outside type embedding *Era
// must not inherit it). These revisions check nothing
// beyond what the core does and stamp nothing; the only state they carry
// is a sealed session id, with WithSessions (session.go), and a status
// tool's job reference, with WithSealer (tasks.go).
type hooks struct {
	seam.Mark
	*Era
}

// profiles are the handshake revisions as data, newest first. They
// negotiate with initialize (and keep ping); they have no
// server/discover, no tasks and no input requests; every in-band error is
// 200.
var profiles = []seam.Profile{
	{Version: string(protocol.Version20251125), Titles: true, OutputSchema: true, ResourceLinks: true, Icons: true, CompletionContext: true,
		Elicitation: true, URLElicitation: true, SamplingTools: true, MultiSelect: true,
		ResourceNotFound: codeResourceNotFound, Methods: methods},
	{Version: string(protocol.Version20250618), Titles: true, OutputSchema: true, ResourceLinks: true, CompletionContext: true,
		Elicitation: true, ResourceNotFound: codeResourceNotFound, Methods: methods},
	{Version: string(protocol.Version20250326), Elicitation: true, ResourceNotFound: codeResourceNotFound, Methods: methods},
}

// codeResourceNotFound is these revisions' code for an unknown resource.
const codeResourceNotFound = -32002

var methods = []string{"initialize", "notifications/initialized", "ping", "tools/list", "tools/call", "resources/list",
	"resources/templates/list", "resources/read", "prompts/list", "prompts/get", "completion/complete",
	"resources/subscribe", "resources/unsubscribe", "logging/setLevel"}

func (h *hooks) Profiles() []seam.Profile {
	var out []seam.Profile
	for _, v := range h.versions {
		for _, p := range profiles {
			if p.Version == string(v) {
				c := p.Clone()
				c.SealsTasks = h.taskSealer() != nil
				c.Sessions = h.sessions != nil
				out = append(out, c)
			}
		}
	}
	return out
}
func (h *hooks) Default() string    { return string(h.dflt) }
func (h *hooks) Warnings() []string { return nil }

// Names: these revisions are negotiated, never named in the body.
func (h *hooks) Names(*seam.Request) (string, bool, error) { return "", false, nil }
func (h *hooks) Unnamed(string) error                      { return nil } // no revision here has an envelope
func (h *hooks) Envelope(r *seam.Request) (seam.Declared, error) {
	return h.Era.openSession(r)
}
func (h *hooks) Target(*seam.Request) error { return nil }
func (h *hooks) Open(r *seam.Request) error { return h.Era.openTask(r) }
func (h *hooks) Finish(r *seam.Request, res seam.Result) (seam.Result, error) {
	return h.Era.finish(r, res)
}

// Serve answers the one method this era owns: initialize.
func (h *hooks) Serve(r *seam.Request) (seam.Result, seam.Negotiated, error) {
	return h.Era.initialize(r)
}

// initialize negotiates: the requested revision when served, otherwise the
// newest one this era serves. A client asking for 2026-07-28 here gets a
// 2025 revision, since 2026-07-28 has no handshake.
func (e *Era) initialize(req *seam.Request) (seam.Result, seam.Negotiated, error) {
	raw, ok := req.Param("protocolVersion")
	asked, isStr := jsonrpc.String(raw)
	if !ok || !isStr {
		return nil, seam.Negotiated{}, &seam.Failure{Code: seam.CodeInvalidParams, Message: "Invalid params: protocolVersion must be a string"}
	}
	v := e.versions[0]
	for _, served := range e.versions {
		if string(served) == asked {
			v = served
		}
	}
	caps := req.Server.Capabilities
	if e.sessions == nil || req.Local {
		// Pushed notifications need a session's GET stream (over stdio, the
		// core's stream does not carry them either).
		caps &^= seam.CapListChanged | seam.CapSubscribe | seam.CapLogging
	}
	return &initializeResult{version: string(v), caps: caps, info: req.Server.Info[string(v)],
			instructions: req.Server.Instructions},
		seam.Negotiated{Version: string(v), SessionID: e.issueSession(req, string(v))}, nil
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

// AppendJSON renders the result. subscribe and listChanged are said
// false outright unless the session's GET stream delivers them
// (mcp.WithChangeNotifications with sessions): a client must not wait for
// a notification that never comes.
func (r *initializeResult) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"protocolVersion":`...)
	dst = seam.AppendString(dst, r.version)
	dst = append(dst, `,"capabilities":{`...)
	n := len(dst)
	changes, subscribe := "false", "false"
	if r.caps&seam.CapListChanged != 0 {
		changes = "true"
	}
	if r.caps&seam.CapSubscribe != 0 {
		subscribe = "true"
	}
	if r.caps&seam.CapTools != 0 {
		dst = append(dst, `"tools":{"listChanged":`+changes+`}`...)
	}
	if r.caps&seam.CapResources != 0 {
		dst = seam.Comma(dst, len(dst) > n)
		dst = append(dst, `"resources":{"subscribe":`+subscribe+`,"listChanged":`+changes+`}`...)
	}
	if r.caps&seam.CapPrompts != 0 {
		dst = seam.Comma(dst, len(dst) > n)
		dst = append(dst, `"prompts":{"listChanged":`+changes+`}`...)
	}
	if r.caps&seam.CapCompletions != 0 {
		dst = seam.Comma(dst, len(dst) > n)
		dst = append(dst, `"completions":{}`...)
	}
	if r.caps&seam.CapLogging != 0 {
		dst = seam.Comma(dst, len(dst) > n)
		dst = append(dst, `"logging":{}`...)
	}
	dst = append(dst, `},"serverInfo":`...)
	dst = append(dst, r.info...)
	if r.instructions != "" {
		dst = append(dst, `,"instructions":`...)
		dst = seam.AppendString(dst, r.instructions)
	}
	return append(dst, '}')
}
