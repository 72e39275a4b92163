package mcp

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/mcp/apps"
)

// MCP Apps (package mcp/apps) as an extension of the core (extension.go):
// a client declares the views it renders; a tool that only a view may
// call (visibility apps.App alone) does not exist for a client that
// declared none; every tool's view must be a registered ui:// resource.
// Its fields are Tool.UI (tool.go) and Resource.UI (resource.go); what
// they hold is checked and rendered in appsmeta.go.

func init() {
	registerExtension(&extension{
		name:      apps.Extension,
		bit:       capUI,
		declares:  declaresUI,
		freeze:    freezeApps,
		perCaller: true,
		hides:     func(req *request) bool { return req.capBits&capUI == 0 },
		hidden: func(req *request, t *tool) bool {
			if t.statusOf != nil {
				t = t.statusOf // a task's status tool is seen where its tool is
			}
			return t.appOnly && req.capBits&capUI == 0
		},
	})
}

// freezeApps checks the views and says whether the server advertises
// MCP Apps (a tool has a UI) and has app-only tools.
func freezeApps(s *Server) (caps seam.Capability, appOnly bool, err error) {
	for _, t := range s.tools {
		if t.def.UI != nil {
			caps = seam.CapUI
			appOnly = appOnly || t.appOnly
		}
	}
	return caps, appOnly, s.checkViews()
}

// checkViews makes sure every tool's view is registered: hosts read it
// with resources/read before they render a result.
func (s *Server) checkViews() error {
	var errs []error
	for _, t := range s.tools {
		if t.def.UI == nil || t.def.UI.ResourceURI == "" {
			continue
		}
		if r := s.byURI[t.def.UI.ResourceURI]; r == nil || !r.view {
			errs = append(errs, fmt.Errorf("mcp: tool %s: its view %s is not a registered resource", t.def.Name, t.def.UI.ResourceURI))
		}
	}
	return errors.Join(errs...)
}

// capUI: the io.modelcontextprotocol/ui extension (MCP Apps), declared in
// clientCapabilities.extensions. Not an input request's need, so not
// exported.
const capUI Capability = 1 << 6

// declaresUI reports whether a client's declaration of MCP Apps (the
// value under its key in clientCapabilities.extensions) counts: an object whose mimeTypes, when
// present, include the one view type this library serves. The byte
// search cannot match inside another string (its quotes would be escaped
// there); a type written with escapes is not recognised, which only hides
// app-only tools.
func declaresUI(ui []byte) bool {
	if !jsonrpc.IsObject(ui) {
		return false
	}
	types, ok := jsonrpc.Lookup(ui, "mimeTypes")
	if !ok {
		return true
	}
	return len(types) > 0 && types[0] == '[' && bytes.Contains(types, []byte(`"`+apps.MIMEType+`"`))
}
