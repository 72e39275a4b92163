package mcp

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
)

// Implementation names the server to clients (serverInfo).
type Implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// Server holds what an MCP endpoint offers: its identity, instructions,
// tools, resources, resource templates and prompts. Register everything before passing the Server to NewHandler, which
// freezes it; registering afterwards panics. A frozen Server is safe for
// concurrent use and may back several Handlers.
type Server struct {
	info         Implementation
	instructions string
	pageSize     int
	maxResponse  int64

	mu     sync.Mutex
	frozen bool

	tools       []*tool
	byName      map[string]*tool
	resources   []*resource
	byURI       map[string]*resource
	templates   []*template
	prompts     []*prompt
	byPrompt    map[string]*prompt
	fingerprint string
}

// ServerOption configures a Server.
type ServerOption interface{ applyServer(*Server) }

type serverOptionFunc func(*Server)

func (f serverOptionFunc) applyServer(s *Server) { f(s) }

// WithInstructions sets the instructions sent in initialize and
// server/discover results.
func WithInstructions(text string) ServerOption {
	return serverOptionFunc(func(s *Server) { s.instructions = text })
}

// WithPageSize sets how many items one list page holds (default 100).
func WithPageSize(n int) ServerOption {
	if n <= 0 {
		panic("mcp: WithPageSize needs a positive size")
	}
	return serverOptionFunc(func(s *Server) { s.pageSize = n })
}

// WithMaxToolResponseBytes bounds what a tool's handler may write (default
// 4 MiB); a larger response becomes an isError result and is logged.
func WithMaxToolResponseBytes(n int64) ServerOption {
	if n <= 0 {
		panic("mcp: WithMaxToolResponseBytes needs a positive limit")
	}
	return serverOptionFunc(func(s *Server) { s.maxResponse = n })
}

// NewServer returns an empty server. info.Name and info.Version are required.
func NewServer(info Implementation, opts ...ServerOption) *Server {
	if info.Name == "" || info.Version == "" {
		panic("mcp: NewServer needs Implementation.Name and Version")
	}
	s := &Server{info: info, pageSize: 100, maxResponse: 4 << 20, byName: map[string]*tool{},
		byURI: map[string]*resource{}, byPrompt: map[string]*prompt{}}
	for _, o := range opts {
		o.applyServer(s)
	}
	return s
}

// Info returns the server's identity.
func (s *Server) Info() Implementation { return s.info }

// Instructions returns the instructions for clients ("" when none).
func (s *Server) Instructions() string { return s.instructions }

// HasTools reports whether any tool is registered; the tools capability is
// advertised only then.
func (s *Server) HasTools() bool { return len(s.tools) > 0 }

func (s *Server) mustNotBeFrozen(what string) {
	if s.frozen {
		panic("mcp: " + what + " after NewHandler: register everything first")
	}
}

// freeze ends registration and derives what cursors are bound to.
func (s *Server) freeze() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.frozen {
		return
	}
	s.frozen = true
	h := sha256.New()
	for _, t := range s.tools {
		h.Write([]byte("t:" + t.def.Name + "\x00"))
	}
	for _, r := range s.resources {
		h.Write([]byte("r:" + r.def.URI + "\x00"))
	}
	for _, t := range s.templates {
		h.Write([]byte("u:" + t.def.URITemplate + "\x00"))
	}
	for _, p := range s.prompts {
		h.Write([]byte("p:" + p.def.Name + "\x00"))
	}
	s.fingerprint = hex.EncodeToString(h.Sum(nil)[:6])
}

// Cursors are opaque to clients: base64url of "kind|offset|fingerprint".
// The fingerprint ties a cursor to one list of one registry, so a cursor
// from another list, another deployment or a forged one is refused
// (-32602) instead of silently paging somewhere else.
func (s *Server) cursor(kind string, offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte(kind + "|" + strconv.Itoa(offset) + "|" + s.fingerprint))
}

func (s *Server) parseCursor(kind, c string, n int) (int, bool) {
	if len(c) > 128 {
		return 0, false
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(c)
	if err != nil {
		return 0, false
	}
	parts := strings.Split(string(raw), "|")
	if len(parts) != 3 || parts[0] != kind || parts[2] != s.fingerprint {
		return 0, false
	}
	off, err := strconv.Atoi(parts[1])
	if err != nil || off <= 0 || off >= n || strconv.Itoa(off) != parts[1] {
		return 0, false
	}
	return off, true
}

// Stamp holds the members revision 2026-07-28 adds to results; the 2025
// eras leave it zero, so nothing of it reaches their wire.
type Stamp struct {
	ResultType string          `json:"resultType,omitempty"`
	TTLMs      *int64          `json:"ttlMs,omitempty"`
	CacheScope string          `json:"cacheScope,omitempty"`
	Meta       json.RawMessage `json:"_meta,omitempty"`
}

// Stamped returns the stamp itself, so an era can stamp any result that
// embeds one.
func (s *Stamp) Stamped() *Stamp { return s }
