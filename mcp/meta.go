package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

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
		var keys map[string]json.RawMessage
		if err := json.Unmarshal(b, &keys); err != nil {
			return nil, errors.New("field Meta must be a JSON object")
		}
		for k := range keys {
			if !metaKey(k) {
				return nil, fmt.Errorf("field Meta: key %s is not a _meta key name: an optional prefix of dot-separated labels and a slash (com.example/), and a name that starts and ends with a letter or digit", jsonrpc.QuoteName(k))
			}
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

// metaKey reports whether k is a valid _meta key name, which every
// revision from 2025-06-18 on says a key MUST be (basic/index, "_meta"):
// an optional prefix, labels separated by dots, each starting with a
// letter and ending with a letter or digit, with letters, digits and
// hyphens inside, followed by "/"; then a name, empty or starting and
// ending with a letter or digit, with letters, digits, "-", "_" and "."
// inside. A prefix MCP reserves (io.modelcontextprotocol/, dev.mcp/) is
// well formed: a host may set an official extension's key.
//
// A name may go on in further "/"-separated segments, each a name of its
// own (openai/toolInvocation/invoking): the grammar has no such name, but
// the OpenAI Apps SDK's tool descriptors use them, and refusing one at
// registration would leave a host serving ChatGPT no way to set it
// (record 011). Every other rule holds for each segment.
func metaKey(k string) bool {
	name := k
	if prefix, rest, ok := strings.Cut(k, "/"); ok {
		for _, label := range strings.Split(prefix, ".") {
			if !metaLabel.MatchString(label) {
				return false
			}
		}
		if rest == "" {
			return true
		}
		for _, segment := range strings.Split(rest, "/") {
			if !metaName.MatchString(segment) {
				return false
			}
		}
		return true
	}
	return name == "" || metaName.MatchString(name)
}

var (
	metaLabel = regexp.MustCompile(`^[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?$`)
	metaName  = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$`)
)

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
