package mcp_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
)

// TestWildcardTypes checks that a route wildcard may be a number, a
// boolean or a list of scalar types (an id or a name), each sent as
// written, and that other types are still refused at AddTool.
func TestWildcardTypes(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v/{n}/{b}/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"path": r.URL.EscapedPath()})
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "w", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "v", InputSchema: json.RawMessage(`{"type":"object","properties":{
		"n":{"type":"number"},"b":{"type":"boolean"},"id":{"type":["integer","string"]}},"required":["n","b","id"]}`)},
		"GET /v/{n}/{b}/{id}", mux)
	url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}))
	f := &fixture{url: url}
	for args, want := range map[string]string{
		`{"n":1.5,"b":true,"id":42}`:      "/v/1.5/true/42",
		`{"n":-2e3,"b":false,"id":"a b"}`: "/v/-2e3/false/a%20b",
	} {
		r := f.do(t, call{era: mcp.Version20260728, id: "1", method: "tools/call", params: `"name":"v","arguments":` + args,
			header: map[string]string{"Mcp-Name": "v"}})
		res := r.result(t)
		content, _ := res["content"].([]any)
		if len(content) != 1 || res["isError"] == true {
			t.Fatalf("%s: %s", args, r.raw)
		}
		var got map[string]string
		json.Unmarshal([]byte(content[0].(map[string]any)["text"].(string)), &got)
		if got["path"] != want {
			t.Errorf("%s: the route saw %s, want %s", args, got["path"], want)
		}
	}
	for _, typ := range []string{`"object"`, `["string","null"]`, `"array"`} {
		mustPanic(t, typ, "must be a required string, integer, number or boolean property", func() {
			mcp.NewServer(mcp.Implementation{Name: "x", Version: "1"}).AddTool(mcp.Tool{Name: "x",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":` + typ + `}},"required":["n"]}`)}, "GET /x/{n}", mux)
		})
	}
}
