package oidc_test

import (
	"context"
	"log"
	"net/http"

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
}
