package mcptest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
)

// recorder is a tb that records failures instead of failing the test.
type recorder struct {
	name     string
	mu       *sync.Mutex
	failures *[]string
}

func (r recorder) Helper() {}
func (r recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	*r.failures = append(*r.failures, r.name+": "+fmt.Sprintf(format, args...))
}
func (r recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...); runtime.Goexit() }
func (r recorder) Skip(args ...any)                  { runtime.Goexit() }
func (r recorder) Run(name string, f func(t tb)) bool {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(recorder{name: r.name + "/" + name, mu: r.mu, failures: r.failures})
	}()
	<-done
	return true
}

func failures(h http.Handler) []string {
	var out []string
	run(recorder{mu: &sync.Mutex{}, failures: &out}, h, nil)
	return out
}

// TestRun_CatchesBrokenServers: each way of breaking a rule fails the
// check that covers it, and a correct server fails none.
func TestRun_CatchesBrokenServers(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"})
	good := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()})
	if f := failures(good); len(f) != 0 {
		t.Fatalf("a correct server fails: %v", f)
	}
	breakages := map[string]http.Handler{
		"transport/no-session-and-no-store": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Mcp-Session-Id", "abc")
			good.ServeHTTP(w, r)
		}),
		"transport/get-is-405": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				w.WriteHeader(http.StatusOK)
				return
			}
			good.ServeHTTP(w, r)
		}),
		"envelope/batch-refused": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.ContentLength > 0 && r.Header.Get("Mcp-Method") == "" {
				buf := make([]byte, 1)
				r.Body.Read(buf)
				if buf[0] == '[' {
					w.Header().Set("Content-Type", "application/json")
					w.Write([]byte(`[]`))
					return
				}
				r.Body = http.MaxBytesReader(w, multiReader(buf, r), 1<<20)
			}
			good.ServeHTTP(w, r)
		}),
	}
	for check, h := range breakages {
		f := failures(h)
		found := false
		for _, line := range f {
			if strings.HasPrefix(line, "/"+check+":") {
				found = true
			}
		}
		if !found {
			t.Errorf("breaking %s went unnoticed; failures: %v", check, f)
		}
	}
}

func multiReader(first []byte, r *http.Request) io.ReadCloser {
	return io.NopCloser(io.MultiReader(bytes.NewReader(first), r.Body))
}
