package jsonrpc

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParse_Accepts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body, id, method, params string
	}{
		{"string id", `{"jsonrpc":"2.0","id":"a","method":"ping"}`, `"a"`, "ping", ""},
		{"empty string id", `{"jsonrpc":"2.0","id":"","method":"ping"}`, `""`, "ping", ""},
		{"big integer id kept byte-exact", `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, `9007199254740993`, "ping", ""},
		{"negative id", `{"jsonrpc":"2.0","id":-7,"method":"ping"}`, `-7`, "ping", ""},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, ``, "notifications/initialized", ""},
		{"params object", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"x"}}`, `1`, "tools/list", `{"cursor":"x"}`},
		{"whitespace", " \n{ \"jsonrpc\" : \"2.0\" , \"id\" : 1 , \"method\" : \"x\" }\n ", `1`, "x", ""},
		{"escaped method", `{"jsonrpc":"2.0","id":1,"method":"tools\/list"}`, `1`, "tools/list", ""},
		{"unknown member ignored", `{"jsonrpc":"2.0","id":1,"method":"x","extra":[1,{"a":null}]}`, `1`, "x", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Parse([]byte(tt.body), DefaultMaxDepth)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if string(m.ID) != tt.id || m.Method != tt.method || string(m.Params) != tt.params {
				t.Errorf("got id=%s method=%q params=%s", m.ID, m.Method, m.Params)
			}
		})
	}
}

func TestParse_Refuses(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat(`[`, 70) + strings.Repeat(`]`, 70)
	veryDeep := strings.Repeat(`{"a":`, 10000) + `1` + strings.Repeat(`}`, 10000)
	tests := []struct {
		name, body string
		kind       Kind
		reason     string
		echoID     string
	}{
		{"empty", ``, Syntax, "parse_error", ""},
		{"garbage", `hello`, Syntax, "parse_error", ""},
		{"truncated", `{"jsonrpc":"2.0","id":1`, Syntax, "parse_error", ""},
		{"trailing data", `{"jsonrpc":"2.0","id":1,"method":"x"} {}`, Syntax, "trailing_data", ""},
		{"trailing garbage", `{"jsonrpc":"2.0","id":1,"method":"x"}x`, Syntax, "trailing_data", ""},
		{"BOM", "\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}", Syntax, "parse_error", ""},
		{"invalid utf8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}", Syntax, "invalid_utf8", ""},
		{"overlong utf8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xc0\xaf\"}", Syntax, "invalid_utf8", ""},
		{"lone high surrogate", `{"jsonrpc":"2.0","id":1,"method":"\ud800"}`, Syntax, "invalid_utf8", ""},
		{"lone low surrogate", `{"jsonrpc":"2.0","id":1,"method":"\udc00"}`, Syntax, "invalid_utf8", ""},
		{"NaN", `{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":NaN}}`, Syntax, "parse_error", ""},
		{"leading plus", `{"jsonrpc":"2.0","id":+1,"method":"x"}`, Syntax, "parse_error", ""},
		{"single quotes", `{'jsonrpc':"2.0"}`, Syntax, "parse_error", ""},
		{"trailing comma", `{"jsonrpc":"2.0","id":1,"method":"x",}`, Syntax, "parse_error", ""},
		{"raw control char", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\tb\"}", Syntax, "parse_error", ""},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"x"}]`, Invalid, "batch", ""},
		{"empty batch", `[]`, Invalid, "batch", ""},
		{"null body", `null`, Invalid, "not_object", ""},
		{"string body", `"x"`, Invalid, "not_object", ""},
		{"number body", `42`, Invalid, "not_object", ""},
		{"duplicate method", `{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call"}`, Invalid, "duplicate_member", ""},
		{"duplicate escaped", `{"jsonrpc":"2.0","id":1,"method":"a","metho\u0064":"b"}`, Invalid, "duplicate_member", ""},
		{"duplicate nested", `{"jsonrpc":"2.0","id":1,"method":"x","params":{"name":"a","name":"b"}}`, Invalid, "duplicate_member", ""},
		{"duplicate in big object", `{"jsonrpc":"2.0","id":1,"method":"x","params":{` + manyKeys(40) + `,"k3":0}}`, Invalid, "duplicate_member", ""},
		{"case variant", `{"jsonrpc":"2.0","id":1,"method":"tools/list","Method":"tools/call"}`, Invalid, "case_variant", ""},
		// encoding/json folds ſ (U+017F) to s and the Kelvin sign to k: a
		// variant of another length.
		{"long s variant", `{"jsonrpc":"2.0","id":1,"method":"tools/list","paramſ":{}}`, Invalid, "case_variant", ""},
		{"long s variant escaped", `{"jsonrpc":"2.0","id":1,"method":"tools/list","param\u017f":{}}`, Invalid, "case_variant", ""},
		{"too deep", `{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":` + deep + `}}`, Invalid, "too_deep", ""},
		{"very deep", veryDeep, Invalid, "too_deep", ""},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"x"}`, Invalid, "invalid_id", ""},
		{"bool id", `{"jsonrpc":"2.0","id":true,"method":"x"}`, Invalid, "invalid_id", ""},
		{"array id", `{"jsonrpc":"2.0","id":[1],"method":"x"}`, Invalid, "invalid_id", ""},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"x"}`, Invalid, "invalid_id", ""},
		{"fraction id", `{"jsonrpc":"2.0","id":1.5,"method":"x"}`, Invalid, "invalid_id", ""},
		{"exponent id", `{"jsonrpc":"2.0","id":1e3,"method":"x"}`, Invalid, "invalid_id", ""},
		{"long id", `{"jsonrpc":"2.0","id":"` + strings.Repeat("a", 300) + `","method":"x"}`, Invalid, "invalid_id", ""},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":1,"method":"x"}`, Invalid, "invalid_jsonrpc", "1"},
		{"jsonrpc number", `{"jsonrpc":2.0,"id":1,"method":"x"}`, Invalid, "invalid_jsonrpc", "1"},
		{"jsonrpc missing", `{"id":1,"method":"x"}`, Invalid, "invalid_jsonrpc", "1"},
		{"method missing", `{"jsonrpc":"2.0","id":1}`, Invalid, "missing_method", "1"},
		{"method number", `{"jsonrpc":"2.0","id":1,"method":3}`, Invalid, "invalid_method", "1"},
		{"response posted", `{"jsonrpc":"2.0","id":1,"result":{}}`, Invalid, "unexpected_response", "1"},
		{"params array", `{"jsonrpc":"2.0","id":1,"method":"x","params":[]}`, Params, "invalid_params", "1"},
		{"params null", `{"jsonrpc":"2.0","id":"q","method":"x","params":null}`, Params, "invalid_params", `"q"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.body), DefaultMaxDepth)
			if err == nil {
				t.Fatal("Parse accepted the body")
			}
			if err.Kind != tt.kind || err.Reason != tt.reason || string(err.ID) != tt.echoID {
				t.Errorf("got kind=%d reason=%q id=%s (%s); want kind=%d reason=%q id=%s", err.Kind, err.Reason, err.ID, err.Message, tt.kind, tt.reason, tt.echoID)
			}
		})
	}
}

func manyKeys(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"k` + string(rune('0'+i%10)) + string(rune('a'+i/10)) + `":0`)
	}
	// The generated names ("k0a", ...) never collide; the object ends with
	// a plain "k3", which the test body repeats to force a duplicate past
	// the map threshold.
	return b.String() + `,"k3":1`
}

func TestIter_ExactNames(t *testing.T) {
	t.Parallel()
	obj := []byte(`{"Name":"x", "name" : "y","n\u0061me2":[1,{"}":"]"}],"z":-1.5e3}`)
	if err := Validate(obj, DefaultMaxDepth); err != nil {
		t.Fatal(err)
	}
	v, ok := Lookup(obj, "name")
	if !ok || string(v) != `"y"` {
		t.Fatalf("Lookup(name) = %s, %v", v, ok)
	}
	v, ok = Lookup(obj, "name2")
	if !ok || string(v) != `[1,{"}":"]"}]` {
		t.Fatalf("Lookup(name2) = %s, %v", v, ok)
	}
	v, ok = Lookup(obj, "z")
	if !ok || string(v) != `-1.5e3` {
		t.Fatalf("Lookup(z) = %s, %v", v, ok)
	}
	if _, ok := Lookup(obj, "NAME"); ok {
		t.Fatal("Lookup matched case-insensitively")
	}
	if got, want, found := MemberCaseVariant(Members(obj, nil), []string{"name"}); !found || got != "Name" || want != "name" {
		t.Fatalf("MemberCaseVariant = %q %q %v", got, want, found)
	}
	if _, _, found := MemberCaseVariant(Members(obj, nil), []string{"z"}); found {
		t.Fatal("MemberCaseVariant found an exact name")
	}
	for _, v := range []string{"taſk", "\u212aind"} { // ſ, the Kelvin sign
		obj := []byte(`{"` + v + `":1}`)
		if _, want, found := MemberCaseVariant(Members(obj, nil), []string{"task", "kind"}); !found || (want != "task" && want != "kind") {
			t.Errorf("MemberCaseVariant(%s) = %q, %v: a Unicode fold of another length", obj, want, found)
		}
	}
}

func TestAppendString_RoundTrips(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "plain", "quote\" back\\ nl\n tab\t ctl\x01", "世界", "\u2028\u2029", "<script>&"} {
		out := AppendString(nil, s)
		var got string
		if err := json.Unmarshal(out, &got); err != nil || got != s {
			t.Errorf("AppendString(%q) = %s; decodes to %q, %v", s, out, got, err)
		}
	}
	if got := string(AppendString(nil, "a\xffb")); got != `"a\ufffdb"` {
		t.Errorf("invalid UTF-8 not replaced: %s", got)
	}
}

// FuzzParse checks that Parse never panics and agrees with encoding/json on
// what is valid JSON (Parse is stricter: it may refuse duplicates and depth,
// but must never accept what encoding/json calls invalid, nor refuse what
// it calls valid for any other reason), and that what
// ParseIndexed indexes while it scans is what Index.Build finds after.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":[1,2,{"b":"\u00e9"}]}}}`,
		`[{"jsonrpc":"2.0"}]`, `{"a":1,"a":2}`, `"\ud800\udc00"`, `{"jsonrpc":"2.0","id":9007199254740993,"method":"x"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse(data, DefaultMaxDepth)
		if err == nil {
			if !json.Valid(data) {
				t.Fatalf("Parse accepted invalid JSON %q", data)
			}
			if m.Params != nil {
				it := NewIter(m.Params)
				for n := 0; n < len(data); n++ {
					if _, _, ok := it.Next(); !ok {
						break
					}
				}
			}
			indexedLikeBuild(t, data)
		}
		verr := Validate(data, DefaultMaxDepth)
		if verr == nil && !json.Valid(data) {
			t.Fatalf("Validate accepted invalid JSON %q", data)
		}
		// Nor may it refuse valid JSON but for what it is stricter about.
		if e, ok := verr.(*Error); ok && json.Valid(data) {
			switch e.Reason {
			case "duplicate_member", "too_deep", "invalid_utf8":
			default:
				t.Fatalf("Validate refused valid JSON %q: %s (%s)", data, e.Message, e.Reason)
			}
		}
	})
}

func TestStringIs(t *testing.T) {
	for _, tc := range []struct {
		raw, s string
		want   bool
	}{
		{`"accept"`, "accept", true},
		{`"\u0061ccept"`, "accept", true},
		{`"accept "`, "accept", false},
		{`"Accept"`, "accept", false},
		{`accept`, "accept", false},
		{`""`, "", true},
		{`"`, "", false},
		{`null`, "", false},
	} {
		if got := StringIs([]byte(tc.raw), tc.s); got != tc.want {
			t.Errorf("StringIs(%s, %q) = %v", tc.raw, tc.s, got)
		}
	}
}

// FuzzCutText: quoting a text in the pieces CutText gives is quoting it
// whole, whatever the text (invalid UTF-8 included) and the piece size.
func FuzzCutText(f *testing.F) {
	f.Add([]byte("héllo\u2028wörld\xff\xfe😀\"\\\n"), 4)
	f.Add([]byte("\x80\x80\x80\x80\x80abc"), 5)
	f.Fuzz(func(t *testing.T, b []byte, max int) {
		if max < 4 || max > 64 {
			max = 4 + abs(max)%61
		}
		want := AppendString(nil, string(b))
		got := []byte{'"'}
		for rest := b; len(rest) > 0; {
			n := CutText(rest, max)
			if n <= 0 || n > max {
				t.Fatalf("CutText(%q, %d) = %d", rest, max, n)
			}
			got = AppendEscaped(got, rest[:n])
			rest = rest[n:]
		}
		got = append(got, '"')
		if string(got) != string(want) {
			t.Fatalf("%q in pieces of %d: %s, whole: %s", b, max, got, want)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
