package mcp

import (
	"encoding/json"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/seam"
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

func (t *tool) shape(i int) json.RawMessage { return t.shapes[i] }

// listPage returns one page of the items the caller may use (its token
// grants their scopes and the permission rule allows them), in
// registration order and in the shape of the request's revision, with the
// cursor of the next page ("" after the last). kind names the list in
// cursors; member is the result member that holds the page.
//
// A cursor is a position in the registry, not in the caller's filtered
// list: a page is built by walking from it until the page is full, so what
// one page costs depends on the page, never on how many items the server
// has. When items are filtered, the last page may come back empty.
func listPage[T listed](s *Server, req *request, kind, member string, all []T) (seam.Result, error) {
	if _, err := req.Workspace(); err != nil {
		return nil, err
	}
	i, err := s.pageStart(req, kind, len(all))
	if err != nil {
		return nil, err
	}
	// Extensions hide tools from some requests (extension.go): MCP Apps'
	// app-only tools from a client that declared no views, tasks' status
	// tools where the era seals no job reference.
	hide := kind == "tools" && req.hidesTools()
	res := &listResult[T]{member: member, all: all, from: i, filtered: req.handler.cfg.auth != nil || hide,
		shape: req.rev.f.shape}
	// A page also ends before maxPageBytes of definitions (it always
	// holds one): a client reading a large API's tools gets pages of a
	// bounded size, however large each schema is.
	size := 0
	full := func(item T) bool {
		n := len(item.shape(res.shape))
		if size > 0 && size+n > maxPageBytes {
			return true
		}
		size += n
		return false
	}
	if res.filtered {
		res.picked = make([]int32, 0, min(s.pageSize, len(all)-i))
		for ; i < len(all) && len(res.picked) < s.pageSize; i++ {
			k, name, scopes := all[i].access()
			if t, ok := any(all[i]).(*tool); ok && hide && req.hiddenTool(t) {
				continue
			}
			if req.usable(scopes) && req.visible(k, name) {
				if full(all[i]) {
					break
				}
				res.picked = append(res.picked, int32(i))
			}
		}
	} else {
		for end := min(len(all), i+s.pageSize); i < end && !full(all[i]); i++ {
		}
	}
	res.to = i
	if i < len(all) {
		res.next = s.cursor(kind, i)
	}
	return res, nil
}

// maxPageBytes bounds the definitions of one list page.
const maxPageBytes = 1 << 20

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

// listResult is one page of a */list method.
type listResult[T listed] struct {
	stamp  seam.Stamp
	member string // "tools", "resources", "resourceTemplates", "prompts"
	// The page is all[from:to], or, when the list is filtered, the items
	// of all at picked: positions, not copies of the items' definitions.
	all      []T
	from, to int
	picked   []int32
	filtered bool
	shape    int
	next     string
}

func (r *listResult[T]) Stamp() *seam.Stamp { return &r.stamp }

func (r *listResult[T]) AppendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	dst, comma := r.stamp.AppendMembers(dst)
	dst = seam.Comma(dst, comma)
	dst = append(dst, '"')
	dst = append(dst, r.member...)
	dst = append(dst, `":[`...)
	if r.filtered {
		for i, at := range r.picked {
			dst = seam.Comma(dst, i > 0)
			dst = append(dst, r.all[at].shape(r.shape)...)
		}
	} else {
		for i := r.from; i < r.to; i++ {
			dst = seam.Comma(dst, i > r.from)
			dst = append(dst, r.all[i].shape(r.shape)...)
		}
	}
	dst = append(dst, ']')
	if r.next != "" {
		dst = append(dst, `,"nextCursor":`...)
		dst = jsonrpc.AppendString(dst, r.next)
	}
	return append(dst, '}')
}
