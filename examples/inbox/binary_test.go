package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// built is the command, built once for every test that runs it.
var built struct {
	once sync.Once
	dir  string
	bin  string
	out  []byte
	err  error
}

// inboxBinary returns the path of the command built from this package.
func inboxBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "inbox-test-"); built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "inbox")
		built.out, built.err = exec.Command("go", "build", "-o", built.bin, ".").CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("build: %v\n%s", built.err, built.out)
	}
	return built.bin
}

func TestMain(m *testing.M) {
	code := m.Run()
	stopTestRedis() // tenants_test.go
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}
