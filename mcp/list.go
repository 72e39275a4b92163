package mcp

import (
	"encoding/json"

	"github.com/mcpdual/mcpdual/auth"
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
	tools := s.tools
	if req.handler.cfg.auth != nil {
		if _, err := req.Workspace(); err != nil {
			return nil, err
		}
		tools = make([]*tool, 0, len(s.tools))
		for _, t := range s.tools {
			if req.usable(t.opts.scopes) && req.visible(auth.KindTool, t.def.Name) {
				tools = append(tools, t)
			}
		}
	}
	start, err := s.pageStart(req, "tools", len(tools))
	if err != nil {
		return nil, err
	}
	end := min(start+s.pageSize, len(tools))
	modern := FeaturesOf(req.Version()).Titles
	res := &ListToolsResult{Tools: make([]json.RawMessage, 0, end-start)}
	for _, t := range tools[start:end] {
		if modern {
			res.Tools = append(res.Tools, t.modern)
		} else {
			res.Tools = append(res.Tools, t.legacy)
		}
	}
	if end < len(tools) {
		res.NextCursor = s.cursor("tools", end)
	}
	return res, nil
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
