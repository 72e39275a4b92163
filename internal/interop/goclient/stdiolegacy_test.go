package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestStdioLegacy builds examples/inbox (its own module, three levels up)
// and has the go-sdk's and mcp-go's stdio clients launch it with -stdio
// -legacy-input: at 2025-06-18, each confirms one delete over the lines
// and declines another (stdiolegacy.go).
func TestStdioLegacy(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "inbox")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = filepath.Join("..", "..", "..", "examples", "inbox")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building examples/inbox: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if err := stdioLegacy(ctx, bin); err != nil {
		t.Fatal(err)
	}
}
