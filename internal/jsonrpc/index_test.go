package jsonrpc

import (
	"reflect"
	"slices"
	"testing"
)

// indexedLikeBuild checks that what ParseIndexed found for params and for
// params._meta is what Index.Build finds walking the parsed objects
// afterwards: the same offsets, the same give-up, and for _meta only when
// it is an object of params (not of the arguments, not of the root).
func indexedLikeBuild(t *testing.T, body []byte) {
	t.Helper()
	var params, meta Index
	indexedLikeBuildInto(t, body, &params, &meta)
}

// indexedLikeBuildInto is indexedLikeBuild with indexes that may hold an
// earlier parse's members.
func indexedLikeBuildInto(t *testing.T, body []byte, params, meta *Index) {
	t.Helper()
	var m Message
	if err := ParseIndexed(body, DefaultMaxDepth, &m, params, "_meta", meta); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	var wantParams, wantMeta Index
	if IsObject(m.Params) {
		wantParams.Build(m.Params)
		if v, ok := wantParams.Lookup("_meta"); ok && IsObject(v) {
			wantMeta.Build(v)
		}
	}
	if !sameIndex(params, &wantParams) {
		t.Errorf("%s: params indexed as %+v, Build gives %+v", body, *params, wantParams)
	}
	if !sameIndex(meta, &wantMeta) {
		t.Errorf("%s: _meta indexed as %+v, Build gives %+v", body, *meta, wantMeta)
	}
	if params.Done() && &params.obj[0] != &m.Params[0] {
		t.Errorf("%s: the params index does not alias the message's params", body)
	}
}

// sameIndex: a and b are both not done, or both done over the same bytes
// with the same members (what lies past them is never read).
func sameIndex(a, b *Index) bool {
	if a.done != b.done {
		return false
	}
	return !a.done || a.rescan == b.rescan && a.n == b.n && reflect.DeepEqual(a.obj, b.obj) &&
		slices.Equal(a.spans[:a.n], b.spans[:b.n])
}

func TestParseIndexed(t *testing.T) {
	var params, meta Index // reused from body to body, as a caller may
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","clientCapabilities":{"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}}}`,
		// white space everywhere the grammar allows it
		" {\n\t\"params\" : { \"_meta\" : { \"a\" : 1 , \"b\" : [ 1 , 2 ] } , \"name\" : \"x\" } , \"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"m\" } ",
		// empty objects are indexed, and hold nothing
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{}}}`,
		// no params; _meta not an object; _meta elsewhere than in params
		`{"jsonrpc":"2.0","id":1,"method":"m"}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":5}}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":[{"a":1}]}}`,
		`{"_meta":{"a":1},"jsonrpc":"2.0","id":1,"method":"m","params":{"arguments":{"_meta":{"b":2},"params":{"c":3}}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"arguments":[{"params":{"d":4}}]}}`,
		// more members than the room, and names with escapes: given up
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6}}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1,"b":2,"c":3,"d":4,"e":5}}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"n\u0061me":"x","_meta":{"k":1}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"name":"x","_meta":{"\u006b":1,"l":2}}}`,
		// a name that is _meta only once unescaped: indexed as _meta, and
		// params, which holds an escaped name, rescans
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"_m\u0065ta":{"k":1}}}`,
		// a notification
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":2}}`,
	} {
		indexedLikeBuild(t, []byte(body))
		indexedLikeBuildInto(t, []byte(body), &params, &meta)
	}
}

// TestParseIndexed_Refused: a body refused after params was indexed
// leaves nothing a later Build would mistake for its own work.
func TestParseIndexed_Refused(t *testing.T) {
	var m Message
	var params, meta Index
	body := []byte(`{"params":{"name":"x","_meta":{"k":1}},"jsonrpc":"2.0","id":1,"method":"m","method":"n"}`)
	if err := ParseIndexed(body, DefaultMaxDepth, &m, &params, "_meta", &meta); err == nil {
		t.Fatal("a duplicate member was accepted")
	}
	params, meta = Index{}, Index{}
	truncated := []byte(`{"jsonrpc":"2.0","id":1,"method":"m","params":{"name":"x","a":`)
	if err := ParseIndexed(truncated, DefaultMaxDepth, &m, &params, "_meta", &meta); err == nil {
		t.Fatal("a truncated body was accepted")
	}
	if params.Done() {
		t.Error("an object the scan never closed is indexed")
	}
	// Build starts over from what the failed scan left.
	params.Build([]byte(`{"b":2}`))
	if v, ok := params.Lookup("b"); !ok || string(v) != "2" {
		t.Errorf("b = %s, %v", v, ok)
	}
	if _, ok := params.Lookup("name"); ok {
		t.Error("a member of the failed scan survives Build")
	}
}

// TestParseIndexed_Allocations: indexing while scanning allocates nothing.
func TestParseIndexed_Allocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector empties the scanner pool at random; .ci/run counts without it")
	}
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","clientInfo":{"name":"c","version":"1"}}}}`)
	var m Message
	var params, meta Index
	if n := testing.AllocsPerRun(100, func() {
		if err := ParseIndexed(body, DefaultMaxDepth, &m, &params, "_meta", &meta); err != nil {
			t.Fatal(err)
		}
		params.Lookup("name")
		meta.Lookup("clientInfo")
	}); n != 0 {
		t.Errorf("%v allocations, want 0", n)
	}
}

// TestParse_TooLarge: a message longer than the scanner's 32-bit offsets
// reach is refused before it is scanned, not misread.
func TestParse_TooLarge(t *testing.T) {
	defer func(n int) { maxMessage = n }(maxMessage)
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":"xxxxxxxx"}}`)
	maxMessage = len(body)
	if _, err := Parse(body, DefaultMaxDepth); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
	maxMessage = len(body) - 1
	_, err := Parse(body, DefaultMaxDepth)
	if err == nil || err.Reason != "too_large" || err.Kind != Invalid {
		t.Fatalf("past the limit: %v", err)
	}
	if Validate(body, DefaultMaxDepth) == nil {
		t.Error("Validate read past the limit")
	}
}

// TestIndex_Rescan: an object whose members fit is read from its offsets;
// one with more members than the room, or a name with an escape, is
// walked again on every lookup, and answers the same.
func TestIndex_Rescan(t *testing.T) {
	for _, c := range []struct {
		what, obj string
		rescan    bool
	}{
		{"fits", `{"a":1,"b":2,"c":3,"d":4,"name":"echo"}`, false},
		{"too many", `{"a":1,"b":2,"c":3,"d":4,"e":5,"name":"echo"}`, true},
		{"escaped name", `{"n\u0061me":"echo"}`, true},
	} {
		var x Index
		x.Build([]byte(c.obj))
		if x.rescan != c.rescan {
			t.Errorf("%s: rescan %v, want %v", c.what, x.rescan, c.rescan)
		}
		if v, ok := x.Lookup("name"); !ok || string(v) != `"echo"` {
			t.Errorf("%s: name = %s, %v", c.what, v, ok)
		}
		if got, want, found := x.CaseVariant([]string{"NAME"}); !found || got != "name" || want != "NAME" {
			t.Errorf("%s: case variant %q %q %v", c.what, got, want, found)
		}
	}
}
