package mcp

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
)

// itemMeta checks an item's _meta (Meta, with ui, the typed _meta.ui,
// already marshalled or nil) and renders the object definitions and
// contents carry, nil when there is none.
func itemMeta(meta json.RawMessage, ui []byte) ([]byte, error) {
	var b []byte
	if meta != nil {
		if !jsonrpc.IsObject(bytes.TrimSpace(meta)) || jsonrpc.Validate(meta, jsonrpc.DefaultMaxDepth) != nil {
			return nil, errors.New("field Meta must be a JSON object")
		}
		b = compact(meta)
		if _, has := jsonrpc.Lookup(b, "ui"); has {
			return nil, errors.New(`field Meta: set "ui" with the UI field, which is checked`)
		}
		if _, has := jsonrpc.Lookup(b, "ui/resourceUri"); has {
			return nil, errors.New(`field Meta: "ui/resourceUri" is the extension's withdrawn form; set UI.ResourceURI`)
		}
	}
	if ui == nil {
		return b, nil
	}
	if len(b) <= 2 {
		return append(append([]byte(`{"ui":`), ui...), '}'), nil
	}
	out := append([]byte(`{"ui":`), ui...)
	out = append(out, ',')
	return append(out, b[1:]...), nil
}

// compact returns doc without insignificant space (already validated).
func compact(doc []byte) []byte {
	if doc == nil {
		return nil
	}
	if jsonrpc.IsCompact(doc) {
		return bytes.Clone(doc) // a copy all the same, without json.Compact's scan
	}
	var buf bytes.Buffer
	buf.Grow(len(doc))
	if err := json.Compact(&buf, doc); err != nil {
		panic(err) // validated before
	}
	return buf.Bytes()
}
