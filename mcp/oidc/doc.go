// Package oidc verifies access tokens issued by an OpenID Connect or OAuth
// 2.0 authorization server, for the auth package's Authenticator:
//
//   - NewJWTVerifier checks JWT access tokens (RFC 9068) against the
//     issuer's signing keys, found by discovery and cached;
//   - NewIntrospectionVerifier asks the issuer about opaque tokens
//     (RFC 7662) and caches the answers for a bounded time.
//
// Both answer the way auth.TokenVerifier asks: a token that is not valid
// is an error wrapping auth.ErrInvalidToken (401, the client logs in
// again); an issuer that cannot be reached, or a signing key that may have
// just been rotated, is any other error (503 with Retry-After, the client
// tries again), so an outage never sends every client back to the login
// page.
//
// Neither contacts the issuer when it is created: a server starts while
// its identity provider is down and answers 503 until it is back. Signing
// keys already fetched keep verifying through an outage, and while keys
// past MaxKeyAge are fetched again; a token naming a key not yet seen (or
// naming none, when no known key verifies it) makes the verifier fetch
// the keys again, at most once per RefreshCooldown, so a flood of made-up
// key ids cannot flood the issuer.
//
// Metadata returns the Protected Resource Metadata naming the issuer as
// the authorization server, for auth.NewMetadataHandler.
package oidc
