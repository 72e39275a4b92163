package main

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// legacyInput: a 2025-06-18 client with a sealed session confirms
// emails_delete through the balancer. The call's stream stays open on one
// replica while the answer POST, the next request round robin, reaches
// another; Redis hands it over and the email is deleted once. A second
// answer to the same question is refused (the bus's own refusal of it is
// pinned by mcp/redisstore's tests).
func (d *fleetDriver) legacyInput(t *testing.T) {
	post := func(hdr map[string]string, body string) *http.Response {
		resp, err := writerPost(d.url, hdr, body)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	init := post(nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"fleet","version":"1"}}}`)
	init.Body.Close()
	session := init.Header.Get("Mcp-Session-Id")
	if session == "" {
		t.Fatal("no Mcp-Session-Id: are the replicas started with -legacy-input?")
	}
	hdr := map[string]string{"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-06-18"}
	call := post(hdr, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"emails_delete","arguments":{"id":"eml_globex_0002"}}}`)
	defer call.Body.Close()
	caller := upstreamOf(call.Header)
	var answeredBy string
	final := legacyStream(call.Body, func(id string) {
		body := `{"jsonrpc":"2.0","id":` + id + `,"result":{"action":"accept","content":{"confirm":true}}}`
		a := post(hdr, body)
		a.Body.Close()
		answeredBy = upstreamOf(a.Header)
		if a.StatusCode != 202 {
			t.Fatalf("answer via %s: %d", answeredBy, a.StatusCode)
		}
		again := post(hdr, body)
		again.Body.Close()
		// Refused either way: 400 by the bus (answered already), or 429
		// when the writer's small fleet budget is spent first.
		if again.StatusCode != 400 && again.StatusCode != 429 {
			t.Errorf("a second answer via %s: %d, want 400 (or 429)", upstreamOf(again.Header), again.StatusCode)
		}
	})
	if !strings.Contains(final, `\"deleted\":true`) {
		t.Fatalf("result %s", final)
	}
	if answeredBy == "" || answeredBy == caller {
		t.Errorf("the call ran on %s and its answer reached %q: want another replica", caller, answeredBy)
	}
	if a, err := d.rest("GET", "/api/v1/emails/eml_globex_0002", fleetReader); err != nil || a.status != 404 {
		t.Errorf("the email after the confirmed delete: %v %d, want 404", err, a.status)
	}
	d.figure(t, "legacy input: a 2025-06-18 call on %s, confirmed by an answer that reached %s, deleted the email once", caller, answeredBy)
}

// legacyAnswerResent: the POST carrying a 2025 client's answer fails in
// transit (here: the connection is dropped before any answer, as when the
// replica that received it dies and a balancer answers 502). The client
// cannot know whether the answer arrived, and resends it through the
// balancer: the first answer that reaches the bus wins (202), a later copy
// is refused (400), and the call on its own replica goes on with it — it
// does not wait out its bound.
func (d *fleetDriver) legacyAnswerResent(t *testing.T) {
	dropped := dropConnections(t)
	post := writerPost
	mustPost := func(hdr map[string]string, body string) *http.Response {
		for range 5 { // the writer's small fleet budget may be spent for a moment
			resp, err := post(d.url, hdr, body)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != http.StatusTooManyRequests {
				return resp
			}
			resp.Body.Close()
			time.Sleep(time.Second)
		}
		t.Fatal("429 five times over")
		return nil
	}
	init := mustPost(nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"fleet","version":"1"}}}`)
	init.Body.Close()
	session := init.Header.Get("Mcp-Session-Id")
	if session == "" {
		t.Fatal("no Mcp-Session-Id: are the replicas started with -legacy-input?")
	}
	hdr := map[string]string{"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-06-18"}
	call := mustPost(hdr, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"emails_delete","arguments":{"id":"eml_globex_0001"}}}`)
	defer call.Body.Close()
	var statuses []int
	final := legacyStream(call.Body, func(id string) {
		body := `{"jsonrpc":"2.0","id":` + id + `,"result":{"action":"accept","content":{"confirm":true}}}`
		if resp, err := post(dropped, hdr, body); err == nil {
			resp.Body.Close()
			t.Fatalf("the dropped answer POST got %d, want a transport error", resp.StatusCode)
		}
		for range 2 { // the resend, then one copy too many
			a := mustPost(hdr, body)
			a.Body.Close()
			statuses = append(statuses, a.StatusCode)
		}
	})
	if !strings.Contains(final, `\"deleted\":true`) {
		t.Fatalf("result %s", final)
	}
	if len(statuses) != 2 || statuses[0] != http.StatusAccepted || statuses[1] != http.StatusBadRequest {
		t.Errorf("the resent answer, then a copy: %v, want [202 400]", statuses)
	}
	d.figure(t, "legacy input: an answer POST lost in transit, resent through the balancer: %v; the call went on", statuses)
}

// dropConnections is a loopback listener that reads each request and
// closes the connection without answering, as a replica that dies while
// serving it; it returns its base URL.
func dropConnections(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			http.ReadRequest(bufio.NewReader(c))
			c.Close()
		}
	}()
	return "http://" + ln.Addr().String()
}

// writerPost POSTs body to base's MCP endpoint as the fleet's writer,
// with hdr, asking for JSON or an event stream.
func writerPost(base string, hdr map[string]string, body string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+fleetWriter.token)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	return fleetHTTP.Do(req)
}
