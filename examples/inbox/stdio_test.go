package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/internal/syncbuf"
)

// stdioProc is the inbox binary started with -stdio.
type stdioProc struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Scanner
	stdout io.ReadCloser // what out reads: closing it closes the process's stdout for reading
	stderr *syncbuf.Buffer
	exited chan error
}

func startStdio(t *testing.T, bin string, args ...string) *stdioProc {
	t.Helper()
	p := &stdioProc{t: t, cmd: exec.Command(bin, append([]string{"-stdio"}, args...)...), stderr: &syncbuf.Buffer{}, exited: make(chan error, 1)}
	p.cmd.Stderr = p.stderr
	var err error
	if p.in, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if p.stdout, err = p.cmd.StdoutPipe(); err != nil {
		t.Fatal(err)
	}
	p.out = bufio.NewScanner(p.stdout)
	p.out.Buffer(nil, 8<<20)
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.exited <- p.cmd.Wait() }()
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			_ = p.cmd.Process.Kill() // by its PID: it is this test's child
			<-p.exited
		}
	})
	return p
}

// roundTrip writes one line and reads the next line of stdout, which must
// be one JSON-RPC message answering id.
func (p *stdioProc) roundTrip(id int, line string) map[string]any {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatal(err)
	}
	m := p.read()
	if m["id"] != float64(id) {
		p.t.Fatalf("answer to %d: %v (stderr: %s)", id, m, p.stderr)
	}
	return m
}

// read returns the next line of stdout, which must be one JSON-RPC
// message.
func (p *stdioProc) read() map[string]any {
	p.t.Helper()
	got := make(chan []byte, 1)
	go func() {
		if p.out.Scan() {
			got <- []byte(p.out.Text())
		}
		close(got)
	}()
	select {
	case b, ok := <-got:
		var m map[string]any
		if !ok || json.Unmarshal(b, &m) != nil {
			p.t.Fatalf("not a message: %q (stderr: %s)", b, p.stderr)
		}
		return m
	case <-time.After(20 * time.Second):
		p.t.Fatalf("no line on stdout (stderr: %s)", p.stderr)
	}
	return nil
}

// exit waits for the process to end and returns its exit code.
func (p *stdioProc) exit() int {
	p.t.Helper()
	select {
	case err := <-p.exited:
		p.exited <- err // for the cleanup
		if err == nil {
			return 0
		}
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		p.t.Fatal(err)
	case <-time.After(20 * time.Second):
		p.t.Fatal("the process did not exit")
	}
	return -1
}

func toolText(t *testing.T, m map[string]any) (string, bool, map[string]any) {
	t.Helper()
	r, _ := m["result"].(map[string]any)
	content, _ := r["content"].([]any)
	if r == nil {
		t.Fatalf("no result: %v", m)
	}
	text := ""
	if len(content) > 0 {
		text, _ = content[0].(map[string]any)["text"].(string)
	}
	isError, _ := r["isError"].(bool)
	return text, isError, r
}

// TestStdio runs the built binary with -stdio as a client would: a 2025
// session (no confirmation possible, so the destructive tool refuses),
// then a 2026-07-28 one that confirms a delete in two rounds; stdout
// carries only the answers, the log goes to stderr, and the process ends
// with stdin, or at SIGTERM.
func TestStdio(t *testing.T) {
	bin := inboxBinary(t)
	t.Run("session", func(t *testing.T) {
		p := startStdio(t, bin)
		init := p.roundTrip(1, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
		if v := init["result"].(map[string]any)["protocolVersion"]; v != "2025-06-18" {
			t.Errorf("negotiated %v", v)
		}
		io.WriteString(p.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
		list := p.roundTrip(2, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
		tools, _ := list["result"].(map[string]any)["tools"].([]any)
		var names []string
		for _, tool := range tools {
			names = append(names, tool.(map[string]any)["name"].(string))
		}
		if !slices.Contains(names, "emails_delete") || !slices.Contains(names, "inboxes_list") {
			t.Errorf("dev-writer sees %v", names)
		}
		call := func(id int, name, args, extra string) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s%s}}`, id, name, args, extra)
		}
		text, isError, _ := toolText(t, p.roundTrip(3, call(3, "emails_delete", `{"id":"eml_globex_0001"}`, "")))
		if !isError || !strings.Contains(text, "Do not retry") {
			t.Errorf("a 2025 delete: %q", text)
		}
		meta := `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}`
		_, _, round1 := toolText(t, p.roundTrip(4, call(4, "emails_delete", `{"id":"eml_globex_0001"}`, meta)))
		state, _ := round1["requestState"].(string)
		if round1["resultType"] != "input_required" || state == "" {
			t.Fatalf("round 1: %v", round1)
		}
		answer := `,"requestState":"` + state + `","inputResponses":{"confirm":{"action":"accept","content":{"confirm":true}}}` + meta
		if text, isError, _ := toolText(t, p.roundTrip(5, call(5, "emails_delete", `{"id":"eml_globex_0001"}`, answer))); isError {
			t.Errorf("round 2: %q", text)
		}
		if text, isError, _ := toolText(t, p.roundTrip(6, call(6, "emails_get", `{"id":"eml_globex_0001"}`, meta))); !isError || !strings.Contains(text, "not_found") {
			t.Errorf("the email is still there: %q", text)
		}
		p.in.Close()
		if code := p.exit(); code != 0 {
			t.Errorf("exit %d; stderr: %s", code, p.stderr)
		}
		if p.out.Scan() {
			t.Errorf("stdout holds more: %q", p.out.Text())
		}
		if !strings.Contains(p.stderr.String(), `msg="inbox: serving MCP over stdio" account=dev-writer`) {
			t.Errorf("stderr: %s", p.stderr)
		}
	})
	t.Run("SIGTERM", func(t *testing.T) {
		p := startStdio(t, bin)
		p.roundTrip(1, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if code := p.exit(); code != 0 {
			t.Errorf("exit %d; stderr: %s", code, p.stderr)
		}
	})
}

// TestStdioStdoutClosed: a client that closes its end of stdout gets the
// process to stop with status 1 and say why on stderr, not to be killed
// by SIGPIPE (status 141, nothing logged) at the next answer it writes.
func TestStdioStdoutClosed(t *testing.T) {
	p := startStdio(t, inboxBinary(t))
	p.roundTrip(1, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if err := p.stdout.Close(); err != nil {
		t.Fatal(err)
	}
	// The answer to this one meets a pipe nobody reads. Writing it may
	// fail too if the process has already gone, which is fine.
	io.WriteString(p.in, `{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n")
	if code := p.exit(); code != 1 {
		t.Errorf("exit %d, want 1; stderr: %s", code, p.stderr)
	}
	for _, want := range []string{`msg="inbox: stdio session failed"`, "broken pipe"} {
		if !strings.Contains(p.stderr.String(), want) {
			t.Errorf("stderr lacks %q: %s", want, p.stderr)
		}
	}
}

// TestStdioRate: -rate sets the stdio session's budget as it does the
// HTTP server's, where it used to be fixed at 50/s with a burst of 100.
func TestStdioRate(t *testing.T) {
	bin := inboxBinary(t)
	ping := func(id int) string { return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id) }
	t.Run("small", func(t *testing.T) {
		// Three at once and, for the length of the test, no more.
		p := startStdio(t, bin, "-rate", "0.001,3")
		for id := 1; id <= 3; id++ {
			if m := p.roundTrip(id, ping(id)); m["error"] != nil {
				t.Fatalf("ping %d within the burst: %v", id, m)
			}
		}
		m := p.roundTrip(4, ping(4))
		e, _ := m["error"].(map[string]any)
		data, _ := e["data"].(map[string]any)
		if e["code"] != float64(-31429) || data["reason"] != "rate_limited" || !(data["retryAfterMs"].(float64) > 0) {
			t.Errorf("ping 4, past the burst: %v", m)
		}
		if !strings.Contains(p.stderr.String(), `budget="0.001/s, burst 3"`) {
			t.Errorf("stderr does not name the budget: %s", p.stderr)
		}
	})
	t.Run("large", func(t *testing.T) {
		// 300 at once: the old fixed budget refused 200 of them.
		p := startStdio(t, bin, "-rate", "1000,500")
		var batch strings.Builder
		for id := 1; id <= 300; id++ {
			batch.WriteString(ping(id) + "\n")
		}
		if _, err := io.WriteString(p.in, batch.String()); err != nil {
			t.Fatal(err)
		}
		for range 300 {
			if !p.out.Scan() {
				t.Fatalf("stdout ended; stderr: %s", p.stderr)
			}
			if strings.Contains(p.out.Text(), `"error"`) {
				t.Fatalf("refused: %s", p.out.Text())
			}
		}
		p.in.Close()
		if code := p.exit(); code != 0 {
			t.Errorf("exit %d; stderr: %s", code, p.stderr)
		}
	})
	t.Run("unreadable", func(t *testing.T) {
		p := startStdio(t, bin, "-rate", "fast")
		if code := p.exit(); code != 2 {
			t.Errorf("exit %d, want 2", code)
		}
		if !strings.Contains(p.stderr.String(), "-rate wants requests per second and burst") {
			t.Errorf("stderr: %s", p.stderr)
		}
	})
}

// TestStdioLegacyInput: with -legacy-input, a 2025-06-18 stdio client that
// declared elicitation on initialize confirms a destructive tool: the
// question comes as an elicitation/create line, the answer goes back as a
// line, and the tool runs on an accept only; a client that declared no
// elicitation is refused as before.
func TestStdioLegacyInput(t *testing.T) {
	bin := inboxBinary(t)
	call := func(id int, name, email string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"id":%q}}}`, id, name, email)
	}
	initialize := func(p *stdioProc, caps string) {
		p.t.Helper()
		init := p.roundTrip(1, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":`+caps+`,"clientInfo":{"name":"t","version":"1"}}}`)
		if v := init["result"].(map[string]any)["protocolVersion"]; v != "2025-06-18" {
			p.t.Fatalf("negotiated %v", v)
		}
		io.WriteString(p.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	}
	// ask sends a delete and returns the question it gets, as a line.
	ask := func(p *stdioProc, id int, email string) (qid string, q map[string]any) {
		p.t.Helper()
		io.WriteString(p.in, call(id, "emails_delete", email)+"\n")
		q = p.read()
		if q["method"] != "elicitation/create" {
			p.t.Fatalf("a question expected, got %v", q)
		}
		b, _ := json.Marshal(q["id"])
		return string(b), q
	}
	t.Run("declared", func(t *testing.T) {
		p := startStdio(t, bin, "-legacy-input")
		initialize(p, `{"elicitation":{}}`)
		qid, q := ask(p, 2, "eml_globex_0001")
		params, _ := q["params"].(map[string]any)
		if _, hasMode := params["mode"]; hasMode || params["requestedSchema"] == nil {
			t.Errorf("a 2025-06-18 elicitation: %v", params)
		}
		accept := `{"jsonrpc":"2.0","id":` + qid + `,"result":{"action":"accept","content":{"confirm":true}}}`
		if text, isError, _ := toolText(t, p.roundTrip(2, accept)); isError {
			t.Errorf("the confirmed delete: %q", text)
		}
		if text, isError, _ := toolText(t, p.roundTrip(3, call(3, "emails_get", "eml_globex_0001"))); !isError || !strings.Contains(text, "not_found") {
			t.Errorf("the email is still there: %q", text)
		}
		qid, _ = ask(p, 4, "eml_globex_0002")
		decline := `{"jsonrpc":"2.0","id":` + qid + `,"result":{"action":"decline"}}`
		if text, isError, _ := toolText(t, p.roundTrip(4, decline)); !isError || !strings.Contains(text, "confirmation_declined") {
			t.Errorf("the declined delete: %q", text)
		}
		if text, isError, _ := toolText(t, p.roundTrip(5, call(5, "emails_get", "eml_globex_0002"))); isError {
			t.Errorf("a declined delete removed the email: %q", text)
		}
		// The same answer again is not taken, and nothing answers it.
		if m := p.roundTrip(6, accept+"\n"+`{"jsonrpc":"2.0","id":6,"method":"ping"}`); m["error"] != nil {
			t.Errorf("ping: %v", m)
		}
		p.in.Close()
		if code := p.exit(); code != 0 {
			t.Errorf("exit %d; stderr: %s", code, p.stderr)
		}
		if p.out.Scan() {
			t.Errorf("stdout holds more: %q", p.out.Text())
		}
		for _, want := range []string{"legacyInput=true", "stdio: a JSON-RPC response from the client was ignored"} {
			if !strings.Contains(p.stderr.String(), want) {
				t.Errorf("stderr lacks %q: %s", want, p.stderr)
			}
		}
	})
	t.Run("not declared", func(t *testing.T) {
		p := startStdio(t, bin, "-legacy-input")
		initialize(p, `{}`)
		if text, isError, _ := toolText(t, p.roundTrip(2, call(2, "emails_delete", "eml_globex_0001"))); !isError || !strings.Contains(text, "confirmation_required") {
			t.Errorf("a delete without elicitation declared: %q", text)
		}
		p.in.Close()
		if code := p.exit(); code != 0 {
			t.Errorf("exit %d; stderr: %s", code, p.stderr)
		}
	})
}

// TestStdioNotifications: -stdio -notifications serves a 2026-07-28
// subscriptions/listen on the lines, as over HTTP, where the flag was
// accepted and did nothing (a listen was -32601): the stream is
// acknowledged, the change the session's own delete makes is announced on
// it, a 2025 session is served beside it, and the end of stdin ends it
// with its result and the process with 0.
func TestStdioNotifications(t *testing.T) {
	p := startStdio(t, inboxBinary(t), "-notifications")
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}`
	io.WriteString(p.in, `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{`+meta+
		`,"notifications":{"resourceSubscriptions":["inbox://inboxes/inb_globex_ops"]}}}`+"\n")
	if ack := p.read(); ack["method"] != "notifications/subscriptions/acknowledged" {
		t.Fatalf("listen: %v", ack)
	} else if b, _ := json.Marshal(ack["params"]); !strings.Contains(string(b), `"resourceSubscriptions":["inbox://inboxes/inb_globex_ops"]`) {
		t.Errorf("acknowledged: %s", b)
	}
	call := func(id int, extra string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"emails_delete","arguments":{"id":"eml_globex_0001"},%s%s}}`, id, meta, extra)
	}
	round1 := p.roundTrip(2, call(2, ""))
	state, _ := round1["result"].(map[string]any)["requestState"].(string)
	if state == "" {
		t.Fatalf("round 1: %v", round1)
	}
	io.WriteString(p.in, call(3, `,"requestState":"`+state+`","inputResponses":{"confirm":{"action":"accept","content":{"confirm":true}}}`)+"\n")
	// The answer and the announcement, in either order.
	var answered, announced bool
	for range 2 {
		m := p.read()
		switch {
		case m["id"] == float64(3):
			if _, isError, _ := toolText(t, m); isError {
				t.Errorf("round 2: %v", m)
			}
			answered = true
		case m["method"] == "notifications/resources/updated":
			b, _ := json.Marshal(m["params"])
			if !strings.Contains(string(b), `"uri":"inbox://inboxes/inb_globex_ops"`) || !strings.Contains(string(b), `"io.modelcontextprotocol/subscriptionId":1`) {
				t.Errorf("announced: %s", b)
			}
			announced = true
		default:
			t.Fatalf("unexpected: %v", m)
		}
	}
	if !answered || !announced {
		t.Fatalf("answered %v, announced %v", answered, announced)
	}
	init := p.roundTrip(4, `{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if v := init["result"].(map[string]any)["protocolVersion"]; v != "2025-06-18" {
		t.Errorf("negotiated %v", init)
	}
	io.WriteString(p.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	if list := p.roundTrip(5, `{"jsonrpc":"2.0","id":5,"method":"tools/list"}`); list["result"] == nil {
		t.Errorf("a 2025 session beside the stream: %v", list)
	}
	p.in.Close()
	if end := p.read(); end["id"] != float64(1) || end["result"] == nil {
		t.Errorf("the stream's end: %v", end)
	}
	if code := p.exit(); code != 0 {
		t.Errorf("exit %d; stderr: %s", code, p.stderr)
	}
	if p.out.Scan() {
		t.Errorf("stdout holds more: %q", p.out.Text())
	}
}

// TestStdioRefusesFlagsItIgnores: a flag of the HTTP server beside -stdio
// is refused (exit 2, named on stderr) before anything is served: a
// stdio session keeps its state in its process, so -redis would be
// silently unused, and -otel-stdout would put spans on the protocol's
// lines. Before, each was accepted and did nothing.
func TestStdioRefusesFlagsItIgnores(t *testing.T) {
	bin := inboxBinary(t)
	for _, args := range [][]string{
		{"-redis", "redis://127.0.0.1:1"},
		{"-otel-stdout"},
		{"-addr", "127.0.0.1:0"},
		{"-public-url", "http://127.0.0.1:1"},
		{"-shutdown-timeout", "1s"},
		{"-notifications", "-redis", "redis://127.0.0.1:1"},
	} {
		p := startStdio(t, bin, args...)
		if code := p.exit(); code != 2 {
			t.Errorf("%q: exit %d, want 2; stderr: %s", args, code, p.stderr)
		}
		if !strings.Contains(p.stderr.String(), "has no effect with -stdio") {
			t.Errorf("%q: stderr does not say why: %s", args, p.stderr)
		}
		if p.out.Scan() {
			t.Errorf("%q: wrote to stdout: %s", args, p.out.Text())
		}
	}
	// What a stdio session reads is still taken.
	p := startStdio(t, bin, "-rate", "10,10", "-legacy-input", "-notifications")
	if m := p.roundTrip(1, `{"jsonrpc":"2.0","id":1,"method":"ping"}`); m["error"] != nil {
		t.Errorf("ping with the flags stdio reads: %v", m)
	}
	p.in.Close()
	if code := p.exit(); code != 0 {
		t.Errorf("exit %d; stderr: %s", code, p.stderr)
	}
}
