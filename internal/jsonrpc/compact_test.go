package jsonrpc

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestIsCompact: whitespace inside strings, escaped quotes and a trailing
// escaped backslash included, is not mistaken for layout; the answer is
// json.Compact's leaving the text as it is.
func TestIsCompact(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{
		`{"type":"object"}`,
		`{"description":"a b\tc","type":"object"}`,
		`{"description":"say \"hi there\"","type":"string"}`,
		`{"description":"a\\","type":"string"}`,
		`{"type": "object"}`,
		"{\"description\":\"x\\\" \",\n\"type\":\"string\"}",
		"[1,\r2]",
		` 1`,
		`"a b"`,
	} {
		var buf bytes.Buffer
		if err := json.Compact(&buf, []byte(doc)); err != nil {
			t.Fatal(err)
		}
		if got, want := IsCompact([]byte(doc)), buf.String() == doc; got != want {
			t.Errorf("IsCompact(%s) = %v, want %v", doc, got, want)
		}
	}
}

func FuzzIsCompact(f *testing.F) {
	for _, s := range []string{`{"a":"b\\\" c"}`, `["\\\\", 1]`, `"\\\\\\" "`, `{"a" :1}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		var buf bytes.Buffer
		if json.Compact(&buf, []byte(doc)) != nil {
			return
		}
		if got, want := IsCompact([]byte(doc)), buf.String() == doc; got != want {
			t.Errorf("IsCompact(%q) = %v, want %v", doc, got, want)
		}
	})
}
