package content

import (
	"bytes"
	"encoding/base64"
	"encoding/json"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
)

// Role says who speaks a message.
type Role string

// The roles of MCP messages.
const (
	User      Role = "user"
	Assistant Role = "assistant"
)

// Valid reports whether r is one of the roles MCP defines.
func (r Role) Valid() bool { return r == User || r == Assistant }

// Block is one content block. Build it with Text, Image, Audio,
// EmbeddedText, EmbeddedBlob or ResourceLink; the zero Block is no block.
type Block struct {
	raw []byte // the block as 2025-06-18 and later send it
	// legacy replaces raw for 2025-03-26, which has no resource links.
	legacy []byte
}

// object renders a JSON object of string members, in the order given.
// It is sized once: each member costs its bytes, four quotes, a colon and
// a comma, and a little room for escapes.
func object(fields ...string) []byte {
	n := 2
	for _, f := range fields {
		n += len(f) + 3
	}
	b := append(make([]byte, 0, n+n/16), '{')
	for i := 0; i+1 < len(fields); i += 2 {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonrpc.AppendString(b, fields[i])
		b = append(b, ':')
		b = jsonrpc.AppendString(b, fields[i+1])
	}
	return append(b, '}')
}

func block(kind string, fields ...string) Block {
	return Block{raw: object(append([]string{"type", kind}, fields...)...)}
}

// Text is a text block.
func Text(text string) Block {
	// The usual block, built without block's list of fields.
	b := make([]byte, 0, len(text)+len(text)/16+len(`{"type":"text","text":""}`))
	b = append(b, `{"type":"text","text":`...)
	b = jsonrpc.AppendString(b, text)
	return Block{raw: append(b, '}')}
}

func embedded(resource []byte) Block {
	b := append([]byte(`{"type":"resource","resource":`), resource...)
	return Block{raw: append(b, '}')}
}

// Image is an image block; data is the raw image, sent base64.
func Image(data []byte, mimeType string) Block {
	return block("image", "data", base64.StdEncoding.EncodeToString(data), "mimeType", mimeType)
}

// Audio is an audio block; data is the raw audio, sent base64.
func Audio(data []byte, mimeType string) Block {
	return block("audio", "data", base64.StdEncoding.EncodeToString(data), "mimeType", mimeType)
}

// EmbeddedText embeds a textual resource.
func EmbeddedText(uri, mimeType, text string) Block {
	return embedded(object("uri", uri, "mimeType", mimeType, "text", text))
}

// EmbeddedBlob embeds a binary resource; data is sent base64.
func EmbeddedBlob(uri, mimeType string, data []byte) Block {
	return embedded(object("uri", uri, "mimeType", mimeType, "blob", base64.StdEncoding.EncodeToString(data)))
}

// ResourceLink points at a resource the client can read. Revision
// 2025-03-26 has no links; its clients get a text block naming the URI.
func ResourceLink(uri, name, mimeType string) Block {
	fields := []string{"uri", uri, "name", name}
	if mimeType != "" {
		fields = append(fields, "mimeType", mimeType)
	}
	c := block("resource_link", fields...)
	c.legacy = linkText(uri, name)
	return c
}

// linkText is a resource link's 2025-03-26 fallback: a text naming it.
func linkText(uri, name string) []byte {
	if name == "" {
		return Text("Resource: " + uri).raw
	}
	return Text("Resource " + name + ": " + uri).raw
}

// Parse reads a block a route wrote as JSON (an object with a string
// "type"); ok is false for anything else. A resource_link block gets its
// 2025-03-26 fallback.
func Parse(raw []byte) (b Block, ok bool) {
	raw = bytes.TrimSpace(raw)
	if jsonrpc.Validate(raw, jsonrpc.DefaultMaxDepth) != nil || len(raw) == 0 || raw[0] != '{' {
		return Block{}, false
	}
	typ, _ := jsonrpc.Lookup(raw, "type")
	kind, isStr := jsonrpc.String(typ)
	if !isStr {
		return Block{}, false
	}
	var compact bytes.Buffer
	if json.Compact(&compact, raw) != nil {
		return Block{}, false
	}
	b = Block{raw: compact.Bytes()}
	if kind == "resource_link" {
		u, _ := jsonrpc.Lookup(raw, "uri")
		uri, _ := jsonrpc.String(u)
		n, _ := jsonrpc.Lookup(raw, "name")
		name, _ := jsonrpc.String(n)
		b.legacy = linkText(uri, name)
	}
	return b, true
}

// IsZero reports whether b is no block.
func (b Block) IsZero() bool { return b.raw == nil }

// JSON returns the block as a revision sends it: legacy is true for
// 2025-03-26, which has no resource links. The bytes are the block's own,
// not a copy (a large result is written from them): they are not to be
// modified.
func (b Block) JSON(legacy bool) json.RawMessage {
	if legacy && b.legacy != nil {
		return b.legacy
	}
	return b.raw
}

// MarshalJSON renders the block as revision 2025-06-18 and later send it,
// so a handler writing a full CallToolResult can use the builders.
func (b Block) MarshalJSON() ([]byte, error) {
	if b.raw == nil {
		return []byte("null"), nil
	}
	return b.raw, nil
}
