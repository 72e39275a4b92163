package origin

import (
	"strings"
	"testing"
)

// FuzzOrigin checks the Origin normalization: it never panics, what it
// accepts is a bare http(s) origin, normalizing is idempotent, and only
// the allow-listed origin (in any case, with or without its default
// port) is admitted.
func FuzzOrigin(f *testing.F) {
	for _, s := range []string{"https://app.example.com", "HTTPS://APP.example.com:443", "https://app.example.com:8443",
		"null", "http://[::1]:80", "https://u@app.example.com", "https://app.example.com/", "https://app.example.com.evil.example", "javascript:x"} {
		f.Add(s)
	}
	l, _ := Origins([]string{"https://app.example.com"})
	f.Fuzz(func(t *testing.T, origin string) {
		n, ok := Normalize(origin)
		if ok {
			if !strings.HasPrefix(n, "http://") && !strings.HasPrefix(n, "https://") {
				t.Fatalf("%q normalized to %q", origin, n)
			}
			if again, ok2 := Normalize(n); !ok2 || again != n {
				t.Fatalf("%q -> %q -> %q", origin, n, again)
			}
			if strings.ContainsAny(strings.SplitN(n, "://", 2)[1], "/@?#") {
				t.Fatalf("%q normalized to %q", origin, n)
			}
		}
		if l.AllowOrigin(origin) && n != "https://app.example.com" {
			t.Fatalf("%q admitted as %q", origin, n)
		}
	})
}
