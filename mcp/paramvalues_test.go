package mcp_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

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

// TestEra2026_ParamHeaderTabs: a tab is one of the three characters a plain
// header value may hold besides visible ASCII (RFC 9110 §5.5, which the
// 2026-07-28 transport cites), so one inside a plain Mcp-Param-* value is
// taken and compared exactly: a tab is not a space. One at either end is
// white space HTTP strips, so a value that starts or ends with one must
// travel in the base64 sentinel; sent plain it no longer matches the
// body. Every refusal is 400 -32020 naming the header and why.
func TestEra2026_ParamHeaderTabs(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tests := []struct {
		name   string
		body   string // the region argument, as JSON
		header string
		reason string // "" when the call runs
	}{
		{"tab inside, the same in the body", `"us\twest1"`, "us\twest1", ""},
		{"tab inside, a space in the body", `"us west1"`, "us\twest1", "mismatch"},
		{"space inside, a tab in the body", `"us\twest1"`, "us west1", "mismatch"},
		{"tab inside, escaped in the body as \\u0009", `"us\u0009west1"`, "us\twest1", ""},
		{"leading tab sent plain", `"\tus-west1"`, "\tus-west1", "mismatch"},
		{"trailing tab sent plain", `"us-west1\t"`, "us-west1\t", "mismatch"},
		{"leading tab in the sentinel", `"\tus-west1"`, "=?base64?CXVzLXdlc3Qx?=", ""},
		{"only a tab, in the sentinel", `"\t"`, "=?base64?CQ==?=", ""},
		{"non-ASCII byte sent plain", `"caf\u00e9"`, "caf\xc3\xa9", "invalid_chars"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := call{era: mcp.Version20260728, id: "1", method: "tools/call",
				params: `"name":"regional","arguments":{"region":` + tt.body + `}`,
				header: map[string]string{"raw:Mcp-Param-Region": tt.header}}
			r := f.do(t, c)
			if tt.reason == "" {
				check(t, r, want{status: 200, id: "1", proto: "2026-07-28"})
				return
			}
			check(t, r, want{status: 400, code: -32020, id: "1", proto: "2026-07-28"})
			var data struct {
				Header string `json:"header"`
				Reason string `json:"reason"`
			}
			if err := json.Unmarshal(r.msg.Error.Data, &data); err != nil || data.Header != "Mcp-Param-Region" || data.Reason != tt.reason {
				t.Errorf("data = %s, want header Mcp-Param-Region, reason %s", r.msg.Error.Data, tt.reason)
			}
		})
	}
}

// TestEra2026_ParamHeaderControlCharacters: any other control character
// in a header value (here in Mcp-Param-Region, over a raw connection, since
// net/http's client will not send one) is refused with 400 before the
// endpoint reads the request; the spec asks a server to reject a value
// with invalid characters, and the endpoint never sees one to answer
// otherwise. The endpoint's own refusal of what does reach it (a byte
// past ASCII) is in TestEra2026_ParamHeaderTabs.
func TestEra2026_ParamHeaderControlCharacters(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	addr := strings.TrimPrefix(f.url, "http://")
	body := call{era: mcp.Version20260728, id: "1", method: "tools/call", params: `"name":"regional","arguments":{"region":"us\u0001west1"}`}.body()
	for _, value := range []string{"us\x01west1", "us\x7fwest1", "us\x00west1", "us\x1bwest1"} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(10 * time.Second)) // bounds a server that never answers; no assertion on time
		fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
			"MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: regional\r\nMcp-Param-Region: %s\r\n"+
			"Content-Length: %d\r\nConnection: close\r\n\r\n%s", addr, value, len(body), body)
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			c.Close()
			t.Fatalf("%q: %v", value, err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		c.Close()
		if res.StatusCode != http.StatusBadRequest || bytes.Contains(b, []byte(`"result"`)) {
			t.Errorf("%q: %d %s, want 400", value, res.StatusCode, b)
		}
	}
	if logs := f.log.String(); strings.Contains(logs, "panic") {
		t.Errorf("log: %s", logs)
	}
}
