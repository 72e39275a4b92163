package mcp

import (
	"encoding/json"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/mcp/auth"
)

// listTools answers tools/list for req: the tools in registration order
// (the same on every call and every replica), one page at a time, in the
// shape of req's revision. A cursor that this server did not issue for
// this list is CodeInvalidParams.
//
// With WithAuth the list holds only the tools the caller may use: those
// its token's scopes grant and the permission rule allows.
func (s *Server) listTools(req *request) (seam.Result, error) {
	return listPage(s, req, "tools", "tools", s.tools)
}

// listed is a registered item that lists show: tools, resources,
// templates and prompts.
type listed interface {
	// access names the item for the permission rule and gives its scopes.
	access() (kind, name string, scopes []string)
	// shape returns its definition rendered in shape i (see features).
	shape(i int) json.RawMessage
}

func (t *tool) access() (string, string, []string) { return auth.KindTool, t.def.Name, t.opts.scopes }
func (t *tool) shape(i int) json.RawMessage        { return t.shapes[i] }

// listPage returns one page of the items the caller may use (its token
// grants their scopes and the permission rule allows them), in
// registration order and in the shape of the request's revision, with the
// cursor of the next page ("" after the last). kind names the list in
// cursors; member is the result member that holds the page.
func listPage[T listed](s *Server, req *request, kind, member string, all []T) (seam.Result, error) {
	if _, err := req.Workspace(); err != nil {
		return nil, err
	}
	items := all
	if req.handler.cfg.auth != nil {
		items = make([]T, 0, len(all))
		for _, it := range all {
			k, name, scopes := it.access()
			if req.usable(scopes) && req.visible(k, name) {
				items = append(items, it)
			}
		}
	}
	start, err := s.pageStart(req, kind, len(items))
	if err != nil {
		return nil, err
	}
	end := min(start+s.pageSize, len(items))
	shape := featuresOf(req.version).shape
	out := make([]json.RawMessage, 0, end-start)
	for _, it := range items[start:end] {
		out = append(out, it.shape(shape))
	}
	next := ""
	if end < len(items) {
		next = s.cursor(kind, end)
	}
	return &listResult{member: member, items: out, next: next}, nil
}

func (s *Server) pageStart(req *request, kind string, n int) (int, error) {
	raw, ok := req.Param("cursor")
	if !ok || string(raw) == "null" {
		return 0, nil
	}
	c, ok := jsonrpc.String(raw)
	if !ok {
		return 0, NewError(CodeInvalidParams, "Invalid params: cursor must be a string")
	}
	off, ok := s.parseCursor(kind, c, n)
	if !ok {
		return 0, NewError(CodeInvalidParams, "Invalid cursor")
	}
	return off, nil
}
