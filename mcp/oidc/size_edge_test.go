package oidc

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

// keysBody is what the issuer's key set endpoint answers now.
func keysBody(t *testing.T, is *testIssuer) []byte {
	t.Helper()
	resp, err := http.Get(is.url + "/keys")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestJWTKeySetSizeEdge: a key set of exactly maxDocumentBytes bytes is
// read; one byte more is refused as the issuer's fault (503 with
// ErrIssuerUnavailable), never a 401 and never a partial read.
func TestJWTKeySetSizeEdge(t *testing.T) {
	for _, tc := range []struct {
		size int
		ok   bool
	}{{maxDocumentBytes, true}, {maxDocumentBytes + 1, false}} {
		is := startIssuer(t, nil)
		is.mu.Lock()
		is.extraKeys = []json.RawMessage{json.RawMessage(`{"kty":"pad","p":""}`)}
		is.mu.Unlock()
		base := len(keysBody(t, is))
		is.mu.Lock()
		is.extraKeys = []json.RawMessage{json.RawMessage(`{"kty":"pad","p":"` + strings.Repeat("x", tc.size-base) + `"}`)}
		is.mu.Unlock()
		if n := len(keysBody(t, is)); n != tc.size {
			t.Fatalf("padded the key set to %d bytes, want %d", n, tc.size)
		}
		v := newJWT(t, JWTConfig{Issuer: is.url})
		_, f := authenticate(t, v, is.mint(is.claims(resource), ""))
		switch {
		case tc.ok && f != nil:
			t.Errorf("a key set of %d bytes: %+v %v", tc.size, f, f.Unwrap())
		case !tc.ok && (f == nil || f.Status != http.StatusServiceUnavailable || !errors.Is(f, ErrIssuerUnavailable)):
			t.Errorf("a key set of %d bytes: %+v, want 503", tc.size, f)
		}
	}
}

// TestIntrospectionSizeEdge: an introspection answer of exactly
// maxDocumentBytes bytes is read; one byte more is 503 for that token.
func TestIntrospectionSizeEdge(t *testing.T) {
	for _, tc := range []struct {
		size int
		ok   bool
	}{{maxDocumentBytes, true}, {maxDocumentBytes + 1, false}} {
		is := startIssuer(t, nil)
		answer := is.activeAnswer()
		answer["pad"] = ""
		b, _ := json.Marshal(answer)
		base := len(b) + 1 // json.Encoder ends with a newline
		answer["pad"] = strings.Repeat("x", tc.size-base)
		is.setActive("opaque", answer)
		v := newIntrospection(t, is, nil)
		_, f := authenticate(t, v, "opaque")
		switch {
		case tc.ok && f != nil:
			t.Errorf("an answer of %d bytes: %+v %v", tc.size, f, f.Unwrap())
		case !tc.ok && (f == nil || f.Status != http.StatusServiceUnavailable || !errors.Is(f, ErrIssuerUnavailable)):
			t.Errorf("an answer of %d bytes: %+v, want 503", tc.size, f)
		}
	}
}
