package jsonrpc_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
)

// TestCountValues: the count that bounds a retry before its digest (package
// mcp) is the one Decode bounds a call's arguments by.
func TestCountValues(t *testing.T) {
	for _, doc := range []string{
		`{}`, `[]`, `{"a":1}`, `{"a":[]}`, `{"a":{},"b":[ ],"c":"x"}`,
		`{"a":[1,2,3],"b":{"c":null,"d":[true,false]}}`,
		`{"s":"a,b{c[d\",\\","t":"\u002c"}`,
		`{ "a" : [ { } , [ ] , "," ] }`,
		`{"v":[` + strings.Repeat("0,", 99) + `0]}`,
	} {
		n := jsonrpc.CountValues([]byte(doc), 1<<30)
		if _, err := jsonrpc.Decode([]byte(doc), n); err != nil {
			t.Errorf("%s: counted %d, Decode refuses that bound: %v", doc, n, err)
		}
		if _, err := jsonrpc.Decode([]byte(doc), n-1); n > 1 && !errors.Is(err, jsonrpc.ErrTooManyValues) {
			t.Errorf("%s: counted %d, Decode takes %d: %v", doc, n, n-1, err)
		}
		// Stops once past the bound.
		if n > 2 {
			if got := jsonrpc.CountValues([]byte(doc), 1); got != 2 {
				t.Errorf("%s: with bound 1 counted %d, want 2 (stop past the bound)", doc, got)
			}
		}
	}
}
