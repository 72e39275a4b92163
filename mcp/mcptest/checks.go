package mcptest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpdual/mcpdual/headers"
	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/schema"
	"github.com/mcpdual/mcpdual/mcp"
)

// The rules the checks cite. A check names the clause it enforces, so a
// failure says which rule it is and how binding ("MUST (2025-06-18
// Utilities, Ping): ...").
const (
	srcID           = "JSON-RPC 2.0 §5 Response object, id: the same value as the request's"
	srcReply        = "JSON-RPC 2.0 §5, the Server MUST reply with a Response; 2025-06-18 Transports, Sending messages to the server"
	srcNotification = "JSON-RPC 2.0 §4.1 Notification; 2025-06-18 Transports, Sending messages to the server"
	srcCodes        = "JSON-RPC 2.0 §5.1 Error object, pre-defined codes"
	srcAllow        = "RFC 9110 §15.5.6 405 Method Not Allowed: the server MUST generate Allow"
	srcSend         = "2025-06-18 Transports, Sending messages to the server"
	srcListen       = "2025-06-18 Transports, Listening for messages from the server"
	srcSession      = "2025-06-18 Transports, Session management"
	srcHeader       = "2025-06-18 Transports, Protocol version header"
	srcInit         = "2025-06-18 Lifecycle, Initialization and Version negotiation"
	srcPing         = "2025-06-18 Utilities, Ping"
	srcBatch        = "2025-03-26 Base protocol, Batching: MUST support receiving batches"
	srcPagination   = "2025-06-18 Utilities, Pagination, Error handling"
	srcTools        = "2025-06-18 Tools, Listing tools; schema.ts Tool, ToolAnnotations"
	srcToolErrors   = "2025-06-18 Tools, Error handling"
	srcResources    = "2025-06-18 Resources, Listing resources and templates; schema.ts Resource, ResourceTemplate"
	srcResErrors    = "2025-06-18 Resources, Error handling"
	srcPrompts      = "2025-06-18 Prompts, Listing prompts; schema.ts Prompt"
	srcPromptErrors = "2025-06-18 Prompts, Error handling"
	srcOutput       = "2025-06-18 Tools, Output schema; the examples given with WithToolExamples"
	srcSchema25     = "2025-06-18 Tools, Tool definition: inputSchema and outputSchema are JSON Schemas"
	src26Listen     = "2026-07-28 Streamable HTTP, GET and DELETE"
	srcDiscover     = "2026-07-28 server/discover; Caching"
	src26Info       = "2026-07-28 Base protocol, Result _meta: serverInfo"
	src26Version    = "2026-07-28 Versioning; Streamable HTTP, Protocol version header"
	src26Validation = "2026-07-28 Streamable HTTP, Server validation"
	src26Base64     = "2026-07-28 Streamable HTTP, Server validation: Base64-encoded values are decoded before comparing"
	src26Params     = "2026-07-28 Streamable HTTP, Server behavior for custom headers (Mcp-Param-*)"
	srcOrigin       = "2026-07-28 and 2025-06-18 Transports, Security warning: servers MUST validate Origin (which origins are valid is the server's to say; 403 on 2026-07-28)"
	src26Meta       = "2026-07-28 Base protocol, _meta: required keys"
	src26NotFound   = "2026-07-28 Streamable HTTP, Protocol version header: 404 for a method not implemented"
	src26Lists      = "2026-07-28 Caching; Base protocol, resultType"
	src26MRTR       = "2026-07-28 Multi round-trip requests"
	src26ResErrors  = "2026-07-28 Resources, Error handling"
	src26Schema     = "2026-07-28 Base protocol, JSON Schema usage: published schemas MUST be valid"
	srcProfile      = "mcpdual stateless profile: "
)

// JSON-RPC and MCP error codes the checks expect (kept here so that the
// kit reads as the rules, not as the core's constants).
const (
	codeParse             = -32700
	codeInvalidRequest    = -32600
	codeMethod            = -32601
	codeParams            = -32602
	codeHeaderMismatch    = -32020
	codeUnsupported       = -32022
	codeResourceMissing25 = -32002
)

// check is one rule of the battery.
type check struct {
	name   string
	level  Level
	source string
	rev    string // the revision the check exercises; "" for the endpoint's own rules
	// applies returns "" when the check applies, else why not.
	applies func(b *battery) string
	run     func(b *battery, r reporter)
}

func always(*battery) string { return "" }
func only2026(b *battery) string {
	switch {
	case b.serves2026:
		return ""
	case b.listed != nil:
		return fmt.Sprintf("the server does not serve 2026-07-28 (server/discover lists %v)", b.listed)
	}
	return "the server does not serve 2026-07-28 (server/discover: " + truncate([]byte(describe(b.discover))) + ")"
}
func only2025(b *battery) string {
	if !b.serves2025 {
		return "the server does not serve the 2025 handshake (initialize: " + truncate([]byte(describe(b.init))) + ")"
	}
	return ""
}
func only0326(b *battery) string {
	if why := only2025(b); why != "" {
		return why
	}
	if !b.serves0326 {
		return "initialize for 2025-03-26 was answered with " + string(b.legacy0326.Version()) + ": the server does not serve 2025-03-26"
	}
	return ""
}
func only2026Only(b *battery) string {
	if why := only2026(b); why != "" {
		return why
	}
	if b.serves2025 {
		return "the server also serves 2025 revisions, whose GET rule applies"
	}
	return ""
}
func capability(name string, also func(*battery) string) func(*battery) string {
	return func(b *battery) string {
		if why := also(b); why != "" {
			return why
		}
		if b.caps[name] == nil {
			return "the server declares no " + name + " capability"
		}
		return ""
	}
}
func hasExamples(b *battery) string {
	if b.cfg.examples == nil {
		return "no tool examples given (WithToolExamples)"
	}
	return capability("tools", always)(b)
}

var checks = []check{
	// The endpoint.
	{"http/get", Must, srcListen, "", only2025, (*battery).getAnswered},
	{"http/405-allow", Must, srcAllow, "", always, (*battery).allowOn405},
	{"2026-07-28/get-405", Should, src26Listen, "2026-07-28", only2026Only, (*battery).get405},
	{"http/response-content-type", Must, srcSend, "", always, (*battery).responseContentType},
	{"http/session-id", Must, srcSession, "", only2025, (*battery).sessionIDVisible},
	{"http/foreign-origin", Should, srcOrigin, "", always, (*battery).foreignOrigin},
	{"profile/get-405", Profile, srcProfile + "GET answered 405 with Allow: POST at once (no server stream), unless initialize announced the push (listChanged or subscribe) and issued a session: then a GET with its Mcp-Session-Id opens the session's event stream", "", always, (*battery).get405},
	{"profile/content-type-required", Profile, srcProfile + "a request without Content-Type: application/json is refused with 4xx", "", always, (*battery).contentTypeRequired},
	{"profile/no-session", Profile, srcProfile + "no Mcp-Session-Id, or only an optional one that initialize issues (sealed, nothing stored: a request without it is served)", "", always, (*battery).noSession},
	{"profile/no-store", Profile, srcProfile + "Cache-Control: no-store on every response", "", always, (*battery).noStore},
	{"profile/parse-error", Profile, srcProfile + "unparsable JSON: 400 with -32700 and no id", "", always, (*battery).parseError400},
	{"profile/duplicate-member", Profile, srcProfile + "a duplicate object member is refused with 400", "", always, (*battery).duplicateMember},
	{"profile/batch-refused", Profile, srcProfile + "a batch in a revision after 2025-03-26 is refused with 400 and -32600 (those revisions forbid batches)", "", always, (*battery).batchRefused},
	{"profile/notification-202", Profile, srcProfile + "every notification accepted with 202", "", always, (*battery).notification202},

	// JSON-RPC 2.0 over each era.
	{"jsonrpc/parse-error", Should, srcCodes + " (-32700; MCP leaves the HTTP answer to a body that is not JSON-RPC open)", "", always, (*battery).parseErrorBody},
	{"2026-07-28/id-echoed", Must, srcID, "2026-07-28", only2026, (*battery).idEchoed2026},
	{"2025-06-18/id-echoed", Must, srcID, "2025-06-18", only2025, (*battery).idEchoed2025},
	{"2026-07-28/notification", Must, srcNotification, "2026-07-28", only2026, (*battery).notification2026},
	{"2025-06-18/notification", Must, srcNotification, "2025-06-18", only2025, (*battery).notification2025},

	// 2026-07-28.
	{"2026-07-28/discover", Must, srcDiscover, "2026-07-28", only2026, (*battery).discover2026},
	{"2026-07-28/server-info", Should, src26Info, "2026-07-28", only2026, (*battery).serverInfo},
	{"2026-07-28/unsupported-version", Must, src26Version, "2026-07-28", only2026, (*battery).unsupportedVersion},
	{"2026-07-28/header-mismatch", Must, src26Validation, "2026-07-28", only2026, (*battery).headerMismatch},
	{"2026-07-28/base64-name", Must, src26Base64, "2026-07-28", capability("tools", only2026), (*battery).base64Name},
	{"2026-07-28/param-headers", Must, src26Params, "2026-07-28", capability("tools", only2026), (*battery).paramHeaders},
	{"2026-07-28/missing-meta", Must, src26Meta, "2026-07-28", only2026, (*battery).missingMeta},
	{"2026-07-28/method-not-found", Must, src26NotFound, "2026-07-28", only2026, (*battery).methodNotFound2026},
	{"2026-07-28/lists", Must, src26Lists, "2026-07-28", only2026, (*battery).lists2026},
	{"2026-07-28/resource-not-found", Must, src26ResErrors, "2026-07-28", capability("resources", only2026), (*battery).resourceNotFound2026},
	{"2026-07-28/tool-schemas", Must, src26Schema, "2026-07-28", capability("tools", only2026), (*battery).toolSchemas2026},
	{"2026-07-28/input-required", Must, src26MRTR, "2026-07-28", func(b *battery) string {
		if why := only2026(b); why != "" {
			return why
		}
		return hasExamples(b)
	}, (*battery).inputRequired},
	{"profile/version-header", Profile, srcProfile + "MCP-Protocol-Version on every response names the revision in use", "", always, (*battery).versionHeader},

	// The 2025 handshake revisions.
	{"2025-06-18/initialize", Must, srcInit, "2025-06-18", only2025, (*battery).initialize},
	{"2025-06-18/ping", Must, srcPing, "2025-06-18", only2025, (*battery).ping},
	{"2025-06-18/unknown-method", Must, srcReply, "2025-06-18", only2025, (*battery).unknownMethod},
	{"2025-06-18/unknown-method-code", Should, srcCodes + " (-32601 Method not found)", "2025-06-18", only2025, (*battery).unknownMethodCode},
	{"2025-06-18/unsupported-header-version", Must, srcHeader, "2025-06-18", only2025, (*battery).unsupportedHeaderVersion},
	{"2025-06-18/tool-schemas", Should, srcSchema25 + " (2020-12, the dialect of 2025-11-25 and later)", "2025-06-18", capability("tools", only2025), (*battery).toolSchemas2025},
	{"2025-06-18/resource-not-found", Should, srcResErrors + " (-32002)", "2025-06-18", capability("resources", only2025), (*battery).resourceNotFound2025},
	{"2025-03-26/batch", Must, srcBatch, "2025-03-26", only0326, (*battery).batch0326},
	{"profile/unknown-method-in-band", Profile, srcProfile + "a 2025 unknown method is -32601 in the body of an HTTP 200", "2025-06-18", only2025, (*battery).unknownMethodInBand},
	{"profile/unsupported-header-version-body", Profile, srcProfile + "an unsupported MCP-Protocol-Version is 400 with -32022 and data.supported", "2025-06-18", only2025, (*battery).unsupportedHeaderBody},

	// Server features, in every revision served.
	{"tools/list", Must, srcTools, "", capability("tools", always), (*battery).toolsList},
	{"tools/unknown-tool", Must, srcToolErrors + " (a protocol error or a result with isError)", "", capability("tools", always), (*battery).unknownTool},
	{"tools/unknown-tool-code", Should, srcToolErrors + " (unknown tool: -32602)", "", capability("tools", always), (*battery).unknownToolCode},
	{"profile/unknown-tool-in-band", Profile, srcProfile + "an unknown tool is -32602 in the body of an HTTP 200", "", capability("tools", always), (*battery).unknownToolInBand},
	{"tools/read-only-examples", Must, srcOutput, "", hasExamples, (*battery).readOnlyExamples},
	{"resources/list", Must, srcResources, "", capability("resources", always), (*battery).resourcesList},
	{"prompts/list", Must, srcPrompts, "", capability("prompts", always), (*battery).promptsList},
	{"prompts/unknown-prompt", Should, srcPromptErrors + " (invalid prompt name: -32602)", "", capability("prompts", always), (*battery).unknownPrompt},
	{"pagination/invalid-cursor", Should, srcPagination + " (invalid cursor: -32602)", "", capability("tools", always), (*battery).invalidCursor},
}

func init() {
	// The wire's rows run last: they report what every check before them
	// read (wire.go).
	checks = append(checks, wireRows...)
}

// --- helpers ---

// unanswered reports whether a request that ended with err got no answer
// to judge (it failed, or its body could not be read), as opposed to an
// answer that is not JSON. A check that goes on past one records it as a
// fault, which no deviation excuses, as Unansweredf does.
func unanswered(res *Response, err error) bool {
	return err != nil && (res == nil || !errors.Is(err, errNotJSON))
}

// post sends body with exactly h and returns the answer, JSON or not.
func (b *battery) post(r reporter, c *Client, h http.Header, body string) *Response {
	res, err := c.Send(b.ctx, h, []byte(body))
	if unanswered(res, err) {
		r.Unansweredf("%v", err)
	}
	return res
}

// call sends a request the way a correct client does.
func (b *battery) call(r reporter, c *Client, method string, params any) *Response {
	res, err := c.Call(b.ctx, method, params)
	if unanswered(res, err) {
		r.Unansweredf("%s %s: %v", c.Version(), method, err)
	}
	return res
}

func jsonHeaders(extra ...string) http.Header {
	h := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
	for i := 0; i+1 < len(extra); i += 2 {
		h.Set(extra[i], extra[i+1])
	}
	return h
}

const meta2026 = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

func h26(method string) http.Header {
	return jsonHeaders("MCP-Protocol-Version", "2026-07-28", "Mcp-Method", method)
}

func h25(c *Client) http.Header {
	return jsonHeaders("MCP-Protocol-Version", string(c.Version()))
}

const anyID = "*"

// sameID reports whether got is the id sent: the same string, or the same
// number (exactly: 9007199254740993 is not 9007199254740992). sent ""
// wants no id (absent or null).
func sameID(sent string, got json.RawMessage) bool {
	g := bytes.TrimSpace(got)
	if sent == "" {
		return len(g) == 0 || string(g) == "null"
	}
	if len(g) == 0 {
		return false
	}
	if sent[0] == '"' {
		var a, b string
		return json.Unmarshal([]byte(sent), &a) == nil && json.Unmarshal(g, &b) == nil && a == b
	}
	if g[0] == '"' {
		return false
	}
	x, ok1 := new(big.Rat).SetString(sent)
	y, ok2 := new(big.Rat).SetString(string(g))
	return ok1 && ok2 && x.Cmp(y) == 0
}

// wantError checks that res is a JSON-RPC error; status 0 and code 0 take
// any, id anyID takes any.
func wantError(r reporter, what string, res *Response, status int, code mcp.Code, id string) bool {
	switch {
	case res.Error == nil:
		want := "a JSON-RPC error"
		if code != 0 {
			want += fmt.Sprintf(" %d", code)
		}
		r.Errorf("%s: got HTTP %d %q, want %s", what, res.Status, truncate(res.Raw), want)
	case code != 0 && res.Error.Code != code:
		r.Errorf("%s: error code %d, want %d: %s", what, res.Error.Code, code, truncate(res.Raw))
	case status != 0 && res.Status != status:
		r.Errorf("%s: HTTP %d, want %d: %s", what, res.Status, status, truncate(res.Raw))
	case id != anyID && !sameID(id, res.ID):
		want := id
		if id == "" {
			want = "none (or null)"
		}
		r.Errorf("%s: error id %s, want %s", what, orNone(res.ID), want)
	default:
		return true
	}
	return false
}

func orNone(id json.RawMessage) string {
	if len(id) == 0 {
		return "absent"
	}
	return string(id)
}

func describe(r *Response) string {
	if r == nil {
		return "no response"
	}
	return fmt.Sprintf("HTTP %d %s", r.Status, truncate(r.Raw))
}

func mediaType(h http.Header) string {
	mt, _, _ := strings.Cut(h.Get("Content-Type"), ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

// responses are answers to well-formed requests that succeeded: what the
// response-header checks look at.
// They are asked once: the checks of the headers all judge the same
// answers, and a server's rate budget is not spent asking again.
func (b *battery) responses(r reporter) []*Response {
	b.listMu.Lock()
	done := b.answered
	b.listMu.Unlock()
	if done != nil {
		return done
	}
	out := []*Response{}
	for _, x := range []*Response{b.discover, b.init} {
		if x != nil {
			out = append(out, x)
		}
	}
	for _, c := range b.clients() {
		if b.caps["tools"] != nil {
			out = append(out, b.call(r, c, "tools/list", nil))
		}
		if c != b.modern {
			out = append(out, b.call(r, c, "ping", nil))
		}
	}
	// Failures are other checks' to report.
	out = slices.DeleteFunc(out, func(x *Response) bool { return x.Status/100 != 2 })
	b.listMu.Lock()
	b.answered = out
	b.listMu.Unlock()
	return out
}

// --- the endpoint ---

func (b *battery) getAnswered(r reporter) {
	resp, err := b.getResponse()
	if err != nil {
		r.Unansweredf("GET with Accept: text/event-stream: %v; want an event stream or 405 Method Not Allowed", err)
	}
	if resp.StatusCode == http.StatusMethodNotAllowed {
		return
	}
	if resp.StatusCode/100 != 2 || mediaType(resp.Header) != "text/event-stream" {
		r.Errorf("GET with Accept: text/event-stream: HTTP %d, Content-Type %q; want text/event-stream or 405 Method Not Allowed", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}

func (b *battery) allowOn405(r reporter) {
	resp, err := b.getResponse()
	if err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		r.Skipf("GET was not answered 405")
	}
	if resp.Header.Get("Allow") == "" {
		r.Errorf("GET answered 405 without an Allow header")
	}
}

func (b *battery) get405(r reporter) {
	resp, err := b.getResponse()
	if err != nil {
		r.Unansweredf("GET: %v; want 405 at once", err)
	}
	b.legacy.mu.Lock()
	session := b.legacy.session
	b.legacy.mu.Unlock()
	if session != "" && b.pushes() {
		// mcpdual's opt-in 2025 push (mcp.WithChangeNotifications): the
		// session's stream opens at once, on any replica.
		if resp.StatusCode != http.StatusOK || mediaType(resp.Header) != "text/event-stream" {
			r.Errorf("GET with the session's Mcp-Session-Id, initialize having announced the push: HTTP %d, Content-Type %q; want 200 text/event-stream", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		return
	}
	if resp.StatusCode != http.StatusMethodNotAllowed || !strings.Contains(resp.Header.Get("Allow"), "POST") {
		r.Errorf("GET: HTTP %d, Content-Type %q, Allow %q; want 405 with Allow: POST", resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Allow"))
	}
}

// pushes reports whether initialize announced that the server pushes
// notifications (a list's listChanged, or resources' subscribe, true).
func (b *battery) pushes() bool {
	if b.init == nil {
		return false
	}
	var res struct {
		Capabilities map[string]map[string]any `json:"capabilities"`
	}
	if json.Unmarshal(b.init.Result, &res) != nil {
		return false
	}
	for _, c := range res.Capabilities {
		if c["listChanged"] == true || c["subscribe"] == true {
			return true
		}
	}
	return false
}

func (b *battery) responseContentType(r reporter) {
	for _, res := range b.responses(r) {
		if mt := mediaType(res.Header); mt != "application/json" && mt != "text/event-stream" {
			r.Errorf("a request answered HTTP %d with Content-Type %q; want application/json or text/event-stream: %s", res.Status, res.Header.Get("Content-Type"), truncate(res.Raw))
		}
	}
}

func (b *battery) sessionIDVisible(r reporter) {
	id := b.init.Header.Get("Mcp-Session-Id")
	for i := 0; i < len(id); i++ {
		if id[i] < 0x21 || id[i] > 0x7e {
			r.Errorf("Mcp-Session-Id %q has a byte outside visible ASCII (0x21-0x7E)", id)
			return
		}
	}
}

func (b *battery) contentTypeRequired(r reporter) {
	res := b.post(r, b.legacy, http.Header{"Content-Type": {"text/plain"}, "Accept": {"application/json, text/event-stream"}}, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if res.Status < 400 || res.Status > 499 {
		r.Errorf("a POST with Content-Type: text/plain: HTTP %d %s; want 4xx", res.Status, truncate(res.Raw))
	}
}

// noSession: the profile keeps no session state. A server may still
// answer initialize with an Mcp-Session-Id that is optional (mcpdual's
// era2025.WithSessions seals the session into the id; nothing is stored):
// then only initialize's answer carries it, and a request without it is
// served all the same. What the server does not issue is not asked of it.
func (b *battery) noSession(r reporter) {
	issued := ""
	if b.serves2025 && b.init != nil {
		issued = b.init.Header.Get("Mcp-Session-Id")
	}
	for _, res := range b.responses(r) {
		if id := res.Header.Get("Mcp-Session-Id"); id != "" && (issued == "" || res != b.init) {
			r.Errorf("Mcp-Session-Id %q on a response%s", id, map[bool]string{true: " other than initialize's", false: ""}[issued != ""])
			return
		}
	}
	if issued == "" {
		return
	}
	c := b.client(mcp.Version20250618) // never initialized: it has no session to send
	res := b.post(r, c, h25(b.legacy), `{"jsonrpc":"2.0","id":52,"method":"ping"}`)
	if res.Status != http.StatusOK || res.Error != nil || res.Result == nil {
		r.Errorf("initialize issued Mcp-Session-Id, and a 2025-06-18 ping without it is answered %s: the profile allows a session only if a client may leave it out (sealed, nothing stored)", describe(res))
	}
}

func (b *battery) noStore(r reporter) {
	for _, res := range b.responses(r) {
		if cc := res.Header.Get("Cache-Control"); cc != "no-store" {
			r.Errorf("Cache-Control %q, want no-store: %s", cc, truncate(res.Raw))
			return
		}
	}
}

const unparsable = `{"jsonrpc":"2.0","id":1,`

func (b *battery) parseErrorBody(r reporter) {
	wantError(r, "unparsable JSON", b.post(r, b.legacy, jsonHeaders(), unparsable), 0, codeParse, anyID)
}

func (b *battery) parseError400(r reporter) {
	res := b.post(r, b.legacy, jsonHeaders(), unparsable)
	if wantError(r, "unparsable JSON", res, http.StatusBadRequest, codeParse, "") && mediaType(res.Header) != "application/json" {
		r.Errorf("Content-Type %q for a JSON error", res.Header.Get("Content-Type"))
	}
}

func (b *battery) duplicateMember(r reporter) {
	res := b.post(r, b.legacy, h25(b.legacy), `{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/list"}`)
	if res.Status != http.StatusBadRequest {
		r.Errorf("a request with two \"method\" members: HTTP %d %s; want 400", res.Status, truncate(res.Raw))
	}
}

func (b *battery) batchRefused(r reporter) {
	c, h := b.legacy, h25(b.legacy)
	if !b.serves2025 {
		c, h = b.modern, h26("server/discover")
	}
	res := b.post(r, c, h, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`)
	wantError(r, "a batch", res, http.StatusBadRequest, codeInvalidRequest, "")
}

func (b *battery) notification202(r reporter) {
	var res *Response
	if b.serves2025 {
		res = b.post(r, b.legacy, h25(b.legacy), `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	} else {
		res = b.post(r, b.modern, h26("notifications/cancelled"), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,`+meta2026+`}}`)
	}
	if res.Status != http.StatusAccepted {
		r.Errorf("a notification: HTTP %d %s; want 202", res.Status, truncate(res.Raw))
	}
}

// notificationRule: a notification is answered 202 with no body, or an
// HTTP error status if not accepted; never a JSON-RPC response.
func notificationRule(r reporter, what string, res *Response) {
	switch {
	case res.Status == http.StatusAccepted:
		if len(bytes.TrimSpace(res.Raw)) != 0 {
			r.Errorf("%s: 202 with a body %s; want no body", what, truncate(res.Raw))
		}
	case res.Status >= 400:
		if res.Result != nil || len(res.ID) > 0 && string(res.ID) != "null" {
			r.Errorf("%s: HTTP %d with a response carrying an id or result: %s", what, res.Status, truncate(res.Raw))
		}
	default:
		r.Errorf("%s: HTTP %d %s; want 202 Accepted with no body, or an error status if not accepted", what, res.Status, truncate(res.Raw))
	}
}

func (b *battery) notification2025(r reporter) {
	notificationRule(r, "notifications/initialized", b.post(r, b.legacy, h25(b.legacy), `{"jsonrpc":"2.0","method":"notifications/initialized"}`))
}

func (b *battery) notification2026(r reporter) {
	notificationRule(r, "notifications/cancelled", b.post(r, b.modern, h26("notifications/cancelled"),
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,`+meta2026+`}}`))
}

// ids are sent as written and must come back as the same value.
var ids = []string{`9007199254740993`, `"id-é"`, `0`, `-7`}

func (b *battery) idEchoed2026(r reporter) {
	for _, id := range ids {
		res := b.post(r, b.modern, h26("server/discover"), `{"jsonrpc":"2.0","id":`+id+`,"method":"server/discover","params":{`+meta2026+`}}`)
		if !sameID(id, res.ID) {
			r.Errorf("id %s echoed as %s", id, orNone(res.ID))
		}
	}
	// An error response carries the id too (the request is well formed).
	res := b.post(r, b.modern, h26("mcptest/no-such-method"), `{"jsonrpc":"2.0","id":9007199254740993,"method":"mcptest/no-such-method","params":{`+meta2026+`}}`)
	if res.Error != nil && !sameID("9007199254740993", res.ID) {
		r.Errorf("id 9007199254740993 of a request answered with an error echoed as %s", orNone(res.ID))
	}
}

func (b *battery) idEchoed2025(r reporter) {
	for _, id := range ids {
		res := b.post(r, b.legacy, h25(b.legacy), `{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`)
		if !sameID(id, res.ID) {
			r.Errorf("id %s echoed as %s", id, orNone(res.ID))
		}
	}
}

// --- 2026-07-28 ---

type cacheable struct {
	ResultType string           `json:"resultType"`
	TTLMs      *json.Number     `json:"ttlMs"`
	CacheScope string           `json:"cacheScope"`
	Meta       map[string]any   `json:"_meta"`
	Versions   []string         `json:"supportedVersions"`
	Caps       *json.RawMessage `json:"capabilities"`
}

func (s cacheable) problems() []string {
	var p []string
	if s.ResultType != "complete" {
		p = append(p, fmt.Sprintf("resultType %q, want \"complete\"", s.ResultType))
	}
	if s.TTLMs == nil {
		p = append(p, "no ttlMs")
	} else if n, ok := new(big.Rat).SetString(s.TTLMs.String()); !ok || !n.IsInt() || n.Sign() < 0 {
		// An integer as JSON Schema has it (schema.json types ttlMs
		// "integer"): any number whose fractional part is zero, so 3600000.0
		// and 3.6e6 are integers too, as a server writing floats sends them.
		p = append(p, "ttlMs "+s.TTLMs.String()+", want an integer >= 0")
	}
	if s.CacheScope != "private" && s.CacheScope != "public" {
		p = append(p, fmt.Sprintf("cacheScope %q, want \"private\" or \"public\"", s.CacheScope))
	}
	return p
}

func decodeCacheable(raw json.RawMessage) cacheable {
	var s cacheable
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	_ = d.Decode(&s)
	return s
}

func (b *battery) discover2026(r reporter) {
	s := decodeCacheable(b.discover.Result)
	for _, p := range s.problems() {
		r.Errorf("server/discover: %s", p)
	}
	if !slices.Contains(s.Versions, "2026-07-28") {
		r.Errorf("server/discover: supportedVersions %v does not list 2026-07-28", s.Versions)
	}
	if s.Caps == nil || !bytes.HasPrefix(bytes.TrimSpace(*s.Caps), []byte("{")) {
		r.Errorf("server/discover: capabilities must be an object")
	}
	if len(b.discover.ID) == 0 || string(b.discover.ID) == "null" {
		r.Errorf("server/discover: no id in the response")
	}
}

func (b *battery) serverInfo(r reporter) {
	s := decodeCacheable(b.discover.Result)
	info, _ := s.Meta["io.modelcontextprotocol/serverInfo"].(map[string]any)
	if _, ok := info["name"].(string); !ok {
		r.Errorf("server/discover: no _meta[\"io.modelcontextprotocol/serverInfo\"] with a name")
	}
}

func (b *battery) versionHeader(r reporter) {
	if b.serves2026 {
		if v := b.discover.Header.Get("MCP-Protocol-Version"); v != "2026-07-28" {
			r.Errorf("server/discover: MCP-Protocol-Version %q, want 2026-07-28", v)
		}
	}
	if b.serves2025 {
		res := b.call(r, b.legacy, "ping", nil)
		if v := res.Header.Get("MCP-Protocol-Version"); v != string(b.legacy.Version()) {
			r.Errorf("2025 ping: MCP-Protocol-Version %q, want %s", v, b.legacy.Version())
		}
	}
}

func (b *battery) unsupportedVersion(r reporter) {
	res := b.post(r, b.modern, jsonHeaders("MCP-Protocol-Version", "v999.0.0", "Mcp-Method", "server/discover"),
		`{"jsonrpc":"2.0","id":11,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"v999.0.0","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	if !wantError(r, "version v999.0.0", res, http.StatusBadRequest, codeUnsupported, "11") {
		return
	}
	var data struct {
		Supported []string `json:"supported"`
		Requested *string  `json:"requested"`
	}
	if json.Unmarshal(res.Error.Data, &data) != nil || len(data.Supported) == 0 || data.Requested == nil || *data.Requested != "v999.0.0" {
		r.Errorf("version v999.0.0: error data %s; want supported (a non-empty list) and requested \"v999.0.0\"", orNone(res.Error.Data))
	}
	for _, v := range data.Supported {
		if !slices.Contains(b.supported, v) {
			r.Errorf("error data lists %q as supported, which server/discover's supportedVersions %v does not", v, b.supported)
		}
	}
}

func (b *battery) headerMismatch(r reporter) {
	body := func(id, method string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":{` + meta2026 + `}}`
	}
	type mismatch struct {
		what, id string
		h        http.Header
		body     string
	}
	cases := []mismatch{
		{"MCP-Protocol-Version 2025-06-18 with the envelope's 2026-07-28", "21", jsonHeaders("MCP-Protocol-Version", "2025-06-18", "Mcp-Method", "server/discover"), body("21", "server/discover")},
		{"Mcp-Method tools/list for server/discover", "22", h26("tools/list"), body("22", "server/discover")},
		{"Mcp-Method missing", "23", jsonHeaders("MCP-Protocol-Version", "2026-07-28"), body("23", "server/discover")},
		{"Mcp-Method in another case (values are case-sensitive)", "24", h26("SERVER/DISCOVER"), body("24", "server/discover")},
	}
	// Without MCP-Protocol-Version a server that serves 2025-03-26 may
	// take the request for one of that revision (which has no such
	// header); one that does not MUST refuse it.
	if !b.serves0326 {
		cases = append(cases, mismatch{"MCP-Protocol-Version missing (the server does not serve 2025-03-26, which may omit it)", "20",
			jsonHeaders("Mcp-Method", "server/discover"), body("20", "server/discover")})
	}
	// The Mcp-Name cases name a listed tool, so that a server checking
	// the tool before the headers (the order is not normative) still has
	// only the header to refuse.
	if tools := b.toolsIfAny(b.modern); len(tools) > 0 {
		name, _ := json.Marshal(tools[0].Name)
		call := func(id string) string {
			return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":` + string(name) + `,"arguments":{},` + meta2026 + `}}`
		}
		other := h26("tools/call")
		other.Set("Mcp-Name", "mcptest_other_tool")
		cases = append(cases,
			mismatch{"tools/call without Mcp-Name", "25", h26("tools/call"), call("25")},
			mismatch{"Mcp-Name naming another tool", "26", other, call("26")})
	}
	// Mcp-Name is required on resources/read and prompts/get too, on a
	// listed resource and prompt for the same reason.
	for _, named := range []struct {
		l              listing
		method, member string
		id             int
	}{{listings[1], "resources/read", "uri", 101}, {listings[3], "prompts/get", "name", 103}} {
		var first struct {
			URI       string `json:"uri"`
			Name      string `json:"name"`
			Arguments []struct {
				Name string `json:"name"`
			} `json:"arguments"`
		}
		items := b.itemsIfAny(b.modern, named.l)
		if len(items) == 0 || json.Unmarshal(items[0], &first) != nil {
			continue
		}
		value := map[string]string{"uri": first.URI, "name": first.Name}[named.member]
		if value == "" {
			continue
		}
		v, _ := json.Marshal(value)
		// Every argument a prompt declares is given, so that only the
		// header is wrong with the request.
		args := ""
		if named.method == "prompts/get" {
			given := map[string]string{}
			for _, a := range first.Arguments {
				given[a.Name] = "mcptest-a"
			}
			a, _ := json.Marshal(given)
			args = `"arguments":` + string(a) + `,`
		}
		req := func(id int) string {
			return `{"jsonrpc":"2.0","id":` + fmt.Sprint(id) + `,"method":"` + named.method + `","params":{"` + named.member + `":` + string(v) + `,` + args + meta2026 + `}}`
		}
		other := h26(named.method)
		other.Set("Mcp-Name", "mcptest-other")
		cases = append(cases,
			mismatch{named.method + " without Mcp-Name", fmt.Sprint(named.id), h26(named.method), req(named.id)},
			mismatch{"Mcp-Name naming another " + named.member + " than the " + named.method + " body's", fmt.Sprint(named.id + 1), other, req(named.id + 1)})
	}
	for _, tc := range cases {
		wantError(r, tc.what, b.post(r, b.modern, tc.h, tc.body), http.StatusBadRequest, codeHeaderMismatch, tc.id)
	}
}

// itemsIfAny lists l's items when the server declares its capability and
// the list answers; nil otherwise (another check reports a broken list).
func (b *battery) itemsIfAny(c *Client, l listing) []json.RawMessage {
	if b.caps[l.capability] == nil {
		return nil
	}
	var out []json.RawMessage
	func() {
		defer func() {
			if p := recover(); p != nil {
				if _, ok := p.(stop); !ok {
					panic(p)
				}
			}
		}()
		out, _ = b.list(&rep{}, c, l)
	}()
	return out
}

// base64Name sends a listed tool's name in Mcp-Name as the Base64
// sentinel, which must be decoded and so match, and a sentinel that is not
// Base64, which cannot.
func (b *battery) base64Name(r reporter) {
	tools := b.tools(r, b.modern)
	if len(tools) == 0 {
		r.Skipf("tools/list shows no tool")
	}
	name, _ := json.Marshal(tools[0].Name)
	body := `{"jsonrpc":"2.0","id":27,"method":"tools/call","params":{"name":` + string(name) + `,"arguments":{},` + meta2026 + `}}`
	h := h26("tools/call")
	h.Set("Mcp-Name", "=?base64?"+base64.StdEncoding.EncodeToString([]byte(tools[0].Name))+"?=")
	res := b.post(r, b.modern, h, body)
	if res.Error != nil && res.Error.Code == codeHeaderMismatch {
		r.Errorf("Mcp-Name %s (the Base64 form of %s) refused as a mismatch: %s", h.Get("Mcp-Name"), name, truncate(res.Raw))
	}
	h.Set("Mcp-Name", "=?base64?not base64!?=")
	wantError(r, "Mcp-Name \"=?base64?not base64!?=\"", b.post(r, b.modern, h, strings.Replace(body, `"id":27`, `"id":28`, 1)), http.StatusBadRequest, codeHeaderMismatch, "28")
}

// paramHeaders calls the first listed tool that mirrors an argument into a
// Mcp-Param-* header, with the header naming another value and without
// it: the server MUST refuse both (400, -32020).
func (b *battery) paramHeaders(r reporter) {
	for _, tl := range b.tools(r, b.modern) {
		params, err := headers.ParseAnnotations(tl.InputSchema)
		if err != nil || len(params) == 0 {
			continue
		}
		p := params[0]
		value, other := any("mcptest-a"), "mcptest-b"
		switch p.Type {
		case "integer":
			value, other = 7, "8"
		case "boolean":
			value, other = true, "false"
		}
		args := map[string]any{}
		cur := args
		for i, k := range p.Path {
			if i == len(p.Path)-1 {
				cur[k] = value
				break
			}
			next := map[string]any{}
			cur[k] = next
			cur = next
		}
		params2, _ := json.Marshal(map[string]any{"name": tl.Name, "arguments": args})
		body := func(id string) string {
			return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":` + string(params2[:len(params2)-1]) + `,` + meta2026 + `}}`
		}
		h := h26("tools/call")
		h.Set("Mcp-Name", headers.Encode(tl.Name))
		h.Set(p.Header, other)
		wantError(r, fmt.Sprintf("tool %q with %s: %s for an argument of %v", tl.Name, p.Header, other, value), b.post(r, b.modern, h, body("91")), http.StatusBadRequest, codeHeaderMismatch, "91")
		h.Del(p.Header)
		wantError(r, fmt.Sprintf("tool %q without %s for an argument of %v", tl.Name, p.Header, value), b.post(r, b.modern, h, body("92")), http.StatusBadRequest, codeHeaderMismatch, "92")
		// The Base64 sentinel is decoded before comparing, for Mcp-Param-*
		// as for Mcp-Name: the value's Base64 form matches, and a sentinel
		// that is not Base64 cannot. The matching form runs the tool, so it
		// is sent only to a read-only one.
		h.Set(p.Header, "=?base64?not base64!?=")
		wantError(r, fmt.Sprintf("tool %q with %s: =?base64?not base64!?= (not Base64)", tl.Name, p.Header), b.post(r, b.modern, h, body("93")), http.StatusBadRequest, codeHeaderMismatch, "93")
		if ro, _ := tl.Annotations["readOnlyHint"].(bool); ro {
			plain := fmt.Sprint(value)
			h.Set(p.Header, "=?base64?"+base64.StdEncoding.EncodeToString([]byte(plain))+"?=")
			if res := b.post(r, b.modern, h, body("94")); res.Error != nil && res.Error.Code == codeHeaderMismatch {
				r.Errorf("tool %q with %s: %s (the Base64 form of %s) refused as a mismatch: %s", tl.Name, p.Header, h.Get(p.Header), plain, truncate(res.Raw))
			}
		}
		return
	}
	r.Skipf("no listed tool declares an x-mcp-header argument")
}

// foreignOrigin sends an Origin that can belong to no one (RFC 6761's
// .invalid), as a page on another site would after DNS rebinding.
func (b *battery) foreignOrigin(r reporter) {
	const origin = "http://mcptest.invalid"
	if b.serves2026 {
		h := h26("server/discover")
		h.Set("Origin", origin)
		res := b.post(r, b.modern, h, `{"jsonrpc":"2.0","id":81,"method":"server/discover","params":{`+meta2026+`}}`)
		if res.Status != http.StatusForbidden {
			r.Errorf("2026-07-28 server/discover with Origin %s: HTTP %d; want 403 Forbidden", origin, res.Status)
		}
	}
	if b.serves2025 {
		h := jsonHeaders("Origin", origin)
		res := b.post(r, b.client(mcp.Version20250618), h, `{"jsonrpc":"2.0","id":82,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"mcptest","version":"1"}}}`)
		if res.Status/100 != 4 {
			r.Errorf("2025-06-18 initialize with Origin %s: HTTP %d; want it refused (4xx)", origin, res.Status)
		}
	}
}

func (b *battery) missingMeta(r reporter) {
	wantError(r, "no clientCapabilities in _meta", b.post(r, b.modern, h26("server/discover"),
		`{"jsonrpc":"2.0","id":31,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`),
		http.StatusBadRequest, codeParams, "31")
	wantError(r, "no _meta (with MCP-Protocol-Version: 2026-07-28)", b.post(r, b.modern, h26("server/discover"),
		`{"jsonrpc":"2.0","id":32,"method":"server/discover","params":{}}`),
		http.StatusBadRequest, codeParams, "32")
}

func (b *battery) methodNotFound2026(r reporter) {
	for _, m := range []string{"mcptest/no-such-method", "initialize", "ping", "logging/setLevel", "resources/subscribe"} {
		res := b.post(r, b.modern, h26(m), `{"jsonrpc":"2.0","id":41,"method":"`+m+`","params":{`+meta2026+`}}`)
		wantError(r, m+" (not a 2026-07-28 method)", res, http.StatusNotFound, codeMethod, "41")
	}
}

// listing is one list method and the member holding its items.
type listing struct{ capability, method, member string }

var listings = []listing{
	{"tools", "tools/list", "tools"},
	{"resources", "resources/list", "resources"},
	{"resources", "resources/templates/list", "resourceTemplates"},
	{"prompts", "prompts/list", "prompts"},
}

// listKey and listRead are a list read whole by one client.
type listKey struct {
	c      *Client
	method string
}
type listRead struct {
	items []json.RawMessage
	pages []*Response
}

// list follows a list's cursors (at most 100 pages) and returns its
// items and pages.
func (b *battery) list(r reporter, c *Client, l listing) (items []json.RawMessage, pages []*Response) {
	// A list read whole is read once per client: the checks that want it
	// again get the same pages, and a server's rate budget is not spent
	// on reading it again (a broken read is not kept: each check that
	// wants the list reports it).
	key := listKey{c, l.method}
	b.listMu.Lock()
	done, ok := b.lists[key]
	b.listMu.Unlock()
	if ok {
		return done.items, done.pages
	}
	cursor := ""
	seen := map[string]bool{}
	for range 100 {
		var p any
		if cursor != "" {
			p = map[string]string{"cursor": cursor}
		}
		res := b.call(r, c, l.method, p)
		if res.Error != nil || res.Result == nil {
			r.Fatalf("%s %s: %s; the server declares %s", c.Version(), l.method, describe(res), l.capability)
		}
		pages = append(pages, res)
		var page map[string]json.RawMessage
		if err := json.Unmarshal(res.Result, &page); err != nil {
			r.Fatalf("%s %s: the result is not an object: %s", c.Version(), l.method, truncate(res.Raw))
		}
		var got []json.RawMessage
		if err := json.Unmarshal(page[l.member], &got); err != nil || page[l.member] == nil {
			r.Fatalf("%s %s: no %q array: %s", c.Version(), l.method, l.member, truncate(res.Raw))
		}
		items = append(items, got...)
		cursor = ""
		if nc, ok := page["nextCursor"]; ok && string(nc) != "null" {
			if json.Unmarshal(nc, &cursor) != nil {
				r.Fatalf("%s %s: nextCursor %s is not a string", c.Version(), l.method, nc)
			}
		}
		if cursor == "" {
			b.listMu.Lock()
			if b.lists == nil {
				b.lists = map[listKey]listRead{}
			}
			b.lists[key] = listRead{items, pages}
			b.listMu.Unlock()
			return items, pages
		}
		if seen[cursor] {
			r.Fatalf("%s %s: nextCursor %q comes back, so a client following it never ends", c.Version(), l.method, cursor)
		}
		seen[cursor] = true
	}
	r.Errorf("%s %s: more than 100 pages", c.Version(), l.method)
	return items, pages
}

func (b *battery) lists2026(r reporter) {
	for _, l := range listings {
		if b.caps[l.capability] == nil {
			continue
		}
		items, pages := b.list(r, b.modern, l)
		if l.method == "resources/list" {
			b.readCacheable(r, items)
		}
		scope := ""
		for i, p := range pages {
			s := decodeCacheable(p.Result)
			for _, msg := range s.problems() {
				r.Errorf("%s page %d: %s", l.method, i+1, msg)
			}
			if i > 0 && s.CacheScope != scope {
				r.Errorf("%s: cacheScope %q on page %d, %q on page 1: every page of one list has the same", l.method, s.CacheScope, i+1, scope)
			}
			if i == 0 {
				scope = s.CacheScope
			}
		}
	}
}

// readCacheable reads the first listed resource: a complete
// ReadResourceResult is cacheable too (ttlMs and cacheScope). One that
// fails, or asks for input, is not judged here.
func (b *battery) readCacheable(r reporter, items []json.RawMessage) {
	for _, it := range items {
		var res struct {
			URI string `json:"uri"`
		}
		if json.Unmarshal(it, &res) != nil || res.URI == "" {
			continue // resources/list's to report
		}
		got, err := b.modern.ReadResource(b.ctx, res.URI)
		if unanswered(got, err) {
			r.Unansweredf("resources/read %s: %v", res.URI, err)
		}
		if got.Error != nil || got.Result == nil || got.ResultType() != "complete" {
			return
		}
		for _, p := range decodeCacheable(got.Result).problems() {
			r.Errorf("resources/read %s: %s", res.URI, p)
		}
		return
	}
}

const missingURI = "mcptest://no-such-resource"

func (b *battery) resourceNotFound2026(r reporter) {
	res, err := b.modern.ReadResource(b.ctx, missingURI)
	if unanswered(res, err) {
		r.Unansweredf("%v", err)
	}
	wantError(r, "resources/read of "+missingURI, res, 0, codeParams, anyID)
}

func (b *battery) resourceNotFound2025(r reporter) {
	res, err := b.legacy.ReadResource(b.ctx, missingURI)
	if unanswered(res, err) {
		r.Unansweredf("%v", err)
	}
	wantError(r, "resources/read of "+missingURI, res, 0, codeResourceMissing25, anyID)
}

func (b *battery) toolSchemas2026(r reporter) { b.toolSchemas(r, b.modern) }
func (b *battery) toolSchemas2025(r reporter) { b.toolSchemas(r, b.legacy) }

// toolSchemas compiles every listed tool's schemas (2020-12 unless a
// schema says otherwise).
func (b *battery) toolSchemas(r reporter, c *Client) {
	for _, tl := range b.tools(r, c) {
		for _, s := range []struct {
			name string
			doc  json.RawMessage
		}{{"inputSchema", tl.RawInput}, {"outputSchema", tl.OutputSchema}} {
			if s.doc == nil {
				continue
			}
			if _, err := schema.Compile(s.doc); err != nil {
				r.Errorf("tool %q: %s does not compile: %v", tl.Name, s.name, err)
			}
		}
	}
}

func (b *battery) inputRequired(r reporter) {
	var caps map[string]json.RawMessage
	c := b.client(mcp.Version20260728)
	_ = json.Unmarshal(c.caps, &caps)
	var interim []*Response
	c.observe = func(res *Response) {
		if res.ResultType() == "input_required" {
			interim = append(interim, res)
		}
	}
	methodCap := map[string]string{"elicitation/create": "elicitation", "sampling/createMessage": "sampling", "roots/list": "roots"}
	for _, tl := range b.tools(r, c) {
		args, ok := b.cfg.examples[tl.Name]
		if !ok || b.cfg.noExample[tl.Name] {
			continue
		}
		interim = interim[:0]
		res, err := c.CallTool(b.ctx, tl.Name, args)
		if err != nil {
			r.add(finding{text: fmt.Sprintf("tools/call %s: %v", tl.Name, err), fault: unanswered(res, err)})
			continue
		}
		for _, ir := range interim {
			var v struct {
				InputRequests map[string]InputRequest `json:"inputRequests"`
				RequestState  *string                 `json:"requestState"`
			}
			_ = json.Unmarshal(ir.Result, &v)
			if v.InputRequests == nil && v.RequestState == nil {
				r.Errorf("tools/call %s: input_required with neither inputRequests nor requestState", tl.Name)
			}
			for key, req := range v.InputRequests {
				need, known := methodCap[req.Method]
				switch {
				case !known:
					r.Errorf("tools/call %s: input request %q is %q, not elicitation/create, sampling/createMessage or roots/list", tl.Name, key, req.Method)
				case caps[need] == nil:
					r.Errorf("tools/call %s: input request %q needs the %s capability, which the client did not declare (%s)", tl.Name, key, need, c.caps)
				}
			}
		}
		if rt := res.ResultType(); res.Error == nil && rt != "complete" {
			r.Errorf("tools/call %s: ended with resultType %q after %d round(s); want complete (answer its input requests with WithAnswers in WithClientOptions)", tl.Name, rt, len(interim)+1)
		}
	}
}

// --- the 2025 handshake ---

func (b *battery) initialize(r reporter) {
	type initResult struct {
		ProtocolVersion *string         `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ServerInfo      *struct {
			Name    *string `json:"name"`
			Version *string `json:"version"`
		} `json:"serverInfo"`
	}
	send := func(v string) *Response {
		c := b.client(mcp.Version20250618)
		return b.call(r, c, "initialize", map[string]any{"protocolVersion": v, "capabilities": map[string]any{}, "clientInfo": map[string]string{"name": "mcptest", "version": "1"}})
	}
	ask := func(v string) (initResult, *Response) {
		res := send(v)
		var out initResult
		if res.Error != nil || json.Unmarshal(res.Result, &out) != nil || out.ProtocolVersion == nil {
			r.Fatalf("initialize asking %s: %s; want a result with the version to use", v, describe(res))
		}
		return out, res
	}
	first, res := ask("2025-06-18")
	if !bytes.HasPrefix(bytes.TrimSpace(first.Capabilities), []byte("{")) {
		r.Errorf("initialize: capabilities must be an object: %s", truncate(res.Raw))
	}
	if first.ServerInfo == nil || first.ServerInfo.Name == nil || first.ServerInfo.Version == nil {
		r.Errorf("initialize: serverInfo needs name and version: %s", truncate(res.Raw))
	}
	// An unknown version is answered with one the server supports, and a
	// version the server answered with is one it supports: asked back, it
	// comes back.
	offered := []string{*first.ProtocolVersion}
	// The rule says to answer an unknown version with one the server
	// supports; the same page's error-handling example answers it with a
	// -32602 error instead, so either passes.
	if res := send("2024-01-01"); res.Error == nil {
		var other initResult
		if json.Unmarshal(res.Result, &other) != nil || other.ProtocolVersion == nil {
			r.Fatalf("initialize asking 2024-01-01: %s; want a result with a version the server supports, or an error", describe(res))
		}
		offered = append(offered, *other.ProtocolVersion)
	}
	for _, v := range offered {
		if again, _ := ask(v); *again.ProtocolVersion != v {
			r.Errorf("initialize: the server offered %s, but asked for %s it answers %s (a supported version MUST be answered with the same)", v, v, *again.ProtocolVersion)
		}
	}
	// notifications/initialized follows; its acceptance is the
	// 2025-06-18/notification check.
}

func (b *battery) ping(r reporter) {
	res := b.post(r, b.legacy, h25(b.legacy), `{"jsonrpc":"2.0","id":51,"method":"ping"}`)
	if res.Error != nil || !emptyObject(res.Result) {
		r.Errorf("ping: %s; want an empty result {}", describe(res))
	}
	if !sameID("51", res.ID) {
		r.Errorf("ping: id %s, want 51", orNone(res.ID))
	}
}

func emptyObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return false
	}
	delete(m, "_meta") // a Result may carry _meta
	return len(m) == 0
}

func (b *battery) unknownMethodResponse(r reporter) *Response {
	return b.post(r, b.legacy, h25(b.legacy), `{"jsonrpc":"2.0","id":61,"method":"mcptest/no-such-method"}`)
}

func (b *battery) unknownMethod(r reporter) {
	res := b.unknownMethodResponse(r)
	if wantError(r, "an unknown method", res, 0, 0, "61") {
		if mt := mediaType(res.Header); mt != "application/json" && mt != "text/event-stream" {
			r.Errorf("an unknown method: Content-Type %q, want application/json or text/event-stream", res.Header.Get("Content-Type"))
		}
	}
}

func (b *battery) unknownMethodCode(r reporter) {
	wantError(r, "an unknown method", b.unknownMethodResponse(r), 0, codeMethod, anyID)
}

func (b *battery) unknownMethodInBand(r reporter) {
	wantError(r, "an unknown method", b.unknownMethodResponse(r), http.StatusOK, codeMethod, "61")
}

func (b *battery) unsupportedHeaderVersion(r reporter) {
	res := b.post(r, b.legacy, jsonHeaders("MCP-Protocol-Version", "1999-01-01"), `{"jsonrpc":"2.0","id":62,"method":"ping"}`)
	if res.Status != http.StatusBadRequest {
		r.Errorf("MCP-Protocol-Version: 1999-01-01: HTTP %d %s; want 400 Bad Request", res.Status, truncate(res.Raw))
	}
}

func (b *battery) unsupportedHeaderBody(r reporter) {
	res := b.post(r, b.legacy, jsonHeaders("MCP-Protocol-Version", "1999-01-01"), `{"jsonrpc":"2.0","id":62,"method":"ping"}`)
	if wantError(r, "MCP-Protocol-Version: 1999-01-01", res, http.StatusBadRequest, codeUnsupported, "62") {
		var data struct {
			Supported []string `json:"supported"`
		}
		if json.Unmarshal(res.Error.Data, &data) != nil || len(data.Supported) == 0 {
			r.Errorf("error data %s: want supported", orNone(res.Error.Data))
		}
	}
}

// batch0326 sends a batch of two requests as a 2025-03-26 client does (no
// MCP-Protocol-Version header, which that revision does not have), and
// again with the header for a server that otherwise assumes 2025-06-18;
// either way it must come back as an array of two responses.
func (b *battery) batch0326(r reporter) {
	body := `[{"jsonrpc":"2.0","id":71,"method":"ping"},{"jsonrpc":"2.0","id":"72","method":"ping"}]`
	var last *Response
	for _, h := range []http.Header{jsonHeaders(), jsonHeaders("MCP-Protocol-Version", "2025-03-26")} {
		res := b.post(r, b.legacy0326, h, body)
		last = res
		// One JSON array, or an event stream whose events carry the
		// responses (one each, or arrays).
		bodies := [][]byte{res.Raw}
		if mediaType(res.Header) == "text/event-stream" {
			bodies = events(res.Raw)
		}
		got := map[string]bool{}
		for _, raw := range bodies {
			var arr []struct {
				ID     json.RawMessage `json:"id"`
				Result json.RawMessage `json:"result"`
			}
			if json.Unmarshal(raw, &arr) != nil {
				arr = arr[:0]
				var one struct {
					ID     json.RawMessage `json:"id"`
					Result json.RawMessage `json:"result"`
				}
				if json.Unmarshal(raw, &one) != nil {
					continue
				}
				arr = append(arr, one)
			}
			for _, m := range arr {
				// Ids are compared as values: 71.0 answers 71, and
				// "\u0037\u0032" answers "72".
				switch {
				case m.Result == nil:
				case sameID("71", m.ID):
					got["71"] = true
				case sameID(`"72"`, m.ID):
					got["72"] = true
				}
			}
		}
		if got["71"] && got["72"] {
			return
		}
	}
	r.Errorf("a batch of two pings (without MCP-Protocol-Version, then with 2025-03-26): %s; want both responses (an array, or events)", describe(last))
}

// --- server features ---

// listedTool is a tool definition as tools/list sends it.
type listedTool struct {
	Name         string          `json:"name"`
	InputSchema  map[string]any  `json:"-"`
	RawInput     json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	Annotations  map[string]any  `json:"annotations"`
}

// toolsIfAny lists c's tools when the server declares tools and the list
// answers; nil otherwise (another check reports a broken list).
func (b *battery) toolsIfAny(c *Client) []listedTool {
	if b.caps["tools"] == nil {
		return nil
	}
	var out []listedTool
	func() {
		defer func() {
			if p := recover(); p != nil {
				if _, ok := p.(stop); !ok {
					panic(p)
				}
			}
		}()
		out = b.tools(&rep{}, c)
	}()
	return out
}

func (b *battery) tools(r reporter, c *Client) []listedTool {
	items, _ := b.list(r, c, listing{"tools", "tools/list", "tools"})
	out := make([]listedTool, 0, len(items))
	for _, it := range items {
		var tl listedTool
		if json.Unmarshal(it, &tl) != nil {
			r.Errorf("%s tools/list: a tool is not an object: %s", c.Version(), truncate(it))
			continue
		}
		_ = json.Unmarshal(tl.RawInput, &tl.InputSchema)
		out = append(out, tl)
	}
	return out
}

func (b *battery) toolsList(r reporter) {
	for _, c := range b.clients() {
		seen := map[string]bool{}
		for _, tl := range b.tools(r, c) {
			v := c.Version()
			if tl.Name == "" || seen[tl.Name] {
				r.Errorf("%s: tool name %q: every tool needs a name of its own", v, tl.Name)
			}
			seen[tl.Name] = true
			if tl.InputSchema == nil || tl.InputSchema["type"] != "object" {
				r.Errorf("%s: tool %q: inputSchema must be an object schema with type \"object\": %s", v, tl.Name, truncate(tl.RawInput))
			}
			for k, a := range tl.Annotations {
				switch k {
				case "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint":
					if _, ok := a.(bool); !ok {
						r.Errorf("%s: tool %q: annotation %s is %T (%v), want a boolean", v, tl.Name, k, a, a)
					}
				case "title":
					if _, ok := a.(string); !ok {
						r.Errorf("%s: tool %q: annotation title is %T, want a string", v, tl.Name, a)
					}
				}
			}
			if tl.OutputSchema != nil {
				var out map[string]any
				if json.Unmarshal(tl.OutputSchema, &out) != nil || out["type"] != "object" {
					r.Errorf("%s: tool %q: outputSchema must be an object schema with type \"object\"", v, tl.Name)
				}
			}
		}
	}
}

// toolAnswer is what one revision's client got for an unknown tool.
type toolAnswer struct {
	v   mcp.Version
	res *Response
}

func (b *battery) unknownToolResponses(r reporter) []toolAnswer {
	var out []toolAnswer
	for _, c := range b.clients() {
		res, err := c.CallTool(b.ctx, "mcptest_no_such_tool", map[string]any{})
		if unanswered(res, err) {
			r.Unansweredf("%s: %v", c.Version(), err)
		}
		out = append(out, toolAnswer{c.Version(), res})
	}
	return out
}

func (b *battery) unknownTool(r reporter) {
	for _, a := range b.unknownToolResponses(r) {
		if a.res.Error != nil {
			if len(a.res.ID) == 0 || string(a.res.ID) == "null" {
				r.Errorf("%s: an unknown tool: the error has no id (the request's was readable)", a.v)
			}
			continue
		}
		var v struct {
			IsError bool `json:"isError"`
		}
		if a.res.Result == nil || json.Unmarshal(a.res.Result, &v) != nil || !v.IsError {
			r.Errorf("%s: an unknown tool: %s; want a JSON-RPC error or a result with isError true", a.v, describe(a.res))
		}
	}
}

func (b *battery) unknownToolCode(r reporter) {
	for _, a := range b.unknownToolResponses(r) {
		if a.res.Error != nil {
			wantError(r, string(a.v)+" an unknown tool", a.res, 0, codeParams, anyID)
		}
	}
}

func (b *battery) unknownToolInBand(r reporter) {
	for _, a := range b.unknownToolResponses(r) {
		wantError(r, string(a.v)+" an unknown tool", a.res, http.StatusOK, codeParams, anyID)
	}
}

// readOnlyExamples calls every read-only tool with its example arguments.
func (b *battery) readOnlyExamples(r reporter) {
	for _, c := range b.clients() {
		listed := b.tools(r, c)
		names := map[string]bool{}
		for _, tl := range listed {
			names[tl.Name] = true
			if ro, _ := tl.Annotations["readOnlyHint"].(bool); !ro {
				continue
			}
			if b.cfg.noExample[tl.Name] {
				continue
			}
			args, ok := b.cfg.examples[tl.Name]
			if !ok {
				r.Errorf("read-only tool %q has no example arguments: give it one with WithToolExamples, or leave it out with SkipToolExamples", tl.Name)
				continue
			}
			b.callExample(r, c, tl, args)
		}
		for _, name := range slices.Sorted(maps.Keys(b.cfg.examples)) {
			if !names[name] && !b.cfg.noExample[name] {
				r.Errorf("%s: WithToolExamples names %q, which tools/list does not show", c.Version(), name)
			}
		}
	}
}

func (b *battery) callExample(r reporter, c *Client, tl listedTool, args any) {
	v := c.Version()
	res, err := c.CallTool(b.ctx, tl.Name, args)
	switch {
	case err != nil:
		// no "<nil>" for a response there is none of
		r.add(finding{text: fmt.Sprintf("%s %s: %v", v, tl.Name, err), fault: unanswered(res, err)})
		return
	case res.Error != nil:
		r.Errorf("%s %s: %s", v, tl.Name, describe(res))
		return
	}
	if rt := res.ResultType(); rt == "input_required" {
		r.Errorf("%s %s: ended input_required: answer its input requests with WithAnswers in WithClientOptions", v, tl.Name)
		return
	}
	var out struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		IsError           bool            `json:"isError"`
	}
	if err := json.Unmarshal(res.Result, &out); err != nil {
		r.Errorf("%s %s: result is not a CallToolResult: %s", v, tl.Name, truncate(res.Raw))
		return
	}
	if out.IsError {
		r.Errorf("%s %s answered isError: %s (a route refusing the in-process identity, or the wrong route, answers like this; a server's log may say more)",
			v, tl.Name, truncate(res.Result))
		return
	}
	if tl.OutputSchema == nil {
		return
	}
	data := out.StructuredContent
	if data == nil {
		if v.Compare(mcp.Version20250618) >= 0 {
			r.Errorf("%s %s: no structuredContent though the tool has an outputSchema", v, tl.Name)
			return
		}
		if len(out.Content) == 1 && out.Content[0].Type == "text" {
			data = json.RawMessage(out.Content[0].Text) // 2025-03-26 has no structuredContent
		}
	}
	s, err := schema.Compile(tl.OutputSchema)
	if err != nil {
		r.Errorf("%s %s: outputSchema does not compile: %v", v, tl.Name, err)
		return
	}
	var doc any
	err = jsonrpc.Validate(data, jsonrpc.DefaultMaxDepth)
	if err == nil {
		doc, err = schema.Decode(data, 0)
	}
	if err != nil {
		r.Errorf("%s %s: the result is not the JSON its outputSchema describes: %s", v, tl.Name, truncate(data))
		return
	}
	if violations := s.Validate(doc, 10); violations != nil {
		r.Errorf("%s %s: the result does not match its outputSchema:\n  %s\nresult: %s", v, tl.Name, strings.Join(violations, "\n  "), truncate(data))
	}
}

func (b *battery) resourcesList(r reporter) {
	for _, c := range b.clients() {
		items, _ := b.list(r, c, listings[1])
		for _, it := range items {
			var res struct {
				URI  *string `json:"uri"`
				Name *string `json:"name"`
			}
			if json.Unmarshal(it, &res) != nil || res.URI == nil || res.Name == nil {
				r.Errorf("%s resources/list: a resource needs uri and name: %s", c.Version(), truncate(it))
			}
		}
		items, _ = b.list(r, c, listings[2])
		for _, it := range items {
			var t struct {
				URITemplate *string `json:"uriTemplate"`
				Name        *string `json:"name"`
			}
			if json.Unmarshal(it, &t) != nil || t.URITemplate == nil || t.Name == nil {
				r.Errorf("%s resources/templates/list: a template needs uriTemplate and name: %s", c.Version(), truncate(it))
			}
		}
	}
}

func (b *battery) promptsList(r reporter) {
	for _, c := range b.clients() {
		items, _ := b.list(r, c, listings[3])
		for _, it := range items {
			var p struct {
				Name      *string `json:"name"`
				Arguments []struct {
					Name *string `json:"name"`
				} `json:"arguments"`
			}
			if json.Unmarshal(it, &p) != nil || p.Name == nil {
				r.Errorf("%s prompts/list: a prompt needs a name: %s", c.Version(), truncate(it))
				continue
			}
			for _, a := range p.Arguments {
				if a.Name == nil {
					r.Errorf("%s prompts/list: prompt %q: an argument needs a name", c.Version(), *p.Name)
				}
			}
		}
	}
}

func (b *battery) unknownPrompt(r reporter) {
	for _, c := range b.clients() {
		res, err := c.GetPrompt(b.ctx, "mcptest_no_such_prompt", nil)
		if unanswered(res, err) {
			r.Unansweredf("%v", err)
		}
		wantError(r, string(c.Version())+" an unknown prompt", res, 0, codeParams, anyID)
	}
}

func (b *battery) invalidCursor(r reporter) {
	for _, c := range b.clients() {
		res := b.call(r, c, "tools/list", map[string]string{"cursor": "mcptest-not-a-cursor"})
		wantError(r, string(c.Version())+" tools/list with a cursor the server never gave", res, 0, codeParams, anyID)
	}
}
