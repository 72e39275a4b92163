package mcp

import (
	"encoding/base64"
	"encoding/json"
)

// Content is one content block of a prompt message: text, an image, audio,
// an embedded resource or a link to a resource. Build it with TextContent,
// ImageContent, AudioContent, EmbeddedText, EmbeddedBlob or ResourceLink.
type Content struct {
	raw json.RawMessage // the block as 2025-06-18 and later send it
	// legacy replaces raw for 2025-03-26, which has no resource links.
	legacy json.RawMessage
}

// object renders a JSON object of string members, in the order given.
func object(fields ...string) []byte {
	b := []byte{'{'}
	for i := 0; i+1 < len(fields); i += 2 {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, fields[i])
		b = append(b, ':')
		b = appendString(b, fields[i+1])
	}
	return append(b, '}')
}

func block(kind string, fields ...string) Content {
	return Content{raw: object(append([]string{"type", kind}, fields...)...)}
}

func embedded(resource []byte) Content {
	b := append([]byte(`{"type":"resource","resource":`), resource...)
	return Content{raw: append(b, '}')}
}

// TextContent is a text block.
func TextContent(text string) Content { return block("text", "text", text) }

// ImageContent is an image block; data is the raw image, sent base64.
func ImageContent(data []byte, mimeType string) Content {
	return block("image", "data", base64.StdEncoding.EncodeToString(data), "mimeType", mimeType)
}

// AudioContent is an audio block; data is the raw audio, sent base64.
func AudioContent(data []byte, mimeType string) Content {
	return block("audio", "data", base64.StdEncoding.EncodeToString(data), "mimeType", mimeType)
}

// EmbeddedText embeds a textual resource.
func EmbeddedText(uri, mimeType, text string) Content {
	return embedded(object("uri", uri, "mimeType", mimeType, "text", text))
}

// EmbeddedBlob embeds a binary resource; data is sent base64.
func EmbeddedBlob(uri, mimeType string, data []byte) Content {
	return embedded(object("uri", uri, "mimeType", mimeType, "blob", base64.StdEncoding.EncodeToString(data)))
}

// ResourceLink points at a resource the client can read. Revision
// 2025-03-26 has no links; its clients get a text block naming the URI.
func ResourceLink(uri, name, mimeType string) Content {
	fields := []string{"uri", uri, "name", name}
	if mimeType != "" {
		fields = append(fields, "mimeType", mimeType)
	}
	c := block("resource_link", fields...)
	c.legacy = TextContent("Resource " + name + ": " + uri).raw
	return c
}

// render returns the block for revision f.
func (c Content) render(f Features) json.RawMessage {
	if !f.ResourceLinks && c.legacy != nil {
		return c.legacy
	}
	return c.raw
}

// MarshalJSON renders the block as revision 2025-06-18 and later send it,
// so a handler writing a ToolResultMediaType body can use the builders.
func (c Content) MarshalJSON() ([]byte, error) {
	if c.raw == nil {
		return []byte("null"), nil
	}
	return c.raw, nil
}
