package mcp

import (
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
)

// place lays a call's arguments out as the route's request. It returns a
// message for the model instead when an argument cannot be placed in the
// path safely.
func (t *tool) place(call *Call) (inner, string) {
	args := call.args
	path, values, bad := t.route.Fill(func(name string) (string, bool) {
		v, _ := jsonrpc.Lookup(args, name)
		return scalarText(v)
	})
	if bad != "" {
		return inner{}, "Invalid argument " + bad + ": it must be a non-empty string, number or boolean naming one item"
	}
	var body []byte
	var query string
	contentType := "application/json"
	p := t.opts.placement
	hasBody := t.route.Method != http.MethodGet && t.route.Method != http.MethodHead
	switch {
	case p == nil && hasBody && t.route.Method != http.MethodDelete:
		body = t.bodyOf(args)
	case p == nil, !hasBody:
		query = t.query(args, t.inQuery)
	case p.Body != "":
		query = t.query(args, func(name string) bool { return !t.pathParams[name] && name != p.Body })
		if v, ok := jsonrpc.Lookup(args, p.Body); ok {
			body = v
		}
	case p.Form:
		query = t.query(args, t.queryArgs.has)
		body, contentType = []byte(t.query(args, t.inBody)), formType
	default:
		query = t.query(args, t.queryArgs.has)
		body = t.bodyOf(args)
	}
	return inner{pattern: t.route.Text, method: t.route.Method, path: path, query: query, body: body, contentType: contentType, values: values}, ""
}

const formType = "application/x-www-form-urlencoded"

// inQuery is the default rule: every argument that is not a wildcard.
func (t *tool) inQuery(name string) bool { return !t.pathParams[name] }

func (s nameSet) has(name string) bool { return s[name] }

// inBody: every argument placed neither in the path nor in the query.
func (t *tool) inBody(name string) bool { return !t.pathParams[name] && !t.queryArgs[name] }

// query renders the arguments include admits as a query string (or form
// body), sorted by name. Arrays repeat the key; objects are sent as JSON
// text; null is left out.
func (t *tool) query(args []byte, include func(name string) bool) string {
	q := url.Values{}
	it := jsonrpc.NewIter(args)
	for {
		k, v, ok := it.Next()
		if !ok {
			break
		}
		name := string(k)
		if !include(name) {
			continue
		}
		switch v[0] {
		case 'n':
		case '[':
			var arr []json.RawMessage
			_ = json.Unmarshal(v, &arr)
			for _, item := range arr {
				q.Add(name, queryText(item))
			}
		default:
			q.Add(name, queryText(v))
		}
	}
	return q.Encode() // sorted by key
}

func queryText(v []byte) string {
	if s, ok := jsonrpc.String(v); ok {
		return s
	}
	return string(v)
}

// bodyOf returns the arguments minus the path wildcards and query
// arguments as a JSON object.
func (t *tool) bodyOf(args []byte) []byte {
	if len(t.pathParams) == 0 && len(t.queryArgs) == 0 {
		return args
	}
	out := []byte{'{'}
	it := jsonrpc.NewIter(args)
	for {
		k, v, ok := it.Next()
		if !ok {
			break
		}
		if !t.inBody(string(k)) {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = appendString(out, string(k))
		out = append(out, ':')
		out = append(out, v...)
	}
	return append(out, '}')
}
