package auth

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestAuthenticate_TokenSizeEdge: a bearer token of exactly maxTokenBytes
// reaches the verifier and is accepted; one byte more is 400
// invalid_request without the verifier being asked.
func TestAuthenticate_TokenSizeEdge(t *testing.T) {
	t.Parallel()
	var asked int
	a := New(Config{Resource: resource, Verifier: VerifierFunc(func(ctx context.Context, token string, r *http.Request) (*Principal, error) {
		asked++
		return &Principal{Subject: "alice", Audience: []string{resource}, ExpiresAt: time.Now().Add(time.Hour)}, nil
	})})
	for _, tc := range []struct {
		size   int
		status int
	}{{maxTokenBytes, 0}, {maxTokenBytes + 1, 400}} {
		asked = 0
		r := httptest.NewRequest(http.MethodPost, resource, nil)
		r.Header.Set("Authorization", "Bearer "+strings.Repeat("a", tc.size))
		p, f := a.Authenticate(r)
		switch {
		case tc.status == 0 && (f != nil || p == nil || asked != 1):
			t.Errorf("a token of %d bytes: %+v (verifier asked %d times)", tc.size, f, asked)
		case tc.status != 0 && (f == nil || f.Status != tc.status || f.Reason != "invalid_request" || asked != 0):
			t.Errorf("a token of %d bytes: %+v (verifier asked %d times), want %d", tc.size, f, asked, tc.status)
		}
	}
}
