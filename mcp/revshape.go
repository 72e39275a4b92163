package mcp

import (
	"bytes"

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
	return mapElems(c, func(dst, it []byte) []byte {
		return appendMembers(dst, it, func(name string, v []byte) ([]byte, bool) { return v, name != "_meta" })
	})
}

// mapElems returns a new array of arr's elements as f appends them; arr
// is an array the scanner accepted (ownContents, ownResult), read in
// place.
func mapElems(arr []byte, f func(dst, elem []byte) []byte) []byte {
	out := make([]byte, 0, len(arr))
	out = append(out, '[')
	elems := jsonrpc.NewElems(arr)
	for i := 0; ; i++ {
		e, ok := elems.Next()
		if !ok {
			return append(out, ']')
		}
		out = f(seam.Comma(out, i > 0), e)
	}
}

// mentions reports whether raw may hold a member named in words: it names
// one, or holds an escape that could spell one. Raw without any is sent
// as it is, with no walk and no copy.
func mentions(raw []byte, words ...string) bool {
	if bytes.Contains(raw, []byte(`\u`)) {
		return true
	}
	for _, w := range words {
		if bytes.Contains(raw, []byte(w)) {
			return true
		}
	}
	return false
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
	if shape >= shapeIcons || !mentions(raw, "_meta", "lastModified", "icons") {
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
	if f.shape >= shapeIcons || !mentions(c, "_meta", "lastModified", "icons", "resource_link") {
		return c
	}
	return mapElems(c, func(dst, it []byte) []byte {
		if !jsonrpc.IsObject(it) {
			return append(dst, it...) // no block: sent as written, as before
		}
		if b, ok := content.Parse(it); ok {
			it = b.JSON(!f.ResourceLinks)
		}
		return append(dst, blockFor(it, f.shape)...)
	})
}
