package mrtr

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var plaintexts = []plaintext{
	{Binding: bytes.Repeat([]byte{7}, 32), Issued: 1764500000, Expires: 1764500300, Nonce: bytes.Repeat([]byte{1}, NonceBytes)},
	{Binding: bytes.Repeat([]byte{0xff}, 32), Issued: 0, Expires: 1, Nonce: make([]byte, NonceBytes), Payload: []byte(`{"v":1,"u":"confirm","k":{"confirm":"elicitation"}}`)},
	{Binding: []byte{1}, Issued: 999999999999999999, Expires: 5, Nonce: []byte{2, 3}, Payload: []byte{0}},
}

// TestPlaintext_Layout: the layout is encoding/json's, both ways, so states
// sealed by earlier releases open and theirs open ours.
func TestPlaintext_Layout(t *testing.T) {
	for _, p := range plaintexts {
		want, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		got := appendPlaintext(nil, &p)
		if !bytes.Equal(got, want) {
			t.Errorf("appendPlaintext = %s\nencoding/json   = %s", got, want)
		}
		var back plaintext
		if !parseLayout(want, &back) {
			t.Errorf("parseLayout refused %s", want)
		}
		if diff := cmp.Diff(p, back); diff != "" {
			t.Errorf("round trip (-want +got):\n%s", diff)
		}
	}
}

func TestPlaintext_OtherLayouts(t *testing.T) {
	for _, in := range []string{
		`{"i":1,"b":"AQ==","e":2,"n":"Ag=="}`,        // other order
		`{"b":"AQ==", "i":1,"e":2,"n":"Ag=="}`,       // spaces
		`{"b":"AQ==","i":01,"e":2,"n":"Ag=="}`,       // leading zero
		`{"b":"AQ==","i":1,"e":2,"n":"Ag==","p":""}`, // empty payload
		`{"b":"AQ","i":1,"e":2,"n":"Ag=="}`,          // unpadded
	} {
		var fast plaintext
		if parseLayout([]byte(in), &fast) {
			t.Errorf("parseLayout accepted %s", in)
		}
		var got, want plaintext
		errGot, errWant := parsePlaintext([]byte(in), &got), json.Unmarshal([]byte(in), &want)
		if (errGot == nil) != (errWant == nil) || cmp.Diff(want, got) != "" {
			t.Errorf("%s: parsePlaintext %+v, %v; encoding/json %+v, %v", in, got, errGot, want, errWant)
		}
	}
}

// FuzzPlaintext: wherever the layout reader answers, encoding/json agrees.
func FuzzPlaintext(f *testing.F) {
	for _, p := range plaintexts {
		f.Add(appendPlaintext(nil, &p))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var fast plaintext
		if !parseLayout(in, &fast) {
			return
		}
		var want plaintext
		if err := json.Unmarshal(in, &want); err != nil {
			t.Fatalf("layout reader accepted %q, encoding/json refuses it: %v", in, err)
		}
		if diff := cmp.Diff(want, fast); diff != "" {
			t.Fatalf("%q (-json +layout):\n%s", in, diff)
		}
	})
}
