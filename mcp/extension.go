package mcp

import (
	"errors"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/seam"
)

// extension is one extension of the protocol as the core sees it: the
// key a client declares it under (clientCapabilities.extensions), the
// client capability bit that declaration sets, what the server
// advertises for it (discover, initialize), and the tools it hides from a
// request. An extension registers from its own file (registerExtension
// in an init function), so that adding one touches its file(s) and the
// core files of the items it adds fields to: MCP Apps is appsext.go and
// appsmeta.go, with its fields in tool.go and resource.go.
type extension struct {
	name string     // its key under capabilities.extensions
	bit  Capability // the client capability its declaration sets
	// declares reports whether the client's declaration (the value under
	// name) counts.
	declares func(decl []byte) bool
	// freeze runs when the server's registration ends: it checks the
	// items, and returns the server capabilities to advertise and whether
	// the extension may hide tools from some requests (nil: neither).
	freeze func(s *Server) (caps seam.Capability, hides bool, err error)
	// perCaller: what it hides depends on the caller (its declared
	// capabilities), so no list may be shared between callers.
	perCaller bool
	// hides reports whether req may see fewer tools (a list is then
	// filtered); hidden, whether tool t does not exist for req.
	hides  func(req *request) bool
	hidden func(req *request, t *tool) bool
}

// extensions are the registered extensions, in the order of their files.
var extensions []*extension

// registerExtension adds x; it is called from init functions only.
func registerExtension(x *extension) {
	if len(extensions) == 32 {
		panic("mcp: more extensions than Server.hiding has bits")
	}
	extensions = append(extensions, x)
}

// declaredExtensions returns the capability bits of the extensions a
// clientCapabilities.extensions object declares.
func declaredExtensions(ext []byte) Capability {
	var c Capability
	for _, x := range extensions {
		if decl, ok := jsonrpc.Lookup(ext, x.name); ok && x.declares(decl) {
			c |= x.bit
		}
	}
	return c
}

// freezeExtensions runs every extension's freeze: the capabilities they
// advertise join the server's, and those that may hide tools are noted.
func (s *Server) freezeExtensions() error {
	var errs []error
	for i, x := range extensions {
		if x.freeze == nil {
			continue
		}
		caps, hides, err := x.freeze(s)
		s.caps |= caps
		if hides {
			s.hiding |= 1 << i
			s.hidesPerCaller = s.hidesPerCaller || x.perCaller
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// hidesTools reports whether some tool may not exist for req.
func (req *request) hidesTools() bool {
	for i, x := range extensions {
		if req.server.hiding&(1<<i) != 0 && x.hides(req) {
			return true
		}
	}
	return false
}

// hiddenTool reports whether an extension hides t from req.
func (req *request) hiddenTool(t *tool) bool {
	for i, x := range extensions {
		if req.server.hiding&(1<<i) != 0 && x.hidden(req, t) {
			return true
		}
	}
	return false
}
