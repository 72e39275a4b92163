package era2026_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSeam_ClosedToOtherModules (issue 22 item 2): a module outside this
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
