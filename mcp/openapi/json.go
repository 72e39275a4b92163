package openapi

import (
	"bytes"
	"encoding/json"
	"strings"
)

// The tool schemas are built as an ordered tree so that they keep the
// document's order (properties, keywords), which makes them read like the
// document and keeps golden files stable. A value is *object, []any, or
// json.RawMessage (an encoded scalar).

type object struct {
	keys []string
	vals map[string]any
}

func newObject() *object { return &object{vals: map[string]any{}} }

func (o *object) get(k string) (any, bool) {
	v, ok := o.vals[k]
	return v, ok
}

// set replaces k's value in place, or appends k.
func (o *object) set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *object) del(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, key := range o.keys {
		if key == k {
			o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
			return
		}
	}
}

func (o *object) len() int { return len(o.keys) }

// str returns v as a Go string when it is a JSON string.
func str(v any) (string, bool) {
	raw, ok := v.(json.RawMessage)
	if !ok || len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	if len(raw) >= 2 && raw[len(raw)-1] == '"' && bytes.IndexByte(raw, '\\') < 0 {
		// Without an escape, a JSON string's text is its value.
		return string(raw[1 : len(raw)-1]), true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// isTrue reports whether v is the JSON literal true.
func isTrue(v any) bool {
	raw, ok := v.(json.RawMessage)
	return ok && string(raw) == "true"
}

// encodeString encodes s without HTML escaping, as hand-written schemas are.
func encodeString(s string) json.RawMessage {
	if plain(s) {
		return appendPlain(make([]byte, 0, len(s)+2), s)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return json.RawMessage(bytes.TrimRight(b.Bytes(), "\n"))
}

// plain reports whether s is printable ASCII without '"' or '\\': what
// JSON encodes as it is, between quotes (most names and keywords). Only
// such strings take the short way, so the encoding is the encoder's.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

func appendPlain(b []byte, s string) []byte {
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// marshal renders v compactly, in order.
func marshal(v any) []byte {
	var b []byte
	return appendJSON(b, v)
}

func appendJSON(b []byte, v any) []byte {
	switch v := v.(type) {
	case *object:
		b = append(b, '{')
		for i, k := range v.keys {
			if i > 0 {
				b = append(b, ',')
			}
			if plain(k) {
				b = appendPlain(b, k)
			} else {
				b = append(b, encodeString(k)...)
			}
			b = append(b, ':')
			b = appendJSON(b, v.vals[k])
		}
		return append(b, '}')
	case []any:
		b = append(b, '[')
		for i, item := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, item)
		}
		return append(b, ']')
	case json.RawMessage:
		return append(b, v...)
	}
	panic("openapi: unexpected JSON tree value")
}

// pointerEscape escapes one JSON pointer token (RFC 6901).
func pointerEscape(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return escaper.Replace(s)
}

func pointerUnescape(s string) string {
	if !strings.Contains(s, "~") {
		return s
	}
	return unescaper.Replace(s)
}

var (
	escaper   = strings.NewReplacer("~", "~0", "/", "~1")
	unescaper = strings.NewReplacer("~1", "/", "~0", "~")
)
