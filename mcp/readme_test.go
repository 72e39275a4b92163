package mcp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeQuickStart builds the README's quick start as a newcomer
// would: its Go block, as written, is the main.go of a module of its own
// outside the repository, with a replace to this checkout, tidied and
// built by the go command. A block that no longer compiles, or that
// misses an import, fails here.
func TestReadmeQuickStart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module with the go command")
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "## Quick start\n")
	if !ok {
		t.Fatal("README has no Quick start section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	_, rest, ok := strings.Cut(section, "```go\n")
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("the Quick start has no Go code block")
	}
	if !strings.HasPrefix(block, "package main\n") || !strings.Contains(block, "func main()") {
		t.Fatal("the Quick start's block is not a whole main.go")
	}
	if strings.Contains(block, ":8080") {
		t.Error("the Quick start listens on 8080, the inbox's port")
	}
	for _, step := range []string{"go mod init", "go mod edit -replace github.com/mcpdual/mcpdual=", "go mod tidy", "go run ."} {
		if !strings.Contains(section, step) {
			t.Errorf("the Quick start's commands lack %q", step)
		}
	}

	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(block), 0o644); err != nil {
		t.Fatal(err)
	}
	gomod := "module example.com/hello\n\ngo 1.26\n\nreplace github.com/mcpdual/mcpdual => " + root + "\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is not on PATH: %v", err)
	}
	for _, args := range [][]string{{"mod", "tidy"}, {"build", "-o", os.DevNull, "."}} {
		cmd := exec.Command(goCmd, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s in the quick start's module: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}
