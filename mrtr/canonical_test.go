package mrtr

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strings"
	"testing"
)

var canonicalCases = []struct {
	name, in, want string
	fast           bool // the single pass answers
}{
	{"empty", "", "{}", true},
	{"blank", " \n\t", "{}", true},
	{"empty object", "{ }", "{}", true},
	{"sorted", `{"a":1,"b":2}`, `{"a":1,"b":2}`, true},
	{"reordered", `{ "b" : 2 , "a" : 1 }`, `{"a":1,"b":2}`, true},
	{"nested", `{"z":{"y":[3,{"b":true,"a":null}],"x":"s"},"a":[]}`, `{"a":[],"z":{"x":"s","y":[3,{"a":null,"b":true}]}}`, true},
	{"numbers as written", `{"n":1.50,"m":-0,"e":1E+3,"f":2e-7}`, `{"e":1E+3,"f":2e-7,"m":-0,"n":1.50}`, true},
	{"big number", `{"n":123456789012345678901234567890}`, `{"n":123456789012345678901234567890}`, true},
	{"stable escapes", `{"s":"a\"b\\c\nd\re\tf"}`, `{"s":"a\"b\\c\nd\re\tf"}`, true},
	{"html kept", `{"s":"<a&b>"}`, `{"s":"<a&b>"}`, true},
	{"utf-8", `{"é":"日本","a":"x"}`, `{"a":"x","é":"日本"}`, true},
	{"many members", `{"j":0,"i":0,"h":0,"g":0,"f":0,"e":0,"d":0,"c":0,"b":0,"a":0}`, `{"a":0,"b":0,"c":0,"d":0,"e":0,"f":0,"g":0,"h":0,"i":0,"j":0}`, true},
	{"unicode escape", `{"s":"\u0041"}`, `{"s":"A"}`, true},
	{"solidus escape", `{"s":"a\/b"}`, `{"s":"a/b"}`, true},
	{"control escape", `{"s":"\u001F"}`, `{"s":"\u001f"}`, true},
	{"escaped name", `{"\u0062":1,"a":2}`, `{"a":2,"b":1}`, true},
	{"line separator", "{\"s\":\"\u2028\"}", `{"s":"\u2028"}`, true},
	{"duplicate names", `{"a":1,"a":2}`, `{"a":2}`, true},
	{"surrogate pair", `{"s":"\uD83D\uDE00"}`, "{\"s\":\"\U0001F600\"}", true},
	{"lone high surrogate", `{"s":"\ud800x"}`, "{\"s\":\"\ufffdx\"}", true},
	{"lone low surrogate", `{"s":"\udc00"}`, "{\"s\":\"\ufffd\"}", true},
	{"high then not low", `{"s":"\ud800\u0041"}`, "{\"s\":\"\ufffdA\"}", true},
	{"backspace and form feed", `{"s":"\b\f\u0008\u000C"}`, `{"s":"\b\f\b\f"}`, true},
	{"escaped quote and solidus", `{"s":"\u0022\u005c\u002f"}`, `{"s":"\"\\/"}`, true},
	{"html escapes decoded", `{"s":"\u003c\u0026\u003e"}`, `{"s":"<&>"}`, true},
	{"names sort decoded", `{"b":1,"\u000a":2,"\u00e9":3,"\"":4,"a\u2029":5,"a":6}`, `{"\n":2,"\"":4,"a":6,"a\u2029":5,"b":1,"é":3}`, true},
	{"escaped duplicate", `{"\u00e9":1,"é":2,"z":0}`, `{"z":0,"é":2}`, true},
	{"duplicate nested", `{"a":{"x":1,"x":{"y":2,"y":3}},"a":[1]}`, `{"a":[1]}`, true},
	{"paragraph separator raw", "{\"s\":\"a\u2029b\"}", `{"s":"a\u2029b"}`, true},
	{"invalid utf-8", "{\"s\":\"\xff\"}", "{\"s\":\"\ufffd\"}", true},
	{"deep", strings.Repeat(`{"a":`, 70) + "1" + strings.Repeat("}", 70), strings.Repeat(`{"a":`, 70) + "1" + strings.Repeat("}", 70), true},
}

func TestCanonical(t *testing.T) {
	for _, tc := range canonicalCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Canonical([]byte(tc.in))
			if err != nil || string(got) != tc.want {
				t.Fatalf("Canonical(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
			if _, fast := appendFast(nil, []byte(tc.in)); fast != tc.fast && strings.TrimSpace(tc.in) != "" {
				t.Errorf("single pass answered %v, want %v", fast, tc.fast)
			}
			if strings.TrimSpace(tc.in) == "" {
				return
			}
			slow, err := canonicalSlow([]byte(tc.in))
			if err != nil || !bytes.Equal(slow, got) {
				t.Errorf("definition gives %q, %v", slow, err)
			}
		})
	}
}

func TestCanonical_Refuses(t *testing.T) {
	for _, in := range []string{`[]`, `"s"`, `{"a":}`, `{"a":1,}`, `{"a":1} {}`, `{"a":01}`, `{"a":tru}`, `{"a":1`, `{"a":"\x01"}`, `{"a":"\'"}`, `{"a":"\u12"}`, `{"a":"\x"}`,
		// encoding/json's Decoder stops before these; More reports false
		// before a stray '}' or ']', and null decodes into a nil map.
		`{"a":1}}`, `{"a":1}]`, `{"a":1} ]]}}`, `null`, ` null `,
		// Not JSON's white space, which bytes.TrimSpace would take for it.
		"\v", "\f", "\u00a0", "\u0085", "{}\v"} {
		if got, err := Canonical([]byte(in)); err == nil {
			t.Errorf("Canonical(%q) = %q, want an error", in, got)
		}
	}
}

// TestDigest_Stable: the binding digest is the one every earlier release
// computed (length-prefixed fields streamed into SHA-256, then the
// SHA-256 of the definition's canonical arguments), so states in flight
// during a rolling upgrade still open.
func TestDigest_Stable(t *testing.T) {
	for _, tc := range canonicalCases {
		if strings.TrimSpace(tc.in) == "" {
			continue
		}
		b := Binding{Principal: "alice", Workspace: "w1", Audience: "https://mcp.example", Version: "2026-07-28",
			Method: "tools/call", Target: "delete", Arguments: []byte(tc.in)}
		got, err := b.digest()
		if err != nil {
			t.Fatal(err)
		}
		args, err := canonicalSlow(b.Arguments)
		if err != nil {
			t.Fatal(err)
		}
		argsSum := sha256.Sum256(args)
		h := sha256.New()
		var n [binary.MaxVarintLen64]byte
		for _, f := range []string{b.Principal, b.Workspace, b.Audience, b.Version, b.Method, b.Target, string(argsSum[:])} {
			h.Write(n[:binary.PutUvarint(n[:], uint64(len(f)))])
			h.Write([]byte(f))
		}
		if want := h.Sum(nil); !bytes.Equal(got[:], want) {
			t.Errorf("%s: digest %s, earlier releases %s", tc.name, hex.EncodeToString(got[:]), hex.EncodeToString(want))
		}
	}
}

func TestCanonical_Allocations(t *testing.T) {
	if raceEnabled {
		// The race detector's pools drop what they are given at random.
		t.Skip("allocation budgets are measured without the race detector; .ci/run runs them without it")
	}
	in := []byte(`{"to":"bob@example.com","subject":"hi","tags":["a","b"],"body":"line\nline","n":3}`)
	buf := make([]byte, 0, 256)
	if n := testing.AllocsPerRun(100, func() { appendCanonical(buf[:0], in) }); n != 0 {
		t.Errorf("%v allocations for a small object, want 0", n)
	}
	b := Binding{Principal: "alice", Arguments: in}
	if n := testing.AllocsPerRun(100, func() { b.digest() }); n != 0 {
		t.Errorf("digest: %v allocations, want 0", n)
	}
}

// FuzzCanonical: wherever the single pass answers, it answers what the
// definition does.
func FuzzCanonical(f *testing.F) {
	for _, tc := range canonicalCases {
		f.Add([]byte(tc.in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		fast, ok := appendFast(nil, in)
		if !ok {
			return
		}
		slow, err := canonicalSlow(in)
		if err != nil {
			t.Fatalf("single pass accepted %q, the definition refuses it: %v", in, err)
		}
		if !bytes.Equal(fast, slow) {
			t.Fatalf("%q: single pass %q, definition %q", in, fast, slow)
		}
	})
}

// TestCanonical_DepthEdge: the single pass takes what encoding/json, the
// definition, takes — an object nesting 10,000 levels in all — and leaves
// the next level to the definition, which refuses it: a pass reaching
// deeper would give a digest to a text the definition has none for.
func TestCanonical_DepthEdge(t *testing.T) {
	t.Parallel()
	nested := func(levels int) []byte { // the object, then levels-1 arrays
		return []byte(`{"a":` + strings.Repeat("[", levels-1) + strings.Repeat("]", levels-1) + `}`)
	}
	at := nested(10_000)
	fast, ok := appendFast(nil, at)
	slow, err := canonicalSlow(at)
	if !ok || err != nil || !bytes.Equal(fast, slow) || !bytes.Equal(fast, at) {
		t.Errorf("10,000 levels: the pass took it %v, the definition: %v", ok, err)
	}
	past := nested(10_001)
	if _, ok := appendFast(nil, past); ok {
		t.Error("10,001 levels: the pass took it")
	}
	if _, err := Canonical(past); err == nil {
		t.Error("10,001 levels: canonical")
	}
}
