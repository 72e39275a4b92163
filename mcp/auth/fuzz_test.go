package auth

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// FuzzAuthenticate feeds arbitrary Authorization values and queries to the
// credential parser: it never panics, and a value is only ever passed to
// the verifier when it is exactly "Bearer" (any case), one space and a
// token68.
func FuzzAuthenticate(f *testing.F) {
	for _, s := range []string{"Bearer good", "bearer x", "Bearer  x", "Basic a", "Bearer a=b", "Bearer ==", "", "Bearer\tx"} {
		f.Add(s, "")
	}
	f.Add("Bearer good", "access_token=x")
	f.Add("Bearer good", "%zz&access_token")
	f.Add("Bearer good", "access%5Ftoken=x")
	f.Add("Bearer good", "x=1;access_token=y")
	a := newTestAuth()
	f.Fuzz(func(t *testing.T, value, query string) {
		r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", nil)
		r.URL.RawQuery = query
		r.Header["Authorization"] = []string{value}
		token, fail := a.bearer(r)
		if fail != nil {
			if fail.Status != 400 && fail.Status != 401 {
				t.Fatalf("status %d", fail.Status)
			}
			if strings.ContainsAny(fail.Challenge, "\r\n") {
				t.Fatalf("challenge breaks the header: %q", fail.Challenge)
			}
			return
		}
		scheme, rest, _ := strings.Cut(value, " ")
		if !strings.EqualFold(scheme, "bearer") || rest != token || !isToken68(token) {
			t.Fatalf("%q accepted as token %q", value, token)
		}
		if q, _ := url.ParseQuery(query); q.Has("access_token") {
			t.Fatalf("query %q with a token admitted", query)
		}
	})
}
