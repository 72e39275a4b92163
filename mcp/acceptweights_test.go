package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/mcp"
)

// acceptCases are Accept values with whether each admits an event stream:
// text/event-stream named with a weight above 0, in any case; q=0 (in any
// of its spellings) refuses it whatever another element says; a malformed
// weight names nothing; a wildcard does not name it; a quoted parameter
// value is read whole.
var acceptCases = []struct {
	accept string
	stream bool
}{
	{"application/json, text/event-stream", true},
	{"application/json, text/event-stream;q=0.5", true},
	{"application/json, Text/Event-Stream ; Q=1.000", true},
	{"application/json, text/event-stream;q=0.001;ext=1", true},
	{"application/json, text/event-stream;q=0", false},
	{"application/json, text/event-stream; q=0.000", false},
	{"text/event-stream;Q=0.", false},
	{"application/json, text/event-stream, text/event-stream;q=0", false},
	{"application/json, text/event-stream;q=2", false},
	{"application/json, text/event-stream;q=1.5", false},
	{"application/json, text/event-stream;q=", false},
	{"application/json, text/event-stream;q=0.0001", false},
	// A parameter's value may be a quoted-string (RFC 9110 §5.6.6), in
	// which "," and ";" separate nothing: the q after it is still read,
	// and a media range inside it is no element of the list.
	{`application/json, text/event-stream;ext="a,b";q=0`, false},
	{`application/json, text/event-stream;ext="a\",b";q=0`, false},
	{`application/json, text/event-stream;ext="a;q=0"`, true},
	{`application/json;ext=", text/event-stream;x="`, false},
	{"*/*", false},
	{"application/json, text/*", false},
}

// TestStreaming_AcceptWeights: a request that opted into progress streams
// only when its Accept admits text/event-stream; a client that weighs it
// q=0 said it does not take it, and gets one JSON object, in every
// revision.
func TestStreaming_AcceptWeights(t *testing.T) {
	t.Parallel()
	f := newStreamFixture(t, mcp.WithStreaming())
	for _, era := range eras {
		for _, c := range acceptCases {
			r := f.post(t, era, "work", `"progressToken":"p1"`, c.accept)
			if r.status != 200 {
				t.Fatalf("%s Accept %q: %d %s", era, c.accept, r.status, r.body)
			}
			streamed := r.header.Get("Content-Type") == "text/event-stream"
			if streamed != c.stream {
				t.Errorf("%s Accept %q: streamed %v, want %v (%s %s)", era, c.accept, streamed, c.stream, r.header.Get("Content-Type"), r.body)
			}
			if !c.stream && (r.header.Get("Content-Type") != "application/json" || !strings.Contains(r.body, `progressSent\":0`)) {
				t.Errorf("%s Accept %q: the handler was told progress went out: %s", era, c.accept, r.body)
			}
			if c.stream && len(r.events) != 4 {
				t.Errorf("%s Accept %q: %d events", era, c.accept, len(r.events))
			}
		}
	}
}

// TestTaskListen_AcceptWeights: a listen, which only a stream can answer,
// is refused 406 when Accept does not admit text/event-stream, a q=0
// included, and opens when it does.
func TestTaskListen_AcceptWeights(t *testing.T) {
	ts := newTaskServer(t)
	url := ts.urls[0]
	id := ts.start(t, url, tokAlice, "")
	for _, c := range acceptCases {
		ctx, cancel := context.WithCancel(t.Context())
		s := openListen(t, ctx, url, tokAlice, metaTasks, taskIDs(id), c.accept)
		if c.stream {
			if s.resp.StatusCode != 200 || s.resp.Header.Get("Content-Type") != "text/event-stream" {
				t.Errorf("Accept %q: %d %s, want a stream", c.accept, s.resp.StatusCode, s.resp.Header.Get("Content-Type"))
			} else if ack := s.next(t); string(ack["method"]) != `"notifications/subscriptions/acknowledged"` {
				t.Errorf("Accept %q: first message %v", c.accept, ack)
			}
			cancel()
			continue
		}
		if s.resp.Header.Get("Content-Type") == "text/event-stream" {
			cancel() // an open stream ends only with its lifetime: not read
			t.Errorf("Accept %q: a stream opened, want 406", c.accept)
			continue
		}
		b, _ := io.ReadAll(s.resp.Body)
		cancel()
		var m struct {
			ID    json.RawMessage
			Error struct{ Code int }
		}
		json.Unmarshal(b, &m)
		if s.resp.StatusCode != http.StatusNotAcceptable || s.resp.Header.Get("Content-Type") != "application/json" || m.Error.Code != -32600 || string(m.ID) != "7" {
			t.Errorf("Accept %q: %d %s %s, want 406 -32600 with id 7", c.accept, s.resp.StatusCode, s.resp.Header.Get("Content-Type"), b)
		}
	}
}

// TestPush_AcceptWeights: a 2025 session's GET opens its stream only when
// Accept admits text/event-stream; a GET that weighs it q=0 opens none
// (405, Allow: POST, as a GET accepting no event stream), in every 2025
// revision.
func TestPush_AcceptWeights(t *testing.T) {
	f := newFleet(t, 1)
	r := f.replicas[0]
	for _, v := range []mcp.Version{mcp.Version20251125, mcp.Version20250618, mcp.Version20250326} {
		s := newSessionIn(t, r, v)
		for _, c := range acceptCases {
			ctx, cancel := context.WithCancel(t.Context())
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, r.url, nil)
			req.Header = http.Header{"Accept": {c.accept}, "Authorization": {"Bearer " + tokAlice}, "X-Workspace-Id": {"w1"},
				"Mcp-Session-Id": {s.id}, "Mcp-Protocol-Version": {string(v)}}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			if c.stream {
				if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
					t.Errorf("%s Accept %q: %d %s, want a stream", v, c.accept, resp.StatusCode, resp.Header.Get("Content-Type"))
				}
				cancel()
				resp.Body.Close()
				continue
			}
			if resp.Header.Get("Content-Type") == "text/event-stream" {
				cancel() // an open stream ends only with its lifetime: not read
				resp.Body.Close()
				t.Errorf("%s Accept %q: a stream opened, want 405", v, c.accept)
				continue
			}
			b, _ := io.ReadAll(resp.Body)
			cancel()
			resp.Body.Close()
			if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" || !strings.Contains(string(b), `"code":-32600`) {
				t.Errorf("%s Accept %q: %d Allow=%q %s, want 405", v, c.accept, resp.StatusCode, resp.Header.Get("Allow"), b)
			}
		}
	}
}
