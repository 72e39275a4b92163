package seam

import (
	"testing"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
)

// TestIndex: a request indexed after the fact (a message a local
// transport parsed) finds params and _meta the same whether their members
// fit the index or not (more members than room, a name with an escape;
// jsonrpc's TestIndex_Rescan checks which way each takes), and reports a
// case variant in both.
func TestIndex(t *testing.T) {
	for _, c := range []struct{ what, params string }{
		{"fits", `{"name":"echo","arguments":{"a":1},"_meta":{"k":"v","Lv":1}}`},
		{"white space", ` 	{ "name" : "echo" , "arguments" : {"a":1} , "_meta" : {"k":"v","Lv":1} }`},
		{"too many", `{"a":1,"b":2,"c":3,"d":4,"name":"echo","arguments":{"a":1},"_meta":{"k":"v","Lv":1}}`},
		{"escaped name", `{"n\u0061me":"echo","arguments":{"a":1},"_meta":{"k":"v","Lv":1}}`},
	} {
		r := &Request{Params: []byte(c.params)}
		if v, ok := r.Param("name"); !ok || string(v) != `"echo"` {
			t.Errorf("%s: name = %s, %v", c.what, v, ok)
		}
		if v, ok := r.Param("arguments"); !ok || string(v) != `{"a":1}` {
			t.Errorf("%s: arguments = %s, %v", c.what, v, ok)
		}
		if _, ok := r.Param("missing"); ok {
			t.Errorf("%s: found a missing member", c.what)
		}
		if v, ok := r.MetaParam("k"); !ok || string(v) != `"v"` {
			t.Errorf("%s: _meta.k = %s, %v", c.what, v, ok)
		}
		if got, want, found := r.CaseVariant(true, []string{"lv"}); !found || got != "Lv" || want != "lv" {
			t.Errorf("%s: _meta case variant = %q %q %v", c.what, got, want, found)
		}
		if _, _, found := r.CaseVariant(false, []string{"name", "arguments"}); found {
			t.Errorf("%s: a case variant among exact names", c.what)
		}
		if got, _, found := r.CaseVariant(false, []string{"Name"}); !found || got != "name" {
			t.Errorf("%s: params case variant = %q %v", c.what, got, found)
		}
	}
	if _, ok := (&Request{}).Param("name"); ok {
		t.Error("no params, yet a member")
	}
}

// TestIndex_Allocations: lookups in params and _meta allocate nothing.
func TestIndex_Allocations(t *testing.T) {
	params := []byte(`{"name":"echo","arguments":{"a":1},"_meta":{"k":"v"}}`)
	if n := testing.AllocsPerRun(100, func() {
		r := Request{Params: params}
		r.Param("name")
		r.MetaParam("k")
		r.CaseVariant(true, []string{"K"})
	}); n != 0 {
		t.Errorf("%v allocations, want 0", n)
	}
}

// TestRequest_Parse: a request parsed by Parse has its params and _meta
// indexed by the scan itself, and answers as one indexed afterwards.
func TestRequest_Parse(t *testing.T) {
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"_meta":{"k":"no"}},"_meta":{"k":"v","Lv":1}}}`)
	var r Request
	var m jsonrpc.Message
	if err := r.Parse(body, jsonrpc.DefaultMaxDepth, &m); err != nil {
		t.Fatal(err)
	}
	if string(r.Params) != string(m.Params) {
		t.Errorf("Params = %s, want the message's", r.Params)
	}
	if !r.params.Done() || !r.meta.Done() {
		t.Errorf("params indexed %v, _meta %v: the scan should have done both", r.params.Done(), r.meta.Done())
	}
	if v, ok := r.MetaParam("k"); !ok || string(v) != `"v"` {
		t.Errorf(`_meta.k = %s, %v; want "v"`, v, ok)
	}
	if v, ok := r.Param("name"); !ok || string(v) != `"echo"` {
		t.Errorf("name = %s, %v", v, ok)
	}
	if got, want, found := r.CaseVariant(true, []string{"lv"}); !found || got != "Lv" || want != "lv" {
		t.Errorf("_meta case variant = %q %q %v", got, want, found)
	}
}

// TestRequest_ParseRefused: a body refused after its params were scanned
// leaves nothing of them to look up.
func TestRequest_ParseRefused(t *testing.T) {
	var r Request
	var m jsonrpc.Message
	body := []byte(`{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"evil","_meta":{"k":"v"}}}`)
	if err := r.Parse(body, jsonrpc.DefaultMaxDepth, &m); err == nil {
		t.Fatal("jsonrpc 1.0 was accepted")
	}
	if v, ok := r.Param("name"); ok {
		t.Errorf("name = %s from a refused body", v)
	}
	if v, ok := r.MetaParam("k"); ok {
		t.Errorf("_meta.k = %s from a refused body", v)
	}
}
