package mcptest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"

	"github.com/mcpdual/mcpdual/mcp"
)

// The rows of the wire's own rules. Every exchange any check makes passes
// through the battery's inspect (Client.inspect), which files what breaks
// one of these rules under its row; the rows run last and report it, so a
// server cannot answer one check well formed and another not.
const (
	rowJSONRPC    = "wire/jsonrpc"
	rowID         = "wire/id"
	rowRedirect   = "wire/redirect"
	rowResult     = "schema/result"
	rowContent    = "schema/content"
	rowTool       = "schema/tool"
	rowResultType = "2026-07-28/result-type"
	rowNoRequests = "2026-07-28/no-server-requests"
)

const (
	srcEnvelope   = "JSON-RPC 2.0 §5 Response object (jsonrpc \"2.0\"; exactly one of result and error; error code an integer, message a string); schema.ts JSONRPCResponse; a request is answered with a response (2025-06-18 Transports, Sending messages to the server)"
	srcWireID     = "JSON-RPC 2.0 §5 Response object, id: the same value as the request's; null or absent only when it could not be read (-32700, -32600) or for an HTTP refusal sent before the message is read (401, 403, 413, 429, 503)"
	srcRedirect   = "2025-06-18 Transports, Sending messages to the server: a request is answered application/json or text/event-stream, not redirected (FollowRedirects / mcpcheck -follow follow one to the same origin, never to another)"
	srcResult     = "schema.ts of the revision: the result of each method (InitializeResult, DiscoverResult, List*Result, CallToolResult, ReadResourceResult, GetPromptResult), its members and their types; MetaObject: _meta an object, its keys' grammar, typed reserved keys"
	srcContent    = "schema.ts of the revision, ContentBlock: type one of the revision's kinds, with that kind's required members (TextContent, ImageContent, AudioContent, ResourceLink, EmbeddedResource), Annotations"
	srcTool       = "schema.ts of the revision, Tool: name, inputSchema {type: \"object\", properties?: { [key: string]: object }, required?: string[]}, ToolAnnotations, Icon; every subschema an object, never a boolean"
	srcResultType = "2026-07-28 schema.ts Result.resultType: servers implementing this protocol version MUST include this field (a string; \"complete\" or \"input_required\" unless an extension adds one)"
	srcNoRequests = "2026-07-28 Streamable HTTP: the server MUST NOT send JSON-RPC requests on a response stream; Base protocol, Message patterns: servers MUST NOT initiate JSON-RPC requests (they ask with input_required)"
)

// wireRows are the rows whose findings inspect files, in table order.
var wireRows = []check{
	{rowJSONRPC, Must, srcEnvelope, "", always, wireReport(rowJSONRPC)},
	{rowID, Must, srcWireID, "", always, wireReport(rowID)},
	{rowRedirect, Must, srcRedirect, "", always, wireReport(rowRedirect)},
	{rowResult, Must, srcResult, "", always, wireReport(rowResult)},
	{rowContent, Must, srcContent, "", always, wireReport(rowContent)},
	{rowTool, Must, srcTool, "", capability("tools", always), wireReport(rowTool)},
	{rowResultType, Must, srcResultType, "2026-07-28", only2026, wireReport(rowResultType)},
	{rowNoRequests, Must, srcNoRequests, "2026-07-28", only2026, wireReport(rowNoRequests)},
}

// maxPerRow bounds what one row reports: the first findings say what is
// wrong, a thousand more of the same say nothing new.
const maxPerRow = 20

// wire is what inspect found, per row.
type wire struct {
	mu sync.Mutex
	// found and more hold a row's findings by the deviation that excuses
	// them (0: none), each kind capped on its own: findings a deviation
	// excuses never crowd out, nor stand for, ones it does not.
	found map[rowDev][]finding
	more  map[rowDev]int
	// moreAlso: the other deviations that match a finding past the cap
	// (finding.also), which no line shows.
	moreAlso map[rowDev][]int
	seen     map[string]bool
	read     map[string]bool // "revision method" of every result inspected
	// excuse says which deviations match a row's finding (their indexes
	// plus one, the first excusing it; none for none); nil when none is
	// declared.
	excuse func(row, msg string) []int
}

// rowDev is a row and a deviation of it (0: none).
type rowDev struct {
	row string
	dev int
}

func (w *wire) sawResult(rev mcp.Version, method string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.read == nil {
		w.read = map[string]bool{}
	}
	w.read[string(rev)+" "+method] = true
}

func (w *wire) hasRead(rev mcp.Version, method string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.read[string(rev)+" "+method]
}

func (w *wire) add(row, msg string) { w.file(row, msg, false) }

// unanswered files what got no answer to judge (a body past the kit's
// bound): as a check's fault is, it is never excused, whatever phrase a
// deviation of the row names.
func (w *wire) unanswered(row, msg string) { w.file(row, msg, true) }

func (w *wire) file(row, msg string, fault bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.found == nil {
		w.found, w.more, w.moreAlso, w.seen = map[rowDev][]finding{}, map[rowDev]int{}, map[rowDev][]int{}, map[string]bool{}
	}
	if w.seen[row+"\x00"+msg] {
		return
	}
	w.seen[row+"\x00"+msg] = true
	k := rowDev{row: row}
	f := finding{text: msg, judged: true, fault: fault}
	if w.excuse != nil && !fault {
		if m := w.excuse(row, msg); len(m) > 0 {
			k.dev, f.dev, f.also = m[0], m[0], m[1:]
		}
	}
	if len(w.found[k]) >= maxPerRow {
		w.more[k]++
		for _, d := range f.also {
			if !slices.Contains(w.moreAlso[k], d) {
				w.moreAlso[k] = append(w.moreAlso[k], d)
			}
		}
		return
	}
	w.found[k] = append(w.found[k], f)
}

// report returns what was filed under row: the findings no deviation
// excuses first, then each deviation's, each past the cap summed up as
// "and N more" ("containing" the deviation's phrase for excused ones).
func (w *wire) report(row string, phrase func(dev int) string) []finding {
	w.mu.Lock()
	defer w.mu.Unlock()
	var devs []int
	for k := range w.found {
		if k.row == row {
			devs = append(devs, k.dev)
		}
	}
	slices.Sort(devs)
	var out []finding
	for _, dev := range devs {
		k := rowDev{row, dev}
		out = append(out, w.found[k]...)
		if n := w.more[k]; n > 0 {
			text := fmt.Sprintf("and %d more", n)
			if dev > 0 {
				text += fmt.Sprintf(" containing %q", phrase(dev))
			}
			out = append(out, finding{text: text, dev: dev, also: w.moreAlso[k], n: n, judged: true})
		}
	}
	return out
}

// reportText is report as text, whatever excuses it.
func (w *wire) reportText(row string) []string {
	var out []string
	for _, f := range w.report(row, func(int) string { return "" }) {
		out = append(out, f.text)
	}
	return out
}

// wireReport is the run of a wire row: it makes sure every list the
// server declares was read at least once in every revision served (a
// Skip of the checks that read them must not hide a malformed list), then
// reports what inspect filed under the row.
func wireReport(row string) func(b *battery, r reporter) {
	return func(b *battery, r reporter) {
		b.surveyOnce.Do(b.survey)
		for _, f := range b.wire.report(row, func(dev int) string { return b.cfg.deviations[dev-1].finding }) {
			r.add(f)
		}
	}
}

// survey reads every list the server declares, in every revision served,
// and pings the 2025 ones, for inspect to see, unless a check already
// read it (a server's rate budget is not spent twice); failures are the
// other checks' to report.
func (b *battery) survey() {
	for _, c := range b.clients() {
		for _, l := range listings {
			if b.caps[l.capability] == nil || b.wire.hasRead(c.Version(), l.method) {
				continue
			}
			func() {
				defer func() { _ = recover() }() // a stop, or worse: the rows report what was seen
				b.list(&rep{}, c, l)
			}()
		}
		if c != b.modern && !b.wire.hasRead(c.Version(), "ping") {
			_, _ = c.Call(b.ctx, "ping", nil)
		}
	}
}

// inspect checks one exchange of any client of the battery against the
// wire's rules and the revision's shapes.
func (b *battery) inspect(c *Client, sent []byte, h http.Header, res *Response, err error) {
	w := &b.wire
	if res == nil {
		return // no answer: the check that sent it reports the error
	}
	trimmed := bytes.TrimSpace(sent)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		return // batches are the batch checks' own
	}
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Meta struct {
				Version string `json:"io.modelcontextprotocol/protocolVersion"`
			} `json:"_meta"`
		} `json:"params"`
	}
	readable := json.Unmarshal(sent, &req) == nil
	what := req.Method
	if what == "" {
		what = "a request"
	}
	rev := mcp.Version(h.Get("MCP-Protocol-Version"))
	if rev == "" {
		rev = mcp.Version(req.Params.Meta.Version)
	}
	if rev == "" {
		rev = c.Version()
	}
	what = string(rev) + " " + what
	if res.Status/100 == 3 {
		loc := res.Header.Get("Location")
		if loc == "" {
			loc = "(no Location)"
		}
		w.add(rowRedirect, fmt.Sprintf("%s: HTTP %d redirect to %s, not followed%s", what, res.Status, loc, redirectNote(c, loc)))
		return
	}
	if errors.Is(err, errTooLarge) {
		w.unanswered(rowJSONRPC, fmt.Sprintf("%s: %v", what, err))
		return
	}
	request := readable && len(req.ID) > 0 && string(req.ID) != "null" && req.Method != ""
	if len(bytes.TrimSpace(res.dangling)) > 0 {
		w.add(rowJSONRPC, fmt.Sprintf("%s: HTTP %d, the event stream ends inside its last event (no blank line after its data), which a client discards unread: %s", what, res.Status, truncate(res.dangling)))
	}
	answered := false
	for _, m := range res.msgs {
		if len(bytes.TrimSpace(m)) == 0 {
			continue
		}
		var msg map[string]json.RawMessage
		if json.Unmarshal(m, &msg) != nil {
			if res.Status/100 == 2 {
				w.add(rowJSONRPC, fmt.Sprintf("%s: HTTP %d with a body that is not a JSON-RPC message: %s", what, res.Status, truncate(m)))
			}
			continue
		}
		result, hasResult := msg["result"]
		errObj, hasError := msg["error"]
		_, hasMethod := msg["method"]
		_, hasVersion := msg["jsonrpc"]
		if !hasResult && !hasError && !hasMethod {
			if res.Status/100 == 2 || hasVersion {
				w.add(rowJSONRPC, fmt.Sprintf("%s: HTTP %d with an object that is neither a response nor a request: %s", what, res.Status, truncate(m)))
			}
			continue // an HTTP error with a JSON body of its own, such as a proxy's
		}
		if string(msg["jsonrpc"]) != `"2.0"` {
			w.add(rowJSONRPC, fmt.Sprintf("%s: a message with jsonrpc %s, want \"2.0\": %s", what, orNone(msg["jsonrpc"]), truncate(m)))
		}
		if hasMethod && !hasResult && !hasError {
			// A notification of the server's, on a stream; or a request,
			// which 2025 revisions allow there and 2026-07-28 does not.
			if id := bytes.TrimSpace(msg["id"]); len(id) > 0 && string(id) != "null" && rev.Compare(mcp.Version20260728) >= 0 {
				w.add(rowNoRequests, fmt.Sprintf("%s: the server sent a request (method %s, id %s) on the response's stream: %s", what, msg["method"], id, truncate(m)))
			}
			continue
		}
		answered = true
		if hasResult && hasError {
			w.add(rowJSONRPC, fmt.Sprintf("%s: a response with both result and error: %s", what, truncate(m)))
		}
		code, codeOK := errorCode(errObj)
		if hasError && !codeOK {
			w.add(rowJSONRPC, fmt.Sprintf("%s: error %s, want an object with an integer code and a string message", what, truncate(errObj)))
		}
		b.checkID(what, readable, req.ID, msg["id"], res.Status, hasError && codeOK, code)
		if hasResult && !hasError && request {
			w.sawResult(rev, req.Method)
			checkResult(w, rev, req.Method, result)
		}
	}
	if request && !answered && res.Status/100 == 2 {
		w.add(rowJSONRPC, fmt.Sprintf("%s: HTTP %d without a JSON-RPC response: %s", what, res.Status, truncate(res.Raw)))
	}
}

func redirectNote(c *Client, loc string) string {
	if !c.follow {
		return " (the kit follows none; FollowRedirects, mcpcheck -follow, follows one to the same origin)"
	}
	return " (another origin, or more than 5 hops: never followed, so that the body and headers stay with the endpoint)"
}

// errorCode reads a JSON-RPC error's code; ok says the error object is
// well formed (an integer code, -32602.0 too, and a string message).
func errorCode(raw json.RawMessage) (code int64, ok bool) {
	var e struct {
		Code    *json.Number `json:"code"`
		Message *string      `json:"message"`
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if d.Decode(&e) != nil || e.Code == nil || e.Message == nil {
		return 0, false
	}
	return integer(*e.Code)
}

// idlessRefusals are the HTTP statuses a server (or what stands in front
// of it) may send before it reads the message, and so without its id.
var idlessRefusals = []int{http.StatusUnauthorized, http.StatusForbidden, http.StatusRequestEntityTooLarge, http.StatusTooManyRequests, http.StatusServiceUnavailable}

func (b *battery) checkID(what string, readable bool, sent, got json.RawMessage, status int, isError bool, code int64) {
	none := len(bytes.TrimSpace(got)) == 0 || string(bytes.TrimSpace(got)) == "null"
	switch {
	case !readable:
		// The kit sent something that is not JSON on purpose: the id
		// cannot have been read.
		if !none {
			b.wire.add(rowID, fmt.Sprintf("%s: id %s in the answer to a message whose id cannot be read (it MUST be null)", what, got))
		}
	case len(sent) == 0 || string(sent) == "null":
		// A notification: no response is due (the notification checks
		// judge what came back).
	case sameID(string(bytes.TrimSpace(sent)), got):
	case none && isError && (code == codeParse || code == codeInvalidRequest):
	case none && slices.Contains(idlessRefusals, status):
	case none:
		b.wire.add(rowID, fmt.Sprintf("%s (id %s): answered HTTP %d without its id", what, bytes.TrimSpace(sent), status))
	default:
		b.wire.add(rowID, fmt.Sprintf("%s: id %s answered with id %s", what, bytes.TrimSpace(sent), bytes.TrimSpace(got)))
	}
}
