package mcp

import (
	"encoding/json"

	"github.com/mcpdual/mcpdual/mcp/auth"
)

// ListToolsResult is the result of tools/list.
type ListToolsResult struct {
	Stamp
	Tools      []json.RawMessage `json:"tools"`
	NextCursor string            `json:"nextCursor,omitempty"`
}

// ListTools answers tools/list for req: the tools in registration order
// (the same on every call and every replica), one page at a time, in the
// shape of req's revision. A cursor that this server did not issue for
// this list is CodeInvalidParams.
//
// With WithAuth the list holds only the tools the caller may use: those
// its token's scopes grant and the permission rule allows.
func (s *Server) ListTools(req *Request) (*ListToolsResult, error) {
	items, next, err := listPage(s, req, "tools", s.tools)
	if err != nil {
		return nil, err
	}
	return &ListToolsResult{Tools: items, NextCursor: next}, nil
}

// listed is a registered item that lists show: tools, resources,
// templates and prompts.
type listed interface {
	// access names the item for the permission rule and gives its scopes.
	access() (kind, name string, scopes []string)
	// shapes returns its definition for 2025-06-18 and later, and for
	// 2025-03-26.
	shapes() (modern, legacy json.RawMessage)
}

func (t *tool) access() (string, string, []string)         { return auth.KindTool, t.def.Name, t.opts.scopes }
func (t *tool) shapes() (json.RawMessage, json.RawMessage) { return t.modern, t.legacy }

// listPage returns one page of the items the caller may use (its token
// grants their scopes and the permission rule allows them), in
// registration order and in the shape of the request's revision, with the
// cursor of the next page ("" after the last).
func listPage[T listed](s *Server, req *Request, kind string, all []T) ([]json.RawMessage, string, error) {
	if _, err := req.Workspace(); err != nil {
		return nil, "", err
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
		return nil, "", err
	}
	end := min(start+s.pageSize, len(items))
	modern := FeaturesOf(req.Version()).Titles
	out := make([]json.RawMessage, 0, end-start)
	for _, it := range items[start:end] {
		m, l := it.shapes()
		if modern {
			out = append(out, m)
		} else {
			out = append(out, l)
		}
	}
	next := ""
	if end < len(items) {
		next = s.cursor(kind, end)
	}
	return out, next, nil
}

func (s *Server) pageStart(req *Request, kind string, n int) (int, error) {
	raw, ok := req.Param("cursor")
	if !ok || string(raw) == "null" {
		return 0, nil
	}
	c, ok := String(raw)
	if !ok {
		return 0, NewError(CodeInvalidParams, "Invalid params: cursor must be a string")
	}
	off, ok := s.parseCursor(kind, c, n)
	if !ok {
		return 0, NewError(CodeInvalidParams, "Invalid cursor")
	}
	return off, nil
}
