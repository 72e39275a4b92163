package mcp

import (
	"encoding/json"
	"strconv"

	"github.com/mcpdual/mcpdual/internal/seam"
)

// The results the core builds. Each renders itself: its parts are JSON the
// core produced (definitions rendered at registration, contents built from
// a route's answer), so they are appended as they are rather than encoded
// again. Every result starts with the era's stamp.

// listResult is one page of a */list method.
type listResult struct {
	stamp  seam.Stamp
	member string // "tools", "resources", "resourceTemplates", "prompts"
	items  []json.RawMessage
	next   string
}

func (r *listResult) Stamp() *seam.Stamp { return &r.stamp }

func (r *listResult) AppendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	dst, comma := r.stamp.AppendMembers(dst)
	dst = seam.Comma(dst, comma)
	dst = append(dst, '"')
	dst = append(dst, r.member...)
	dst = append(dst, `":[`...)
	for i, it := range r.items {
		dst = seam.Comma(dst, i > 0)
		dst = append(dst, it...)
	}
	dst = append(dst, ']')
	if r.next != "" {
		dst = append(dst, `,"nextCursor":`...)
		dst = appendString(dst, r.next)
	}
	return append(dst, '}')
}

// toolResult is a CallToolResult.
type toolResult struct {
	stamp      seam.Stamp
	content    []byte // a JSON array
	structured []byte // structuredContent, or nil
	isError    bool
}

func (r *toolResult) Stamp() *seam.Stamp { return &r.stamp }

func (r *toolResult) AppendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	dst, comma := r.stamp.AppendMembers(dst)
	dst = seam.Comma(dst, comma)
	dst = append(dst, `"content":`...)
	dst = append(dst, r.content...)
	if r.structured != nil {
		dst = append(dst, `,"structuredContent":`...)
		dst = append(dst, r.structured...)
	}
	if r.isError {
		dst = append(dst, `,"isError":true`...)
	}
	return append(dst, '}')
}

// readResult is a ReadResourceResult.
type readResult struct {
	stamp    seam.Stamp
	contents []byte // a JSON array
}

func (r *readResult) Stamp() *seam.Stamp { return &r.stamp }

func (r *readResult) AppendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	dst, comma := r.stamp.AppendMembers(dst)
	dst = seam.Comma(dst, comma)
	dst = append(dst, `"contents":`...)
	dst = append(dst, r.contents...)
	return append(dst, '}')
}

// promptResult is a GetPromptResult.
type promptResult struct {
	stamp       seam.Stamp
	description string
	messages    [][]byte
}

func (r *promptResult) Stamp() *seam.Stamp { return &r.stamp }

func (r *promptResult) AppendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	dst, comma := r.stamp.AppendMembers(dst)
	if r.description != "" {
		dst = seam.Comma(dst, comma)
		dst = append(dst, `"description":`...)
		dst = appendString(dst, r.description)
		comma = true
	}
	dst = seam.Comma(dst, comma)
	dst = append(dst, `"messages":[`...)
	for i, m := range r.messages {
		dst = seam.Comma(dst, i > 0)
		dst = append(dst, m...)
	}
	return append(dst, "]}"...)
}

// completeResult is a CompleteResult.
type completeResult struct {
	stamp   seam.Stamp
	values  []string
	total   int
	hasMore bool
}

func (r *completeResult) Stamp() *seam.Stamp { return &r.stamp }

func (r *completeResult) AppendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	dst, comma := r.stamp.AppendMembers(dst)
	dst = seam.Comma(dst, comma)
	dst = append(dst, `"completion":{"values":[`...)
	for i, v := range r.values {
		dst = seam.Comma(dst, i > 0)
		dst = appendString(dst, v)
	}
	dst = append(dst, `],"total":`...)
	dst = strconv.AppendInt(dst, int64(r.total), 10)
	dst = append(dst, `,"hasMore":`...)
	dst = strconv.AppendBool(dst, r.hasMore)
	return append(dst, "}}"...)
}

// emptyResult is {} (ping).
type emptyResult struct{ stamp seam.Stamp }

func (r *emptyResult) Stamp() *seam.Stamp { return &r.stamp }

func (r *emptyResult) AppendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	dst, _ = r.stamp.AppendMembers(dst)
	return append(dst, '}')
}

func (s *Server) ping(*request) (seam.Result, error) { return &emptyResult{}, nil }
