package oidcprovider

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// store is the least op.Storage (plus client credentials) that lets the
// provider run the flows the tests need: clients in memory, tokens in
// memory, and a signing key that can be rotated while it runs. What a
// token says (audience, lifetime, clock skew) is set per client, so each
// kind of bad token is minted by the provider itself.
type store struct {
	mu       sync.Mutex
	keys     []signingKey // published; the last one signs
	clients  map[string]*client
	requests map[string]*authRequest
	codes    map[string]string // code → request id
	tokens   map[string]*token // id → token
}

type client struct {
	id, secret string
	grants     []oidc.GrantType
	tokenType  op.AccessTokenType
	audience   []string
	lifetime   time.Duration // of access tokens; negative mints expired ones
	skew       time.Duration // negative puts iat and nbf in the future
	redirect   string
	login      string // the login page, for authorization-code clients
	introspect bool   // may call the introspection endpoint (a resource server)
}

type token struct {
	id, subject, clientID string
	audience, scopes      []string
	issued, expires       time.Time
}

type signingKey struct {
	id  string
	key *rsa.PrivateKey
}

func newSigningKey(t *testing.T, id string) signingKey {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return signingKey{id: id, key: k}
}

func newStore(key signingKey, clients ...*client) *store {
	s := &store{keys: []signingKey{key}, clients: map[string]*client{},
		requests: map[string]*authRequest{}, codes: map[string]string{}, tokens: map[string]*token{}}
	for _, c := range clients {
		s.clients[c.id] = c
	}
	return s
}

// rotate makes key the signing key and, unless keepOld, withdraws the
// others from the key set.
func (s *store) rotate(key signingKey, keepOld bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !keepOld {
		s.keys = nil
	}
	s.keys = append(s.keys, key)
}

func (s *store) next(prefix string) string { return prefix + "-" + rand.Text() }

var errNotFound = errors.New("not found")

// Authorization requests.

func (s *store) CreateAuthRequest(_ context.Context, r *oidc.AuthRequest, _ string) (op.AuthRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.clients[r.ClientID]
	if !ok {
		return nil, errNotFound
	}
	req := &authRequest{id: s.next("req"), clientID: r.ClientID, redirect: r.RedirectURI, state: r.State, nonce: r.Nonce,
		scopes: r.Scopes, responseType: r.ResponseType, audience: c.audience}
	if r.CodeChallenge != "" {
		req.challenge = &oidc.CodeChallenge{Challenge: r.CodeChallenge, Method: r.CodeChallengeMethod}
	}
	s.requests[req.id] = req
	return req, nil
}

func (s *store) AuthRequestByID(_ context.Context, id string) (op.AuthRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.requests[id]; ok {
		return r, nil
	}
	return nil, errNotFound
}

func (s *store) AuthRequestByCode(ctx context.Context, code string) (op.AuthRequest, error) {
	s.mu.Lock()
	id, ok := s.codes[code]
	s.mu.Unlock()
	if !ok {
		return nil, errNotFound
	}
	return s.AuthRequestByID(ctx, id)
}

func (s *store) SaveAuthCode(_ context.Context, id, code string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.codes[code] = id
	return nil
}

func (s *store) DeleteAuthRequest(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.requests, id)
	for code, rid := range s.codes {
		if rid == id {
			delete(s.codes, code)
		}
	}
	return nil
}

// login marks request id as authenticated for subject: the end of what
// a login page does.
func (s *store) login(id, subject string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.requests[id]
	if !ok {
		return errNotFound
	}
	r.subject, r.done, r.authTime = subject, true, time.Now()
	return nil
}

// Tokens.

func (s *store) CreateAccessToken(_ context.Context, r op.TokenRequest) (string, time.Time, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	clientID := r.GetSubject() // client credentials: the client is the subject
	if ar, ok := r.(*authRequest); ok {
		clientID = ar.clientID
	}
	c, ok := s.clients[clientID]
	if !ok {
		return "", time.Time{}, errNotFound
	}
	now := time.Now()
	t := &token{id: s.next("tok"), subject: r.GetSubject(), clientID: clientID, audience: r.GetAudience(), scopes: r.GetScopes(),
		issued: now, expires: now.Add(c.lifetime)}
	s.tokens[t.id] = t
	return t.id, t.expires, nil
}

func (s *store) CreateAccessAndRefreshTokens(context.Context, op.TokenRequest, string) (string, string, time.Time, error) {
	return "", "", time.Time{}, errors.New("refresh tokens are not issued here")
}

func (s *store) TokenRequestByRefreshToken(context.Context, string) (op.RefreshTokenRequest, error) {
	return nil, op.ErrInvalidRefreshToken
}

func (s *store) GetRefreshTokenInfo(context.Context, string, string) (string, string, error) {
	return "", "", op.ErrInvalidRefreshToken
}

func (s *store) TerminateSession(context.Context, string, string) error { return nil }

// RevokeToken withdraws an access token; only the client it was issued to
// may revoke it.
func (s *store) RevokeToken(_ context.Context, tokenID, _, clientID string) *oidc.Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tokens[tokenID]
	if !ok {
		return nil // RFC 7009: an unknown token is not an error
	}
	if t.clientID != clientID {
		return oidc.ErrInvalidClient().WithDescription("not this client's token")
	}
	delete(s.tokens, tokenID)
	return nil
}

// Keys.

func (s *store) SigningKey(context.Context) (op.SigningKey, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keys[len(s.keys)-1], nil
}

func (s *store) SignatureAlgorithms(context.Context) ([]jose.SignatureAlgorithm, error) {
	return []jose.SignatureAlgorithm{jose.RS256}, nil
}

func (s *store) KeySet(context.Context) ([]op.Key, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]op.Key, len(s.keys))
	for i, k := range s.keys {
		out[i] = publicKey{k}
	}
	return out, nil
}

func (k signingKey) SignatureAlgorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k signingKey) Key() any                                    { return k.key }
func (k signingKey) ID() string                                  { return k.id }

type publicKey struct{ signingKey }

func (k publicKey) Algorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k publicKey) Use() string                        { return "sig" }
func (k publicKey) Key() any                           { return &k.key.PublicKey }

// Clients.

func (s *store) GetClientByClientID(_ context.Context, id string) (op.Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.clients[id]; ok {
		return c, nil
	}
	return nil, errNotFound
}

func (s *store) AuthorizeClientIDSecret(_ context.Context, id, secret string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.clients[id]; ok && c.secret == secret {
		return nil
	}
	return errors.New("invalid client")
}

func (s *store) ClientCredentials(_ context.Context, id, secret string) (op.Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.clients[id]; ok && c.secret == secret && slices.Contains(c.grants, oidc.GrantTypeClientCredentials) {
		return c, nil
	}
	return nil, errors.New("invalid client")
}

func (s *store) ClientCredentialsTokenRequest(_ context.Context, id string, scopes []string) (op.TokenRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.clients[id]
	if !ok {
		return nil, errNotFound
	}
	return &oidc.JWTTokenRequest{Subject: id, Audience: c.audience, Scopes: scopes}, nil
}

// User info and introspection.

func (s *store) SetUserinfoFromScopes(context.Context, *oidc.UserInfo, string, string, []string) error {
	return nil
}

func (s *store) SetUserinfoFromToken(_ context.Context, info *oidc.UserInfo, _, subject, _ string) error {
	info.Subject = subject
	return nil
}

// SetIntrospectionFromToken answers for a live token, and only to a
// resource server; the provider sets active when this returns nil.
func (s *store) SetIntrospectionFromToken(ctx context.Context, r *oidc.IntrospectionResponse, tokenID, _, clientID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tokens[tokenID]
	if !ok || time.Now().After(t.expires) {
		return errNotFound
	}
	if c := s.clients[clientID]; c == nil || !c.introspect {
		return errors.New("only a resource server may introspect")
	}
	r.Issuer = op.IssuerFromContext(ctx)
	r.Subject, r.ClientID, r.Audience, r.Scope = t.subject, t.clientID, t.audience, t.scopes
	r.Expiration, r.IssuedAt, r.JWTID, r.TokenType = oidc.FromTime(t.expires), oidc.FromTime(t.issued), t.id, oidc.BearerToken
	return nil
}

// GetPrivateClaimsFromScopes adds the claims a JWT access token carries
// beyond the provider's own: the scopes (which this provider does not put
// there itself) and a workspaces claim for the host's claim mapping.
func (s *store) GetPrivateClaimsFromScopes(_ context.Context, _, _ string, scopes []string) (map[string]any, error) {
	return map[string]any{"scope": oidc.SpaceDelimitedArray(scopes).String(), "workspaces": []string{"ws_1", "ws_2"}}, nil
}

func (s *store) GetKeyByIDAndClientID(context.Context, string, string) (*jose.JSONWebKey, error) {
	return nil, errNotFound
}

func (s *store) ValidateJWTProfileScopes(_ context.Context, _ string, scopes []string) ([]string, error) {
	return scopes, nil
}

func (s *store) Health(context.Context) error { return nil }

// op.Client.

func (c *client) GetID() string                       { return c.id }
func (c *client) RedirectURIs() []string              { return []string{c.redirect} }
func (c *client) PostLogoutRedirectURIs() []string    { return nil }
func (c *client) ApplicationType() op.ApplicationType { return op.ApplicationTypeWeb }
func (c *client) AuthMethod() oidc.AuthMethod         { return oidc.AuthMethodBasic }
func (c *client) ResponseTypes() []oidc.ResponseType {
	return []oidc.ResponseType{oidc.ResponseTypeCode}
}
func (c *client) GrantTypes() []oidc.GrantType         { return c.grants }
func (c *client) LoginURL(id string) string            { return c.login + "?id=" + id }
func (c *client) AccessTokenType() op.AccessTokenType  { return c.tokenType }
func (c *client) IDTokenLifetime() time.Duration       { return 5 * time.Minute }
func (c *client) DevMode() bool                        { return false }
func (c *client) IsScopeAllowed(string) bool           { return true }
func (c *client) IDTokenUserinfoClaimsAssertion() bool { return false }
func (c *client) ClockSkew() time.Duration             { return c.skew }
func (c *client) RestrictAdditionalIdTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
func (c *client) RestrictAdditionalAccessTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}

// op.AuthRequest.

type authRequest struct {
	id, clientID, redirect, state, nonce, subject string
	scopes, audience                              []string
	responseType                                  oidc.ResponseType
	challenge                                     *oidc.CodeChallenge
	done                                          bool
	authTime                                      time.Time
}

func (r *authRequest) GetID() string                         { return r.id }
func (r *authRequest) GetACR() string                        { return "" }
func (r *authRequest) GetAMR() []string                      { return []string{"pwd"} }
func (r *authRequest) GetAudience() []string                 { return r.audience }
func (r *authRequest) GetAuthTime() time.Time                { return r.authTime }
func (r *authRequest) GetClientID() string                   { return r.clientID }
func (r *authRequest) GetCodeChallenge() *oidc.CodeChallenge { return r.challenge }
func (r *authRequest) GetNonce() string                      { return r.nonce }
func (r *authRequest) GetRedirectURI() string                { return r.redirect }
func (r *authRequest) GetResponseType() oidc.ResponseType    { return r.responseType }
func (r *authRequest) GetResponseMode() oidc.ResponseMode    { return oidc.ResponseModeQuery }
func (r *authRequest) GetScopes() []string                   { return r.scopes }
func (r *authRequest) GetState() string                      { return r.state }
func (r *authRequest) GetSubject() string                    { return r.subject }
func (r *authRequest) Done() bool                            { return r.done }
