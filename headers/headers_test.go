package headers

import (
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"strings"
	"testing"
)

func TestDecode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
		err      error
	}{
		{"plain", "plain", nil},
		{"", "", nil},
		{"a b\tc", "a b\tc", nil},
		{"=?base64?SGVsbG8sIOS4lueVjA==?=", "Hello, 世界", nil},
		{"=?base64?IHBhZGRlZCA=?=", " padded ", nil},
		{"=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=", "=?base64?literal?=", nil},
		{"=?base64?Y2Fmw6k=?=", "café", nil},
		{"=?base64??=", "", nil},
		{"=?base64?=", "", ErrEncoding},                     // prefix and suffix share the "?": a sentinel with nothing inside
		{"=?base64?SGVsbG8?=", "", ErrEncoding},             // missing padding
		{"=?base64?SGVs!!!bG8=?=", "", ErrEncoding},         // outside the alphabet
		{"=?base64?-_-_?=", "", ErrEncoding},                // URL-safe alphabet
		{"=?base64?/w==?=", "", ErrEncoding},                // decodes to invalid UTF-8
		{"=?base64?SGVs\nbG8=?=", "", ErrEncoding},          // newline the decoder would skip
		{"=?BASE64?SGVsbG8=?=", "=?BASE64?SGVsbG8=?=", nil}, // markers are case-sensitive
		{"=?base64?SGVsbG8=", "=?base64?SGVsbG8=", nil},     // no suffix: literal
		{"SGVsbG8=?=", "SGVsbG8=?=", nil},                   // no prefix: literal
		{"café", "", ErrInvalid},
		{"a\x01b", "", ErrInvalid},
	}
	for _, tt := range tests {
		got, err := Decode(tt.in)
		if !errors.Is(err, tt.err) || (err == nil && got != tt.want) {
			t.Errorf("Decode(%q) = %q, %v; want %q, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestEncode_RoundTrip(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "get_weather", "Hello, 世界", " padded ", "=?base64?literal?=", "=?base64?=", "tab\tinside", "ctl\x01", "\ttab"} {
		enc := Encode(s)
		got, err := Decode(enc)
		if err != nil || got != s {
			t.Errorf("Decode(Encode(%q)) = %q, %v (encoded %q)", s, got, err, enc)
		}
	}
	if Encode("get_weather") != "get_weather" {
		t.Error("a safe value was encoded")
	}
}

func TestGet(t *testing.T) {
	t.Parallel()
	h := http.Header{}
	if _, err := Get(h, Method); !errors.Is(err, ErrMissing) {
		t.Errorf("missing: %v", err)
	}
	h.Set("mcp-method", "  tools/list\t")
	if v, err := Get(h, "MCP-METHOD"); err != nil || v != "tools/list" {
		t.Errorf("trim/case: %q %v", v, err)
	}
	h.Add(Method, "tools/call")
	if _, err := Get(h, Method); !errors.Is(err, ErrDuplicate) {
		t.Errorf("duplicate: %v", err)
	}
	for _, v := range []string{" \t", "", "a b", "\ta b "} {
		h.Set(Name, v)
		if got, err := Get(h, Name); err != nil || got != strings.Trim(v, " \t") {
			t.Errorf("Get of %q = %q, %v; want %q", v, got, err, strings.Trim(v, " \t"))
		}
	}
}

func TestParseAnnotations(t *testing.T) {
	t.Parallel()
	good := `{"type":"object","properties":{
		"region":{"type":"string","x-mcp-header":"Region"},
		"n":{"type":"integer","x-mcp-header":"Count"},
		"opts":{"type":"object","properties":{"dry":{"type":"boolean","x-mcp-header":"Dry-Run"}}}}}`
	ps, err := ParseAnnotations(decode(t, good))
	if err != nil {
		t.Fatal(err)
	}
	want := []Param{{"Mcp-Param-Count", []string{"n"}, "integer"}, {"Mcp-Param-Dry-Run", []string{"opts", "dry"}, "boolean"}, {"Mcp-Param-Region", []string{"region"}, "string"}}
	if len(ps) != len(want) {
		t.Fatalf("got %v", ps)
	}
	for i := range want {
		if ps[i].Header != want[i].Header || ps[i].Type != want[i].Type || len(ps[i].Path) != len(want[i].Path) {
			t.Errorf("param %d = %+v, want %+v", i, ps[i], want[i])
		}
	}
	bad := map[string]string{
		"empty":       `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":""}}}`,
		"not string":  `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":3}}}`,
		"space":       `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A B"}}}`,
		"non-ascii":   `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"é"}}}`,
		"number type": `{"type":"object","properties":{"a":{"type":"number","x-mcp-header":"A"}}}`,
		"object type": `{"type":"object","properties":{"a":{"type":"object","x-mcp-header":"A"}}}`,
		"duplicate":   `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A"},"b":{"type":"string","x-mcp-header":"a"}}}`,
		"under items": `{"type":"object","properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"A"}}}}`,
		"under anyOf": `{"type":"object","anyOf":[{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}]}`,
		"under $defs": `{"type":"object","$defs":{"x":{"type":"string","x-mcp-header":"A"}}}`,
		"at root":     `{"type":"object","x-mcp-header":"A"}`,
		// A property another differs from only in case (Unicode's folds
		// included): encoding/json may take either for the other.
		"case sibling":      `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"Region":{"type":"string"}}}`,
		"long s sibling":    `{"type":"object","properties":{"opts":{"type":"object","properties":{"dry":{"type":"boolean","x-mcp-header":"Dry"}}},"optſ":{}}}`,
		"annotated sibling": `{"type":"object","properties":{"region":{"type":"string"},"REGION":{"type":"string","x-mcp-header":"Region"}}}`,
	}
	for name, s := range bad {
		if _, err := ParseAnnotations(decode(t, s)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestMatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		header, body string
		want         bool
	}{
		{"us-west1", `"us-west1"`, true},
		{"US-WEST1", `"us-west1"`, false},
		{"42", `42`, true},
		{"42", `42.0`, true},
		{"42.0", `42`, true},
		{"43", `42`, false},
		{"x", `42`, false},
		{"9007199254740993", `9007199254740993`, false}, // beyond 2^53-1
		{"true", `true`, true},
		{"True", `true`, false},
		{"false", `true`, false},
		{"null", `null`, false},
		{"{}", `{}`, false},
		{"é", `"\u00e9"`, true},
		// Integers: JSON number spellings only, compared exactly.
		{"4.2e1", `42`, true},
		{"42", `420e-1`, true},
		{"-7", `-7.000`, true},
		{"0", `-0`, true},
		{"-0", `0.0e5`, true},
		{"9007199254740991", `9007199254740991`, true},
		{"-9007199254740991", `-9007199254740991`, true},
		{"9007199254740992", `9007199254740992`, false},
		{"42", `42.000000000000001`, false}, // a float would round it to 42
		{"42.5", `42.5`, false},             // not an integer
		{"1e400", `1e400`, false},
		{"1e-400", `0`, false},
		{"0e-400", `0`, true},
		{"1", `1e99999999999999999999`, false},
		{"0x2Ap0", `42`, false},
		{"0x2A", `42`, false},
		{"+42", `42`, false},
		{"042", `42`, false},
		{"42.", `42`, false},
		{".42e2", `42`, false},
		{"4_2", `42`, false},
		{" 42", `42`, false},
		{"42 ", `42`, false},
		{"Inf", `42`, false},
		{"NaN", `42`, false},
		{"-", `42`, false},
		{"1e", `1`, false},
		{"1e+", `1`, false},
	}
	for _, tt := range tests {
		if got := Match(tt.header, []byte(tt.body)); got != tt.want {
			t.Errorf("Match(%q, %s) = %v", tt.header, tt.body, got)
		}
	}
}

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{"plain", "=?base64?SGVsbG8=?=", "=?base64?", "?=", "=?base64?=?="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := Decode(s)
		if err != nil {
			return
		}
		back, err := Decode(Encode(v))
		if err != nil || back != v {
			t.Fatalf("round trip of %q: %q, %v", v, back, err)
		}
	})
}

// FuzzIntegerOf holds integerOf to exact arithmetic: a JSON number (as
// encoding/json reads one) stands for an integer within ±(2^53-1) exactly
// when big.Rat says so, with the same value; anything else is refused.
func FuzzIntegerOf(f *testing.F) {
	for _, s := range []string{"42", "42.0", "4.2e1", "-0", "0x2A", "+42", "042", "42.", "1e400", "420e-1", "9007199254740992"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := integerOf(s)
		if e := strings.IndexAny(s, "eE"); e >= 0 && len(s)-e > 6 {
			return // big.Rat would build 10^exponent; integerOf bounds it
		}
		var n json.Number
		isNumber := len(s) > 0 && (s[0] == '-' || isDigit(s[0])) && json.Unmarshal([]byte(s), &n) == nil && string(n) == s
		if !isNumber {
			if ok {
				t.Fatalf("integerOf(%q) = %d, true; not a JSON number", s, got)
			}
			return
		}
		r, _ := new(big.Rat).SetString(s)
		limit := new(big.Rat).SetInt64(maxSafeInteger)
		want := r.IsInt() && new(big.Rat).Abs(r).Cmp(limit) <= 0
		if ok != want || (ok && r.Num().Int64() != got) {
			t.Fatalf("integerOf(%q) = %d, %v; exact value %s", s, got, ok, r.RatString())
		}
	})
}
