package main

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/mcp"
)

// listenInbox opens a 2026-07-28 listen as w for the given URIs and
// returns its data lines; the acknowledgement is the first.
func listenInbox(t *testing.T, ctx context.Context, s *testServer, w who, uris string) <-chan string {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":3,"method":"subscriptions/listen","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientCapabilities":{}},"notifications":{"resourceSubscriptions":[` + uris + `]}}}`
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.base+"/mcp", strings.NewReader(body))
	req.Header = http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
		"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"subscriptions/listen"}, "Authorization": {"Bearer " + w.token}}
	if w.workspace != "" {
		req.Header.Set("X-Workspace-Id", w.workspace)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	out := make(chan string, 8)
	go func() {
		defer close(out)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				out <- d
			}
		}
	}()
	return out
}

// TestNotifications_Inbox: with -notifications, an email arriving through
// the REST API, or an inbox's senders replaced, reaches the callers of
// that workspace that subscribed to the inbox's URI — and no one else; an
// inbox of another workspace cannot be subscribed to.
func TestNotifications_Inbox(t *testing.T) {
	s := startWith(t, appConfig{queue: 16, worker: true, perSecond: 50, burst: 100, notifications: true})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	admin := who{token: "dev-admin", workspace: "ws_acme_prod"}
	globex := listenInbox(t, ctx, s, writer, `"inbox://inboxes/inb_globex_ops","inbox://inboxes/inb_acme_billing"`)
	acme := listenInbox(t, ctx, s, admin, `"inbox://inboxes/inb_acme_billing"`)
	if ack := <-globex; !strings.Contains(ack, `"resourceSubscriptions":["inbox://inboxes/inb_globex_ops"]`) {
		t.Fatalf("globex's ack (another workspace's inbox left out): %s", ack)
	}
	if ack := <-acme; !strings.Contains(ack, `"resourceSubscriptions":["inbox://inboxes/inb_acme_billing"]`) {
		t.Fatalf("acme's ack: %s", ack)
	}
	if code, body := s.rest(t, "POST", "/api/v1/inboxes/inb_acme_billing/emails", admin, `{"from":"bank@partner.test","subject":"Boleto 2026-12","body":"paid"}`); code != 201 {
		t.Fatalf("receive: %d %s", code, body)
	}
	select {
	case m := <-acme:
		if !strings.Contains(m, `"method":"notifications/resources/updated"`) || !strings.Contains(m, `"uri":"inbox://inboxes/inb_acme_billing"`) {
			t.Fatalf("acme: %s", m)
		}
	case <-ctx.Done():
		t.Fatal("acme heard nothing")
	}
	select {
	case m := <-globex:
		t.Fatalf("globex heard acme's email: %s", m)
	case <-time.After(200 * time.Millisecond):
	}
	if code, body := s.rest(t, "PUT", "/api/v1/inboxes/inb_globex_ops/allowed-senders", writer, `{"senders":["carrier@logistics.test"]}`); code != 200 {
		t.Fatalf("senders: %d %s", code, body)
	}
	if m := <-globex; !strings.Contains(m, `"uri":"inbox://inboxes/inb_globex_ops"`) {
		t.Fatalf("globex: %s", m)
	}
	// Receiving is refused for another workspace's inbox, and checked.
	if code, _ := s.rest(t, "POST", "/api/v1/inboxes/inb_acme_billing/emails", writer, `{"from":"a@b.test","subject":"x","body":""}`); code != 404 {
		t.Errorf("another workspace's inbox: %d", code)
	}
	if code, _ := s.rest(t, "POST", "/api/v1/inboxes/inb_globex_ops/emails", writer, `{"from":"not an address","subject":"x"}`); code != 422 {
		t.Errorf("a bad sender: %d", code)
	}
}

// TestNotifications_OffByDefault: the contract pushes nothing.
func TestNotifications_OffByDefault(t *testing.T) {
	s := start(t)
	c := s.client(mcp.Version20260728, writer, "")
	if r := call(t, c, "server/discover", nil); strings.Contains(string(r.Result), "listChanged") || strings.Contains(string(r.Result), "subscribe") {
		t.Errorf("discover: %s", r.Result)
	}
	req, _ := http.NewRequest(http.MethodGet, s.base+"/mcp", nil)
	req.Header.Set("Authorization", "Bearer dev-writer")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 405 {
		t.Errorf("GET: %d", resp.StatusCode)
	}
}
