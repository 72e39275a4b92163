package mcp

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcpdual/mcpdual/internal/inproc"
	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/schema"
	"github.com/mcpdual/mcpdual/internal/seam"
)

// Implementation names the server to clients (serverInfo). Title is sent
// from revision 2025-06-18 on; Description, WebsiteURL and Icons from
// 2025-11-25 on.
type Implementation struct {
	Name        string
	Title       string
	Version     string
	Description string
	WebsiteURL  string
	Icons       []Icon
}

// Icon is an image a client may show for the server, a tool, a resource,
// a resource template or a prompt (revision 2025-11-25 and later). Src is
// an https URL or a data: URI, best on the server's own origin; MIMEType,
// Sizes ("48x48", "any") and Theme ("light" or "dark") are optional.
type Icon struct {
	Src      string
	MIMEType string
	Sizes    []string
	Theme    string
}

// appendIcons appends `,"icons":[...]` when there are icons.
func appendIcons(dst []byte, icons []Icon) []byte {
	if len(icons) == 0 {
		return dst
	}
	dst = append(dst, `,"icons":[`...)
	for i, ic := range icons {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"src":`...)
		dst = jsonrpc.AppendString(dst, ic.Src)
		if ic.MIMEType != "" {
			dst = append(dst, `,"mimeType":`...)
			dst = jsonrpc.AppendString(dst, ic.MIMEType)
		}
		if len(ic.Sizes) > 0 {
			dst = append(dst, `,"sizes":[`...)
			for j, sz := range ic.Sizes {
				if j > 0 {
					dst = append(dst, ',')
				}
				dst = jsonrpc.AppendString(dst, sz)
			}
			dst = append(dst, ']')
		}
		if ic.Theme != "" {
			dst = append(dst, `,"theme":`...)
			dst = jsonrpc.AppendString(dst, ic.Theme)
		}
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

// checkIcons refuses an icon without a source or with an unknown theme.
func checkIcons(what string, icons []Icon) error {
	for _, ic := range icons {
		if ic.Src == "" || (ic.Theme != "" && ic.Theme != "light" && ic.Theme != "dark") {
			return errors.New("mcp: " + what + ": an icon needs a src, and a theme of light or dark if any")
		}
	}
	return nil
}

// render renders the Implementation in shape.
func (i Implementation) render(shape int) []byte {
	b := []byte(`{"name":`)
	b = jsonrpc.AppendString(b, i.Name)
	if shape >= shapeTitles && i.Title != "" {
		b = append(b, `,"title":`...)
		b = jsonrpc.AppendString(b, i.Title)
	}
	b = append(b, `,"version":`...)
	b = jsonrpc.AppendString(b, i.Version)
	if shape >= shapeIcons {
		if i.Description != "" {
			b = append(b, `,"description":`...)
			b = jsonrpc.AppendString(b, i.Description)
		}
		if i.WebsiteURL != "" {
			b = append(b, `,"websiteUrl":`...)
			b = jsonrpc.AppendString(b, i.WebsiteURL)
		}
		b = appendIcons(b, i.Icons)
	}
	return append(b, '}')
}

// Server holds what an MCP endpoint offers: its identity, instructions,
// tools, resources, resource templates and prompts. Register everything
// before passing the Server to NewHandler, which freezes it; registering
// afterwards panics, and Update changes it instead (update.go). A frozen
// Server is safe for concurrent use and may back several Handlers.
type Server struct {
	identity     Implementation
	instructions string
	pageSize     int

	mu      sync.Mutex
	frozen  bool
	schemas *schema.Cache
	caps    seam.Capability // what the server offers, known at freeze
	// hiding: the extensions (by their index in extensions) that may hide
	// tools from some requests on this server; hidesPerCaller, whether
	// one of them hides by caller. Known at freeze.
	hiding         uint32
	hidesPerCaller bool
	statuses       bool            // a task has a generated status tool, known at freeze
	infoJSON       [nShapes][]byte // serverInfo rendered in every shape

	tools     []*tool
	byName    map[string]*tool
	resources []*resource
	byURI     map[string]*resource
	templates []*template
	prompts   []*prompt
	byPrompt  map[string]*prompt
	// fingerprints holds each list's fingerprint, by the kind cursors
	// name it with ("tools", "resources", "templates", "prompts").
	fingerprints map[string]string
	// literals are the routes of the items that have no wildcard
	// ("METHOD /path"), with the handlers serving them, known at freeze:
	// a wildcard route filled into one of them would reach that item's
	// route (namesLiteral).
	literals map[string][]http.Handler
	// escaped holds the fixed resources registered with an escape in
	// their URI or a byte canonicalURI escapes, by their canonical
	// spelling (the first registered of a spelling), known at freeze:
	// resourceAt finds them without a walk.
	escaped map[string]*resource

	// staged is set on the staging view Register, Check and Update hand
	// their function: its Add* methods collect their errors in errs
	// instead of panicking, and its name checks also consult parent.
	// removed: on Update's view, the items Remove took out (kind NUL
	// name), which no longer count in parent.
	staged  bool
	parent  *Server
	errs    []error
	removed map[string]bool

	// Once s serves (update.go): live is the newest snapshot Update made
	// (nil: s itself), watchers hear of each, updateMu orders Updates.
	live     atomic.Pointer[Server]
	watchers []*watcher
	updateMu sync.Mutex
}

// watcher is one function Server.watch was given; its address tells it
// apart.
type watcher struct{ f func(old, new *Server) }

// ServerOption configures a Server.
type ServerOption interface{ applyServer(*Server) }

type serverOptionFunc func(*Server)

func (f serverOptionFunc) applyServer(s *Server) { f(s) }

// WithInstructions sets the instructions sent in initialize and
// server/discover results.
func WithInstructions(text string) ServerOption {
	return serverOptionFunc(func(s *Server) { s.instructions = text })
}

// WithPageSize sets how many items one list page holds at most (default
// 100); a page also ends before 1 MiB of definitions. It panics on a size
// below 1.
func WithPageSize(n int) ServerOption {
	if n <= 0 {
		panic("mcp: WithPageSize needs a positive size")
	}
	return serverOptionFunc(func(s *Server) { s.pageSize = n })
}

// NewServer returns an empty server. info.Name and info.Version are
// required: it panics without them, and on an invalid icon.
func NewServer(info Implementation, opts ...ServerOption) *Server {
	if info.Name == "" || info.Version == "" {
		panic("mcp: NewServer needs Implementation.Name and Version")
	}
	if err := checkIcons("Implementation", info.Icons); err != nil {
		panic(err.Error())
	}
	s := &Server{identity: info, pageSize: 100, schemas: schema.NewCache(), byName: map[string]*tool{},
		byURI: map[string]*resource{}, byPrompt: map[string]*prompt{}}
	for _, o := range opts {
		o.applyServer(s)
	}
	return s
}

func (s *Server) notFrozen(what string) error {
	if s.frozen {
		return errors.New("mcp: " + what + " after NewHandler: register everything first")
	}
	return nil
}

// freeze ends registration and derives what cursors are bound to.
// extensions checks the items and derives what the registered extensions
// add (Server.freezeExtensions, extension.go).
func (s *Server) freeze(extensions func(*Server) error) {
	if err := s.freezeErr(extensions); err != nil {
		panic(err.Error())
	}
}

// freezeErr is freeze returning the extensions' refusal, with s left
// unfrozen.
func (s *Server) freezeErr(extensions func(*Server) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.frozen {
		return nil
	}
	if err := extensions(s); err != nil {
		return err
	}
	s.frozen = true
	for _, t := range s.tools {
		if t.digest == "" {
			// Only a tool no published snapshot holds yet lacks it.
			t.digest, t.jobDigest = t.definitionDigest(), t.jobDigestOf()
		}
	}
	for i := range s.infoJSON {
		s.infoJSON[i] = s.identity.render(i)
	}
	if len(s.tools) > 0 {
		s.caps |= seam.CapTools
	}
	s.literals = map[string][]http.Handler{}
	addLiteral := func(route inproc.Pattern, h http.Handler) {
		if h != nil && route.Literal != "" {
			k := route.Method + " " + route.Literal
			s.literals[k] = append(s.literals[k], h)
		}
	}
	for _, t := range s.tools {
		addLiteral(t.route, t.handler)
	}
	s.escaped = nil
	for _, r := range s.resources {
		addLiteral(r.route, r.handler)
		if spellingAt(r.def.URI) >= 0 {
			c := canonicalURI(r.def.URI)
			if s.escaped == nil {
				s.escaped = map[string]*resource{}
			}
			if s.escaped[c] == nil {
				s.escaped[c] = r
			}
		}
	}
	for _, p := range s.prompts {
		addLiteral(p.route, p.handler)
	}
	for _, t := range s.tools {
		if t.opts.task != nil {
			s.caps |= seam.CapTasks
		}
		s.statuses = s.statuses || t.statusOf != nil
	}
	if len(s.resources)+len(s.templates) > 0 {
		s.caps |= seam.CapResources
	}
	if len(s.prompts) > 0 {
		s.caps |= seam.CapPrompts
	}
	if s.hasCompletions() {
		s.caps |= seam.CapCompletions
	}
	s.fingerprints = map[string]string{
		"tools":     listFingerprint(len(s.tools), func(i int) string { return s.tools[i].def.Name }),
		"resources": listFingerprint(len(s.resources), func(i int) string { return s.resources[i].def.URI }),
		"templates": listFingerprint(len(s.templates), func(i int) string { return s.templates[i].def.URITemplate }),
		"prompts":   listFingerprint(len(s.prompts), func(i int) string { return s.prompts[i].def.Name }),
	}
	return nil
}

// listFingerprint is the fingerprint of one list: its n names, in order.
func listFingerprint(n int, name func(int) string) string {
	h := sha256.New()
	for i := range n {
		h.Write([]byte(name(i) + "\x00"))
	}
	return hex.EncodeToString(h.Sum(nil)[:6])
}

// Cursors are opaque to clients: base64url of "kind|offset|fingerprint".
// The fingerprint ties a cursor to one list as it is (its names, in
// order), so a cursor from another list, from before that list changed,
// from another deployment or a forged one is refused (-32602) instead of
// silently paging somewhere else. A change of another list leaves it
// valid: a client paging tools/list is not refused because a prompt was
// added meanwhile.
func (s *Server) cursor(kind string, offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte(kind + "|" + strconv.Itoa(offset) + "|" + s.fingerprints[kind]))
}

func (s *Server) parseCursor(kind, c string, n int) (int, bool) {
	// Strict base64 still skips CR and LF: a cursor has one spelling.
	if len(c) > 128 || strings.ContainsAny(c, "\r\n") {
		return 0, false
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(c)
	if err != nil {
		return 0, false
	}
	parts := strings.Split(string(raw), "|")
	if fp, ok := s.fingerprints[kind]; !ok || len(parts) != 3 || parts[0] != kind || parts[2] != fp {
		return 0, false
	}
	off, err := strconv.Atoi(parts[1])
	if err != nil || off <= 0 || off >= n || strconv.Itoa(off) != parts[1] {
		return 0, false
	}
	return off, true
}

// hasCompletions reports whether any completion source is registered.
func (s *Server) hasCompletions() bool {
	for _, p := range s.prompts {
		if len(p.opts.completions) > 0 {
			return true
		}
	}
	for _, t := range s.templates {
		if len(t.opts.completions) > 0 {
			return true
		}
	}
	return false
}

// done ends a registration: a refusal is collected on a staging view and
// panics otherwise, with the message the Add* methods always panicked with.
func (s *Server) done(err error) {
	if err == nil {
		return
	}
	if s.staged {
		s.mu.Lock()
		s.errs = append(s.errs, err)
		s.mu.Unlock()
		return
	}
	panic(err.Error())
}

// removedHere reports whether this staging view removed the item: its
// parent's copy then no longer counts as registered. s.mu is held.
func (s *Server) removedHere(kind, name string) bool {
	return s.removed[kind+"\x00"+name]
}

// has reports whether found holds for s or, on a staging view, for the
// server it stages for (whose lock s's caller does not hold), unless the
// view removed the item of kind named name. s.mu is held.
func (s *Server) has(kind, name string, found func(*Server) bool) bool {
	if found(s) {
		return true
	}
	if s.removedHere(kind, name) {
		return false
	}
	for p := s.parent; p != nil; p = p.parent {
		p.mu.Lock()
		ok := found(p)
		p.mu.Unlock()
		if ok {
			return true
		}
	}
	return false
}
