package mcptest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mrtr"
)

// garbled reports a detail the kit should never print: a stray "<nil>",
// or a check it could not finish.
func garbled(t *testing.T, results []Result) {
	t.Helper()
	for _, r := range results {
		for _, d := range r.Details {
			if strings.Contains(d, "<nil>") || strings.Contains(d, "could not finish") {
				t.Errorf("%s: %s", r.Check, d)
			}
		}
	}
}

var idMember = regexp.MustCompile(`"id":(-?[0-9]+|"[^"]*")`)

// TestCheck_WireShapes: a server whose answers break the wire's rules or
// the revision's shapes fails the row of that rule at the default level,
// with a detail that names what and where.
func TestCheck_WireShapes(t *testing.T) {
	examples := WithToolExamples(map[string]any{"hello": map[string]any{}})
	good := goodServer()
	for _, r := range Check(good, append(ours, examples)...) {
		if strings.HasPrefix(r.Check, "wire/") || strings.HasPrefix(r.Check, "schema/") || r.Check == rowResultType {
			if r.Status != Passed {
				t.Fatalf("a correct server: %s %s %v", r.Check, r.Status, r.Details)
			}
		}
	}
	cases := []struct {
		name, check string
		h           http.Handler
		says        string
	}{
		{"boolean property schema", rowTool, replace(good, `"properties":{"where"`, `"properties":{"x":false,"where"`),
			`inputSchema.properties.x is a boolean (false), want a schema object`},
		{"boolean allOf member", rowTool, replace(good, `"x-mcp-header":"Region"`, `"x-mcp-header":"Region","allOf":[true]`),
			`properties.where.properties.region.allOf[0] is a boolean (true)`},
		{"boolean items", rowTool, replace(good, `"x-mcp-header":"Region"`, `"x-mcp-header":"Region","items":false`),
			`region.items is a boolean (false)`},
		{"boolean $defs entry", rowTool, replace(good, `"properties":{"where"`, `"$defs":{"d":true},"properties":{"where"`),
			`inputSchema.$defs.d is a boolean (true)`},
		{"inputSchema without type object", rowTool, replace(good, `"inputSchema":{"type":"object"}`, `"inputSchema":{}`),
			`inputSchema.type is null, want "object"`},
		{"content block without type", rowContent, replace(good, `{"type":"text","text":`, `{"text":`),
			`result.content[0] has no type`},
		{"unknown content type", rowContent, replace(good, `{"type":"text","text":`, `{"type":"txt","text":`),
			`result.content[0].type is "txt", not a 2026-07-28 content block`},
		{"image without mimeType", rowContent, replace(good, `{"type":"text","text":"\"hi\""}`, `{"type":"image","data":"aGk="}`),
			`result.content[0] has no mimeType (schema.ts 2025-06-18 ImageContent.mimeType: string)`},
		{"content not an array", rowResult, replace(good, `"content":[{"type":"text","text":"\"hi\""}]`, `"content":"hi"`),
			`result.content is a string ("hi"), want an array (schema.ts 2026-07-28 CallToolResult.content: ContentBlock[])`},
		{"no resultType on 2026-07-28", rowResultType, replace(good, `"resultType":"complete",`, ``),
			`2026-07-28 tools/list: result: no resultType`},
		{"resultType not a string", rowResultType, replace(good, `"resultType":"complete"`, `"resultType":1`),
			`result.resultType is a number (1), want a string`},
		{"serverInfo not an Implementation", rowResult, replace(good, `"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}`, `"io.modelcontextprotocol/serverInfo":{"name":"t"}`),
			`["io.modelcontextprotocol/serverInfo"] has no version (schema.ts 2026-07-28 Implementation.version: string)`},
		{"_meta not an object", rowResult, replace(good, `"result":{}`, `"result":{"_meta":[]}`),
			`2025-06-18 ping: result._meta is an array ([]), want an object`},
		{"_meta key grammar", rowResult, replace(good, `"io.modelcontextprotocol/serverInfo"`, `"io.modelcontextprotocol/server info"`),
			`key "io.modelcontextprotocol/server info" breaks the key grammar`},
		{"wrong jsonrpc", rowJSONRPC, replace(good, `"jsonrpc":"2.0"`, `"jsonrpc":"1.0"`),
			`a message with jsonrpc "1.0", want "2.0"`},
		{"no jsonrpc", rowJSONRPC, replace(good, `"jsonrpc":"2.0",`, ``),
			`a message with jsonrpc absent, want "2.0"`},
		{"wrong id", rowID, rewrite(good, func(_ http.Header, b []byte) []byte { return idMember.ReplaceAll(b, []byte(`"id":424242`)) }),
			`2026-07-28 server/discover: id 1 answered with id 424242`},
		{"no id", rowID, rewrite(good, func(_ http.Header, b []byte) []byte { return idMember.ReplaceAll(b, []byte(`"id":null`)) }),
			`2026-07-28 server/discover (id 1): answered HTTP 200 without its id`},
		{"result and error", rowJSONRPC, replace(good, `"result":{}`, `"result":{},"error":{"code":1,"message":"x"}`),
			`a response with both result and error`},
		{"error without message", rowJSONRPC, replace(good, `"message":`, `"msg":`),
			`want an object with an integer code and a string message`},
		{"truncated tools/list", rowJSONRPC, rewrite(good, func(_ http.Header, b []byte) []byte {
			if bytes.Contains(b, []byte(`"tools":[`)) {
				return b[:len(b)/2]
			}
			return b
		}), `tools/list: HTTP 200 with a body that is not a JSON-RPC message`},
		{"oversized tools/list", rowJSONRPC, rewrite(good, func(_ http.Header, b []byte) []byte {
			if bytes.Contains(b, []byte(`"tools":[`)) {
				return bytes.Replace(b, []byte(`"name":"regional"`), []byte(`"name":"regional","description":"`+strings.Repeat("x", maxResponse)+`"`), 1)
			}
			return b
		}), `tools/list: mcptest: the response exceeds 16 MiB`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			results := Check(tc.h, examples)
			garbled(t, results)
			var r Result
			for _, x := range results {
				if x.Check == tc.check {
					r = x
				}
			}
			if r.Status != Failed || r.Level != Must {
				t.Fatalf("%s: %s at level %s, want a MUST failure: %v", tc.check, r.Status, r.Level, r.Details)
			}
			if !strings.Contains(strings.Join(r.Details, "\n"), tc.says) {
				t.Errorf("%s does not say %q:\n%s", tc.check, tc.says, strings.Join(r.Details, "\n"))
			}
		})
	}
}

// TestCheck_BrokenListsNoCrash: a tools/list answer cut short or over the
// bound fails the list checks with a message, in every check that reads
// it (the unknown-tool check read a nil response and crashed the run).
func TestCheck_BrokenListsNoCrash(t *testing.T) {
	good := goodServer()
	for name, h := range map[string]http.Handler{
		"truncated": rewrite(good, func(_ http.Header, b []byte) []byte {
			if bytes.Contains(b, []byte(`"tools":[`)) {
				return b[:len(b)-7]
			}
			return b
		}),
		"oversized": rewrite(good, func(_ http.Header, b []byte) []byte {
			if bytes.Contains(b, []byte(`"tools":[`)) {
				return append(b, bytes.Repeat([]byte(" "), maxResponse)...)
			}
			return b
		}),
	} {
		t.Run(name, func(t *testing.T) {
			got := map[string]Result{}
			results := Check(h)
			garbled(t, results)
			for _, r := range results {
				got[r.Check] = r
			}
			for _, check := range []string{"tools/list", "tools/unknown-tool", rowJSONRPC} {
				if r := got[check]; r.Status != Failed || len(r.Details) == 0 {
					t.Errorf("%s: %s %v", check, r.Status, r.Details)
				}
			}
			if d := strings.Join(got["tools/unknown-tool"].Details, " "); !strings.Contains(d, "read to learn the tools' Mcp-Param-* headers") {
				t.Errorf("tools/unknown-tool does not say why: %s", d)
			}
		})
	}
}

// TestCheckURL_Redirect: a redirect is a failure, not followed, and the
// body and headers never reach the other host, with or without
// FollowRedirects; a redirect to the same origin is followed when asked.
func TestCheckURL_Redirect(t *testing.T) {
	var reached atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		goodServer().ServeHTTP(w, r)
	}))
	defer other.Close()
	away := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	defer away.Close()
	secret := WithClientOptions(WithHeader("X-Secret", "s3cret"))
	for _, follow := range []bool{false, true} {
		opts := []RunOption{secret}
		if follow {
			opts = append(opts, WithClientOptions(FollowRedirects()))
		}
		results := CheckURL(away.URL, opts...)
		garbled(t, results)
		if len(results) != 1 || results[0].Status != Failed || !strings.Contains(results[0].Details[0], "it redirects: ") ||
			!strings.Contains(results[0].Details[0], "HTTP 307 redirect to "+other.URL+"/mcp, not followed") {
			t.Errorf("follow %v: %+v", follow, results)
		}
		if n := reached.Load(); n != 0 {
			t.Fatalf("follow %v: the other host got %d requests", follow, n)
		}
	}

	// One method redirected: the endpoint answers, wire/redirect fails.
	ours := goodServer()
	partial := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Method") == "tools/list" {
			http.Redirect(w, r, other.URL+"/mcp", http.StatusPermanentRedirect)
			return
		}
		ours.ServeHTTP(w, r)
	}))
	defer partial.Close()
	for _, r := range CheckURL(partial.URL, secret, WithClientOptions(FollowRedirects())) {
		if r.Check == rowRedirect && (r.Status != Failed || !strings.Contains(strings.Join(r.Details, " "), "2026-07-28 tools/list: HTTP 308 redirect to "+other.URL)) {
			t.Errorf("%s: %s %v", r.Check, r.Status, r.Details)
		}
	}
	if n := reached.Load(); n != 0 {
		t.Fatalf("the other host got %d requests", n)
	}

	// The same origin, followed when asked.
	mux := http.NewServeMux()
	mux.Handle("/mcp", ours)
	mux.Handle("/old", http.RedirectHandler("/mcp", http.StatusPermanentRedirect))
	same := httptest.NewServer(mux)
	defer same.Close()
	if r := CheckURL(same.URL+"/old", ours2...); r[0].Check == "endpoint/answers" {
		t.Errorf("not followed: %+v", r)
	}
	for _, r := range CheckURL(same.URL+"/old", ours2...) {
		if r.Status == Failed {
			t.Errorf("same origin, followed: %s %v", r.Check, r.Details)
		}
	}
	if r := CheckURL(same.URL + "/old"); r[0].Check != "endpoint/answers" || !strings.Contains(r[0].Details[0], "FollowRedirects") {
		t.Errorf("same origin, not asked to follow: %+v", r)
	}
}

var ours2 = append([]RunOption{WithClientOptions(FollowRedirects())}, ours...)

// TestCheck_SealedSessions: mcpdual's optional sealed sessions pass
// Strict (the session is issued and a client may leave it out); a
// session the server requires still fails the profile.
func TestCheck_SealedSessions(t *testing.T) {
	ring, err := mrtr.NewRing(mrtr.Key{ID: "k1", Secret: bytes.Repeat([]byte{7}, 32)})
	if err != nil {
		t.Fatal(err)
	}
	s := mrtr.NewSealer(ring)
	srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"})
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New(era2026.WithSealer(s)), era2025.New(era2025.WithSessions(s, 0))})
	results := Check(h, ours...)
	for _, r := range results {
		if r.Status == Failed {
			t.Errorf("sealed sessions: %s %v", r.Check, r.Details)
		}
	}
	if r := statuses(sessionServer(), ours...)["profile/no-session"]; r.Status != Failed || !strings.Contains(r.Details[0], "a client may leave it out") {
		t.Errorf("a required session: %+v", r)
	}
}

// TestCheck_SkipToolExamples: a read-only tool left out of the example
// calls is not called and does not fail for want of an example.
func TestCheck_SkipToolExamples(t *testing.T) {
	var called atomic.Int32
	srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "hello", InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: mcp.Annotations{ReadOnly: true}},
		"GET /hello", jsonRoute(200, `"hi"`))
	srv.AddTool(mcp.Tool{Name: "job_status", InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`), Annotations: mcp.Annotations{ReadOnly: true}},
		"GET /jobs/{id}", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { called.Add(1); http.NotFound(w, r) }))
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()})
	examples := WithToolExamples(map[string]any{"hello": map[string]any{}})
	if r := statuses(h, examples)["tools/read-only-examples"]; r.Status != Failed || !strings.Contains(r.Details[0], `"job_status" has no example`) {
		t.Errorf("without the opt-out: %+v", r)
	}
	if r := statuses(h, examples, SkipToolExamples("job_status"))["tools/read-only-examples"]; r.Status != Passed {
		t.Errorf("with the opt-out: %+v", r)
	}
	if n := called.Load(); n != 0 {
		t.Errorf("job_status called %d times", n)
	}
}

// TestCheck_NoNilInMessages: an example call answered with a JSON-RPC
// error says what came back, without a "<nil>" for the error there was
// none of.
func TestCheck_NoNilInMessages(t *testing.T) {
	h := rewrite(goodServer(), func(_ http.Header, b []byte) []byte {
		if !bytes.Contains(b, []byte(`\"hi\"`)) {
			return b
		}
		id := idMember.Find(b)
		return []byte(`{"jsonrpc":"2.0",` + string(id) + `,"error":{"code":-32603,"message":"boom"}}`)
	})
	results := Check(h, WithToolExamples(map[string]any{"hello": map[string]any{}}))
	garbled(t, results)
	for _, r := range results {
		if r.Check == "tools/read-only-examples" && (r.Status != Failed || !strings.Contains(r.Details[0], "boom")) {
			t.Errorf("%+v", r)
		}
	}
}

// TestCheck_NumbersAsValues: JSON numbers are read as the values they
// are. A server whose encoder writes every number with a point
// (-32602.0, 71.0) or escapes a string id's characters answers as well as
// one that does not: every check reads it as the plain server.
func TestCheck_NumbersAsValues(t *testing.T) {
	code := regexp.MustCompile(`"code":(-?[0-9]+)`)
	pointed := rewrite(goodServer(), func(_ http.Header, b []byte) []byte { return code.ReplaceAll(b, []byte(`"code":$1.0`)) })
	want := statuses(goodServer())
	got := statuses(pointed)
	for name, w := range want {
		if g, ok := got[name]; !ok || g.Status != w.Status {
			t.Errorf("%s: %s, want %s as for the plain server: %v", name, g.Status, w.Status, g.Details)
		}
	}
	spelled := rewrite(batching(noBatchServer()), func(_ http.Header, b []byte) []byte {
		b = bytes.ReplaceAll(b, []byte(`"id":71`), []byte(`"id":71.0`))
		return bytes.ReplaceAll(b, []byte(`"id":"72"`), []byte(`"id":"\u0037\u0032"`))
	})
	if r := statuses(spelled)["2025-03-26/batch"]; r.Status != Passed {
		t.Errorf("a batch answered with ids 71.0 and \"\\u0037\\u0032\": %s %v", r.Status, r.Details)
	}
}

// TestError_Code: a code is an integer of 32 bits, in whatever notation;
// a fraction or a wider number is refused.
func TestError_Code(t *testing.T) {
	for raw, want := range map[string]mcp.Code{`-32602`: -32602, `-32602.0`: -32602, `-3.2602e4`: -32602, `7`: 7} {
		var e Error
		if err := json.Unmarshal([]byte(`{"code":`+raw+`,"message":"m","data":{"a":1}}`), &e); err != nil || e.Code != want || e.Message != "m" || string(e.Data) != `{"a":1}` {
			t.Errorf("%s: %+v %v", raw, e, err)
		}
	}
	for _, raw := range []string{`-32602.5`, `4294967296`, `"x"`, `null`, `1e400`} {
		var e Error
		if err := json.Unmarshal([]byte(`{"code":`+raw+`,"message":"m"}`), &e); err == nil {
			t.Errorf("%s accepted: %+v", raw, e)
		}
	}
}

// TestCheckURL_TLS: a server behind a certificate the system does not
// trust is checked through the transport that trusts it (WithTransport),
// as it would be in process; without it the battery says why it got no
// answer.
func TestCheckURL_TLS(t *testing.T) {
	ts := httptest.NewTLSServer(goodServer())
	defer ts.Close()
	results := CheckURL(ts.URL)
	if len(results) != 1 || results[0].Check != "endpoint/answers" || !strings.Contains(results[0].Details[0], "certificate") {
		t.Errorf("without the transport: %+v", results)
	}
	want := statuses(goodServer())
	got := map[string]Result{}
	for _, r := range CheckURL(ts.URL, WithClientOptions(WithTransport(ts.Client().Transport))) {
		got[r.Check] = r
	}
	if len(got) != len(want) {
		t.Errorf("%d results over TLS, %d in process", len(got), len(want))
	}
	for name, w := range want {
		if g, ok := got[name]; !ok || g.Status != w.Status {
			t.Errorf("%s over TLS: %s, want %s as in process: %v", name, g.Status, w.Status, g.Details)
		}
	}
}
