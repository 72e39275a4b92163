package mcptest

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/content"
)

// asEventStream answers every JSON body h writes to a POST as one event
// of an event stream, with the Content-Type ctype, the event's data
// written by frame.
func asEventStream(h http.Handler, ctype string, frame func(data []byte) string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		body := bytes.TrimSpace(rec.Body.Bytes())
		if r.Method == http.MethodPost && mediaType(rec.Header()) == "application/json" && len(body) > 0 && body[0] == '{' {
			w.Header().Set("Content-Type", ctype)
			w.Header().Del("Content-Length")
			w.WriteHeader(rec.Code)
			w.Write([]byte(frame(body)))
			return
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	})
}

// mustFailures returns "check: detail" for each MUST failure of a run.
func mustFailures(results []Result) []string {
	var out []string
	for _, r := range results {
		if r.Status == Failed && r.Level == Must {
			out = append(out, r.Check+": "+strings.Join(r.Details, " | "))
		}
	}
	return out
}

// TestCheck_EventStreamMediaTypeAnyCase: media types are case-insensitive
// (RFC 9110 §8.3.1), so answers sent as Text/Event-Stream are an event
// stream. The kit read them as JSON and failed the whole run with
// "answers neither server/discover nor initialize".
func TestCheck_EventStreamMediaTypeAnyCase(t *testing.T) {
	t.Parallel()
	for _, ctype := range []string{"text/event-stream", "Text/Event-Stream", "TEXT/EVENT-STREAM; charset=utf-8"} {
		srv := httptest.NewServer(asEventStream(goodServer(), ctype, func(data []byte) string { return "event: message\ndata: " + string(data) + "\n\n" }))
		results := CheckURL(srv.URL)
		srv.Close()
		if f := mustFailures(results); len(f) != 0 {
			t.Errorf("answers as %q: MUST failures %q", ctype, f)
		}
		got := map[string]Status{}
		for _, r := range results {
			got[r.Check] = r.Status
		}
		for _, name := range []string{"2026-07-28/discover", "2025-06-18/initialize", "2026-07-28/header-mismatch", "wire/jsonrpc"} {
			if got[name] != Passed {
				t.Errorf("answers as %q: %s %s, want passed", ctype, name, got[name])
			}
		}
	}
}

// TestCheck_EventStreamEndsInsideEvent: an event ends with a blank line,
// and a client discards the event a stream ends inside. A server whose
// stream stops right after the response's data line (or its line end)
// is never heard by such a client: wire/jsonrpc fails, naming the
// revision, the method and the data. Ended by a blank line, in any of
// the SSE line ends, it passes.
func TestCheck_EventStreamEndsInsideEvent(t *testing.T) {
	t.Parallel()
	for name, frame := range map[string]func([]byte) string{
		"no line end":            func(d []byte) string { return "data: " + string(d) },
		"no blank line":          func(d []byte) string { return "data: " + string(d) + "\n" },
		"no blank line (CRLF)":   func(d []byte) string { return "data: " + string(d) + "\r\n" },
		"comment, no blank line": func(d []byte) string { return "data: " + string(d) + "\n: bye" },
	} {
		srv := httptest.NewServer(asEventStream(goodServer(), "text/event-stream", frame))
		results := CheckURL(srv.URL)
		srv.Close()
		var row Result
		for _, r := range results {
			if r.Check == rowJSONRPC {
				row = r
			}
		}
		details := strings.Join(row.Details, "\n")
		if row.Status != Failed || row.Level != Must {
			t.Errorf("%s: %s %s at level %s, want a MUST failure: %q", name, rowJSONRPC, row.Status, row.Level, row.Details)
			continue
		}
		for _, want := range []string{
			`2026-07-28 server/discover: HTTP 200, the event stream ends inside its last event (no blank line after its data), which a client discards unread: {"jsonrpc":"2.0","id":1,`,
			`2025-06-18 initialize: HTTP 200, the event stream ends inside its last event`,
		} {
			if !strings.Contains(details, want) {
				t.Errorf("%s: %s does not say %q: %s", name, rowJSONRPC, want, details)
			}
		}
		if f := mustFailures(results); len(f) != 1 {
			t.Errorf("%s: MUST failures %q, want only %s", name, f, rowJSONRPC)
		}
	}
	for name, frame := range map[string]func([]byte) string{
		"LF":   func(d []byte) string { return "data: " + string(d) + "\n\n" },
		"CRLF": func(d []byte) string { return ": hi\r\nid: 1\r\ndata: " + string(d) + "\r\n\r\n" },
		"CR":   func(d []byte) string { return "data: " + string(d) + "\r\r" },
	} {
		srv := httptest.NewServer(asEventStream(goodServer(), "text/event-stream", frame))
		results := CheckURL(srv.URL)
		srv.Close()
		if f := mustFailures(results); len(f) != 0 {
			t.Errorf("events ended with %s: MUST failures %q", name, f)
		}
	}
}

// onlyModern is a server of 2026-07-28 alone.
func onlyModern() http.Handler {
	srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "hello", InputSchema: json.RawMessage(`{"type":"object"}`)}, "GET /hello", jsonRoute(200, `"hi"`))
	return mcp.NewHandler(srv, []mcp.Era{era2026.New()})
}

// versionImplied serves a request without MCP-Protocol-Version as if it
// named the version of its _meta: the header check is not enforced.
func versionImplied(h http.Handler) http.Handler {
	return onRequest(h, func(r *http.Request, b []byte) {
		var m struct {
			Params struct {
				Meta struct {
					Version string `json:"io.modelcontextprotocol/protocolVersion"`
				} `json:"_meta"`
			} `json:"params"`
		}
		if r.Header.Get("MCP-Protocol-Version") == "" && json.Unmarshal(b, &m) == nil && m.Params.Meta.Version != "" {
			r.Header.Set("MCP-Protocol-Version", m.Params.Meta.Version)
		}
	})
}

// TestCheck_MissingVersionHeader: a server that does not serve 2025-03-26
// (whose clients send no MCP-Protocol-Version) MUST refuse a request
// without the header, 400 with -32020 (2026-07-28 Streamable HTTP,
// Protocol version header). The kit sent no such request, so a server
// serving it passed.
func TestCheck_MissingVersionHeader(t *testing.T) {
	t.Parallel()
	no0326 := func() http.Handler {
		srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"})
		srv.AddTool(mcp.Tool{Name: "hello", InputSchema: json.RawMessage(`{"type":"object"}`)}, "GET /hello", jsonRoute(200, `"hi"`))
		return mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New(era2025.WithVersions(mcp.Version20250618))})
	}
	for name, h := range map[string]http.Handler{"2026-07-28 only": onlyModern(), "2026-07-28 and 2025-06-18": no0326()} {
		srv := httptest.NewServer(h)
		r := statusesURL(srv.URL)["2026-07-28/header-mismatch"]
		if r.Status != Passed {
			t.Errorf("%s, refusing a request without the header: %s %v", name, r.Status, r.Details)
		}
		srv.Close()

		lax := httptest.NewServer(versionImplied(h))
		r = statusesURL(lax.URL)["2026-07-28/header-mismatch"]
		lax.Close()
		want := `MCP-Protocol-Version missing (the server does not serve 2025-03-26, which may omit it): got HTTP 200 "{\"jsonrpc\":\"2.0\",\"id\":20,\"result\":`
		if r.Status != Failed || r.Level != Must || !strings.Contains(strings.Join(r.Details, "\n"), want) {
			t.Errorf("%s, serving a request without the header: %s at level %s %q; want a MUST failure saying %s", name, r.Status, r.Level, r.Details, want)
		}
	}
	// A server that serves 2025-03-26 may take such a request for one of
	// that revision: the kit does not ask it to refuse it.
	srv := httptest.NewServer(versionImplied(goodServer()))
	defer srv.Close()
	if r := statusesURL(srv.URL)["2026-07-28/header-mismatch"]; r.Status != Passed {
		t.Errorf("serving 2025-03-26: %s %v", r.Status, r.Details)
	}
}

// readOnlyRegional serves a read-only tool whose argument where.region is
// mirrored into Mcp-Param-Region.
func readOnlyRegional() http.Handler {
	srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "regional", InputSchema: json.RawMessage(`{"type":"object","properties":{"where":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}}}`),
		Annotations: mcp.Annotations{ReadOnly: true}}, "GET /r", jsonRoute(200, `"ok"`))
	return mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()})
}

// TestCheck_ParamHeaderBase64: a server MUST decode a Base64-sentinel
// Mcp-Param-* value before comparing it with the body (2026-07-28
// Streamable HTTP, Server behavior for custom headers), and refuse one
// that is not Base64 with 400 and -32020. The kit sent neither, so a
// server comparing the value as sent, or letting an undecodable one
// through, passed.
func TestCheck_ParamHeaderBase64(t *testing.T) {
	t.Parallel()
	good := httptest.NewServer(readOnlyRegional())
	defer good.Close()
	if r := statusesURL(good.URL)["2026-07-28/param-headers"]; r.Status != Passed {
		t.Errorf("a server decoding Mcp-Param-Region: %s %v", r.Status, r.Details)
	}
	for name, tc := range map[string]struct {
		h    http.Handler
		says string
	}{
		// The Base64 form compared as sent, so never equal to the body.
		"undecoded": {onRequest(readOnlyRegional(), func(r *http.Request, _ []byte) {
			if strings.HasPrefix(r.Header.Get("Mcp-Param-Region"), "=?base64?") {
				r.Header.Set("Mcp-Param-Region", "=?base64?as-sent?=")
			}
		}), `tool "regional" with Mcp-Param-Region: =?base64?bWNwdGVzdC1h?= (the Base64 form of mcptest-a) refused as a mismatch: {"jsonrpc":"2.0","id":94,"error":{"code":-32020`},
		// A sentinel that does not decode let through, as if it matched.
		"undecodable let through": {onRequest(readOnlyRegional(), func(r *http.Request, _ []byte) {
			if r.Header.Get("Mcp-Param-Region") == "=?base64?not base64!?=" {
				r.Header.Set("Mcp-Param-Region", "mcptest-a")
			}
		}), `tool "regional" with Mcp-Param-Region: =?base64?not base64!?= (not Base64): got HTTP 200`},
	} {
		srv := httptest.NewServer(tc.h)
		r := statusesURL(srv.URL)["2026-07-28/param-headers"]
		srv.Close()
		if r.Status != Failed || r.Level != Must || len(r.Details) != 1 || !strings.Contains(r.Details[0], tc.says) {
			t.Errorf("%s: %s at level %s %q; want one MUST failure saying %s", name, r.Status, r.Level, r.Details, tc.says)
		}
	}
}

// withReadme serves one resource, t://readme.
func withReadme() http.Handler {
	srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"})
	srv.AddResource(mcp.Resource{URI: "t://readme", Name: "readme"}, "GET /readme", jsonRoute(200, `"read me"`))
	return mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()})
}

// TestCheck_ReadResourceCacheable: a complete 2026-07-28 resources/read
// result is a CacheableResult, and MUST carry ttlMs and cacheScope
// (2026-07-28 Caching). The kit read no existing resource, and checked
// those members only on discover and the lists, so a server leaving them
// off every read passed.
func TestCheck_ReadResourceCacheable(t *testing.T) {
	t.Parallel()
	good := httptest.NewServer(withReadme())
	defer good.Close()
	got := statusesURL(good.URL)
	for _, name := range []string{"2026-07-28/lists", rowResult} {
		if got[name].Status != Passed {
			t.Errorf("a server stamping its reads: %s %s %v", name, got[name].Status, got[name].Details)
		}
	}
	// Every 2026 read answered without its cache hints.
	bare := httptest.NewServer(rewrite(withReadme(), func(_ http.Header, b []byte) []byte {
		if !bytes.Contains(b, []byte(`"contents"`)) {
			return b
		}
		return bytes.Replace(b, []byte(`"ttlMs":0,"cacheScope":"private",`), nil, 1)
	}))
	defer bare.Close()
	got = statusesURL(bare.URL)
	for name, says := range map[string]string{
		"2026-07-28/lists": `resources/read t://readme: no ttlMs | resources/read t://readme: cacheScope "", want "private" or "public"`,
		rowResult:          `2026-07-28 resources/read: result has no ttlMs (schema.ts 2026-07-28 ReadResourceResult (CacheableResult).ttlMs: number)`,
	} {
		r := got[name]
		if r.Status != Failed || r.Level != Must || !strings.Contains(strings.Join(r.Details, " | "), says) {
			t.Errorf("reads without ttlMs and cacheScope: %s %s at level %s %q; want a MUST failure saying %s", name, r.Status, r.Level, r.Details, says)
		}
	}
}

// TestCheck_TTLWrittenAsFloat: schema.json types ttlMs "integer", which
// JSON Schema reads as any number whose fractional part is zero; a server
// writing floats (3600000.0, 3.6e6) meets it. The kit took only digits
// for an integer and failed such a server on discover and every list.
// A fraction still fails.
func TestCheck_TTLWrittenAsFloat(t *testing.T) {
	t.Parallel()
	hour := func() http.Handler {
		srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"})
		srv.AddTool(mcp.Tool{Name: "hello", InputSchema: json.RawMessage(`{"type":"object"}`)}, "GET /hello", jsonRoute(200, `"hi"`))
		return mcp.NewHandler(srv, []mcp.Era{era2026.New(era2026.WithCaching(time.Hour, era2026.Public)), era2025.New()})
	}
	for ttl, pass := range map[string]bool{"3600000": true, "3600000.0": true, "3.6e6": true, "3.6E+6": true, "3600000.5": false, "3.6e-6": false, "-3.6e6": false} {
		srv := httptest.NewServer(replace(hour(), `"ttlMs":3600000,`, `"ttlMs":`+ttl+`,`))
		got := statusesURL(srv.URL)
		srv.Close()
		for _, name := range []string{"2026-07-28/discover", "2026-07-28/lists"} {
			r := got[name]
			switch want := "ttlMs " + ttl + ", want an integer >= 0"; {
			case pass && r.Status != Passed:
				t.Errorf("ttlMs %s: %s %s %v, want passed", ttl, name, r.Status, r.Details)
			case !pass && (r.Status != Failed || !strings.Contains(strings.Join(r.Details, "\n"), want)):
				t.Errorf("ttlMs %s: %s %s %v, want failed saying %s", ttl, name, r.Status, r.Details, want)
			}
		}
	}
}

// TestCheck_ServerRequestOnStream: on 2026-07-28 a server MUST NOT send
// JSON-RPC requests on a response stream (it asks with input_required);
// 2025 revisions allow them there. The kit passed over any message with
// a method on a stream, so a 2026 server asking the client with a
// request passed. A notification before the response passes in every
// revision, and so does a request on a 2025 stream.
func TestCheck_ServerRequestOnStream(t *testing.T) {
	t.Parallel()
	const ask = `data: {"jsonrpc":"2.0","id":"s-1","method":"elicitation/create","params":{"message":"sure?","requestedSchema":{"type":"object"}}}` + "\n\n"
	const progress = `data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}` + "\n\n"
	before := func(first string, only2026 bool) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			modern := r.Header.Get("MCP-Protocol-Version") == "2026-07-28"
			lead := first
			if only2026 && !modern {
				lead = ""
			}
			asEventStream(goodServer(), "text/event-stream", func(d []byte) string { return lead + "data: " + string(d) + "\n\n" }).ServeHTTP(w, r)
		})
	}
	for name, tc := range map[string]struct {
		h    http.Handler
		says string
	}{
		"a request before each 2026 response":       {before(ask, true), `2026-07-28 server/discover: the server sent a request (method "elicitation/create", id "s-1") on the response's stream`},
		"a request before each response, every era": {before(ask, false), `2026-07-28 server/discover: the server sent a request (method "elicitation/create", id "s-1")`},
		"a notification before each response":       {before(progress, false), ""},
	} {
		srv := httptest.NewServer(tc.h)
		results := CheckURL(srv.URL)
		srv.Close()
		var row Result
		for _, r := range results {
			if r.Check == rowNoRequests {
				row = r
			}
		}
		details := strings.Join(row.Details, "\n")
		if tc.says == "" {
			if f := mustFailures(results); row.Status != Passed || len(f) != 0 {
				t.Errorf("%s: %s %s; MUST failures %q", name, rowNoRequests, row.Status, f)
			}
			continue
		}
		if row.Status != Failed || row.Level != Must || !strings.Contains(details, tc.says) {
			t.Errorf("%s: %s %s at level %s %q; want a MUST failure saying %s", name, rowNoRequests, row.Status, row.Level, row.Details, tc.says)
		}
		if strings.Contains(details, "2025-") {
			t.Errorf("%s: %s blames a 2025 stream: %s", name, rowNoRequests, details)
		}
		if f := mustFailures(results); len(f) != 1 {
			t.Errorf("%s: MUST failures %q, want only %s", name, f, rowNoRequests)
		}
	}
}

// withReadmeAndPrompt serves the resource t://readme and the prompt
// summarize, whose argument topic is required.
func withReadmeAndPrompt() http.Handler {
	srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"})
	srv.AddResource(mcp.Resource{URI: "t://readme", Name: "readme"}, "GET /readme", jsonRoute(200, `"read me"`))
	srv.AddPrompt(mcp.Prompt{Name: "summarize", Arguments: []mcp.PromptArgument{{Name: "topic", Required: true}}}, func(_ context.Context, args map[string]string) (*mcp.PromptResult, error) {
		return &mcp.PromptResult{Messages: []mcp.PromptMessage{{Role: content.User, Content: content.Text("summarize " + args["topic"])}}}, nil
	})
	return mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()})
}

// nameBlind serves method as if its Mcp-Name always named the body's
// member: the server never checks the header on that method.
func nameBlind(h http.Handler, method, member string) http.Handler {
	return onRequest(h, func(r *http.Request, b []byte) {
		var m struct {
			Method string                     `json:"method"`
			Params map[string]json.RawMessage `json:"params"`
		}
		var v string
		if json.Unmarshal(b, &m) == nil && m.Method == method && json.Unmarshal(m.Params[member], &v) == nil {
			r.Header.Set("Mcp-Name", v)
		}
	})
}

// TestCheck_NameHeaderOnEveryNamedMethod: Mcp-Name is required on
// resources/read and prompts/get as on tools/call, and MUST match the
// body (2026-07-28 Streamable HTTP, Server validation). The kit sent the
// missing and the other name on tools/call only, so a server checking
// the header there alone passed.
func TestCheck_NameHeaderOnEveryNamedMethod(t *testing.T) {
	t.Parallel()
	good := httptest.NewServer(withReadmeAndPrompt())
	defer good.Close()
	if r := statusesURL(good.URL)["2026-07-28/header-mismatch"]; r.Status != Passed {
		t.Errorf("a server checking Mcp-Name everywhere: %s %v", r.Status, r.Details)
	}
	for name, tc := range map[string]struct {
		h    http.Handler
		says []string
	}{
		"resources/read": {nameBlind(withReadmeAndPrompt(), "resources/read", "uri"), []string{
			`resources/read without Mcp-Name: got HTTP 200 "{\"jsonrpc\":\"2.0\",\"id\":101,\"result\":`,
			`Mcp-Name naming another uri than the resources/read body's: got HTTP 200 "{\"jsonrpc\":\"2.0\",\"id\":102,\"result\":`}},
		"prompts/get": {nameBlind(withReadmeAndPrompt(), "prompts/get", "name"), []string{
			`prompts/get without Mcp-Name: got HTTP 200 "{\"jsonrpc\":\"2.0\",\"id\":103,\"result\":`,
			`Mcp-Name naming another name than the prompts/get body's: got HTTP 200 "{\"jsonrpc\":\"2.0\",\"id\":104,\"result\":`}},
	} {
		srv := httptest.NewServer(tc.h)
		r := statusesURL(srv.URL)["2026-07-28/header-mismatch"]
		srv.Close()
		if r.Status != Failed || r.Level != Must || len(r.Details) != len(tc.says) {
			t.Errorf("%s not checked: %s at level %s %q; want a MUST failure with %d details", name, r.Status, r.Level, r.Details, len(tc.says))
			continue
		}
		for i, want := range tc.says {
			if !strings.Contains(r.Details[i], want) {
				t.Errorf("%s not checked: %q does not say %s", name, r.Details[i], want)
			}
		}
	}
}
