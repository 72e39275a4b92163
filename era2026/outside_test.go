package era2026_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSeam_ClosedToOtherModules (design record 017): a module outside this
// one that is handed an era can pass it to mcp.NewHandler, and can call
// what Seam returns, but cannot replace a hook, nor name the seam's types.
// It builds a small module that requires this one through a replace: the
// good package must build and each bad one must fail for the reason
// given.
func TestSeam_ClosedToOtherModules(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"go.mod": "module example.com/outside\n\ngo 1.26.0\n\nrequire github.com/mcpdual/mcpdual v0.0.0\n\n" +
			"replace github.com/mcpdual/mcpdual => " + filepath.ToSlash(root) + "\n",
		"go.sum": string(sum),
		"good/p.go": `package p

import (
	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
)

func F() {
	srv := mcp.NewServer(mcp.Implementation{Name: "outside", Version: "1"})
	_ = mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()})
	_ = era2026.New().Seam().Profiles() // reading is allowed
}
`,
		"finish/p.go": `package p

import "github.com/mcpdual/mcpdual/era2026"

func F() { era2026.New().Seam().Finish = nil }
`,
		"serve/p.go": `package p

import "github.com/mcpdual/mcpdual/era2025"

func F() {
	s := era2025.New().Seam()
	s.Serve = nil
}
`,
		// Run, not only built: it must build, and be refused when it runs.
		"generic/main.go": `package main

import (
	"fmt"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
)

// Hooks has every hook of the seam's Era without naming its types: its
// type parameters are inferred from a real era's method values.
type Hooks[P, R, Res, N any] struct {
	profiles func() []P
	serve    func(R) (Res, N, error)
	finish   func(R, Res) (Res, error)
}

func (h *Hooks[P, R, Res, N]) Profiles() []P                    { return h.profiles() }
func (h *Hooks[P, R, Res, N]) Default() string                  { return "" }
func (h *Hooks[P, R, Res, N]) Warnings() []string               { return nil }
func (h *Hooks[P, R, Res, N]) Names(R) (string, bool, error)    { return "", false, nil }
func (h *Hooks[P, R, Res, N]) Unnamed(string) error             { return nil }
func (h *Hooks[P, R, Res, N]) Envelope(R) ([]byte, error)       { return nil, nil } // the envelope check, skipped
func (h *Hooks[P, R, Res, N]) Target(R) error                   { return nil }
func (h *Hooks[P, R, Res, N]) Open(R) error                     { return nil }
func (h *Hooks[P, R, Res, N]) Serve(r R) (Res, N, error)        { return h.serve(r) }
func (h *Hooks[P, R, Res, N]) Finish(r R, x Res) (Res, error)   { return h.finish(r, x) }

// Embedded also inherits what the exported era type has.
type Embedded[P, R, Res, N any] struct {
	*era2026.Era
	*Hooks[P, R, Res, N]
}

func hooksOf[P, R, Res, N any](profiles func() []P, serve func(R) (Res, N, error), finish func(R, Res) (Res, error)) *Hooks[P, R, Res, N] {
	return &Hooks[P, R, Res, N]{profiles, serve, finish}
}

// Era is an mcp.Era whose Seam returns E, the seam's Era, inferred.
type Era[E any] struct{ e E }

func (x Era[E]) Seam() E { return x.e }

// as is v as the seam's Era, if it implements it.
func as[E any](_ func() E, v any) (Era[E], bool) {
	e, ok := v.(E)
	return Era[E]{e}, ok
}

func main() {
	e := era2026.New()
	real := e.Seam()
	h := hooksOf(real.Profiles, real.Serve, real.Finish)
	for _, c := range []struct {
		name string
		v    any
	}{{"embedded", Embedded[any, any, any, any]{Era: e}}, {"generic", h}} {
		name := c.name
		if x, ok := as(e.Seam, c.v); ok {
			srv := mcp.NewServer(mcp.Implementation{Name: "outside", Version: "1"})
			_ = mcp.NewHandler(srv, []mcp.Era{x, era2025.New()})
			fmt.Println(name, "implemented the seam")
		} else {
			fmt.Println(name, "refused")
		}
	}
}
`,
		"profiles/main.go": `package main

import (
	"fmt"
	"net/http/httptest"
	"strings"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
)

func main() {
	e26, e25 := era2026.New(), era2025.New()
	// Write to what Profiles hands out, of these eras and of others.
	p26 := e26.Seam().Profiles()
	for k := range p26[0].Statuses {
		p26[0].Statuses[k] = 299
	}
	p26[0].Methods[0] = "nope/nope"
	for _, p := range append(e25.Seam().Profiles(), era2025.New().Seam().Profiles()...) {
		p.Methods[0] = "nope/nope"
	}
	srv := mcp.NewServer(mcp.Implementation{Name: "outside", Version: "1"})
	h := mcp.NewHandler(srv, []mcp.Era{e26, e25}) // panics on a profile naming an unknown method
	r := httptest.NewRequest("POST", "http://localhost/", strings.NewReader(` + "`" + `{"jsonrpc":"2.0","id":1,"method":"nope/nope","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}` + "`" + `))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	r.Header.Set("MCP-Protocol-Version", "2026-07-28")
	r.Header.Set("Mcp-Method", "nope/nope")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	fmt.Println("unknown method:", w.Code)
	fmt.Println("profiles:", e26.Seam().Profiles()[0].Methods[0], e25.Seam().Profiles()[0].Methods[0], era2026.New().Seam().Profiles()[0].Statuses[-32601])
}
`,
		"internal/p.go": `package p

import "github.com/mcpdual/mcpdual/internal/seam"

func F() { var _ seam.Era }
`,
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	build := func(pkg string) (string, error) {
		cmd := exec.Command("go", "build", "./"+pkg)
		cmd.Dir = dir
		// Offline: every module comes from the replace or the local cache.
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOPROXY=off", "GOTOOLCHAIN=local")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := build("good"); err != nil {
		t.Fatalf("the good program does not build, so the failures below would prove nothing: %v\n%s", err, out)
	}
	for pkg, want := range map[string]string{
		// Design record 017: a generic type matches every hook of the seam's Era
		// without naming a type; an unexported method of package seam,
		// which only this module's types can embed, refuses it.
		"generic": "embedded refused\ngeneric refused\n",
		// Design record 017: what Profiles returns is the caller's copy; writing
		// to it changes no era and no handler.
		"profiles": "unknown method: 404\nprofiles: server/discover initialize 404\n",
	} {
		cmd := exec.Command("go", "run", "./"+pkg)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOPROXY=off", "GOTOOLCHAIN=local")
		out, err := cmd.Output()
		if err != nil || string(out) != want {
			t.Errorf("%s: %v\n%s\nwant:\n%s", pkg, err, out, want)
		}
	}
	for pkg, want := range map[string]string{
		"finish":   "cannot assign to era2026.New().Seam().Finish",
		"serve":    "cannot assign to s.Serve",
		"internal": "use of internal package github.com/mcpdual/mcpdual/internal/seam not allowed",
	} {
		out, err := build(pkg)
		if err == nil {
			t.Errorf("%s: built; another module could change an era's hooks", pkg)
			continue
		}
		if !strings.Contains(out, want) {
			t.Errorf("%s: failed for another reason than %q:\n%s", pkg, want, out)
		}
	}
}
