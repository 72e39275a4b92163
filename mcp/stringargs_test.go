package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/content"
)

// TestStringArguments_OnlyDeclaredKept: prompts/get's arguments and
// completion/complete's context.arguments keep only the names the prompt
// or template declares. Every member must still be a string (-32602
// otherwise), but a map of them all cost 18 times the body, an entry and
// a string a member, for 1 MiB of names nothing declares: now about the
// body read, whatever the count, in every revision (context from
// 2025-06-18 on), counted in bytes and objects allocated, never in time.
// A completion source is given the item's other arguments only, as its
// doc says: a prompt's, or a template's variables.
func TestStringArguments_OnlyDeclaredKept(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "args", Version: "1"})
	keys := func(args map[string]string) string {
		var ks []string
		for k, v := range args {
			ks = append(ks, k+"="+v)
		}
		slices.Sort(ks)
		return strings.Join(ks, ",")
	}
	seen := func(ctx context.Context, value string, args map[string]string) ([]string, error) {
		return []string{keys(args)}, nil
	}
	srv.AddPrompt(mcp.Prompt{Name: "pick", Arguments: []mcp.PromptArgument{{Name: "n"}, {Name: "m"}}},
		func(ctx context.Context, args map[string]string) (*mcp.PromptResult, error) {
			return &mcp.PromptResult{Messages: []mcp.PromptMessage{{Role: content.User, Content: content.Text(keys(args))}}}, nil
		}, mcp.WithCompletion("n", seen))
	mcp.AddTemplateFunc(srv, mcp.ResourceTemplate{URITemplate: "notes://{folder}/{id}", Name: "note"},
		func(ctx context.Context, v struct {
			Folder string `json:"folder"`
			ID     string `json:"id"`
		}) (string, error) {
			return v.Folder, nil
		}, mcp.WithCompletion("id", seen))
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()})
	url := newTestServer(t, h)

	var b strings.Builder
	for i := 0; b.Len() < 1<<20-4_000; i++ {
		b.WriteString(`"k` + strconv.Itoa(i) + `":"",`)
	}
	undeclared := b.String() // about 1 MiB of string members no item declares
	cases := []struct {
		name, method, params string
		contextFrom          mcp.Version // the first revision that reads it ("": every revision)
		want                 string      // in the result
	}{
		{"prompt arguments", "prompts/get", `"name":"pick","arguments":{` + undeclared + `"m":"2","n":"1"}`, "",
			`"messages":[{"role":"user","content":{"type":"text","text":"m=2,n=1"}}]`},
		{"a prompt's completion context", "completion/complete", `"ref":{"type":"ref/prompt","name":"pick"},"argument":{"name":"n","value":""},` +
			`"context":{"arguments":{` + undeclared + `"m":"2","folder":"f"}}`, mcp.Version20250618, `"values":["m=2"]`},
		{"a template's completion context", "completion/complete", `"ref":{"type":"ref/resource","uri":"notes://{folder}/{id}"},"argument":{"name":"id","value":""},` +
			`"context":{"arguments":{` + undeclared + `"m":"2","folder":"f"}}`, mcp.Version20250618, `"values":["folder=f"]`},
	}
	for _, era := range eras {
		for _, tc := range cases {
			t.Run(string(era)+"/"+tc.name, func(t *testing.T) {
				want := tc.want
				if tc.contextFrom != "" && era < tc.contextFrom {
					want = `"values":[""]` // the revision has no context: none is read
				}
				c := call{era: era, id: "1", method: tc.method, params: tc.params}
				body := c.body()
				if len(body) > 1<<20 {
					t.Fatalf("body %d bytes: over the limit", len(body))
				}
				hdr := headersFor(c)
				if era == mcp.Version20260728 && tc.method == "prompts/get" {
					hdr.Set("Mcp-Name", "pick")
				}
				req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
				req.Header = hdr.Clone()
				r := send(t, req)
				if r.status != 200 || r.msg.Error != nil || !strings.Contains(string(r.msg.Result), want) {
					t.Fatalf("%d %.300s; want a result holding %s", r.status, r.raw, want)
				}
				rec, bytes, objects := servedAllocations(h, hdr, body)
				if rec.Code != 200 || !strings.Contains(rec.Body.String(), want) {
					t.Errorf("in process: %d %.300s", rec.Code, rec.Body.String())
				}
				// The body, the scan's names, and what any request costs.
				if bytes > uint64(6*len(body)) || objects > 1_000 {
					t.Errorf("a %d-byte request allocated %d bytes, %d objects; want at most 6 times the body and 1,000 objects", len(body), bytes, objects)
				}
			})
		}
	}
	// Every member must still be a string, declared or not.
	for _, era := range eras {
		c := call{era: era, id: "1", method: "prompts/get", params: `"name":"pick","arguments":{"n":"1","other":1}`}
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(c.body()))
		req.Header = headersFor(c)
		if era == mcp.Version20260728 {
			req.Header.Set("Mcp-Name", "pick")
		}
		r := send(t, req)
		var data json.RawMessage
		if r.msg.Error != nil {
			data = r.msg.Error.Data
		}
		if r.code() != -32602 || r.msg.Error.Message != "Invalid params: arguments must be an object of strings" || data != nil {
			t.Errorf("%s: an undeclared number: %d %s", era, r.status, r.raw)
		}
	}
}
