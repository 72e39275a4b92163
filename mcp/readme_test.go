package mcp_test

import (
	"os"
	"strings"
	"testing"
)

// TestReadmeQuickStart keeps the README's quick start honest: every line of
// its Go block must appear in example_test.go, whose Example compiles
// and runs under go test.
func TestReadmeQuickStart(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	example, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "```go\n")
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("README has no Go code block")
	}
	lines := 0
	for _, line := range strings.Split(block, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "log.Fatal(server.ListenAndServe())") {
			continue // serving is the one line the Example replaces with httptest
		}
		lines++
		if !strings.Contains(string(example), line) {
			t.Errorf("README line not in the compiled example: %s", line)
		}
	}
	if lines < 10 || lines > 20 {
		t.Errorf("quick start has %d lines of code; keep it between 10 and 20", lines)
	}
}
