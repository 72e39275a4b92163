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
	for _, s := range []string{`{"a":[1,"x",null]}`, `"\u00e9"`, `[[[]]]`, `{"k":{"k":{}}}`, `-0.5E-3`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if Validate(data, DefaultMaxDepth) != nil {
			return
		}
		got, err := Decode(data, 0)
		if err != nil {
			t.Fatalf("%q: %v", data, err)
		}
		ref := reference(t, data)
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
