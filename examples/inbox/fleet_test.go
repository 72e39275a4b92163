package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/mcptest"
	"github.com/mcpdual/mcpdual/mrtr"
)

// startReplica runs the app on a loopback port of its own, as a replica
// whose resource URI is resource (what -public-url sets).
func startReplica(t *testing.T, resource string, sh shared) *testServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := newAppWith(resource, appConfig{queue: 1024, worker: true, perSecond: 50, burst: 100, shared: sh})
	ts := &httptest.Server{Listener: ln, Config: &http.Server{Handler: a.handler}}
	ts.Start()
	t.Cleanup(func() { ts.Close(); a.close() })
	return &testServer{base: "http://" + ln.Addr().String(), app: a}
}

func testRing(t *testing.T) *mrtr.Ring {
	t.Helper()
	b := make([]byte, 32)
	rand.Read(b)
	keys, err := mrtr.ParseKeys("k1:" + base64.StdEncoding.EncodeToString(b))
	if err != nil {
		t.Fatal(err)
	}
	ring, err := mrtr.NewRing(keys...)
	if err != nil {
		t.Fatal(err)
	}
	return ring
}

// confirmAcross asks for a confirmation on replica a and gives the answer
// to replica b; it reports whether the tool ran on b.
func confirmAcross(t *testing.T, a, b *testServer) (ran bool, answer *mcptest.Response) {
	t.Helper()
	ctx := context.Background()
	dial := func(s *testServer) *mcptest.Client {
		return mcptest.Dial(s.base+"/mcp", mcp.Version20260728, mcptest.WithHeader("Authorization", "Bearer dev-writer"),
			mcptest.WithCapabilities(json.RawMessage(`{"elicitation":{}}`)))
	}
	params := map[string]any{"name": "webhooks_rotate_secret", "arguments": map[string]string{"id": "whk_globex_ops"}}
	r, err := dial(a).Call(ctx, "tools/call", params)
	var in struct{ RequestState string }
	if err != nil || json.Unmarshal(r.Result, &in) != nil || in.RequestState == "" {
		t.Fatalf("round 1: %v %s", err, r.Raw)
	}
	params["requestState"] = in.RequestState
	params["inputResponses"] = map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]bool{"confirm": true}}}
	before := b.secret("whk_globex_ops")
	r, err = dial(b).Call(ctx, "tools/call", params)
	if err != nil {
		t.Fatal(err)
	}
	return b.secret("whk_globex_ops") != before, r
}

// A confirmation asked on one replica opens on another when both load one
// key ring and name one resource URI; without either, the answer is
// refused and nothing runs. With one ring but no -redis, each process
// has its own in-memory replay guard, which cannot know what another
// process (or this one before a restart) ran: the confirmation is asked
// again and nothing runs (design record 019). TestReplicas runs it across replicas
// sharing Redis.
func TestFleet_ConfirmationCrossesReplicas(t *testing.T) {
	const public = "http://127.0.0.1:9/mcp" // what -public-url http://127.0.0.1:9 gives
	ring := testRing(t)
	a, b := startReplica(t, public, shared{ring: ring}), startReplica(t, public, shared{ring: ring})
	if ran, r := confirmAcross(t, a, b); ran || r.Error != nil || !strings.Contains(string(r.Result), `"resultType":"input_required"`) {
		t.Errorf("shared ring, in-memory guards: ran %v, %s", ran, r.Raw)
	}
	// A restart is another process: the same ring, a new guard.
	a = startReplica(t, public, shared{ring: ring})
	ctx := context.Background()
	c := mcptest.Dial(a.base+"/mcp", mcp.Version20260728, mcptest.WithHeader("Authorization", "Bearer dev-writer"),
		mcptest.WithCapabilities(json.RawMessage(`{"elicitation":{}}`)))
	params := map[string]any{"name": "webhooks_rotate_secret", "arguments": map[string]string{"id": "whk_globex_ops"}}
	r, err := c.Call(ctx, "tools/call", params)
	var in struct{ RequestState string }
	if err != nil || json.Unmarshal(r.Result, &in) != nil || in.RequestState == "" {
		t.Fatalf("round 1: %v %s", err, r.Raw)
	}
	params["requestState"] = in.RequestState
	params["inputResponses"] = map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]bool{"confirm": true}}}
	before := a.secret("whk_globex_ops")
	if r, err := c.Call(ctx, "tools/call", params); err != nil || a.secret("whk_globex_ops") == before {
		t.Fatalf("the confirmation did not run where it was asked: %v %s", err, r.Raw)
	}
	restarted := startReplica(t, public, shared{ring: ring})
	restarted.app.store.mu.Lock()
	restarted.app.store.webhooks["whk_globex_ops"].secret = a.secret("whk_globex_ops") // the store survives, as a database would
	restarted.app.store.mu.Unlock()
	before = restarted.secret("whk_globex_ops")
	r, err = mcptest.Dial(restarted.base+"/mcp", mcp.Version20260728, mcptest.WithHeader("Authorization", "Bearer dev-writer"),
		mcptest.WithCapabilities(json.RawMessage(`{"elicitation":{}}`))).Call(ctx, "tools/call", params)
	if err != nil || restarted.secret("whk_globex_ops") != before || !strings.Contains(string(r.Result), `"resultType":"input_required"`) {
		t.Errorf("the used confirmation after a restart: %v, rotated %v, %s", err, restarted.secret("whk_globex_ops") != before, r.Raw)
	}

	// Each process with a key of its own (no INBOX_STATE_KEYS).
	a, b = startReplica(t, public, shared{}), startReplica(t, public, shared{})
	if ran, r := confirmAcross(t, a, b); ran || r.Error == nil || r.Error.Message != "Invalid or expired requestState" {
		t.Errorf("keys of their own: ran %v, %s", ran, r.Raw)
	}

	// One ring, but each replica derives its resource URI from its own
	// address (no -public-url): the state is bound to the first one's.
	a = startReplica(t, "http://127.0.0.1:1/mcp", shared{ring: ring})
	b = startReplica(t, "http://127.0.0.1:2/mcp", shared{ring: ring})
	if ran, r := confirmAcross(t, a, b); ran || r.Error == nil || r.Error.Message != "Invalid or expired requestState" {
		t.Errorf("two resource URIs: ran %v, %s", ran, r.Raw)
	}
}

func TestFleet_Flags(t *testing.T) {
	for _, tc := range []struct {
		rate      string
		perSecond float64
		burst     int
	}{{"50,100", 50, 100}, {" 0.5 , 3 ", 0.5, 3}} {
		if r, b, err := parseRate(tc.rate); err != nil || r != tc.perSecond || b != tc.burst {
			t.Errorf("-rate %q: %v %v %v", tc.rate, r, b, err)
		}
	}
	for _, bad := range []string{"", "50", "50,", ",100", "0,100", "50,0", "-1,5", "NaN,5", "50,1.5", "x,y"} {
		if _, _, err := parseRate(bad); err == nil || !strings.Contains(err.Error(), "-rate wants") {
			t.Errorf("-rate %q: %v", bad, err)
		}
	}
	for _, good := range []string{"http://127.0.0.1:9000", "https://inbox.example.com/", "https://inbox.example.com:8443"} {
		if _, err := parsePublicURL(good); err != nil {
			t.Errorf("-public-url %q: %v", good, err)
		}
	}
	for _, bad := range []string{"", "inbox.example.com", "ftp://inbox.example.com", "https://inbox.example.com/mcp",
		"https://user:secret@inbox.example.com", "https://inbox.example.com?x=1", "https://inbox.example.com#f", "https://"} {
		_, err := parsePublicURL(bad)
		if err == nil || !strings.Contains(err.Error(), "-public-url wants") || strings.Contains(err.Error(), "secret") {
			t.Errorf("-public-url %q: %v", bad, err)
		}
	}
}

// TestFleet_AddrBeyondLoopbackNeedsPublicURL: without -public-url the
// resource URI is http on the listen address, which only a loopback host
// may have, as -addr's help says: another address is a usage error naming
// -public-url (run exits 2), where it reached the authenticator and
// panicked. No socket is opened: setup reads the address only.
func TestFleet_AddrBeyondLoopbackNeedsPublicURL(t *testing.T) {
	t.Setenv(keysEnv, "")
	os.Unsetenv(keysEnv)
	for _, addr := range []*net.TCPAddr{{IP: net.IPv4zero, Port: 8080}, {IP: net.IPv6unspecified, Port: 8080}, {IP: net.IPv4(192, 0, 2, 7), Port: 8080}} {
		_, err := fleetFlags{rate: "50,100"}.setup(addr)
		if err == nil || !strings.Contains(err.Error(), "-public-url") || !strings.Contains(err.Error(), addr.String()) {
			t.Errorf("-addr %s without -public-url: %v", addr, err)
		}
		if _, err := (fleetFlags{rate: "50,100", publicURL: "https://inbox.example.com"}).setup(addr); err != nil {
			t.Errorf("-addr %s with -public-url: %v", addr, err)
		}
	}
	for _, addr := range []*net.TCPAddr{{IP: net.IPv4(127, 0, 0, 1), Port: 8080}, {IP: net.IPv6loopback, Port: 8080}} {
		fl, err := fleetFlags{rate: "50,100"}.setup(addr)
		if err != nil {
			t.Fatalf("-addr %s: %v", addr, err)
		}
		// The URI the authenticator is built with: it must take it.
		newAppWith(fl.base+"/mcp", appConfig{queue: 1, perSecond: fl.perSecond, burst: fl.burst, shared: fl.shared}).close()
	}
}

// setup reports what it uses, names the key ids but never a key, and
// admits the public host name on the endpoint.
func TestFleet_Setup(t *testing.T) {
	secret := make([]byte, 32)
	rand.Read(secret)
	old := make([]byte, 32)
	rand.Read(old)
	text := "k2:" + base64.StdEncoding.EncodeToString(secret) + ",k1:" + base64.StdEncoding.EncodeToString(old)
	t.Setenv(keysEnv, text)
	listen := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8081}
	fl, err := fleetFlags{publicURL: "https://inbox.example.com", rate: "5,20"}.setup(listen)
	if err != nil {
		t.Fatal(err)
	}
	report := strings.Join(fl.report, "\n")
	for _, want := range []string{"resource URI   https://inbox.example.com/mcp (-public-url; listening on 127.0.0.1:8081)",
		"state keys     k2,k1 from INBOX_STATE_KEYS, sealing with k2", "shared state   none: rate budgets (5/s, burst 20 per principal)"} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	if strings.Contains(report, text[3:20]) || strings.Contains(report, text[len(text)-20:]) {
		t.Errorf("report quotes a key:\n%s", report)
	}

	s := startReplica(t, fl.base+"/mcp", fl.shared)
	for host, want := range map[string]int{"inbox.example.com": 200, "127.0.0.1:8081": 200, "evil.example.com": 403} {
		req, _ := http.NewRequest("POST", s.base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Host = host
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer dev-reader")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %s: %d, want %d", host, resp.StatusCode, want)
		}
	}

	t.Setenv(keysEnv, "k1:"+base64.StdEncoding.EncodeToString(make([]byte, 32)))
	if _, err := (fleetFlags{rate: "50,100"}).setup(listen); err == nil || !strings.Contains(err.Error(), "INBOX_STATE_KEYS: entry 1 of 1") {
		t.Errorf("a placeholder key: %v", err)
	}
}
