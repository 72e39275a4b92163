// Command githubcheck registers GitHub's whole OpenAPI document (the npm
// package @octokit/openapi, api.github.com.json) with default options, as
// .ci/openapi-github.sh runs it. A document nobody here wrote, and the
// largest public one at hand, it checks what design record 023 asks of the
// package:
//
//	githubcheck -measure -spec api.github.com.json
//
// registers once and prints how long Register took and the process's
// peak resident memory so far (VmHWM, Linux), and
//
//	githubcheck -spec api.github.com.json -form testdata/thirdparty-3.0.yaml
//
// checks that at least 1,200 tools are made, lists the skipped
// operations with their reasons, and makes a sample of calls in MCP
// 2026-07-28 and 2025-06-18 (path, query and JSON body arguments across
// the API; GitHub has no form bodies, so form calls use the form
// operation of the -form document) whose requests must reach a recording
// backend exactly: method, escaped path, query and body, computed here
// from the document itself, not from what Register made. It also prints
// the confirmation question of a few DELETE operations.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/mcptest"
	"github.com/mcpdual/mcpdual/mcp/openapi"
)

func main() {
	specPath := flag.String("spec", "", "GitHub's OpenAPI document (api.github.com.json)")
	formPath := flag.String("form", "", "a document with a form-body operation (issues/add-label)")
	measure := flag.Bool("measure", false, "register once and print the time and peak memory")
	flag.Parse()
	if err := run(*specPath, *formPath, *measure); err != nil {
		fmt.Fprintln(os.Stderr, "githubcheck:", err)
		os.Exit(1)
	}
}

// register reads the document and registers it, as a host does at
// startup: the document's bytes are the host's to drop once Register has
// read them, and are not kept here either.
func register(specPath string, srv *mcp.Server, h http.Handler) (*openapi.Report, time.Duration, time.Duration, error) {
	spec, err := os.ReadFile(specPath)
	if err != nil {
		return nil, 0, 0, err
	}
	start, cpu := time.Now(), cpuTime()
	report, err := openapi.Register(srv, spec, h)
	return report, time.Since(start), cpuTime() - cpu, err
}

// cpuTime is the CPU time the process has used (user and system, every
// thread). On a busy machine it says what Register costs when the wall
// time says mostly how long it waited for a processor.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

func run(specPath, formPath string, measure bool) error {
	rec := &recorder{}
	srv := mcp.NewServer(mcp.Implementation{Name: "github", Version: "1"})
	report, elapsed, cpu, err := register(specPath, srv, rec)
	if err != nil {
		return err
	}
	if measure {
		fmt.Printf("register_ms=%d cpu_ms=%d peak_rss_kb=%d tools=%d\n", elapsed.Milliseconds(), cpu.Milliseconds(), peakRSS(), len(report.Tools))
		return nil
	}
	if len(report.Tools) < 1200 {
		return fmt.Errorf("%d tools, want at least 1200", len(report.Tools))
	}
	fmt.Printf("%d tools; skipped:\n", len(report.Tools))
	for _, s := range report.Skipped {
		fmt.Printf("  %s (%s): %s\n", s.Operation, s.OperationID, s.Reason)
	}
	byName := map[string]openapi.Registered{}
	for _, t := range report.Tools {
		byName[t.Name] = t
	}

	spec, err := os.ReadFile(specPath)
	if err != nil {
		return err
	}
	var doc map[string]any
	if err := json.Unmarshal(spec, &doc); err != nil {
		return err
	}
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()})
	list, err := listTools(h)
	if err != nil {
		return err
	}
	calls := sample(doc, report, list)

	if formPath != "" {
		fc, err := formCalls(formPath, rec)
		if err != nil {
			return err
		}
		calls = append(calls, fc...)
	}
	kinds := map[string]int{}
	for _, c := range calls {
		kinds[c.kind]++
	}
	fmt.Printf("%d calls: %d path, %d query, %d body, %d form\n", len(calls), kinds["path"], kinds["query"], kinds["body"], kinds["form"])
	if len(calls) < 30 || kinds["path"] == 0 || kinds["query"] == 0 || kinds["body"] == 0 || (formPath != "" && kinds["form"] == 0) {
		return fmt.Errorf("the sample is too small: %v", kinds)
	}
	failed := 0
	for _, v := range []mcp.Version{mcp.Version20260728, mcp.Version20250618} {
		for _, c := range calls {
			var handler http.Handler = h
			if c.handler != nil {
				handler = c.handler
			}
			got, err := rec.call(handler, v, c.tool, c.args)
			if err != nil {
				fmt.Printf("FAIL %s %s %s: %v\n", v, c.tool, c.args, err)
				failed++
				continue
			}
			if got != c.want {
				fmt.Printf("FAIL %s %s %s:\n  sent %s\n  want %s\n", v, c.tool, c.args, got, c.want)
				failed++
			}
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d calls did not reach the backend as the document says", failed)
	}
	fmt.Printf("all %d calls reached the backend exactly in 2026-07-28 and 2025-06-18\n", len(calls))
	return confirmations(h, report)
}

// peakRSS reads the process's peak resident set size, in kB.
func peakRSS() int {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return n
		}
	}
	return -1
}

// recorder is the backend: it answers every request with what it
// received, as a tool result (so no output schema applies).
type recorder struct {
	mu   sync.Mutex
	last string
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	seen := req.Method + " " + req.URL.EscapedPath() + "?" + req.URL.RawQuery + " " + req.Header.Get("Content-Type") + " " + string(body)
	r.mu.Lock()
	r.last = seen
	r.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"content": []map[string]string{{"type": "text", "text": seen}}})
	w.Header().Set("Content-Type", mcp.ToolResultMediaType)
	w.Write(b)
}

func (r *recorder) call(h http.Handler, v mcp.Version, tool string, args json.RawMessage) (string, error) {
	c := mcptest.New(h, v)
	resp, err := c.CallTool(context.Background(), tool, args)
	if err != nil {
		return "", err
	}
	if resp.Error != nil {
		return "", resp.Error
	}
	var res struct {
		Content []struct{ Text string } `json:"content"`
		IsError bool                    `json:"isError"`
	}
	if err := json.Unmarshal(resp.Result, &res); err != nil || len(res.Content) == 0 {
		return "", fmt.Errorf("result %s", resp.Result)
	}
	if res.IsError {
		return "", fmt.Errorf("isError: %s", res.Content[0].Text)
	}
	return res.Content[0].Text, nil
}

type tool struct {
	Name        string          `json:"name"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Annotations struct {
		Destructive bool `json:"destructiveHint"`
		ReadOnly    bool `json:"readOnlyHint"`
	} `json:"annotations"`
}

func listTools(h http.Handler) (map[string]tool, error) {
	c := mcptest.New(h, mcp.Version20250618)
	out := map[string]tool{}
	var cursor any
	for range 1000 {
		var params any
		if cursor != nil {
			params = map[string]any{"cursor": cursor}
		}
		r, err := c.Call(context.Background(), "tools/list", params)
		if err != nil {
			return nil, err
		}
		if r.Error != nil {
			return nil, r.Error
		}
		if len(r.Result) > 1<<20 {
			return nil, fmt.Errorf("a tools/list page is %d bytes, over 1 MiB", len(r.Result))
		}
		var page struct {
			Tools      []tool `json:"tools"`
			NextCursor string `json:"nextCursor"`
		}
		if err := json.Unmarshal(r.Result, &page); err != nil {
			return nil, err
		}
		for _, t := range page.Tools {
			out[t.Name] = t
		}
		if page.NextCursor == "" {
			return out, nil
		}
		cursor = page.NextCursor
	}
	return nil, fmt.Errorf("tools/list does not end")
}

type call struct {
	kind, tool string
	args       json.RawMessage
	want       string
	handler    http.Handler
}

// param is what the document says of one parameter.
type param struct {
	name, in string
	schema   map[string]any
	required bool
}

// resolve follows a local $ref of the GitHub document.
func resolve(doc map[string]any, v any) map[string]any {
	m, _ := v.(map[string]any)
	for range 10 {
		ref, ok := m["$ref"].(string)
		if !ok {
			return m
		}
		var cur any = doc
		for _, tok := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			cm, _ := cur.(map[string]any)
			cur = cm[tok]
		}
		m, _ = cur.(map[string]any)
	}
	return m
}

// value makes an argument a schema accepts, or reports that it will not
// try (a pattern, a format, an object...). Strings carry a space and a
// slash, which the path and the query must escape.
func value(doc map[string]any, s map[string]any, name string) (any, bool) {
	s = resolve(doc, s)
	if s == nil {
		return nil, false
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		if _, isString := e[0].(string); isString {
			return e[0], true
		}
		return nil, false
	}
	if _, ok := s["pattern"]; ok {
		return nil, false
	}
	if _, ok := s["format"]; ok {
		return nil, false
	}
	typ := s["type"]
	if alts, ok := s["oneOf"].([]any); ok && typ == nil && len(alts) > 0 {
		typ = resolve(doc, alts[0])["type"]
	}
	switch typ {
	case "string":
		return "v " + name + "/1", true
	case "integer":
		return 7, true
	case "boolean":
		return true, true
	}
	return nil, false
}

func (p param) text(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	}
	return fmt.Sprint(v)
}

// sample picks calls spread over the API, and what the backend must see
// for each, from the document.
func sample(doc map[string]any, report *openapi.Report, list map[string]tool) []call {
	paths, _ := doc["paths"].(map[string]any)
	var out []call
	want := map[string]int{"path": 10, "query": 9, "body": 9}
	for i, t := range report.Tools {
		if i%7 != 0 { // spread over the document
			continue
		}
		lt := list[t.Name]
		if lt.Annotations.Destructive {
			continue // confirmed; see confirmations
		}
		method, path, _ := strings.Cut(t.Operation, " ")
		item := resolve(doc, paths[path])
		op, _ := item[strings.ToLower(method)].(map[string]any)
		if op == nil {
			continue
		}
		var params []param
		seen := map[string]bool{}
		for _, list := range []any{op["parameters"], item["parameters"]} {
			arr, _ := list.([]any)
			for _, raw := range arr {
				p := resolve(doc, raw)
				name, _ := p["name"].(string)
				in, _ := p["in"].(string)
				if seen[in+name] {
					continue
				}
				seen[in+name] = true
				sch, _ := p["schema"].(map[string]any)
				req, _ := p["required"].(bool)
				params = append(params, param{name, in, sch, req})
			}
		}
		var body map[string]any
		if rb := resolve(doc, op["requestBody"]); rb != nil {
			content, _ := rb["content"].(map[string]any)
			mt, _ := content["application/json"].(map[string]any)
			body = resolve(doc, mt["schema"])
			if body == nil || body["type"] != "object" || body["properties"] == nil {
				continue // a whole-body argument: not sampled
			}
			plain := true
			for k := range body {
				switch k {
				case "type", "properties", "required", "additionalProperties", "title", "description", "examples", "example", "deprecated":
				default:
					plain = false // anyOf, nullable...: sent as one "body" argument
				}
			}
			if !plain {
				continue
			}
		}
		kind := "path"
		switch {
		case body != nil:
			kind = "body"
		case slices.ContainsFunc(params, func(p param) bool { return p.in == "query" }):
			kind = "query"
		}
		if want[kind] == 0 {
			continue
		}
		c, ok := makeCall(doc, t.Name, method, path, params, body, kind)
		if !ok {
			continue
		}
		want[kind]--
		out = append(out, c)
	}
	return out
}

// addMember appends k and v to the JSON object being written in b, after
// its '{' and any members before.
func addMember(b *bytes.Buffer, k string, v any) {
	if b.Len() > 1 {
		b.WriteByte(',')
	}
	kb, _ := json.Marshal(k)
	vb, _ := json.Marshal(v)
	b.Write(kb)
	b.WriteByte(':')
	b.Write(vb)
}

func makeCall(doc map[string]any, name, method, path string, params []param, body map[string]any, kind string) (call, bool) {
	var args bytes.Buffer
	args.WriteByte('{')
	route := path
	query := url.Values{}
	pathNames := map[string]bool{}
	for _, p := range params {
		switch p.in {
		case "path":
			v, ok := value(doc, p.schema, p.name)
			if !ok {
				return call{}, false
			}
			addMember(&args, p.name, v)
			route = strings.Replace(route, "{"+p.name+"}", url.PathEscape(p.text(v)), 1)
			pathNames[p.name] = true
		case "query":
			v, ok := value(doc, p.schema, p.name)
			if !ok {
				if p.required {
					return call{}, false
				}
				continue
			}
			addMember(&args, p.name, v)
			query.Add(p.name, p.text(v))
		default:
			if p.required {
				return call{}, false
			}
		}
	}
	ctype, sent := "", ""
	if body != nil {
		props, _ := body["properties"].(map[string]any)
		required, _ := body["required"].([]any)
		var b bytes.Buffer
		b.WriteByte('{')
		var names []string
		for _, r := range required {
			names = append(names, r.(string))
		}
		if len(names) == 0 { // one optional property, so the body says something
			keys := make([]string, 0, len(props))
			for k := range props {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				if _, ok := value(doc, asMap(props[k]), k); ok && !pathNames[k] && !readOnly(doc, props[k]) {
					names = append(names, k)
					break
				}
			}
		}
		if len(names) == 0 {
			return call{}, false
		}
		for _, k := range names {
			if pathNames[k] || readOnly(doc, props[k]) {
				return call{}, false
			}
			v, ok := value(doc, asMap(props[k]), k)
			if !ok {
				return call{}, false
			}
			addMember(&args, k, v)
			addMember(&b, k, v)
		}
		b.WriteByte('}')
		ctype, sent = "application/json", b.String()
	}
	args.WriteByte('}')
	return call{kind: kind, tool: name, args: json.RawMessage(args.String()),
		want: method + " " + route + "?" + query.Encode() + " " + ctype + " " + sent}, true
}

func asMap(v any) map[string]any { m, _ := v.(map[string]any); return m }

func readOnly(doc map[string]any, v any) bool {
	ro, _ := resolve(doc, v)["readOnly"].(bool)
	return ro
}

// formCalls registers the form document and makes its form calls: a body
// property named like a path parameter goes back to its name in the form.
func formCalls(path string, rec *recorder) ([]call, error) {
	spec, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	srv := mcp.NewServer(mcp.Implementation{Name: "form", Version: "1"})
	if _, err := openapi.Register(srv, spec, rec); err != nil {
		return nil, err
	}
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()})
	return []call{
		{kind: "form", tool: "issues_add-label", args: json.RawMessage(`{"owner":"o 1","repo":"r/2","body_repo":"x y","color":"red"}`),
			want: "POST /repos/o%201/r%2F2/labels? application/x-www-form-urlencoded color=red&repo=x+y", handler: h},
		{kind: "form", tool: "issues_add-label", args: json.RawMessage(`{"owner":"o","repo":"r","color":"blue & green"}`),
			want: "POST /repos/o/r/labels? application/x-www-form-urlencoded color=blue+%26+green", handler: h},
	}, nil
}

// confirmations prints the question a user is asked before a few DELETE
// operations run, from a 2026-07-28 client that accepts.
func confirmations(h http.Handler, report *openapi.Report) error {
	var asked []string
	c := mcptest.New(h, mcp.Version20260728,
		mcptest.WithCapabilities(json.RawMessage(`{"elicitation":{}}`)),
		mcptest.WithAnswers(func(_ string, req mcptest.InputRequest) (json.RawMessage, bool) {
			var p struct{ Message string }
			_ = json.Unmarshal(req.Params, &p)
			asked = append(asked, p.Message)
			return json.RawMessage(`{"action":"accept","content":{"confirm":true}}`), true
		}))
	for _, tc := range []struct{ tool, args string }{
		{"repos_delete", `{"owner":"octocat","repo":"hello-world"}`},
		{"issues_delete-comment", `{"owner":"octocat","repo":"hello-world","comment_id":42}`},
		{"actions_delete-workflow-run", `{"owner":"octocat","repo":"hello-world","run_id":7}`},
	} {
		r, err := c.CallTool(context.Background(), tc.tool, json.RawMessage(tc.args))
		if err != nil || r.Error != nil {
			return fmt.Errorf("%s: %v %s", tc.tool, err, r.Raw)
		}
	}
	if len(asked) != 3 {
		return fmt.Errorf("asked %d confirmations, want 3", len(asked))
	}
	fmt.Println("confirmation questions:")
	for _, q := range asked {
		fmt.Println("  " + q)
	}
	return nil
}
