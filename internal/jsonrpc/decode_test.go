package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// reference decodes the way encoding/json does with UseNumber.
func reference(t testing.TB, data []byte) any {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("reference decoder: %v", err)
	}
	return v
}

func TestDecode(t *testing.T) {
	for _, doc := range []string{
		`{}`, `[]`, `"x"`, `0`, `-1.5e3`, `true`, `false`, `null`,
		`{"a":[1,"two",{"b":null}],"c":{"d":true,"e":false},"f":"\u00e9\n\"q\"","g":1e400}`,
		` { "sp" : [ 1 , 2 ] , "x" : "y" } `,
		`{"\u0061":"key escaped","😀":"\ud83d\ude00"}`,
	} {
		got, err := Decode([]byte(doc), 0)
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		if diff := cmp.Diff(reference(t, []byte(doc)), got); diff != "" {
			t.Errorf("%s (-encoding/json +Decode):\n%s", doc, diff)
		}
	}
}

// TestDecode_MaxValues: the count covers every value, nested or not, and
// decoding stops at the bound.
func TestDecode_MaxValues(t *testing.T) {
	doc := []byte(`{"a":[1,2,{"b":3}],"c":"d"}`) // 7 values
	if _, err := Decode(doc, 7); err != nil {
		t.Errorf("at the bound: %v", err)
	}
	if _, err := Decode(doc, 6); !errors.Is(err, ErrTooManyValues) {
		t.Errorf("past the bound: %v", err)
	}
	big := []byte("[" + strings.Repeat("1,", 1_000_000) + "1]")
	if _, err := Decode(big, 10_000); !errors.Is(err, ErrTooManyValues) {
		t.Errorf("a million values: %v", err)
	}
}

// FuzzDecodeValue: for every text the scanner accepts, Decode agrees with
// encoding/json.
func FuzzDecodeValue(f *testing.F) {
	for _, s := range []string{`{"a":[1,"x",null]}`, `"\u00e9"`, `[[[]]]`, `{"k":{"k":{}}}`, `-0.5E-3`, `[1e401]`, `{"n":-1E-0400}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if Validate(data, DefaultMaxDepth) != nil {
			return
		}
		got, err := Decode(data, 0)
		ref := reference(t, data)
		if unbounded := anyNumber(ref, func(n json.Number) bool { return !numberBounded(string(n)) }); errors.Is(err, ErrNumberTooLarge) != unbounded {
			t.Fatalf("%q: %v, and a number past the bounds: %v", data, err, unbounded)
		}
		if errors.Is(err, ErrNumberTooLarge) {
			return
		}
		if err != nil {
			t.Fatalf("%q: %v", data, err)
		}
		if diff := cmp.Diff(ref, got); diff != "" {
			t.Fatalf("%q (-encoding/json +Decode):\n%s", data, diff)
		}
		// The iterator Lookup and Members use agrees as well.
		obj, isObj := ref.(map[string]any)
		if !isObj {
			return
		}
		members := Members(data, nil)
		if len(members) != len(obj) {
			t.Fatalf("%q: %d members, want %d", data, len(members), len(obj))
		}
		for _, m := range members {
			if diff := cmp.Diff(obj[string(m.Key)], reference(t, m.Value)); diff != "" {
				t.Fatalf("%q: member %q (-want +got):\n%s", data, m.Key, diff)
			}
		}
	})
}

// anyNumber reports whether some number in v, a decoded value, satisfies f.
func anyNumber(v any, f func(json.Number) bool) bool {
	switch v := v.(type) {
	case json.Number:
		return f(v)
	case []any:
		for _, e := range v {
			if anyNumber(e, f) {
				return true
			}
		}
	case map[string]any:
		for _, e := range v {
			if anyNumber(e, f) {
				return true
			}
		}
	}
	return false
}

// TestDecode_NumberBounds: a number a validator would have to build as an
// exact fraction at great cost, or could not build at all, is refused at
// and past the edges of the bounds, wherever it is.
func TestDecode_NumberBounds(t *testing.T) {
	digits := func(n int) string { return "1" + strings.Repeat("0", n-1) }
	for _, tc := range []struct {
		num string
		ok  bool
	}{
		{digits(MaxNumberDigits), true},
		{digits(MaxNumberDigits + 1), false},
		{"-0." + strings.Repeat("0", MaxNumberDigits-2) + "1", true},
		{"-0." + strings.Repeat("0", MaxNumberDigits-1) + "1", false},
		{"1e400", true},
		{"1E+400", true},
		{"1e-400", true},
		{"1e0400", true},
		{"1e" + strings.Repeat("0", 1000) + "1", true},
		{"1e401", false},
		{"1e-401", false},
		{"1e999999", false},
		{"1e1000001", false},
		{"-2.5E+99999999999999999999", false},
		{"1.7976931348623157e308", true},
		{"5e-324", true},
	} {
		for _, doc := range []string{tc.num, `{"a":[1,{"b":` + tc.num + `}]}`} {
			_, err := Decode([]byte(doc), 0)
			if ok := err == nil; ok != tc.ok || (err != nil && !errors.Is(err, ErrNumberTooLarge)) {
				t.Errorf("%.60s: %v, want ok %v", doc, err, tc.ok)
			}
		}
	}
}
