package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
)

// onceVerifier accepts a token "once-*" the first time it is verified
// only, as a token revoked right after the POST that carried it was
// accepted; "reader-once-*" likewise, with scope mcp:read alone. It
// counts its calls per token.
type onceVerifier struct {
	mu    sync.Mutex
	calls map[string]int
}

func (v *onceVerifier) VerifyAccessToken(ctx context.Context, token string, r *http.Request) (*auth.Principal, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.calls[token]++
	if v.calls[token] > 1 || !(strings.HasPrefix(token, "once-") || strings.HasPrefix(token, "reader-once-")) {
		return nil, auth.ErrInvalidToken
	}
	scopes := []string{"mcp:read", "items:write"}
	if strings.HasPrefix(token, "reader-") {
		scopes = scopes[:1]
	}
	return &auth.Principal{Issuer: "https://as.example.com", Subject: token, ClientID: "c", Audience: []string{resourceURI},
		Scopes: scopes, ExpiresAt: time.Now().Add(time.Hour)}, nil
}

func (v *onceVerifier) count(token string) int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.calls[token]
}

// TestBatch_AuthenticatedOncePerPOST: a batch is one HTTP request with
// one bearer token, verified once for the POST, whose principal every
// member is served as: a token revoked (or expiring) while the batch runs
// does not answer the later members 401 inside a 200, and a 64-member
// batch is not 65 round trips to the verifier. What is the POST's is
// answered for the POST (no token, a bad one: 401 with its challenge, no
// member run); a scope is a member's method's, refused in that member's
// response (insufficient_scope, the scopes required in data), the others
// served, with no challenge on the 200.
func TestBatch_AuthenticatedOncePerPOST(t *testing.T) {
	t.Parallel()
	v := &onceVerifier{calls: map[string]int{}}
	srv := mcp.NewServer(mcp.Implementation{Name: "batch-auth", Version: "1"})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "who", Description: "Names its caller."},
		func(ctx context.Context, in struct{}) (map[string]any, error) {
			return map[string]any{"subject": auth.FromContext(ctx).Subject}, nil
		})
	a := auth.New(auth.Config{Resource: resourceURI, Verifier: v, MethodScopes: map[string][]string{"tools/call": {"items:write"}}})
	url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, mcp.WithAuth(a)))
	const body = `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"who","arguments":{}}},` +
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}},` +
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"},{"jsonrpc":"2.0","id":3,"method":"ping"}]`
	cases := []struct {
		name   string
		token  string // "" sends no Authorization
		status int
		code   int // the POST's error code, or member 1's; 0: a result
		reason string
	}{
		{name: "a token revoked mid-batch", token: "once-a", status: 200},
		{name: "a member lacking its method's scope", token: "reader-once-b", status: 200, code: -31403, reason: "insufficient_scope"},
		{name: "a bad token", token: "tok-refused", status: 401, code: -31401, reason: "invalid_token"},
		{name: "no token", status: 401, code: -31401, reason: "unauthorized"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hdr := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
			if tc.token != "" {
				hdr.Set("Authorization", "Bearer "+tc.token)
			}
			status, h, raw := rawPost(t, url, hdr, body)
			if status != tc.status {
				t.Fatalf("status %d, want %d: %s", status, tc.status, raw)
			}
			if ct := h.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			if tc.token != "" {
				if n := v.count(tc.token); n != 1 {
					t.Errorf("the token was verified %d times, want once for the POST", n)
				}
			}
			type errorBody struct {
				Code int `json:"code"`
				Data struct {
					Reason   string   `json:"reason"`
					Required []string `json:"required"`
				} `json:"data"`
			}
			if status == 401 {
				var e struct {
					ID    *json.RawMessage `json:"id"`
					Error errorBody        `json:"error"`
				}
				if err := json.Unmarshal(raw, &e); err != nil || e.ID != nil || e.Error.Code != tc.code || e.Error.Data.Reason != tc.reason {
					t.Errorf("refusal %s, want one %d %s naming no member", raw, tc.code, tc.reason)
				}
				if c := h.Get("WWW-Authenticate"); !strings.HasPrefix(c, "Bearer ") || !strings.Contains(c, "resource_metadata=") {
					t.Errorf("WWW-Authenticate %q", c)
				}
				return
			}
			if c := h.Get("WWW-Authenticate"); c != "" {
				t.Errorf("WWW-Authenticate %q on a 200: a member's refusal is its own", c)
			}
			var replies []struct {
				ID     json.RawMessage `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  *errorBody      `json:"error"`
			}
			if err := json.Unmarshal(raw, &replies); err != nil || len(replies) != 3 {
				t.Fatalf("%v: %s", err, raw)
			}
			for i, want := range []string{"1", "2", "3"} {
				r := replies[i]
				if string(r.ID) != want {
					t.Errorf("reply %d has id %s, want %s: %s", i, r.ID, want, raw)
				}
				if i > 0 || tc.code == 0 {
					if r.Error != nil || r.Result == nil {
						t.Errorf("member %s: %s, want a result", want, raw)
					}
					continue
				}
				if r.Error == nil || r.Error.Code != tc.code || r.Error.Data.Reason != tc.reason ||
					len(r.Error.Data.Required) != 1 || r.Error.Data.Required[0] != "items:write" {
					t.Errorf("member 1: %s, want %d %s requiring items:write", raw, tc.code, tc.reason)
				}
			}
			if tc.code == 0 && !strings.Contains(string(replies[0].Result), tc.token) {
				t.Errorf("the call was not served as the POST's caller: %s", replies[0].Result)
			}
		})
	}
}
