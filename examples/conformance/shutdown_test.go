package main

import (
	"bufio"
	"context"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain_ShutdownEndsListen: SIGTERM with a listen stream open ends the
// stream with its result (Handler.Close, registered with the server's
// shutdown) and the process exits 0 once it has, instead of exiting as
// Serve returns and cutting the stream.
func TestMain_ShutdownEndsListen(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := filepath.Join(t.TempDir(), "conformance")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0")
	dieWithParent(cmd)
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer func() { _ = cmd.Process.Kill() }()
	sc := bufio.NewScanner(stdout)
	url := ""
	if sc.Scan() {
		url = strings.TrimPrefix(sc.Text(), "listening on ")
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("first line %q, stderr %q", sc.Text(), stderr.String())
	}
	go func() {
		for sc.Scan() {
		}
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	body := `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"shutdown-test","version":"1"}}}}`
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	events := bufio.NewScanner(res.Body)
	next := func() string {
		for events.Scan() {
			if data, ok := strings.CutPrefix(events.Text(), "data: "); ok {
				return data
			}
		}
		return "(the stream ended: " + errString(events.Err()) + ")"
	}
	if ack := next(); !strings.Contains(ack, "notifications/subscriptions/acknowledged") {
		t.Fatalf("HTTP %d, first event %s", res.StatusCode, ack)
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	if end := next(); !strings.Contains(end, `"id":1,"result":{"resultType":"complete"`) {
		t.Errorf("after SIGTERM the stream gave %s; want its result", end)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit %v, stderr %q", err, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("still running 10 s after SIGTERM")
	}
}

func errString(err error) string {
	if err == nil {
		return "EOF"
	}
	return err.Error()
}
