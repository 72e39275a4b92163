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
	content    []byte // a JSON array, unless isText or blocks
	text       []byte // with isText: the content is one text block of this
	structured []byte // structuredContent, or nil
	// blocks, when set, is the content as its blocks' JSON, for a large
	// result of a function's blocks: they are written as they are, not
	// copied into content first (functool.go, fullResult). A pointer, so
	// that the request holding a toolResult keeps its size.
	blocks  *[][]byte
	isText  bool
	isError bool
}

func (r *toolResult) Stamp() *seam.Stamp { return &r.stamp }

// sizeHint is about what AppendJSON appends, so that the response buffer
// of a large result is made once at its size.
func (r *toolResult) sizeHint() int {
	n := len(r.content) + len(r.structured) + 256
	if r.isText {
		n += len(r.text) + len(r.text)/16
	}
	if r.blocks != nil {
		for _, b := range *r.blocks {
			n += len(b) + 1
		}
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
	dst = r.appendOpen(dst)
	if r.blocks != nil {
		dst = append(dst, '[')
		r.eachBlock(func(b []byte) { dst = append(dst, b...) })
		dst = append(dst, ']')
	} else {
		dst = append(dst, r.content...)
	}
	dst = append(dst, r.structuredMember()...)
	dst = append(dst, r.structured...)
	return append(dst, r.tail()...)
}

// appendOpen appends a result up to its content's first byte.
func (r *toolResult) appendOpen(dst []byte) []byte {
	dst = append(dst, '{')
	dst, comma := r.stamp.AppendMembers(dst)
	dst = seam.Comma(dst, comma)
	return append(dst, `"content":`...)
}

// appendHead appends a text result up to its text's first byte.
func (r *toolResult) appendHead(dst []byte) []byte {
	return append(r.appendOpen(dst), `[{"type":"text","text":"`...)
}

// eachBlock hands each of blocks' JSON to each, with the commas between
// them, as the content array holds them between its brackets.
func (r *toolResult) eachBlock(each func([]byte)) {
	sep := []byte{','} // each call's own: a writer is handed no shared bytes
	for i, b := range *r.blocks {
		if i > 0 {
			each(sep)
		}
		each(b)
	}
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
