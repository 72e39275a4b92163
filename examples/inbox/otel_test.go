package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOtelStdout runs the command with -otel-stdout, calls a tool over
// MCP with the client's trace context in _meta, and reads the spans it
// prints: the tool call's SERVER span in the client's trace, and the REST
// route's span under it.
func TestOtelStdout(t *testing.T) {
	bin := inboxBinary(t)
	cmd := exec.Command(bin, "-otel-stdout", "-addr", "127.0.0.1:0")
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		exited <- cmd.Wait()
	}()
	// On a failure, the process is killed and its output drained.
	finished := false
	defer func() {
		if !finished {
			_ = cmd.Process.Kill()
			for range lines {
			}
			<-exited
		}
	}()
	next := func() string {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("the command stopped printing")
			}
			return l
		case <-time.After(15 * time.Second):
			t.Fatal("nothing printed for 15 s")
		}
		return ""
	}

	var endpoint string
	for endpoint == "" {
		if f := strings.Fields(next()); len(f) == 3 && f[0] == "MCP" {
			endpoint = f[2]
		}
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"inboxes_list","arguments":{},` +
		`"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}}}`
	req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	req.Header.Set("Authorization", "Bearer dev-reader")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("tools/call: %v %v", err, resp)
	}
	resp.Body.Close()

	type spanContext struct{ TraceID, SpanID string }
	type span struct {
		Name        string
		SpanKind    int
		SpanContext spanContext
		Parent      struct {
			spanContext
			Remote bool
		}
	}
	spans := map[string]span{}
	for spans["tools/call inboxes_list"].Name == "" {
		l := next()
		if !strings.HasPrefix(l, "{") {
			continue
		}
		var s span
		if err := json.Unmarshal([]byte(l), &s); err != nil {
			t.Fatalf("not a span: %v\n%s", err, l)
		}
		spans[s.Name] = s
	}
	server, route := spans["tools/call inboxes_list"], spans["GET /api/v1/inboxes"]
	if server.SpanKind != 2 || server.SpanContext.TraceID != "0af7651916cd43dd8448eb211c80319c" ||
		server.Parent.SpanID != "b7ad6b7169203331" || !server.Parent.Remote {
		t.Errorf("server span: %+v", server)
	}
	if route.Parent.SpanID != server.SpanContext.SpanID || route.SpanContext.TraceID != server.SpanContext.TraceID {
		t.Errorf("route span %+v is not under %+v", route, server)
	}
	// SIGINT: the command shuts down and exits 0.
	_ = cmd.Process.Signal(syscall.SIGINT)
	for range lines {
	}
	finished = true
	if err := <-exited; err != nil {
		t.Errorf("exit: %v", err)
	}
}
