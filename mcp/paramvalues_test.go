package mcp_test

import (
	"testing"

	"github.com/mcpdual/mcpdual/mcp"
)

// TestEra2026_ParamHeaderValues: the values an Mcp-Param-* header may
// carry, over HTTP, in 2026-07-28 (the only revision with them): what
// needs the base64 sentinel (non-ASCII, leading or trailing white space,
// a value that looks like the sentinel) is refused plain; numbers
// compare by value within ±(2^53-1); booleans only as lowercase
// literals; white space around a plain value is dropped.
func TestEra2026_ParamHeaderValues(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	params := func(args string) string { return `"name":"regional","arguments":{` + args + `}` }
	tests := []struct {
		name   string
		args   string
		header map[string]string
		code   int
	}{
		{"padded value in the sentinel", `"region":" padded "`, map[string]string{"Mcp-Param-Region": "=?base64?IHBhZGRlZCA=?="}, 0},
		{"padded value sent plain", `"region":" padded "`, map[string]string{"raw:Mcp-Param-Region": " padded "}, -32020},
		{"spaces around a plain value", `"region":"us-west1"`, map[string]string{"raw:Mcp-Param-Region": " \tus-west1 "}, 0},
		{"empty value, empty header", `"region":""`, map[string]string{"raw:Mcp-Param-Region": ""}, 0},
		{"empty value, no header", `"region":""`, map[string]string{}, -32020},
		{"empty value in the sentinel", `"region":""`, map[string]string{"Mcp-Param-Region": "=?base64??="}, 0},
		{"non-ASCII in the sentinel", `"region":"Hello, 世界"`, map[string]string{"Mcp-Param-Region": "=?base64?SGVsbG8sIOS4lueVjA==?="}, 0},
		{"non-ASCII sent plain", `"region":"Hello, 世界"`, map[string]string{"Mcp-Param-Region": "Hello, 世界"}, -32020},
		{"control character in the sentinel", `"region":"a\u0001b"`, map[string]string{"Mcp-Param-Region": "=?base64?YQFi?="}, 0},
		{"escaped body, plain header", `"region":"\u0075s-west1"`, map[string]string{"Mcp-Param-Region": "us-west1"}, 0},
		{"sentinel-looking value encoded", `"region":"=?base64?literal?="`, map[string]string{"Mcp-Param-Region": "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="}, 0},
		{"sentinel-looking value sent plain", `"region":"=?base64?literal?="`, map[string]string{"Mcp-Param-Region": "=?base64?literal?="}, -32020},
		{"prefix and suffix overlapping", `"region":"=?base64?="`, map[string]string{"Mcp-Param-Region": "=?base64?="}, -32020},
		{"overlapping sentinel-looking value encoded", `"region":"=?base64?="`, map[string]string{"Mcp-Param-Region": "=?base64?PT9iYXNlNjQ/PQ==?="}, 0},
		{"space inside the sentinel", `"region":"us-west1"`, map[string]string{"Mcp-Param-Region": "=?base64?dXMt d2VzdDE=?="}, -32020},
		{"URL-safe alphabet", `"region":"\u00ff\u00ff"`, map[string]string{"Mcp-Param-Region": "=?base64?w7_Dvw==?="}, -32020},
		{"header sent twice", `"region":"us-west1"`, map[string]string{"Mcp-Param-Region": "us-west1", "raw:mcp-param-region": "us-west1"}, -32020},
		{"integer in the sentinel", `"count":42`, map[string]string{"Mcp-Param-Count": "=?base64?NDI=?="}, 0},
		{"integer written 42.0 in the body", `"count":42.0`, map[string]string{"Mcp-Param-Count": "42"}, 0},
		{"negative zero", `"count":-0`, map[string]string{"Mcp-Param-Count": "0"}, 0},
		{"largest safe integer", `"count":9007199254740991`, map[string]string{"Mcp-Param-Count": "9007199254740991"}, 0},
		{"past the safe integers", `"count":9007199254740993`, map[string]string{"Mcp-Param-Count": "9007199254740993"}, -32020},
		{"huge exponent", `"count":1e400`, map[string]string{"Mcp-Param-Count": "1e400"}, -32020},
		{"fraction", `"count":42.5`, map[string]string{"Mcp-Param-Count": "42.5"}, -32020},
		{"boolean in the sentinel", `"opts":{"dry":false}`, map[string]string{"Mcp-Param-Dry": "=?base64?ZmFsc2U=?="}, 0},
		{"boolean capitalized", `"opts":{"dry":true}`, map[string]string{"Mcp-Param-Dry": "True"}, -32020},
		{"boolean as a number", `"opts":{"dry":true}`, map[string]string{"Mcp-Param-Dry": "1"}, -32020},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := call{era: mcp.Version20260728, id: "1", method: "tools/call", params: params(tt.args), header: tt.header}
			r := f.do(t, c)
			status := 200
			if tt.code != 0 {
				status = 400
			}
			check(t, r, want{status: status, code: tt.code, id: "1", proto: "2026-07-28"})
		})
	}
}

// TestEra2025_ParamHeadersIgnored: before 2026-07-28 Mcp-Param-* headers
// mean nothing; one that contradicts the body, or is not even valid, is
// not looked at.
func TestEra2025_ParamHeadersIgnored(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, era := range eras {
		if era == mcp.Version20260728 {
			continue
		}
		t.Run(string(era), func(t *testing.T) {
			for _, v := range []string{"eu-west1", "=?base64?!!!?=", "üs"} {
				c := call{era: era, id: "1", method: "tools/call", params: `"name":"regional","arguments":{"region":"us-west1"}`,
					header: map[string]string{"Mcp-Param-Region": v}}
				r := f.do(t, c)
				check(t, r, want{status: 200, id: "1", proto: string(era)})
				if res := r.result(t); res["isError"] == true {
					t.Errorf("header %q: %v", v, res)
				}
			}
		})
	}
}
