package openapi

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpdual/mcpdual/mcp"
)

// toolRoute stands between the library and the host's handler for a tool
// that needs more than the library's placement of arguments: body
// properties renamed because a parameter has their name go back to their
// own name, and the answer is checked against the document's output
// schema as WithOutputSchemas says. Tools that need neither are served by
// the host's handler directly.
type toolRoute struct {
	h        http.Handler
	tool     string
	op       string            // "GET /path", for the model's message
	renames  map[string]string // argument -> body property
	form     bool
	noBody   bool   // the operation has no request body: none is sent
	bodyType string // the body's media type when not application/json (see tool.bodyType)
	// How query parameters and form fields are re-encoded (see rule).
	queryRules, formRules map[string]rule

	mode   OutputMode
	output []byte // the output schema, compiled on first use
	once   sync.Once
	schema *outputSchema
	logged sync.Once
}

// maxAnswer bounds the answer held for the output check; a longer one is
// refused whole, with a message that says so.
const maxAnswer = 16 << 20

func (tr *toolRoute) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var args map[string]json.RawMessage
	if hasDeep(tr.queryRules) || hasDeep(tr.formRules) {
		// Only a deepObject value is read from the arguments as sent: no
		// other call decodes them a second time.
		args = arguments(r)
	}
	if (len(tr.renames) > 0 || len(tr.formRules) > 0) && r.Body != nil {
		if bad := tr.rename(r, args); bad != "" {
			writeResult(w, nil, nil, true, bad)
			return
		}
	}
	if len(tr.queryRules) > 0 {
		q, err := url.ParseQuery(r.URL.RawQuery)
		if err == nil {
			if bad := reencode(q, tr.queryRules, args, nil); bad != "" {
				writeResult(w, nil, nil, true, bad)
				return
			}
			r.URL.RawQuery = q.Encode()
			r.RequestURI = r.URL.RequestURI()
		}
	}
	if tr.bodyType != "" && !tr.noBody && r.Header.Get("Content-Type") == "application/json" {
		r.Header.Set("Content-Type", tr.bodyType)
	}
	if tr.noBody {
		// The library sends the arguments left over as a JSON object
		// ("{}" when there are none) on a POST, PUT or PATCH; an
		// operation the document gives no body gets none.
		r.Body, r.ContentLength = http.NoBody, 0
		r.Header.Del("Content-Type")
		r.Header.Del("Content-Length")
	}
	if tr.output == nil || !declared(r) {
		tr.h.ServeHTTP(w, r)
		return
	}
	rec := &answer{header: http.Header{}}
	tr.h.ServeHTTP(rec, r)
	status := rec.status
	if status == 0 {
		status = http.StatusOK
	}
	mt, _, _ := mime.ParseMediaType(rec.header.Get("Content-Type"))
	if rec.over {
		writeResult(w, nil, nil, true, "The answer of "+tr.op+" was too large to be checked against the API's OpenAPI document.")
		return
	}
	if status < 200 || status > 299 || status == http.StatusAccepted || mt == mcp.ToolResultMediaType || !(mt == "application/json" || strings.HasSuffix(mt, "+json")) {
		// Not an answer the document describes (an error, a 202 the
		// library may read as a task, or a result the host wrote for MCP
		// itself): the library reads it as usual.
		rec.copyTo(w, status)
		return
	}
	body := bytes.TrimRight(rec.buf.Bytes(), "\r\n")
	violations := tr.check(body)
	if violations == nil {
		writeResult(w, body, body, false, "")
		return
	}
	tr.logged.Do(func() {
		slog.Default().Warn("openapi: the API's answer does not match the output schema of its document",
			"tool", tr.tool, "operation", tr.op, "violations", violations)
	})
	if tr.mode == OutputLenient {
		writeResult(w, body, nil, false, "Note: this answer of "+tr.op+" does not match the output schema of the API's OpenAPI document; it is shown as received, without structured content.")
		return
	}
	writeResult(w, nil, nil, true, "The answer of "+tr.op+" did not match the output schema of the API's OpenAPI document, so it is not shown. The API may have changed; retrying will not help.")
}

// declared reports whether the call's revision declares output schemas:
// a 2025-03-26 client was never told of one, and gets the answer as the
// library gives it, unchecked, as before.
func declared(r *http.Request) bool {
	call := mcp.CallFromContext(r.Context())
	return call == nil || call.ProtocolVersion().Compare(mcp.Version20250618) >= 0
}

// check validates an answer, returning its violations (nil when it
// matches).
func (tr *toolRoute) check(body []byte) []string {
	tr.once.Do(func() {
		// AddTool compiled the same schema without error; this copy is
		// the one the check uses, made when a call first needs it so that
		// registering a large document does not compile every schema
		// twice.
		tr.schema, _ = compileOutput(tr.output)
	})
	if tr.schema == nil {
		if !json.Valid(body) {
			return []string{errNotJSON.Error()}
		}
		return nil
	}
	violations, err := tr.schema.validate(body, 10)
	if err != nil {
		return []string{err.Error()}
	}
	return violations
}

// writeResult answers with a CallToolResult the library passes on as is:
// the answer's text, its structured content, and a note or error text.
func writeResult(w http.ResponseWriter, text, structured []byte, isError bool, note string) {
	var b bytes.Buffer
	b.WriteString(`{"content":[`)
	sep := ""
	for _, s := range [][]byte{text, []byte(note)} {
		if len(s) == 0 {
			continue
		}
		b.WriteString(sep + `{"type":"text","text":`)
		enc, _ := json.Marshal(string(s))
		b.Write(enc)
		b.WriteString(`}`)
		sep = ","
	}
	b.WriteString(`]`)
	if structured != nil {
		b.WriteString(`,"structuredContent":`)
		_ = json.Compact(&b, structured)
	}
	if isError {
		b.WriteString(`,"isError":true`)
	}
	b.WriteString(`}`)
	w.Header().Set("Content-Type", mcp.ToolResultMediaType)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b.Bytes())
}

// hasDeep reports whether rules bracket some value (deepObject).
func hasDeep(rules map[string]rule) bool {
	for _, how := range rules {
		if how == deepObject || how == deepArray {
			return true
		}
	}
	return false
}

// arguments returns the call's arguments by name, as the client sent
// them (nil when the request is not a tool call's).
func arguments(r *http.Request) map[string]json.RawMessage {
	call := mcp.CallFromContext(r.Context())
	if call == nil {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(call.Arguments(), &m) != nil {
		return nil
	}
	return m
}

// reencode turns the values the library sent (arrays as repeated keys,
// objects as JSON text) into what each rule says. A deepObject or
// deepArray value is read from the argument as the client sent it (args,
// by argument name; argOf maps a field to its argument, nil: the same
// name): sent as text, a string that reads as JSON would become
// structure the schema never allowed. It returns why a value cannot be
// sent, "" when all can: an item of an array joined by a delimiter must
// not hold the delimiter, which would make it several items.
func reencode(q url.Values, rules map[string]rule, args map[string]json.RawMessage, argOf map[string]string) string {
	left := maxBracketed
	tooLong := func(arg string) string {
		return "The argument " + arg + " cannot be sent: bracketed as this API's deepObject parameter, it makes a query of more than " +
			strconv.Itoa(maxBracketed>>20) + " MiB; send fewer or shorter values."
	}
	for name, how := range rules {
		vals, ok := q[name]
		if !ok {
			continue
		}
		arg := name
		if a, ok := argOf[name]; ok {
			arg = a
		}
		switch how {
		case deepObject, deepArray:
			if raw, ok := args[arg]; ok {
				var decoded any
				dec := json.NewDecoder(bytes.NewReader(raw))
				dec.UseNumber()
				if dec.Decode(&decoded) == nil {
					delete(q, name)
					if !brackets(q, name, decoded, &left) {
						return tooLong(arg)
					}
					continue
				}
			}
			delete(q, name)
			for i, v := range vals {
				prefix := name
				if how == deepArray {
					prefix += "[" + strconv.Itoa(i) + "]"
				}
				var decoded any
				dec := json.NewDecoder(strings.NewReader(v))
				dec.UseNumber()
				if (strings.HasPrefix(v, "{") || strings.HasPrefix(v, "[")) && dec.Decode(&decoded) == nil {
					if !brackets(q, prefix, decoded, &left) {
						return tooLong(arg)
					}
				} else {
					q.Add(prefix, v)
				}
			}
		default:
			for _, v := range vals {
				if strings.Contains(v, string(how)) {
					return "The argument " + arg + " cannot be sent: an item holds " + strconv.Quote(string(how)) +
						", which separates the items of " + name + " in this API; send items without it."
				}
			}
			q[name] = []string{strings.Join(vals, string(how))}
		}
	}
	return ""
}

// maxBracketed bounds the names and values brackets builds for one
// call's query (or form): each value's name repeats every key above it,
// so a long key above many values multiplied them, and 37 KB of
// arguments (one key of 32 KiB over 2,000 numbers) made 617 MB and a
// 65 MB query. 1 MiB is what net/http reads of a request's header, its
// URL included, by default: no API reads a longer query.
const maxBracketed = 1 << 20

// brackets adds v under prefix as deepObject does: prefix[key]=value,
// prefix[key][0]=value for arrays, nested as deep as v is. Every name it
// builds and value it adds is taken from *left; it stops, reporting
// false, before one would take more than is left.
func brackets(q url.Values, prefix string, v any, left *int) bool {
	spend := func(n int) bool {
		if n > *left {
			return false
		}
		*left -= n
		return true
	}
	switch v := v.(type) {
	case map[string]any:
		for k, item := range v {
			if !spend(len(prefix)+len(k)+2) || !brackets(q, prefix+"["+k+"]", item, left) {
				return false
			}
		}
	case []any:
		for i, item := range v {
			index := strconv.Itoa(i)
			if !spend(len(prefix)+len(index)+2) || !brackets(q, prefix+"["+index+"]", item, left) {
				return false
			}
		}
	case string:
		if !spend(len(prefix) + len(v)) {
			return false
		}
		q.Add(prefix, v)
	case json.Number:
		if !spend(len(prefix) + len(v)) {
			return false
		}
		q.Add(prefix, v.String())
	case bool:
		if !spend(len(prefix) + 5) {
			return false
		}
		q.Add(prefix, strconv.FormatBool(v))
	}
	// null: left out, as the library leaves out a null argument.
	return true
}

// rename puts renamed body properties back under their own names, and
// re-encodes form fields; it returns why a field cannot be sent ("": it
// can).
func (tr *toolRoute) rename(r *http.Request, args map[string]json.RawMessage) (bad string) {
	raw, err := io.ReadAll(r.Body)
	_ = r.Body.Close()
	if err != nil {
		raw = nil
	}
	if tr.form {
		vals, err := url.ParseQuery(string(raw))
		if err == nil {
			argOf := map[string]string{}
			for arg, prop := range tr.renames {
				argOf[prop] = arg
				if v, ok := vals[arg]; ok {
					delete(vals, arg)
					vals[prop] = v
				}
			}
			if bad = reencode(vals, tr.formRules, args, argOf); bad != "" {
				return bad
			}
			raw = []byte(vals.Encode())
		}
	} else if len(tr.renames) > 0 {
		var obj []jsonMember
		if obj, err = members(raw); err == nil {
			var b bytes.Buffer
			b.WriteByte('{')
			for i, m := range obj {
				if i > 0 {
					b.WriteByte(',')
				}
				key := m.key
				if prop, ok := tr.renames[key]; ok {
					key = prop
				}
				b.Write(encodeString(key))
				b.WriteByte(':')
				b.Write(m.val)
			}
			b.WriteByte('}')
			raw = b.Bytes()
		}
	}
	r.Body = io.NopCloser(bytes.NewReader(raw))
	r.ContentLength = int64(len(raw))
	r.Header.Set("Content-Length", strconv.Itoa(len(raw)))
	return ""
}

type jsonMember struct {
	key string
	val json.RawMessage
}

// members reads a JSON object's members in order.
func members(raw []byte) ([]jsonMember, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	var out []jsonMember
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, jsonMember{key: k.(string), val: v})
	}
	return out, nil
}

// answer records the host's answer for the output check.
type answer struct {
	header http.Header
	status int
	buf    bytes.Buffer
	over   bool
}

func (a *answer) Header() http.Header { return a.header }

func (a *answer) WriteHeader(code int) {
	if a.status == 0 {
		a.status = code
	}
}

func (a *answer) Write(p []byte) (int, error) {
	if a.status == 0 {
		a.status = http.StatusOK
	}
	if a.over || a.buf.Len()+len(p) > maxAnswer {
		a.over = true
		return len(p), nil // dropped: the answer is refused whole
	}
	return a.buf.Write(p)
}

// copyTo passes the answer on unchanged.
func (a *answer) copyTo(w http.ResponseWriter, status int) {
	for k, v := range a.header {
		w.Header()[k] = v
	}
	w.WriteHeader(status)
	_, _ = w.Write(a.buf.Bytes())
}
