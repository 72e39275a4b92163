package main

import (
	"bufio"
	"net/http"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain_StartsAndStopsCleanly builds the command, starts it on a free
// loopback port, reads the URLs and tokens it prints, serves a request,
// and exits 0 on SIGINT and on SIGTERM.
func TestMain_StartsAndStopsCleanly(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := inboxBinary(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		cmd := exec.Command(bin, "-addr", "127.0.0.1:0")
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		sc := bufio.NewScanner(stdout)
		var printed []string
		for sc.Scan() {
			printed = append(printed, sc.Text())
			if strings.Contains(sc.Text(), "dev-reader") {
				break
			}
		}
		go func() {
			for sc.Scan() {
			}
			done <- cmd.Wait()
		}()
		text := strings.Join(printed, "\n")
		var base string
		for _, l := range printed {
			if f := strings.Fields(l); len(f) == 3 && f[0] == "MCP" {
				base = strings.TrimSuffix(f[2], "/mcp")
			}
		}
		if base == "" || !strings.Contains(text, base+"/api/v1") || !strings.Contains(text, "dev-admin") || !strings.Contains(text, "dev-writer") {
			_ = cmd.Process.Kill()
			t.Fatalf("printed:\n%s", text)
		}
		req, _ := http.NewRequest("GET", base+"/api/v1/inboxes", nil)
		req.Header.Set("Authorization", "Bearer dev-reader")
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != 200 {
			_ = cmd.Process.Kill()
			t.Fatalf("REST call: %v %v", err, resp)
		}
		resp.Body.Close()
		_ = cmd.Process.Signal(sig)
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("%v: exit %v", sig, err)
			}
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			t.Fatalf("%v: still running after 15 s", sig)
		}
	}
}
