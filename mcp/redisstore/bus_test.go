package redisstore_test

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/redisstore"
	"github.com/mcpdual/mcpdual/mrtr"
)

// TestAnswerBus_OnceAcrossClients: an answer published through one
// replica's bus reaches the call waiting on another's, once; a second
// answer, one to an id nobody waits for and one after the wait ended are
// refused.
func TestAnswerBus_OnceAcrossClients(t *testing.T) {
	t.Parallel()
	p := testPrefix(t)
	waiter := redisstore.NewAnswerBus(newClient(t, sharedAddr), redisstore.WithPrefix(p), redisstore.WithTimeout(2*time.Second))
	other := redisstore.NewAnswerBus(newClient(t, sharedAddr), redisstore.WithPrefix(p), redisstore.WithTimeout(2*time.Second))
	t.Cleanup(func() { waiter.Close(); other.Close() })
	ctx := context.Background()
	ch, stop, err := waiter.Subscribe(ctx, "q1")
	if err != nil {
		t.Fatal(err)
	}
	ok, err := other.Publish(ctx, "q1", []byte(`first`))
	if err != nil || !ok {
		t.Fatalf("publish: %v %v", ok, err)
	}
	select {
	case got := <-ch:
		if string(got) != "first" {
			t.Errorf("got %q", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no answer delivered")
	}
	if ok, err := other.Publish(ctx, "q1", []byte(`second`)); ok || err != nil {
		t.Errorf("second answer: %v %v, want refused", ok, err)
	}
	if ok, err := other.Publish(ctx, "nobody", []byte(`x`)); ok || err != nil {
		t.Errorf("unknown id: %v %v, want refused", ok, err)
	}
	_, stop2, err := waiter.Subscribe(ctx, "q2")
	if err != nil {
		t.Fatal(err)
	}
	stop2()
	stop()
	if ok, err := other.Publish(ctx, "q2", []byte(`late`)); ok || err != nil {
		t.Errorf("late answer: %v %v, want refused", ok, err)
	}
	select {
	case got := <-ch:
		t.Errorf("a second answer arrived: %q", got)
	default:
	}
}

// TestHTTP_LegacyConfirmOtherReplica: a 2025-06-18 client with a sealed
// session confirms a destructive tool; its call waits on one replica and
// its answer POST reaches the other, which hands it over through Redis.
// The route runs once, with an Idempotency-Key; a decline runs nothing.
func TestHTTP_LegacyConfirmOtherReplica(t *testing.T) {
	t.Parallel()
	p := testPrefix(t)
	secret := make([]byte, 32)
	rand.Read(secret)
	ring, err := mrtr.NewRing(mrtr.Key{ID: "k1", Secret: secret})
	if err != nil {
		t.Fatal(err)
	}
	var deletes atomic.Int64
	keys := make(chan string, 4)
	var urls []string
	for range 2 {
		mux := http.NewServeMux()
		mux.HandleFunc("DELETE /items/{id}", func(w http.ResponseWriter, r *http.Request) {
			deletes.Add(1)
			keys <- r.Header.Get("Idempotency-Key")
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"deleted":"` + r.PathValue("id") + `"}`))
		})
		srv := mcp.NewServer(mcp.Implementation{Name: "fleet", Version: "1.0.0"})
		srv.AddTool(mcp.Tool{Name: "delete_item", Annotations: mcp.Annotations{Destructive: true},
			InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`)}, "DELETE /items/{id}", mux)
		bus := redisstore.NewAnswerBus(newClient(t, sharedAddr), redisstore.WithPrefix(p), redisstore.WithTimeout(2*time.Second))
		t.Cleanup(func() { bus.Close() })
		h := mcp.NewHandler(srv, []mcp.Era{era2026.New(era2026.WithSealer(mrtr.NewSealer(ring))), era2025.New(era2025.WithSessions(mrtr.NewSealer(ring), 0))},
			mcp.WithAuth(auth.New(auth.Config{Verifier: auth.VerifierFunc(verify), Resource: resource})),
			mcp.WithReplayGuard(redisstore.NewReplayGuard(newClient(t, sharedAddr), redisstore.WithPrefix(p), patient)),
			mcp.WithLegacyInput(mcp.LegacyInput{Bus: bus, Wait: 5 * time.Second}))
		ts := httptest.NewServer(h)
		t.Cleanup(ts.Close)
		urls = append(urls, ts.URL)
	}
	do := func(url, body string, hdr map[string]string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer alice")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	init := do(urls[1], `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}}`, nil)
	init.Body.Close()
	session := init.Header.Get("Mcp-Session-Id")
	if session == "" {
		t.Fatal("no session id")
	}
	for _, c := range []struct {
		answer string
		runs   int64
		want   string
	}{
		{`{"action":"accept","content":{"confirm":true}}`, 1, `deleted`},
		{`{"action":"decline"}`, 1, "confirmation_declined"},
	} {
		resp := do(urls[0], `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"delete_item","arguments":{"id":"a"}}}`,
			map[string]string{"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-06-18"})
		sc := bufio.NewScanner(resp.Body)
		var events []map[string]any
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			var m map[string]any
			json.Unmarshal([]byte(data), &m)
			events = append(events, m)
			if m["method"] == "elicitation/create" {
				id, _ := json.Marshal(m["id"])
				a := do(urls[1], `{"jsonrpc":"2.0","id":`+string(id)+`,"result":`+c.answer+`}`, map[string]string{"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-06-18"})
				a.Body.Close()
				if a.StatusCode != 202 {
					t.Errorf("answer on the other replica: %d", a.StatusCode)
				}
			}
		}
		resp.Body.Close()
		if len(events) != 2 {
			t.Fatalf("events %v", events)
		}
		final, _ := json.Marshal(events[1])
		if !strings.Contains(string(final), c.want) {
			t.Errorf("result %s, want %s", final, c.want)
		}
		if deletes.Load() != c.runs {
			t.Errorf("route ran %d times, want %d", deletes.Load(), c.runs)
		}
	}
	if k := <-keys; len(k) < 16 {
		t.Errorf("Idempotency-Key %q", k)
	}
}
