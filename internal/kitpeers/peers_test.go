package kitpeers

import (
	"maps"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/mcp/mcptest"
)

// violation is what the kit reports for one check that did not pass: its
// status and a phrase its detail must contain.
type violation struct {
	status mcptest.Status
	says   string
}

// The pins below list, per peer, every check the kit does not pass at its
// default level. Failed entries are the peers' real MUST violations, each
// with its rule; Warned entries are SHOULDs and this library's profile,
// which the specification leaves open and which must not fail another
// server.

// idFault: JSON-RPC 2.0 §5, the response id is "the same value as the
// value of the id member in the Request Object"; both SDKs decode it into
// a float64 and answer 9007199254740992.
var idFault = violation{mcptest.Failed, "id 9007199254740993 echoed as 9007199254740992"}

// wireIDFault is the same fault as the wire's own row sees it, on every
// response that carries that id.
var wireIDFault = violation{mcptest.Failed, "id 9007199254740993 answered with id 9007199254740992"}

// goSDKCommon is what go-sdk does in every configuration.
var goSDKCommon = map[string]violation{
	"2025-06-18/id-echoed": idFault,
	"wire/id":              wireIDFault,
	// JSON-RPC 2.0 §5 (the Server MUST reply with a Response) and
	// 2025-06-18 Transports (a request is answered application/json or
	// text/event-stream): an unknown method gets a text/plain 400.
	"2025-06-18/unknown-method":      {mcptest.Failed, `got HTTP 400 "JSON RPC not handled`},
	"2025-06-18/unknown-method-code": {mcptest.Warned, "want a JSON-RPC error -32601"},
	// Open in the specification: a body that is not JSON at all.
	"jsonrpc/parse-error": {mcptest.Warned, "malformed payload"},
	"http/foreign-origin": foreignOrigin,
	// This library's profile, not the specification's.
	"profile/no-store":                        {mcptest.Warned, `Cache-Control "no-cache, no-transform"`},
	"profile/parse-error":                     {mcptest.Warned, "malformed payload"},
	"profile/duplicate-member":                {mcptest.Warned, "HTTP 200"},
	"profile/batch-refused":                   {mcptest.Warned, "JSON-RPC batching is not supported in 2025-06-18"},
	"profile/version-header":                  {mcptest.Warned, `MCP-Protocol-Version ""`},
	"profile/unknown-method-in-band":          {mcptest.Warned, "HTTP 400"},
	"profile/unsupported-header-version-body": {mcptest.Warned, "Unsupported protocol version"},
}

// goSDKStateless adds what go-sdk does when it serves 2026-07-28 (only in
// its stateless mode).
var goSDKStateless = map[string]violation{
	"2026-07-28/id-echoed": idFault,
	// 2026-07-28 Streamable HTTP, Server validation: a Base64-encoded
	// Mcp-Name is decoded before it is compared; go-sdk compares the
	// encoded text and answers -32020.
	"2026-07-28/base64-name":       {mcptest.Failed, `Mcp-Name =?base64?ZWNobw==?= (the Base64 form of "echo") refused as a mismatch`},
	"profile/unknown-tool-in-band": {mcptest.Warned, "2026-07-28 an unknown tool: HTTP 400, want 200"},
}

// mcpGoCommon is what mcp-go does with or without sessions.
var mcpGoCommon = map[string]violation{
	"2026-07-28/id-echoed": idFault,
	"2025-06-18/id-echoed": idFault,
	"wire/id":              wireIDFault,
	// 2025-03-26 Base protocol: implementations MUST support receiving
	// batches; mcp-go negotiates 2025-03-26 and then calls a batch "not
	// valid json" (-32700).
	"2025-03-26/batch": {mcptest.Failed, "request body is not valid json"},
	// Open: GET with a stream (allowed; the kit reads the headers and
	// leaves), no Cache-Control, duplicate members, batches on 2025-06-18,
	// a plain-text 400 for an unsupported version header, an unknown
	// tool's HTTP status on 2026-07-28.
	"http/foreign-origin":                     foreignOrigin,
	"profile/get-405":                         {mcptest.Warned, `HTTP 200, Content-Type "text/event-stream"`},
	"profile/no-store":                        {mcptest.Warned, `Cache-Control ""`},
	"profile/duplicate-member":                {mcptest.Warned, "HTTP 200"},
	"profile/batch-refused":                   {mcptest.Warned, "error code -32700, want -32600"},
	"profile/version-header":                  {mcptest.Warned, `MCP-Protocol-Version ""`},
	"profile/unsupported-header-version-body": {mcptest.Warned, "Unsupported protocol version: 1999-01-01"},
	"profile/unknown-tool-in-band":            {mcptest.Warned, "2026-07-28 an unknown tool: HTTP 400, want 200"},
}

// foreignOrigin: none of them refuses an Origin that can be no one's; the
// specification leaves which origins are valid to the server (SHOULD).
var foreignOrigin = violation{mcptest.Warned, "with Origin http://mcptest.invalid"}

// sessions: a session issued (allowed; the kit sends it back). The
// stream a session offers on GET passes the profile's GET check since that
// check follows what initialize announced: both peers announce listChanged
// and push on the session's stream, as mcpdual's opt-in 2025 push does.
var sessions = map[string]violation{
	"profile/no-session": {mcptest.Warned, "Mcp-Session-Id"},
}

// without is m less the checks named.
func without(m map[string]violation, names ...string) map[string]violation {
	out := maps.Clone(m)
	for _, n := range names {
		delete(out, n)
	}
	return out
}

func merge(ms ...map[string]violation) map[string]violation {
	out := map[string]violation{}
	for _, m := range ms {
		maps.Copy(out, m)
	}
	return out
}

var want = map[string]map[string]violation{
	GoSDK:       merge(goSDKCommon, goSDKStateless),
	GoSDKStream: merge(goSDKCommon, goSDKStateless),
	// go-sdk serves a request that leaves its session out, so the
	// profile takes its session for an optional one.
	GoSDKSessions: merge(goSDKCommon),
	MCPGo:         mcpGoCommon,
	MCPGoSessions: without(merge(mcpGoCommon, sessions), "profile/get-405"),
	Floor: {
		// Every open answer the floor gives is allowed: nothing fails.
		"http/foreign-origin":                     foreignOrigin,
		"profile/get-405":                         {mcptest.Warned, `HTTP 200, Content-Type "text/event-stream"`},
		"profile/content-type-required":           {mcptest.Warned, "HTTP 200"},
		"profile/no-session":                      {mcptest.Warned, "a 2025-06-18 ping without it is answered HTTP 400"},
		"profile/no-store":                        {mcptest.Warned, `Cache-Control ""`},
		"profile/duplicate-member":                {mcptest.Warned, "HTTP 200"},
		"profile/batch-refused":                   {mcptest.Warned, "batches are not part of 2025-06-18"},
		"profile/version-header":                  {mcptest.Warned, `MCP-Protocol-Version ""`},
		"profile/unsupported-header-version-body": {mcptest.Warned, "unsupported MCP-Protocol-Version"},
		"profile/unknown-tool-in-band":            {mcptest.Warned, `isError\":true`},
	},
}

// TestPeers runs the kit at its default level against each peer, in
// process and over a loopback listener, and compares what it reports with
// the pin, exactly.
func TestPeers(t *testing.T) {
	start := time.Now()
	for _, peer := range Peers() {
		t.Run(peer, func(t *testing.T) {
			h, err := New(peer)
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(h)
			defer srv.Close()
			for transport, results := range map[string][]mcptest.Result{
				"in-process": mcptest.Check(h),
				"network":    mcptest.CheckURL(srv.URL),
			} {
				got := map[string]mcptest.Result{}
				for _, r := range results {
					if r.Status != mcptest.Passed && r.Status != mcptest.Skipped {
						got[r.Check] = r
					}
					if r.Source == "" {
						t.Errorf("%s: %s has no source", transport, r.Check)
					}
					if r.Status == mcptest.Failed && r.Level != mcptest.Must {
						t.Errorf("%s: %s failed at level %s: the default level fails only MUSTs", transport, r.Check, r.Level)
					}
				}
				for _, name := range slices.Sorted(maps.Keys(got)) {
					r := got[name]
					w, ok := want[peer][name]
					switch {
					case !ok:
						t.Errorf("%s: unexpected %s %s", transport, r.Status, r)
					case w.status != r.Status:
						t.Errorf("%s: %s is %s, want %s: %s", transport, name, r.Status, w.status, r)
					case !strings.Contains(strings.Join(r.Details, "\n"), w.says):
						t.Errorf("%s: %s does not say %q: %s", transport, name, w.says, r)
					}
				}
				for _, name := range slices.Sorted(maps.Keys(want[peer])) {
					if _, ok := got[name]; !ok {
						t.Errorf("%s: %s passed or was skipped; the pin wants %s", transport, name, want[peer][name].status)
					}
				}
			}
		})
	}
	// No check may wait out a timeout: mcp-go and the floor hold GET
	// streams open, and the kit must read their headers and leave.
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the runs took %v, want under 5s", d)
	}
}

// TestPeers_FailureNamesRule: a MUST failure reported through Run names
// its level and rule.
func TestPeers_FailureNamesRule(t *testing.T) {
	h, _ := New(MCPGo)
	for _, r := range mcptest.Check(h) {
		if r.Check == "2025-06-18/id-echoed" {
			if s := r.String(); !strings.HasPrefix(s, "MUST (JSON-RPC 2.0 §5 Response object, id") {
				t.Errorf("String() = %q", s)
			}
			return
		}
	}
	t.Fatal("no 2025-06-18/id-echoed result")
}
