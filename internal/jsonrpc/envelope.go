package jsonrpc

import (
	"bytes"
	"strconv"
)

// Message is a parsed JSON-RPC request or notification. Its byte slices
// alias the body it was parsed from.
type Message struct {
	// ID is the id exactly as it appeared on the wire (a JSON string or an
	// integer literal), so it can be echoed byte for byte. Nil for a
	// notification.
	ID []byte
	// Method is the decoded method name.
	Method string
	// Params is the raw params object, or nil when params was absent.
	Params []byte
}

// IsNotification reports whether the message carries no id.
func (m *Message) IsNotification() bool { return m.ID == nil }

// envelopeMembers are the member names JSON-RPC gives meaning to. A member
// that differs from one of them only in case is refused: a lenient decoder
// somewhere else (encoding/json matches case-insensitively) would read it as
// the real one.
var envelopeMembers = []string{"jsonrpc", "id", "method", "params", "result", "error"}

// Parse scans body once, strictly (see Validate), and returns the request
// or notification it holds. Every failure is an *Error.
func Parse(body []byte, maxDepth int) (*Message, *Error) {
	m := new(Message)
	if err := ParseInto(body, maxDepth, m); err != nil {
		return nil, err
	}
	return m, nil
}

// knownMethod returns the method name b spells when it is one a message
// is most likely to carry, so that ParseInto hands out this string instead
// of allocating a copy; "" for any other.
func knownMethod(b []byte) string {
	switch string(b) { // compiled to comparisons: no allocation, no hashing
	case "initialize":
		return "initialize"
	case "notifications/initialized":
		return "notifications/initialized"
	case "ping":
		return "ping"
	case "server/discover":
		return "server/discover"
	case "tools/list":
		return "tools/list"
	case "tools/call":
		return "tools/call"
	case "resources/list":
		return "resources/list"
	case "resources/templates/list":
		return "resources/templates/list"
	case "resources/read":
		return "resources/read"
	case "prompts/list":
		return "prompts/list"
	case "prompts/get":
		return "prompts/get"
	case "completion/complete":
		return "completion/complete"
	case "tasks/get":
		return "tasks/get"
	case "tasks/update":
		return "tasks/update"
	case "tasks/cancel":
		return "tasks/cancel"
	case "notifications/cancelled":
		return "notifications/cancelled"
	case "notifications/progress":
		return "notifications/progress"
	}
	return ""
}

// ParseInto is Parse into a Message the caller provides; on error m is
// left partly filled.
func ParseInto(body []byte, maxDepth int, m *Message) *Error {
	return ParseIndexed(body, maxDepth, m, nil, "", nil)
}

// ParseIndexed is ParseInto that also indexes, during its one scan, the
// members of params into params and those of the object params names sub
// into subIndex (MCP's _meta), so that lookups in them walk no byte again.
// Either index is done only when the message has that object; one that is
// not is left for Index.Build. On error neither is to be read: one may
// hold the members of the refused body (seam.Request.Parse clears both).
func ParseIndexed(body []byte, maxDepth int, m *Message, params *Index, sub string, subIndex *Index) *Error {
	s := getScanner(body, maxDepth)
	defer putScanner(s)
	for _, x := range [...]*Index{params, subIndex} {
		if x != nil {
			x.done = false // the scan fills it, and says when it is done
		}
	}
	s.params, s.subName, s.sub = params, sub, subIndex
	if err := s.run(); err != nil {
		return err
	}
	first := 0
	for first < len(body) && isWS(body[first]) {
		first++
	}
	switch body[first] {
	case '{':
	case '[':
		return &Error{Kind: Invalid, Reason: "batch", Message: "Invalid Request: batch requests are not supported"}
	default:
		return &Error{Kind: Invalid, Reason: "not_object", Message: "Invalid Request: the message must be a JSON object"}
	}
	*m = Message{}
	var (
		version, method               []byte
		hasResult, hasError, hasParam bool
	)
	for _, mb := range s.root {
		key, value := s.name(mb.key), body[mb.v0:mb.v1]
		switch string(key) {
		case "jsonrpc":
			version = value
		case "id":
			m.ID = value
		case "method":
			method = value
		case "params":
			m.Params = value
			hasParam = true
		case "result":
			hasResult = true
		case "error":
			hasError = true
		default:
			if v := caseVariant(key, envelopeMembers); v != "" {
				return &Error{Kind: Invalid, Reason: "case_variant", Message: "Invalid Request: member " + quoteShort(key) + " differs from " + strconv.Quote(v) + " only in case"}
			}
		}
	}
	// The id is judged first: every later error can then echo it.
	if m.ID != nil {
		if reason := CheckID(m.ID); reason != "" {
			return &Error{Kind: Invalid, Reason: "invalid_id", Message: "Invalid Request: " + reason}
		}
	}
	fail := func(k Kind, reason, msg string) *Error {
		return &Error{Kind: k, Reason: reason, Message: msg, ID: m.ID}
	}
	if !bytes.Equal(version, []byte(`"2.0"`)) {
		return fail(Invalid, "invalid_jsonrpc", `Invalid Request: "jsonrpc" must be "2.0"`)
	}
	if method == nil {
		if hasResult || hasError {
			return fail(Invalid, "unexpected_response", "Invalid Request: this endpoint accepts no JSON-RPC responses")
		}
		return fail(Invalid, "missing_method", `Invalid Request: "method" is required`)
	}
	if hasResult || hasError {
		return fail(Invalid, "invalid_envelope", `Invalid Request: a request cannot carry "result" or "error"`)
	}
	if len(method) < 2 || method[0] != '"' {
		return fail(Invalid, "invalid_method", `Invalid Request: "method" must be a string`)
	}
	if m.Method = knownMethod(method[1 : len(method)-1]); m.Method == "" {
		// Any other name is decoded (one that matched holds no escape).
		var ok bool
		if m.Method, ok = String(method); !ok {
			return fail(Invalid, "invalid_method", `Invalid Request: "method" must be a string`)
		}
	}
	if hasParam && (len(m.Params) == 0 || m.Params[0] != '{') {
		return fail(Params, "invalid_params", `Invalid params: "params" must be an object`)
	}
	return nil
}

// CheckID returns why raw is not an acceptable id, or "": a string or
// an integer literal of at most 256 bytes. MCP progress tokens follow the
// same rule.
func CheckID(raw []byte) string {
	if len(raw) > MaxIDBytes {
		return "id is too long"
	}
	switch c := raw[0]; {
	case c == '"':
		return ""
	case c == '-' || (c >= '0' && c <= '9'):
		for _, b := range raw[1:] {
			if b < '0' || b > '9' {
				return "id must be a string or an integer"
			}
		}
		if c == '-' && len(raw) == 1 {
			return "id must be a string or an integer"
		}
		return ""
	default:
		return "id must be a string or an integer"
	}
}

func caseVariant(key []byte, known []string) string {
	for _, k := range known {
		// Unicode folds change the length (ſ is two bytes, s one; the
		// Kelvin sign three): only an ASCII name of another length is
		// certainly no variant.
		if (len(k) == len(key) || !isASCII(key)) && string(key) != k && bytes.EqualFold(key, []byte(k)) {
			return k
		}
	}
	return ""
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// CaseVariant returns the name of known that key imitates: equal to it
// but for letter case, and not equal. "" when none.
func CaseVariant(key []byte, known []string) string { return caseVariant(key, known) }

// MemberCaseVariant finds, among an object's members, one whose name
// differs from one of known only in letter case: it returns that name and
// the one it imitates.
func MemberCaseVariant(members []Member, known []string) (got, want string, found bool) {
	for _, m := range members {
		if v := caseVariant(m.Key, known); v != "" {
			return string(m.Key), v, true
		}
	}
	return "", "", false
}

func quoteShort(b []byte) string { return QuoteName(string(b)) }

// QuoteName renders a member name taken from a request for an error
// message: quoted, at most 64 bytes, printable ASCII only (anything else
// becomes '?'), so a message never carries more than a short, inert name.
func QuoteName(s string) string {
	if len(s) > 64 {
		s = s[:64]
	}
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			b = append(b, c)
		} else {
			b = append(b, '?')
		}
	}
	return string(append(b, '"'))
}

func isWS(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
