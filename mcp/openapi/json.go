package openapi

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
)

// The tool schemas are built as an ordered tree so that they keep the
// document's order (properties, keywords), which makes them read like the
// document and keeps golden files stable. A value is *object, []any, or
// json.RawMessage (an encoded scalar).

type object struct {
	keys []string
	vals []any          // vals[i] is keys[i]'s
	idx  map[string]int // key to index, once there are more than indexAt keys
}

// indexAt is where a linear search of the keys gives way to a map: most
// schema objects have a handful of keywords, and a map each was most of
// what converting GitHub's document allocated.
const indexAt = 12

func newObject() *object { return &object{} }

func (o *object) find(k string) int {
	if o.idx != nil {
		if i, ok := o.idx[k]; ok {
			return i
		}
		return -1
	}
	for i, key := range o.keys {
		if key == k {
			return i
		}
	}
	return -1
}

func (o *object) get(k string) (any, bool) {
	if i := o.find(k); i >= 0 {
		return o.vals[i], true
	}
	return nil, false
}

// at is k's value, or nil.
func (o *object) at(k string) any {
	v, _ := o.get(k)
	return v
}

// set replaces k's value in place, or appends k.
func (o *object) set(k string, v any) {
	if i := o.find(k); i >= 0 {
		o.vals[i] = v
		return
	}
	o.keys, o.vals = append(o.keys, k), append(o.vals, v)
	if o.idx != nil {
		o.idx[k] = len(o.keys) - 1
	} else if len(o.keys) > indexAt {
		o.reindex()
	}
}

func (o *object) reindex() {
	o.idx = make(map[string]int, len(o.keys))
	for i, k := range o.keys {
		o.idx[k] = i
	}
}

func (o *object) del(k string) {
	i := o.find(k)
	if i < 0 {
		return
	}
	o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
	o.vals = append(o.vals[:i:i], o.vals[i+1:]...)
	if o.idx != nil {
		o.reindex()
	}
}

// rename puts v under key to in place of key from.
func (o *object) rename(from, to string, v any) {
	if i := o.find(from); i >= 0 {
		o.keys[i], o.vals[i] = to, v
		if o.idx != nil {
			delete(o.idx, from)
			o.idx[to] = i
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

// marshal renders v compactly, in order. It renders into a scratch
// buffer kept between calls and copies the result out once, instead of
// growing each result from nothing: a tool's schema is kilobytes.
func marshal(v any) []byte {
	p := scratch.Get().(*[]byte)
	b := appendJSON((*p)[:0], v)
	out := bytes.Clone(b)
	if cap(b) <= 1<<20 { // an outsized one is left to the collector
		*p = b
		scratch.Put(p)
	}
	return out
}

var scratch = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

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
			b = appendJSON(b, v.vals[i])
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
