package auth

import (
	"context"
	"net/http"
	"testing"
)

// TestRateKey: issuer and subject, or issuer and client id without a
// subject; the client of a user's token never splits its key, and no
// subject, client id or issuer shares a key with another.
func TestRateKey(t *testing.T) {
	const iss = "https://as.example.com"
	cases := []struct {
		name string
		a, b Principal
		same bool
	}{
		{"one user, two clients", Principal{Issuer: iss, Subject: "alice", ClientID: "a"}, Principal{Issuer: iss, Subject: "alice", ClientID: "b"}, true},
		{"one user, scopes differ", Principal{Issuer: iss, Subject: "alice", Scopes: []string{"r"}}, Principal{Issuer: iss, Subject: "alice", Scopes: []string{"w"}}, true},
		{"two users", Principal{Issuer: iss, Subject: "alice", ClientID: "a"}, Principal{Issuer: iss, Subject: "bob", ClientID: "a"}, false},
		{"two issuers", Principal{Issuer: iss, Subject: "alice"}, Principal{Issuer: iss + "/other", Subject: "alice"}, false},
		{"two machine clients", Principal{Issuer: iss, ClientID: "c"}, Principal{Issuer: iss, ClientID: "d"}, false},
		{"a subject named like a client", Principal{Issuer: iss, ClientID: "c"}, Principal{Issuer: iss, Subject: "c", ClientID: "x"}, false},
		{"parts that shift", Principal{Issuer: "i", Subject: "7:subjectx"}, Principal{Issuer: "i7:subject", Subject: "x"}, false},
		{"nothing but an issuer", Principal{Issuer: iss}, Principal{Issuer: iss, ClientID: "c"}, false},
	}
	for _, c := range cases {
		if got := c.a.RateKey() == c.b.RateKey(); got != c.same {
			t.Errorf("%s: same key = %v, want %v (%q, %q)", c.name, got, c.same, c.a.RateKey(), c.b.RateKey())
		}
	}
	if (*Principal)(nil).RateKey() != "" {
		t.Error("nil principal has a rate key")
	}
	// Key still tells a user's clients apart: it binds sealed state.
	a, b := cases[0].a, cases[0].b
	if a.Key() == b.Key() {
		t.Error("Key no longer includes the client id")
	}

	verifier := VerifierFunc(func(context.Context, string, *http.Request) (*Principal, error) { return nil, ErrInvalidToken })
	byUser := New(Config{Verifier: verifier, Resource: "https://mcp.example.com/mcp"})
	byClient := New(Config{Verifier: verifier, Resource: "https://mcp.example.com/mcp", RateByClient: true})
	if byUser.RateKey(&a) != a.RateKey() || byUser.RateKey(&a) != byUser.RateKey(&b) {
		t.Error("Authenticator.RateKey without RateByClient is not Principal.RateKey")
	}
	if byClient.RateKey(&a) != a.Key() || byClient.RateKey(&a) == byClient.RateKey(&b) {
		t.Error("Authenticator.RateKey with RateByClient is not Principal.Key")
	}
	if (*Authenticator)(nil).RateKey(&a) != a.RateKey() {
		t.Error("a nil Authenticator does not answer Principal.RateKey")
	}
}
