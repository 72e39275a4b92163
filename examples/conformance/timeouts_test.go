package main

import (
	"os"
	"strings"
	"testing"
)

// TestServerTimeouts keeps every example server's timeouts set: a server
// without them lets slow clients hold connections for ever.
func TestServerTimeouts(t *testing.T) {
	for _, file := range []string{"main.go", "../hello/main.go", "../inbox/main.go"} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, field := range []string{"ReadHeaderTimeout:", "ReadTimeout:", "WriteTimeout:", "IdleTimeout:"} {
			if !strings.Contains(string(b), field) {
				t.Errorf("%s: the http.Server sets no %s", file, strings.TrimSuffix(field, ":"))
			}
		}
	}
}
