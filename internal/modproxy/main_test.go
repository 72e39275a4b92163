package main

import (
	"archive/zip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// write creates files (path: content) under dir.
func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPack packs a core and a nested module: the proxy has the layout the
// go command reads, the core's zip leaves the nested module out, and the
// consumer imports every exported package but main and internal ones.
func TestPack(t *testing.T) {
	src, out := t.TempDir(), t.TempDir()
	write(t, src, map[string]string{
		"go.mod":                "module github.com/mcpdual/mcpdual\n\ngo 1.26.0\n",
		"a/a.go":                "package a\n",
		"internal/i/i.go":       "package i\n",
		"cmd/tool/main.go":      "package main\n",
		"a/testdata/x.go":       "package x\n",
		"mcp/n/go.mod":          "module github.com/mcpdual/mcpdual/mcp/n\n\ngo 1.26.0\n\nrequire github.com/mcpdual/mcpdual v0.5.0\n\nreplace github.com/mcpdual/mcpdual => ../..\n",
		"mcp/n/n.go":            "package n\n",
		"mcp/n/only_test.go":    "package n\n",
		"mcp/n/sub/sub.go":      "package sub\n",
		"mcp/n/sub/sub_test.go": "package sub\n",
	})
	consumer := filepath.Join(t.TempDir(), "consumer")
	if err := run("v0.5.0", out, consumer, []string{src, filepath.Join(src, "mcp/n")}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"list", "v0.5.0.info", "v0.5.0.mod", "v0.5.0.zip"} {
		for _, m := range []string{"github.com/mcpdual/mcpdual", "github.com/mcpdual/mcpdual/mcp/n"} {
			if _, err := os.Stat(filepath.Join(out, m, "@v", f)); err != nil {
				t.Error(err)
			}
		}
	}
	zr, err := zip.OpenReader(filepath.Join(out, "github.com/mcpdual/mcpdual/@v/v0.5.0.zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	slices.Sort(names)
	want := []string{"a/a.go", "a/testdata/x.go", "cmd/tool/main.go", "go.mod", "internal/i/i.go"}
	for i := range want {
		want[i] = "github.com/mcpdual/mcpdual@v0.5.0/" + want[i]
	}
	if !slices.Equal(names, want) {
		t.Errorf("core zip holds %q, want %q", names, want)
	}
	mod, _ := os.ReadFile(filepath.Join(out, "github.com/mcpdual/mcpdual/mcp/n/@v/v0.5.0.mod"))
	if !strings.Contains(string(mod), "replace github.com/mcpdual/mcpdual => ../..") {
		t.Errorf("the .mod file is not the go.mod as it is: %s", mod)
	}
	gomod, _ := os.ReadFile(filepath.Join(consumer, "go.mod"))
	if strings.Contains(string(gomod), "replace") || !strings.Contains(string(gomod), "\tgithub.com/mcpdual/mcpdual/mcp/n v0.5.0\n") {
		t.Errorf("consumer go.mod:\n%s", gomod)
	}
	imports, _ := os.ReadFile(filepath.Join(consumer, "imports.go"))
	for _, p := range []string{`"github.com/mcpdual/mcpdual/a"`, `"github.com/mcpdual/mcpdual/mcp/n"`, `"github.com/mcpdual/mcpdual/mcp/n/sub"`} {
		if !strings.Contains(string(imports), p) {
			t.Errorf("imports.go lacks %s:\n%s", p, imports)
		}
	}
	for _, p := range []string{"mcpdual/internal", "cmd/tool", "testdata"} {
		if strings.Contains(string(imports), p) {
			t.Errorf("imports.go imports %s:\n%s", p, imports)
		}
	}
}

// TestPackRefusesOtherVersions: a module that requires another of ours at
// a version other than the release's could not be resolved by a user.
func TestPackRefusesOtherVersions(t *testing.T) {
	src := t.TempDir()
	write(t, src, map[string]string{
		"go.mod": "module github.com/mcpdual/mcpdual/mcp/n\n\ngo 1.26.0\n\nrequire github.com/mcpdual/mcpdual v0.0.0\n",
		"n.go":   "package n\n",
	})
	err := run("v0.5.0", t.TempDir(), t.TempDir(), []string{src})
	if err == nil || !strings.Contains(err.Error(), "requires github.com/mcpdual/mcpdual v0.0.0") {
		t.Errorf("err = %v", err)
	}
	if err := run("0.5", t.TempDir(), t.TempDir(), []string{src}); err == nil {
		t.Error("a version that is not semantic was taken")
	}
	write(t, src, map[string]string{"go.mod": "module example.com/other\n\ngo 1.26.0\n"})
	if err := run("v0.5.0", t.TempDir(), t.TempDir(), []string{src}); err == nil {
		t.Error("a module of another path was packed")
	}
}
