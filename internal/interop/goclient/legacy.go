package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// legacySessions runs against an examples/inbox started with
// -legacy-input, one process or replicas behind a balancer: a 2025-06-18
// session that declares elicitation is asked to confirm emails_delete in
// the middle of the call, on the call's stream; accepting deletes the
// email once, declining deletes nothing.
//
// bases are where the effect is counted: the REST API of every process
// serving url (each replica keeps its own store, so an execution shows on
// the one replica that ran it). The email must be there on every base
// before the call; after it, it must be gone from exactly one base when
// accepted and from none when declined.
//
// The emails (eml_globex_0002 accepted, eml_globex_0003 declined) differ
// from the TypeScript client's accepted one (node/legacy-v1.mjs), so both
// clients can run against one inbox.
func legacySessions(ctx context.Context, url string, bases []string) error {
	for _, c := range []struct {
		id     string
		action string
	}{{"eml_globex_0002", "accept"}, {"eml_globex_0003", "decline"}} {
		asked := 0
		client := mcp.NewClient(&mcp.Implementation{Name: "mcpdual-interop-go", Version: "1.0.0"}, &mcp.ClientOptions{
			ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked++
				fmt.Printf("[go-sdk legacy 2025-06-18] confirmation asked mid-call: %q -> %s\n", req.Params.Message, c.action)
				if c.action == "accept" {
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
				}
				return &mcp.ElicitResult{Action: "decline"}, nil
			},
		})
		before, err := presentOn(ctx, bases, c.id)
		if err != nil {
			return err
		}
		if before != len(bases) {
			return fmt.Errorf("%s is on %d of %d bases before the call: the seed data was changed", c.id, before, len(bases))
		}
		routes := &routing{}
		transport := &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1,
			HTTPClient: &http.Client{Transport: routes.wrap(bearer{"dev-writer"})}}
		cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
		if err != nil {
			return fmt.Errorf("connect: %w", err)
		}
		if cs.ID() == "" {
			cs.Close()
			return fmt.Errorf("no Mcp-Session-Id: is the inbox started with -legacy-input?")
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "emails_delete", Arguments: map[string]any{"id": c.id}})
		cs.Close()
		if err != nil {
			return fmt.Errorf("emails_delete: %w", err)
		}
		after, err := presentOn(ctx, bases, c.id)
		if err != nil {
			return err
		}
		executions := before - after
		fmt.Printf("[go-sdk legacy 2025-06-18] emails_delete %s: isError=%v %q; executions=%d (deleted on %d of %d bases)\n",
			c.id, res.IsError, text(res), executions, executions, len(bases))
		call, answer := routes.upstream("tools/call"), routes.upstream("answer")
		if call != "" || answer != "" {
			fmt.Printf("[go-sdk legacy 2025-06-18] routing: tools/call served by %s, the answer POST by %s\n", call, answer)
		}
		switch {
		case asked != 1:
			return fmt.Errorf("asked %d times, want once", asked)
		case c.action == "accept" && (res.IsError || executions != 1):
			return fmt.Errorf("an accepted confirmation executed %d times, want once", executions)
		case c.action == "decline" && (!res.IsError || !strings.Contains(text(res), "confirmation_declined") || executions != 0):
			return fmt.Errorf("a declined confirmation executed %d times, or said otherwise", executions)
		case call != "" && (answer == "" || answer == call):
			// Behind a round-robin balancer the answer is the next request,
			// so it reaches another replica than the one holding the call:
			// that hand-over is what this run is for.
			return fmt.Errorf("the answer POST reached %q, the call's own replica %q: want another", answer, call)
		}
	}
	return nil
}

// presentOn counts the bases whose REST API still has the email, read as
// dev-reader (the writer's workspace, read only).
func presentOn(ctx context.Context, bases []string, id string) (int, error) {
	n := 0
	for _, b := range bases {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, b+"/api/v1/emails/"+id, nil)
		if err != nil {
			return 0, err
		}
		req.Header.Set("Authorization", "Bearer dev-reader")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		switch resp.StatusCode {
		case http.StatusOK:
			n++
		case http.StatusNotFound:
		default:
			return 0, fmt.Errorf("GET %s/api/v1/emails/%s: %d", b, id, resp.StatusCode)
		}
	}
	return n, nil
}

// routing notes which upstream (nginx's X-Upstream, the last address it
// tried) served each POST, by what the POST carried: a request's method,
// or "answer" for a JSON-RPC response (the elicitation answer).
type routing struct {
	mu   sync.Mutex
	seen map[string]string
}

func (r *routing) wrap(next http.RoundTripper) http.RoundTripper {
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		kind := ""
		if req.Method == http.MethodPost && req.Body != nil {
			body, err := io.ReadAll(req.Body)
			req.Body.Close()
			if err != nil {
				return nil, err
			}
			req.Body = io.NopCloser(bytes.NewReader(body))
			var m struct {
				Method string          `json:"method"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal(body, &m) == nil {
				kind = m.Method
				if kind == "" && (m.Result != nil || m.Error != nil) {
					kind = "answer"
				}
			}
		}
		resp, err := next.RoundTrip(req)
		if err == nil && kind != "" {
			up := resp.Header.Get("X-Upstream")
			if i := strings.LastIndex(up, ","); i >= 0 {
				up = up[i+1:]
			}
			r.mu.Lock()
			if r.seen == nil {
				r.seen = map[string]string{}
			}
			r.seen[kind] = strings.TrimSpace(up)
			r.mu.Unlock()
		}
		return resp, err
	})
}

func (r *routing) upstream(kind string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen[kind]
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
