package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// TestHello builds examples/hello (in the library's module, two levels up
// from this one's), starts it on a port the system picks on loopback,
// runs helloSessions against it and stops it by its PID.
func TestHello(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "hello")
	build := exec.Command("go", "build", "-o", bin, "./examples/hello")
	build.Dir = filepath.Join("..", "..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building examples/hello: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // by its PID: the process this test started
		_ = cmd.Wait()
	})
	urls := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+/mcp`)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u := re.FindString(sc.Text()); u != "" {
				urls <- u
				break
			}
		}
		for sc.Scan() { // drain, so the server never blocks on a full pipe
		}
	}()
	var url string
	select {
	case url = <-urls:
	case <-time.After(10 * time.Second):
		t.Fatal("examples/hello printed no URL within 10 s")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := helloSessions(ctx, url); err != nil {
		t.Fatal(err)
	}
}
