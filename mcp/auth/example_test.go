package auth_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/mcpdual/mcpdual/mcp/auth"
)

// An Authenticator refuses a request without a token with the challenge
// that starts the client's login, and admits a token issued for this
// resource.
func ExampleNew() {
	a := auth.New(auth.Config{
		Resource: "https://mcp.example.com/mcp",
		Scopes:   []string{"mcp:read"},
		Verifier: auth.VerifierFunc(func(ctx context.Context, token string, r *http.Request) (*auth.Principal, error) {
			if token != "t0k3n" {
				return nil, auth.ErrInvalidToken
			}
			return &auth.Principal{Subject: "ada", Audience: []string{"https://mcp.example.com/mcp"},
				ExpiresAt: time.Now().Add(time.Hour)}, nil
		}),
	})

	r := httptest.NewRequest("POST", "http://localhost/mcp", nil)
	_, f := a.Authenticate(r)
	fmt.Println(f.Status, f.Challenge)

	r.Header.Set("Authorization", "Bearer t0k3n")
	p, _ := a.Authenticate(r)
	fmt.Println(p.Subject)
	// Output:
	// 401 Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp:read"
	// ada
}

// The Protected Resource Metadata is served from configuration at both
// well-known paths, outside the MCP endpoint.
func ExampleNewMetadataHandler() {
	meta := auth.ResourceMetadata{
		Resource:             "https://mcp.example.com/mcp",
		AuthorizationServers: []string{"https://login.example.com"},
		ScopesSupported:      []string{"mcp:read"},
	}
	mux := http.NewServeMux()
	for _, p := range auth.MetadataPaths(meta.Resource) {
		mux.Handle(p, auth.NewMetadataHandler(meta))
	}
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest("GET", "http://localhost/.well-known/oauth-protected-resource/mcp", nil))
	body, _ := io.ReadAll(rec.Body)
	fmt.Println(string(body))
	// Output:
	// {"resource":"https://mcp.example.com/mcp","authorization_servers":["https://login.example.com"],"scopes_supported":["mcp:read"],"bearer_methods_supported":["header"]}
}
