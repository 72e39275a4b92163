package openapi

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestStrings checks that the short ways of encodeString, appendJSON's
// keys and str give what the encoder and decoder give, for plain text and
// for what needs escaping (quotes, backslashes, control characters, HTML
// characters, U+2028, invalid UTF-8, non-ASCII).
func TestStrings(t *testing.T) {
	for _, s := range []string{"", "name", "a b~/{id}", `q"uote`, `back\slash`, "tab\there", "nl\n", "<a&b>",
		"\u2028", "caf\u00e9", "bad\xffutf8", "\x7f", "#/components/schemas/Repo"} {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		want := bytes.TrimRight(b.Bytes(), "\n")
		if got := encodeString(s); !bytes.Equal(got, want) {
			t.Errorf("encodeString(%q) = %s, want %s", s, got, want)
		}
		o := newObject()
		o.set(s, json.RawMessage("1"))
		if got, want := string(marshal(o)), "{"+string(want)+":1}"; got != want {
			t.Errorf("key %q: %s, want %s", s, got, want)
		}
		var decoded string
		if err := json.Unmarshal(want, &decoded); err != nil {
			t.Fatal(err)
		}
		if got, ok := str(json.RawMessage(want)); !ok || got != decoded {
			t.Errorf("str(%s) = %q %v, want %q", want, got, ok, decoded)
		}
	}
	for _, raw := range []string{`"`, `"open`, `1`, `null`} {
		if got, ok := str(json.RawMessage(raw)); ok {
			t.Errorf("str(%s) = %q, want no string", raw, got)
		}
	}
}
