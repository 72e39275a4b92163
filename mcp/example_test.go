package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/mcpdual/mcpdual/auth"
	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
)

// The quick start: an existing REST route exposed as an MCP tool on /mcp.
func Example() {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/greetings/{name}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"greeting": "Hello, " + r.PathValue("name") + "!"})
	})

	srv := mcp.NewServer(mcp.Implementation{Name: "hello", Version: "1.0.0"})
	srv.AddTool(mcp.Tool{
		Name:        "greet",
		Description: "Greets someone by name.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
		Annotations: mcp.Annotations{ReadOnly: true, Idempotent: true},
	}, "GET /api/greetings/{name}", mux)
	mux.Handle("/mcp", mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}))

	ts := httptest.NewServer(mux)
	defer ts.Close()

	// A 2025-06-18 client (no _meta envelope).
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}}}`
	req, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, string(out))
	// Output:
	// 200 {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"greeting\":\"Hello, Ada!\"}"}]}}
}

// A tool handler reads the call it serves from its request's context.
func ExampleCallFromContext() {
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		call := mcp.CallFromContext(r.Context())
		fmt.Fprintf(w, `{"tool":%q,"revision":%q}`, call.Tool(), call.ProtocolVersion())
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "demo", Version: "1.0.0"})
	srv.AddTool(mcp.Tool{Name: "whoami"}, "GET /whoami", handler)
	h := mcp.NewHandler(srv, []mcp.Era{era2025.New()})

	req := httptest.NewRequest("POST", "http://localhost/mcp",
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami"}}`))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	fmt.Println(rec.Body.String())
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"tool\":\"whoami\",\"revision\":\"2025-06-18\"}"}]}}
}

// An endpoint behind bearer authentication, with the Protected Resource
// Metadata mounted beside it. Requests without a token get the challenge
// that starts the client's OAuth login; the tool sees the verified
// principal, never the token.
func ExampleWithAuth() {
	verifier := auth.VerifierFunc(func(ctx context.Context, token string, r *http.Request) (*auth.Principal, error) {
		if token != "dev-token" { // a real verifier checks a JWT or introspects
			return nil, auth.ErrInvalidToken
		}
		return &auth.Principal{Issuer: "https://login.example.com", Subject: "ada",
			Audience: []string{"https://mcp.example.com/mcp"}, Scopes: []string{"notes:read"},
			ExpiresAt: time.Now().Add(time.Hour)}, nil
	})
	a := auth.New(auth.Config{Verifier: verifier, Resource: "https://mcp.example.com/mcp", Scopes: []string{"notes:read"}})

	srv := mcp.NewServer(mcp.Implementation{Name: "notes", Version: "1.0.0"})
	srv.AddTool(mcp.Tool{Name: "whoami"}, "GET /whoami", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"subject":%q,"authorization":%q}`, auth.FromContext(r.Context()).Subject, r.Header.Get("Authorization"))
	}), mcp.RequireScopes("notes:read"))

	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, mcp.WithAuth(a)))
	prm := auth.NewMetadataHandler(auth.ResourceMetadata{
		Resource:             "https://mcp.example.com/mcp",
		AuthorizationServers: []string{"https://login.example.com"},
		ScopesSupported:      []string{"notes:read"},
	})
	for _, p := range auth.MetadataPaths("https://mcp.example.com/mcp") {
		mux.Handle(p, prm)
	}

	post := func(token string) {
		req := httptest.NewRequest("POST", "http://localhost/mcp",
			strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami"}}`))
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		if c := rec.Header().Get("WWW-Authenticate"); c != "" {
			fmt.Println(rec.Code, c)
		} else {
			fmt.Println(rec.Code)
		}
		fmt.Println(rec.Body.String())
	}
	post("")
	post("dev-token")
	// Output:
	// 401 Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="notes:read"
	// {"jsonrpc":"2.0","error":{"code":-31401,"message":"Authentication required","data":{"reason":"unauthorized"}}}
	// 200
	// {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"subject\":\"ada\",\"authorization\":\"\"}"}]}}
}
