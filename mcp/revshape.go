package mcp

import (
	"bytes"
	"encoding/json"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/mcp/content"
)

// What a route writes for MCP (a resource's own contents, a prompt's or a
// tool's blocks) is written once for every revision; these leave out the members
// a revision does not have before it is sent.

// withoutMeta returns c, a contents array ownContents checked, with each
// content's _meta left out: 2025-03-26 has no _meta on resource contents,
// and the route answering for MCP writes one contents for every revision.
// The other members keep their order and spelling.
func withoutMeta(c []byte) []byte {
	var items []json.RawMessage
	if json.Unmarshal(c, &items) != nil {
		return c // not what ownContents returns
	}
	out := make([]byte, 0, len(c))
	out = append(out, '[')
	for i, it := range items {
		out = seam.Comma(out, i > 0)
		out = appendMembers(out, it, func(name string, v []byte) ([]byte, bool) { return v, name != "_meta" })
	}
	return append(out, ']')
}

// appendMembers appends obj, a compact JSON object, keeping the members
// keep keeps, each with the value it returns; names are compared
// unescaped, and written as obj spells them.
func appendMembers(dst, obj []byte, keep func(name string, v []byte) ([]byte, bool)) []byte {
	dst = append(dst, '{')
	iter := jsonrpc.NewIter(obj)
	d, n := iter.Data(), 0
	for {
		k0, k1, v0, v1, escaped, ok := iter.NextAt()
		if !ok {
			break
		}
		name := string(d[k0:k1])
		if escaped {
			name, _ = jsonrpc.String(d[k0-1 : k1+1])
		}
		v, ok := keep(name, d[v0:v1])
		if !ok {
			continue
		}
		dst = seam.Comma(dst, n > 0)
		dst = append(append(append(dst, d[k0-1:k1+1]...), ':'), v...)
		n++
	}
	return append(dst, '}')
}

// blockFor returns a prompt message's block as a revision of shape has
// it. A prompt route's blocks (and content.Parse's) are written once for
// every revision, so the members a revision lacks are left out: _meta on
// the block and on its embedded resource, and annotations' lastModified,
// before 2025-06-18; icons (a resource link's) before 2025-11-25. The
// builders write none of them, and their blocks are sent as they are.
func blockFor(raw []byte, shape int) []byte {
	if shape >= shapeIcons || !bytes.Contains(raw, []byte("_meta")) && !bytes.Contains(raw, []byte("lastModified")) &&
		!bytes.Contains(raw, []byte("icons")) && !bytes.Contains(raw, []byte(`\u`)) {
		return raw
	}
	old := shape < shapeTitles
	without := func(member string) func(string, []byte) ([]byte, bool) {
		return func(name string, v []byte) ([]byte, bool) { return v, name != member }
	}
	return appendMembers(nil, raw, func(name string, v []byte) ([]byte, bool) {
		switch {
		case name == "icons":
			return v, false
		case !old:
		case name == "_meta":
			return v, false
		case name == "annotations" && jsonrpc.IsObject(v):
			return appendMembers(nil, v, without("lastModified")), true
		case name == "resource" && jsonrpc.IsObject(v):
			return appendMembers(nil, v, without("_meta")), true
		}
		return v, true
	})
}

// blocksFor returns a tool route's own content array (ToolResultMediaType)
// as the revision of f has it: each block as blockFor leaves it, and a
// resource link, which 2025-03-26 does not have, as the text a builder's
// link becomes there (content.ResourceLink). An array with none of those
// members is sent as written, with no copy.
func blocksFor(c []byte, f features) []byte {
	if f.shape >= shapeIcons || !bytes.Contains(c, []byte("_meta")) && !bytes.Contains(c, []byte("lastModified")) &&
		!bytes.Contains(c, []byte("icons")) && !bytes.Contains(c, []byte("resource_link")) && !bytes.Contains(c, []byte(`\u`)) {
		return c
	}
	var items []json.RawMessage
	if json.Unmarshal(c, &items) != nil {
		return c // ownResult checked it is an array: unreachable
	}
	out := make([]byte, 0, len(c))
	out = append(out, '[')
	for i, it := range items {
		out = seam.Comma(out, i > 0)
		if len(it) == 0 || it[0] != '{' {
			out = append(out, it...) // no block: sent as written, as before
			continue
		}
		if b, ok := content.Parse(it); ok {
			it = b.JSON(!f.ResourceLinks)
		}
		out = append(out, blockFor(it, f.shape)...)
	}
	return append(out, ']')
}
