package oidc_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/oidc"
)

// The README's "Tokens from your identity provider" in full: a verifier
// for the issuer's JWT access tokens, the Authenticator using it, and the
// Protected Resource Metadata that sends clients to the issuer.
func ExampleNewJWTVerifier() {
	ctx := context.Background()
	resource := "https://api.example.com/mcp"
	v, err := oidc.NewJWTVerifier(ctx, oidc.JWTConfig{Issuer: "https://login.example.com/realms/acme", Audience: resource})
	if err != nil {
		log.Fatal(err) // only a configuration error: the issuer is not contacted here
	}
	authn := auth.New(auth.Config{Verifier: v, Resource: resource, Scopes: []string{"mcp:read"}})
	prm := auth.NewMetadataHandler(v.Metadata(resource)) // authorization_servers: the issuer
	mux := http.NewServeMux()
	for _, p := range auth.MetadataPaths(resource) {
		mux.Handle(p, prm)
	}
	_ = authn // mcp.WithAuth(authn) on the endpoint

	// What a client sent by a 401 challenge reads first: the issuer is
	// where it logs in.
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "https://api.example.com/.well-known/oauth-protected-resource/mcp", nil))
	fmt.Println(rec.Code, rec.Body.String())
	// Output:
	// 200 {"resource":"https://api.example.com/mcp","authorization_servers":["https://login.example.com/realms/acme"],"bearer_methods_supported":["header"]}
}
