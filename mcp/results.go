package mcp

import (
	"strconv"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/seam"
)

// The results the core builds. Each renders itself: its parts are JSON the
// core produced (definitions rendered at registration, contents built from
// a route's answer), so they are appended as they are rather than encoded
// again. Every result starts with the era's stamp.

// toolResult is a CallToolResult.
type toolResult struct {
	stamp      seam.Stamp
	content    []byte // a JSON array, unless isText
	text       []byte // with isText: the content is one text block of this
	isText     bool
	structured []byte // structuredContent, or nil
	isError    bool
}

func (r *toolResult) Stamp() *seam.Stamp { return &r.stamp }

// sizeHint is about what AppendJSON appends, so that the response buffer
// of a large result is made once at its size.
func (r *toolResult) sizeHint() int {
	n := len(r.content) + len(r.structured) + 256
	if r.isText {
		n += len(r.text) + len(r.text)/16
	}
	return n
}

func (r *toolResult) AppendJSON(dst []byte) []byte {
	if r.isText {
		dst = r.appendHead(dst)
		dst = jsonrpc.AppendEscaped(dst, r.text)
		dst = append(dst, `"}]`...)
		dst = append(dst, r.structuredMember()...)
		dst = append(dst, r.structured...)
		return append(dst, r.tail()...)
	}
	dst = append(dst, '{')
	dst, comma := r.stamp.AppendMembers(dst)
	dst = seam.Comma(dst, comma)
	dst = append(dst, `"content":`...)
	dst = append(dst, r.content...)
	dst = append(dst, r.structuredMember()...)
	dst = append(dst, r.structured...)
	return append(dst, r.tail()...)
}

// appendHead appends a text result up to its text's first byte.
func (r *toolResult) appendHead(dst []byte) []byte {
	dst = append(dst, '{')
	dst, comma := r.stamp.AppendMembers(dst)
	dst = seam.Comma(dst, comma)
	return append(dst, `"content":[{"type":"text","text":"`...)
}

// structuredMember is the name of the structuredContent member with its
// comma, for a result that has one; its value follows.
func (r *toolResult) structuredMember() string {
	if r.structured == nil {
		return ""
	}
	return `,"structuredContent":`
}

func (r *toolResult) tail() string {
	if r.isError {
		return `,"isError":true}`
	}
	return "}"
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
		dst = jsonrpc.AppendString(dst, r.description)
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
		dst = jsonrpc.AppendString(dst, v)
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
