package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/content"
	"github.com/mcpdual/mcpdual/mrtr"
)

// revisionAskServer has one tool per kind of question whose revision
// floor differs: a form (2025-06-18), a form with a multi-select and a
// URL (2025-11-25), plain sampling
// (every 2025 revision) and sampling with tools (2025-11-25); and a
// destructive tool, whose confirmation is a plain form.
func revisionAskServer(t *testing.T) string {
	t.Helper()
	srv := mcp.NewServer(mcp.Implementation{Name: "asks", Version: "1"})
	ask := func(name string, q mcp.InputRequest) {
		mcp.AddToolFunc(srv, mcp.Tool{Name: name, Description: "Asks one question."},
			func(ctx context.Context, in struct{}) (map[string]any, error) {
				c := mcp.CallFromContext(ctx)
				if _, ok := c.InputResponse("q"); ok {
					return map[string]any{"ok": true}, nil
				}
				c.RequireInput(nil, q)
				return nil, nil
			})
	}
	msgs := []mcp.SamplingMessage{{Role: content.User, Content: content.Text("hi")}}
	ask("form", mcp.ElicitForm("q", "Your name?", json.RawMessage(`{"type":"object","properties":{"n":{"type":"string"}}}`)))
	ask("multi", mcp.ElicitForm("q", "Pick some.", json.RawMessage(`{"type":"object","properties":{"c":{"type":"array","items":{"type":"string","enum":["a","b"]}}}}`)))
	ask("link", mcp.ElicitURL("q", "Sign in.", "https://mcp.example.com/login"))
	ask("model", mcp.Sample("q", mcp.SamplingRequest{MaxTokens: 10, Messages: msgs}))
	ask("model_tools", mcp.Sample("q", mcp.SamplingRequest{MaxTokens: 10, Messages: msgs,
		Tools: json.RawMessage(`[{"name":"lookup","inputSchema":{"type":"object"}}]`)}))
	mcp.AddToolFunc(srv, mcp.Tool{Name: "purge", Description: "Deletes everything.", Annotations: mcp.Annotations{Destructive: true}},
		func(ctx context.Context, in struct{}) (map[string]any, error) {
			return map[string]any{"purged": true}, nil
		})
	ring := sessionRing(t, 9)
	a := auth.New(auth.Config{Resource: resourceURI, Verifier: auth.VerifierFunc(testVerifier)})
	return newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(era2026.WithSealer(mrtr.NewSealer(ring))),
		era2025.New(era2025.WithSessions(mrtr.NewSealer(ring), 0))}, mcp.WithAuth(a), mcp.WithLegacyInput(mcp.LegacyInput{})))
}

// firstMessage posts a tools/call of tool in session and returns the
// answer's Content-Type and its first JSON-RPC message (a question on an
// event stream, or the JSON answer), then lets the call go.
func firstMessage(t *testing.T, url, session string, v mcp.Version, tool string) (string, map[string]any) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url,
		strings.NewReader(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"`+tool+`","arguments":{}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+tokAlice)
	req.Header.Set("Mcp-Session-Id", session)
	if v != mcp.Version20250326 { // this revision sends no version header
		req.Header.Set("MCP-Protocol-Version", string(v))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	ct := resp.Header.Get("Content-Type")
	var m map[string]any
	if !strings.HasPrefix(ct, "text/event-stream") {
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
			t.Fatal(err)
		}
		return ct, m
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			if err := json.Unmarshal([]byte(data), &m); err != nil {
				t.Fatal(err)
			}
			return ct, m
		}
	}
	t.Fatalf("stream ended without a message: %v", sc.Err())
	return "", nil
}

// TestLegacyInput_AsksOnlyWhatTheRevisionHas: a 2025 client is asked over
// its stream nothing 2025-11-25 introduced unless it negotiated 2025-11-25,
// whatever it declared (a client written for several revisions declares
// the newer members too): no URL-mode elicitation (its mode dropped, it
// would read as a form without a schema), no multi-select form, no
// sampling with tools. Such a call ends as for a client that did not
// declare the capability, an isError result with nothing asked. What the
// revision has is still asked: a plain form and a destructive tool's
// confirmation (also on 2025-03-26, records 014 and 019), plain sampling.
func TestLegacyInput_AsksOnlyWhatTheRevisionHas(t *testing.T) {
	t.Parallel()
	url := revisionAskServer(t)
	const everything = `{"elicitation":{"form":{},"url":{}},"sampling":{"tools":{}},"roots":{}}`
	asked := map[mcp.Version]map[string]string{
		mcp.Version20250326: {"form": "elicitation/create", "multi": "", "link": "", "model": "sampling/createMessage", "model_tools": "", "purge": "elicitation/create"},
		mcp.Version20250618: {"form": "elicitation/create", "multi": "", "link": "", "model": "sampling/createMessage", "model_tools": "", "purge": "elicitation/create"},
		mcp.Version20251125: {"form": "elicitation/create", "multi": "elicitation/create", "link": "elicitation/create", "model": "sampling/createMessage", "model_tools": "sampling/createMessage", "purge": "elicitation/create"},
	}
	for _, v := range []mcp.Version{mcp.Version20250326, mcp.Version20250618, mcp.Version20251125} {
		session := sessionFor(t, url, tokAlice, v, everything)
		for _, tool := range []string{"form", "multi", "link", "model", "model_tools", "purge"} {
			t.Run(string(v)+"/"+tool, func(t *testing.T) {
				ct, m := firstMessage(t, url, session, v, tool)
				want := asked[v][tool]
				if want != "" {
					if ct != "text/event-stream" || m["method"] != want {
						t.Fatalf("got %s %v, want the question %s", ct, m, want)
					}
					params, _ := m["params"].(map[string]any)
					if want == "elicitation/create" && v != mcp.Version20251125 && params["mode"] != nil {
						t.Errorf("an elicitation with a mode, which %s does not have: %v", v, params)
					}
					if tool == "link" && params["mode"] != "url" {
						t.Errorf("URL elicitation without mode url: %v", params)
					}
					if tool == "model_tools" && params["tools"] == nil {
						t.Errorf("sampling without its tools: %v", params)
					}
					return
				}
				if ct != "application/json" || m["method"] != nil || m["id"] != float64(5) {
					t.Fatalf("got %s %v, want the call's JSON answer and no question", ct, m)
				}
				text, isErr := resultText(t, m)
				if !isErr || !strings.Contains(text, "did not declare") {
					t.Errorf("%q isError=%v, want the not-declared refusal", text, isErr)
				}
			})
		}
	}
}
