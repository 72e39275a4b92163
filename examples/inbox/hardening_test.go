package main

// Tests of the hardening findings against the reference server: replayed
// confirmations, idempotent writes, one rate budget for both doors, a full
// job queue, bounded memory, shutdown that cut requests, and confirmation
// questions that hide nothing.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/mcptest"
)

// TestReplay_ConfirmationsRunOnce: one accepted confirmation of a
// non-idempotent tool, fired 50 times at once, runs once; the others are
// told it is running or get its outcome.
func TestReplay_ConfirmationsRunOnce(t *testing.T) {
	for _, tool := range []string{"webhooks_send_test", "webhooks_rotate_secret"} {
		t.Run(tool, func(t *testing.T) {
			s := start(t)
			ctx := context.Background()
			c := mcptest.Dial(s.base+"/mcp", mcp.Version20260728, mcptest.WithHeader("Authorization", "Bearer dev-writer"),
				mcptest.WithCapabilities(json.RawMessage(`{"elicitation":{}}`)))
			args := map[string]string{"id": "whk_globex_ops"}
			r, err := c.CallTool(ctx, tool, args)
			var in struct{ RequestState string }
			if err != nil || json.Unmarshal(r.Result, &in) != nil || in.RequestState == "" {
				t.Fatalf("round 1: %v %s", err, r.Raw)
			}
			deliveries := func() int {
				s.app.store.mu.Lock()
				defer s.app.store.mu.Unlock()
				return len(s.app.store.deliveries)
			}
			before, secretBefore := deliveries(), s.secret("whk_globex_ops")
			var wg sync.WaitGroup
			var mu sync.Mutex
			executed, refused := 0, 0
			for range 50 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r, err := c.Call(ctx, "tools/call", map[string]any{"name": tool, "arguments": args, "requestState": in.RequestState,
						"inputResponses": map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]bool{"confirm": true}}}})
					mu.Lock()
					defer mu.Unlock()
					switch {
					case err == nil && r.Status == 503 && strings.Contains(string(r.Raw), `"confirmation_in_progress"`):
						// Told to come back while the first one runs.
						refused++
						return
					case err != nil || r.Error != nil:
						t.Errorf("round 2: %v %s", err, r.Raw)
						return
					}
					if strings.Contains(string(r.Result), "confirmation_already_used") {
						refused++
					} else if !strings.Contains(string(r.Result), `"isError":true`) {
						executed++
					}
				}()
			}
			wg.Wait()
			if executed != 1 || refused != 49 {
				t.Errorf("executed %d, refused %d", executed, refused)
			}
			switch tool {
			case "webhooks_send_test":
				if n := deliveries() - before; n != 1 {
					t.Errorf("%d test deliveries, want 1", n)
				}
			case "webhooks_rotate_secret":
				if s.secret("whk_globex_ops") == secretBefore {
					t.Error("the secret did not rotate")
				}
			}
		})
	}
}

func (s *testServer) secret(id string) string {
	s.app.store.mu.Lock()
	defer s.app.store.mu.Unlock()
	return s.app.store.webhooks[id].secret
}

// TestREST_IdempotencyKey: a write repeated with its Idempotency-Key runs
// once and answers the same, also 50 times at once; the key reused for
// another request is refused.
func TestREST_IdempotencyKey(t *testing.T) {
	s := start(t)
	post := func(path, key string) (int, string, string) {
		req, _ := http.NewRequest("POST", s.base+path, nil)
		req.Header.Set("Authorization", "Bearer dev-writer")
		req.Header.Set("Idempotency-Key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			return 0, "", ""
		}
		defer resp.Body.Close()
		var b strings.Builder
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			b.WriteString(sc.Text())
		}
		return resp.StatusCode, b.String(), resp.Header.Get("Idempotent-Replayed")
	}
	st1, first, _ := post("/api/v1/webhooks/whk_globex_ops/rotate-secret", "k1")
	st2, again, replayed := post("/api/v1/webhooks/whk_globex_ops/rotate-secret", "k1")
	if st1 != 200 || st2 != 200 || first != again || replayed != "true" {
		t.Errorf("replay: %d %d %q\n%s\n%s", st1, st2, replayed, first, again)
	}
	var got struct{ Data struct{ Secret string } }
	_ = json.Unmarshal([]byte(first), &got)
	if got.Data.Secret != s.secret("whk_globex_ops") {
		t.Error("the replay rotated the secret again")
	}
	if st, body, _ := post("/api/v1/webhooks/whk_globex_ops/test", "k1"); st != 422 || !strings.Contains(body, "idempotency_key_reused") {
		t.Errorf("key reused on another operation: %d %s", st, body)
	}
	// A keyed body over 1 MiB is refused, never cut and run.
	big, _ := http.NewRequest("PUT", s.base+"/api/v1/inboxes/inb_globex_ops/allowed-senders", strings.NewReader(`{"senders":["`+strings.Repeat("a", 1<<20)+`"]}`))
	big.Header.Set("Authorization", "Bearer dev-writer")
	big.Header.Set("Content-Type", "application/json")
	big.Header.Set("Idempotency-Key", "k-big")
	if resp, err := http.DefaultClient.Do(big); err != nil || resp.StatusCode != 413 {
		t.Errorf("a keyed body over 1 MiB: %v %v", err, resp)
	} else {
		resp.Body.Close()
	}
	var wg sync.WaitGroup
	answers := make([]string, 50)
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, answers[i], _ = post("/api/v1/webhooks/whk_globex_ops/rotate-secret", "k2")
		}()
	}
	wg.Wait()
	for _, a := range answers[1:] {
		if a != answers[0] {
			t.Fatalf("50 concurrent requests with one key got different answers:\n%s\n%s", answers[0], a)
		}
	}
	_ = json.Unmarshal([]byte(answers[0]), &got)
	if got.Data.Secret != s.secret("whk_globex_ops") {
		t.Error("more than one of the 50 requests rotated the secret")
	}
}

// TestREST_SharesTheMCPBudget: the same token cannot spend its budget
// twice, once at /mcp and once at /api/v1.
func TestREST_SharesTheMCPBudget(t *testing.T) {
	s := startWith(t, appConfig{queue: 8, worker: true, perSecond: 0.001, burst: 3})
	c := s.client(mcp.Version20250618, reader, "")
	for range 3 { // initialize, notifications/initialized, ping
		call(t, c, "ping", nil)
	}
	if r := call(t, c, "ping", nil); r.Status != 429 {
		t.Fatalf("the MCP budget is not spent: %d", r.Status)
	}
	st, body := s.rest(t, "GET", "/api/v1/inboxes", reader, "")
	if st != 429 || !strings.Contains(body, "rate_limited") {
		t.Errorf("REST after the MCP budget was spent: %d %s", st, body)
	}
	// The budget is the principal's: another one still gets through.
	if st, _ := s.rest(t, "GET", "/api/v1/inboxes", writer, ""); st != 200 {
		t.Errorf("another principal: %d", st)
	}
}

// TestREST_QueueFull: a full job queue answers 503 at once, never blocks.
func TestREST_QueueFull(t *testing.T) {
	s := startWith(t, appConfig{queue: 1, worker: false, perSecond: 50, burst: 100})
	if st, body := s.rest(t, "POST", "/api/v1/emails/eml_globex_0001/reprocess", writer, ""); st != 202 {
		t.Fatalf("first job: %d %s", st, body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", s.base+"/api/v1/emails/eml_globex_0002/reprocess", nil)
	req.Header.Set("Authorization", "Bearer dev-writer")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("the second job blocked: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" {
		t.Errorf("queue full: %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	s.app.store.mu.Lock()
	n := len(s.app.store.jobs)
	s.app.store.mu.Unlock()
	if n != 1 {
		t.Errorf("%d jobs kept, want 1: the refused one must not linger", n)
	}
}

// TestQueue_FullTellsTheModelToRetry: a confirmed long operation that
// finds the job queue full (the REST API's 503 busy, Retry-After 1)
// reaches the model as an isError result telling it to retry in 1 s —
// something it can act on — not as an internal error, and queues nothing.
// Only 2026-07-28 runs destructive tools, so only it reaches the queue.
func TestQueue_FullTellsTheModelToRetry(t *testing.T) {
	s := startWith(t, appConfig{queue: 1, worker: false, perSecond: 50, burst: 100})
	if st, body := s.rest(t, "POST", "/api/v1/emails/eml_globex_0001/reprocess", writer, ""); st != 202 {
		t.Fatalf("first job: %d %s", st, body)
	}
	calls := map[string]map[string]any{
		"emails_reprocess": {"id": "eml_globex_0002"},
		"webhooks_resend":  {"id": "whk_globex_ops", "delivery_id": "dlv_globex_0001"},
	}
	for tool, args := range calls {
		r, res := callTool(t, s.client(mcp.Version20260728, writer, `{"action":"accept","content":{"confirm":true}}`), tool, args)
		if r.Status != 200 || !res.IsError || res.ResultType != "complete" || len(res.Content) != 1 ||
			res.Content[0].Text != "The tool's service is temporarily unavailable (503 Service Unavailable); retry in 1 s." {
			t.Errorf("%s with the queue full: %d %s", tool, r.Status, r.Raw)
		}
	}
	s.app.store.mu.Lock()
	n := len(s.app.store.jobs)
	s.app.store.mu.Unlock()
	if n != 1 {
		t.Errorf("%d jobs, want the first one only", n)
	}
}

// TestStore_Bounded: what the store and the idempotency records keep
// stays bounded.
func TestStore_Bounded(t *testing.T) {
	st := seeded(2 * maxDeliveries)
	for range maxDeliveries + 50 {
		if _, ok := st.testDelivery("ws_globex", "whk_globex_ops"); !ok {
			t.Fatal("no webhook")
		}
	}
	n := 0
	for _, d := range st.deliveries {
		if d.WebhookID == "whk_globex_ops" {
			n++
		}
	}
	if n != maxDeliveries {
		t.Errorf("%d deliveries kept for one webhook, want %d", n, maxDeliveries)
	}

	old := time.Now().Add(-2 * jobTTL)
	st.jobs["job_old"] = &job{ID: "job_old", Workspace: "ws_globex", Status: "succeeded", FinishedAt: &old}
	if _, err := st.enqueue(context.Background(), "ws_globex", "email.reprocess", "eml_globex_0001"); err != nil {
		t.Fatal(err)
	}
	if _, kept := st.jobs["job_old"]; kept {
		t.Error("a job finished long ago was kept")
	}

	m := newMemoryIdem()
	m.maxKeys = 3
	for i := range 5 {
		m.add("o", fmt.Sprint(i), &idemEntry{owner: "o", expires: time.Now().Add(time.Hour)})
	}
	if len(m.entries) != 3 {
		t.Errorf("%d idempotency records, want 3", len(m.entries))
	}
}

// TestConfirmation_LongSenderList: the question names every sender it can
// and says how many it leaves out; nothing invisible reaches it.
func TestConfirmation_LongSenderList(t *testing.T) {
	s := start(t)
	senders := []string{}
	for i := range 11 {
		senders = append(senders, fmt.Sprintf("s%d@partner.test", i))
	}
	senders = append(senders, "attacker@evil.test")
	var question string
	c := mcptest.Dial(s.base+"/mcp", mcp.Version20260728, mcptest.WithHeader("Authorization", "Bearer dev-writer"),
		mcptest.WithCapabilities(json.RawMessage(`{"elicitation":{}}`)),
		mcptest.WithAnswers(func(_ string, req mcptest.InputRequest) (json.RawMessage, bool) {
			var p struct{ Message string }
			_ = json.Unmarshal(req.Params, &p)
			question = p.Message
			return json.RawMessage(`{"action":"decline"}`), true
		}))
	callTool(t, c, "inboxes_update_senders", map[string]any{"id": "inb_globex_ops", "senders": senders})
	if !strings.Contains(question, "with 12 address(es)") || !strings.Contains(question, "and 2 more, not shown") {
		t.Errorf("question: %q", question)
	}
}

// TestMain_ShutdownEndsStreams: with -notifications, an open listen
// stream does not hold the shutdown up: it ends with its result, and the
// process exits 0 well within its shutdown timeout.
func TestMain_ShutdownEndsStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := inboxBinary(t)
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0", "-notifications", "-shutdown-timeout", "30s")
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
	base := ""
	for sc.Scan() && base == "" {
		if f := strings.Fields(sc.Text()); len(f) == 3 && f[0] == "MCP" {
			base = strings.TrimSuffix(f[2], "/mcp")
		}
	}
	go func() {
		for sc.Scan() {
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	stream := listenInbox(t, ctx, &testServer{base: base}, who{token: "dev-admin", workspace: "ws_acme_prod"}, `"inbox://inboxes/inb_acme_billing"`)
	if ack := <-stream; !strings.Contains(ack, "notifications/subscriptions/acknowledged") {
		t.Fatalf("ack: %s", ack)
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	if end := <-stream; !strings.Contains(end, `"id":3,"result":{"resultType":"complete"`) {
		t.Errorf("the stream's end: %q", end)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit %v, stderr %q", err, stderr.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("still running 15 s after SIGTERM, with a 30 s shutdown timeout: the stream held the shutdown up")
	}
}

// TestMain_ShutdownCutsRequests: when requests in flight outlive the
// shutdown timeout, the process says so and exits 1.
func TestMain_ShutdownCutsRequests(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := inboxBinary(t)
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0", "-shutdown-timeout", "200ms")
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	addr := ""
	for sc.Scan() && addr == "" {
		if f := strings.Fields(sc.Text()); len(f) == 3 && f[0] == "MCP" {
			addr = strings.TrimSuffix(strings.TrimPrefix(f[2], "http://"), "/mcp")
		}
	}
	go func() {
		for sc.Scan() {
		}
	}()
	// A request whose body never finishes keeps its connection active.
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		_ = cmd.Process.Kill()
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{", addr)
	time.Sleep(100 * time.Millisecond)
	_ = cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		exit, ok := err.(*exec.ExitError)
		if !ok || exit.ExitCode() != 1 || !strings.Contains(stderr.String(), "were cut") {
			t.Errorf("exit %v, stderr %q", err, stderr.String())
		}
	case <-time.After(15 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("still running after 15 s")
	}
}
