package jsonrpc

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestLookup_EscapesSearchedOnce: walking past a string searches each of
// its bytes a bounded number of times, however many escapes it holds.
// Every lookup in params (past six members), in arguments (Mcp-Param-*,
// a route's query) and in inputResponses walks the values before the one
// it wants; the quote that ends a string was searched for again after
// every escape, so a 128 KiB string of escapes took a third of a second
// to walk, and one of 1 MiB about twenty (the work is counted here, not
// timed).
func TestLookup_EscapesSearchedOnce(t *testing.T) {
	const n = 1 << 16
	for name, value := range map[string]string{
		"line feeds":    `"` + strings.Repeat(`\n`, n) + `"`,
		"backslashes":   `"` + strings.Repeat(`\\`, n) + `"`,
		"quotes":        `"` + strings.Repeat(`\"`, n) + `"`,
		"unicode":       `"` + strings.Repeat(`\u00e9`, n/3) + `"`,
		"mixed":         `"` + strings.Repeat(`a\\\"b\n`, n/4) + `"`,
		"in containers": `[{"s":"` + strings.Repeat(`\t`, n) + `"},"` + strings.Repeat(`\/`, n) + `"]`,
	} {
		obj := []byte(`{"a":` + value + `,"b":1}`)
		if !json.Valid(obj) {
			t.Fatalf("%s: not JSON", name)
		}
		count := 0
		searched = &count
		v, ok := Lookup(obj, "b")
		searched = nil
		if !ok || string(v) != "1" {
			t.Errorf("%s: Lookup(b) = %q, %v", name, v, ok)
		}
		if count > 2*len(obj) {
			t.Errorf("%s: %d bytes searched walking a %d-byte object; want at most twice its size", name, count, len(obj))
		}
	}
}

// TestLookup_StringEnds: a string ends at its first quote no escape takes,
// wherever the escapes fall, as encoding/json reads it.
func TestLookup_StringEnds(t *testing.T) {
	for _, s := range []string{
		``, `\\`, `\"`, `\\\"`, `\\\\`, `a\"`, `\"a`, `x\u0022y`, `\/\b\f\n\r\t`,
		`\"\"\"`, `a\\b\\`, `\\\\\"\\`,
	} {
		obj := []byte(`{"a":"` + s + `","b":["` + s + `",{"c":"` + s + `"}],"z":true}`)
		var want map[string]json.RawMessage
		if err := json.Unmarshal(obj, &want); err != nil {
			t.Fatalf("%q: %v", obj, err)
		}
		for _, k := range []string{"a", "b", "z"} {
			if v, ok := Lookup(obj, k); !ok || string(v) != string(want[k]) {
				t.Errorf("%s: Lookup(%s) = %q, %v; want %q", obj, k, v, ok, want[k])
			}
		}
	}
}

// TestAppendUnquoted: a string value's text appended to a buffer is what
// String decodes, escapes included; anything else is no string.
func TestAppendUnquoted(t *testing.T) {
	buf := []byte("keep:")
	for _, raw := range []string{`""`, `"plain"`, `"\u0076://r\/0"`, `"\ud83d\ude00\n"`} {
		want, _ := String([]byte(raw))
		got, ok := AppendUnquoted(buf[:5], []byte(raw))
		if !ok || string(got) != "keep:"+want {
			t.Errorf("AppendUnquoted(%s) = %q, %v; want %q", raw, got, ok, "keep:"+want)
		}
	}
	for _, raw := range []string{`1`, `null`, `["a"]`, `{}`, ``} {
		if got, ok := AppendUnquoted(buf[:5], []byte(raw)); ok || string(got) != "keep:" {
			t.Errorf("AppendUnquoted(%s) = %q, %v; want no string", raw, got, ok)
		}
	}
}
