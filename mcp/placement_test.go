package mcp_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
)

// TestPlacement checks where WithPlacement puts each argument, in every
// era, over HTTP: the route reports the method, path, query, content type
// and body it received.
func TestPlacement(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	report := func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		b, _ := json.Marshal(map[string]string{
			"method": r.Method, "path": r.URL.EscapedPath(), "query": r.URL.RawQuery,
			"type": r.Header.Get("Content-Type"), "body": string(body), "id": r.PathValue("id"),
		})
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	}
	mux.HandleFunc("POST /orders/{id}/notes", report)
	mux.HandleFunc("PUT /orders/{id}/tags", report)
	mux.HandleFunc("PATCH /orders/{id}", report)
	mux.HandleFunc("GET /orders/{id}", report)

	schema := json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"},"dryRun":{"type":"boolean"},"lang":{"type":"string"},
		"text":{"type":"string"},"tags":{"type":"array","items":{"type":"string"}}},"required":["id"]}`)
	srv := mcp.NewServer(mcp.Implementation{Name: "placement", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "notes_add", InputSchema: schema}, "POST /orders/{id}/notes", mux,
		mcp.WithPlacement(mcp.Placement{Query: []string{"dryRun", "lang"}}))
	srv.AddTool(mcp.Tool{Name: "tags_set", InputSchema: schema}, "PUT /orders/{id}/tags", mux,
		mcp.WithPlacement(mcp.Placement{Body: "tags"}))
	srv.AddTool(mcp.Tool{Name: "order_patch", InputSchema: schema}, "PATCH /orders/{id}", mux,
		mcp.WithPlacement(mcp.Placement{Query: []string{"dryRun"}, Form: true}))
	srv.AddTool(mcp.Tool{Name: "order_get", InputSchema: schema}, "GET /orders/{id}", mux,
		mcp.WithPlacement(mcp.Placement{Query: []string{"lang"}}))
	url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}))
	f := &fixture{url: url}

	args := `{"id":"o/1","dryRun":true,"lang":"en","text":"a&b","tags":["x","y z"]}`
	tests := []struct {
		tool string
		want map[string]string
	}{
		{"notes_add", map[string]string{"method": "POST", "path": "/orders/o%2F1/notes", "query": "dryRun=true&lang=en",
			"type": "application/json", "body": `{"tags":["x","y z"],"text":"a&b"}`, "id": "o/1"}},
		{"tags_set", map[string]string{"method": "PUT", "path": "/orders/o%2F1/tags", "query": "dryRun=true&lang=en&text=a%26b",
			"type": "application/json", "body": `["x","y z"]`, "id": "o/1"}},
		{"order_patch", map[string]string{"method": "PATCH", "path": "/orders/o%2F1", "query": "dryRun=true",
			"type": "application/x-www-form-urlencoded", "body": "lang=en&tags=x&tags=y+z&text=a%26b", "id": "o/1"}},
		{"order_get", map[string]string{"method": "GET", "path": "/orders/o%2F1", "query": "dryRun=true&lang=en&tags=x&tags=y+z&text=a%26b",
			"type": "", "body": "", "id": "o/1"}},
	}
	for _, era := range eras {
		for _, tc := range tests {
			t.Run(string(era)+"/"+tc.tool, func(t *testing.T) {
				_, res := callTool(t, f, era, tc.tool, args)
				var got map[string]string
				if err := json.Unmarshal([]byte(text(res)), &got); err != nil {
					t.Fatalf("%v: %v", res, err)
				}
				// The route's JSON body keeps the arguments' order as sent
				// minus the ones placed elsewhere; compare it as JSON.
				if strings.HasPrefix(got["body"], "{") {
					var g, w any
					json.Unmarshal([]byte(got["body"]), &g)
					json.Unmarshal([]byte(tc.want["body"]), &w)
					if diff := cmp.Diff(w, g); diff != "" {
						t.Errorf("body (-want +got):\n%s", diff)
					}
					got["body"] = tc.want["body"]
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("route saw (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestPlacement_Misuse(t *testing.T) {
	t.Parallel()
	h := http.NotFoundHandler()
	schema := json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"},"b":{"type":"string"}},"required":["id"]}`)
	for name, tc := range map[string]struct {
		route string
		p     mcp.Placement
		want  string
	}{
		"unknown query":     {"POST /x/{id}", mcp.Placement{Query: []string{"nope"}}, `Placement.Query "nope"`},
		"wildcard in query": {"POST /x/{id}", mcp.Placement{Query: []string{"id"}}, `Placement.Query "id"`},
		"unknown body":      {"POST /x/{id}", mcp.Placement{Body: "nope"}, `Placement.Body "nope"`},
		"body on GET":       {"GET /x/{id}", mcp.Placement{Body: "b"}, "need a route whose method has a body"},
		"form on HEAD":      {"HEAD /x/{id}", mcp.Placement{Form: true}, "need a route whose method has a body"},
		"body and form":     {"POST /x/{id}", mcp.Placement{Body: "b", Form: true}, "exclude each other"},
		"body in query":     {"POST /x/{id}", mcp.Placement{Body: "b", Query: []string{"b"}}, `Placement.Query "b"`},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				p := recover()
				if s, _ := p.(string); !strings.Contains(s, tc.want) {
					t.Errorf("panic %v, want it to mention %q", p, tc.want)
				}
			}()
			srv := mcp.NewServer(mcp.Implementation{Name: "x", Version: "1"})
			srv.AddTool(mcp.Tool{Name: "t", InputSchema: schema}, tc.route, h, mcp.WithPlacement(tc.p))
		})
	}
}
