package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/task"
	"github.com/mcpdual/mcpdual/mrtr"
)

// capCaller is a token testCapVerifier takes as a principal of its own
// ("cap-7" is subject cap-7), so a test can have as many callers as a
// total bound needs without one caller's share stopping it first.
func capCaller(i int) string { return fmt.Sprintf("cap-%d", i) }

func withCapCallers(c *auth.Config) {
	c.Verifier = auth.VerifierFunc(func(ctx context.Context, token string, r *http.Request) (*auth.Principal, error) {
		if !strings.HasPrefix(token, "cap-") {
			return testVerifier(ctx, token, r)
		}
		p, err := testVerifier(ctx, tokAlice, r)
		if err != nil {
			return nil, err
		}
		p.Subject = token
		return p, nil
	})
}

// checkOverloaded asserts that a stream was refused as the admission
// refuses: 503 with Retry-After, one JSON object (no event stream was
// begun) answering the request's id with -31503 and the reason. body is
// the response's body when it was read already (nil: read it).
func checkOverloaded(t *testing.T, resp *http.Response, body []byte, id, reason string) {
	t.Helper()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Content-Type") != "application/json" {
		// Not read: an event stream would be read until it ends.
		t.Fatalf("want 503 with one JSON object: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if body == nil {
		body, _ = io.ReadAll(resp.Body)
	}
	var m struct {
		ID    json.RawMessage `json:"id"`
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
			Data    struct {
				Reason       string `json:"reason"`
				RetryAfterMs int    `json:"retryAfterMs"`
			} `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("want one JSON object: %v %q", err, body)
	}
	if string(m.ID) != id || m.Error.Code != -31503 || m.Error.Message != "Server overloaded" ||
		m.Error.Data.Reason != reason || m.Error.Data.RetryAfterMs != 1000 || resp.Header.Get("Retry-After") != "1" {
		t.Errorf("want id %s, -31503 %q, Retry-After 1: Retry-After %q, %s", id, reason, resp.Header.Get("Retry-After"), body)
	}
}

// TestTaskListen_TotalAtLimit: task listen streams are bounded in all at
// 256 (4 per caller, record 025 §3). The 256th stream, of the 64th
// caller, opens; one more, of a caller holding none, is refused with
// the 503 "overloaded" (not the caller's share) and nothing of a stream;
// once one caller's four streams have ended, four more open and the
// next is refused again: refusals take no slot, ended streams give
// theirs back.
func TestTaskListen_TotalAtLimit(t *testing.T) {
	// Only the bound and the test may end a stream: at the 45 s lifetime,
	// the first streams of a run slowed that much would end and free
	// slots. Restored once the servers closed.
	t.Cleanup(mcp.SetListenLifetimeForTest(time.Hour))
	const total, perCaller = 256, 4
	ts := newTaskServer(t, withCapCallers)
	url := ts.urls[0]
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	accept := "application/json, text/event-stream"
	open := func(token, id string) *listenStream {
		t.Helper()
		s := openListen(t, ctx, url, token, metaTasks, taskIDs(id), accept)
		if m := s.next(t); string(m["method"]) != `"notifications/subscriptions/acknowledged"` {
			b, _ := io.ReadAll(s.resp.Body)
			t.Fatalf("%s's stream: %d %v %s", token, s.resp.StatusCode, m, b)
		}
		return s
	}
	var first []*listenStream // the first caller's
	for c := range total / perCaller {
		token := capCaller(c)
		id := ts.start(t, url, token, "")
		for range perCaller {
			s := open(token, id)
			if c == 0 {
				first = append(first, s)
			}
		}
	}
	late := capCaller(total / perCaller)
	lateTask := ts.start(t, url, late, "")
	refused := openListen(t, ctx, url, late, metaTasks, taskIDs(lateTask), accept)
	checkOverloaded(t, refused.resp, nil, "7", "overloaded")

	// The first caller's task completes: each of its streams sends the
	// change and ends with its result, its slot given back before the
	// result is written.
	ts.store.set("job-1", func(j *testJob) { j.Status, j.Result = task.Completed, json.RawMessage(`"done"`) })
	for i, s := range first {
		for n := 0; ; n++ {
			if n == 10 {
				t.Fatalf("stream %d of the first caller did not end", i)
			}
			m := s.next(t)
			if m == nil {
				t.Fatalf("stream %d of the first caller ended without its result", i)
			}
			if m["result"] != nil {
				break
			}
		}
	}
	for range perCaller {
		open(late, lateTask)
	}
	again := capCaller(total/perCaller + 1)
	refused = openListen(t, ctx, url, again, metaTasks, taskIDs(ts.start(t, url, again, "")), accept)
	checkOverloaded(t, refused.resp, nil, "7", "overloaded")
}

// streamsReplica is one endpoint serving change notifications with
// notes' bounds, to the callers of withCapCallers, with 2025 sessions.
func streamsReplica(t *testing.T, notes mcp.ChangeNotifications) *replica {
	t.Helper()
	ring, err := mrtr.NewRing(mrtr.Key{ID: "k1", Secret: []byte(strings.Repeat("s", 32))})
	if err != nil {
		t.Fatal(err)
	}
	sealer := mrtr.NewSealer(ring)
	r := &replica{mux: http.NewServeMux()}
	r.mux.HandleFunc("GET /a", func(w http.ResponseWriter, req *http.Request) { io.WriteString(w, "a") })
	r.srv = mcp.NewServer(mcp.Implementation{Name: "streams", Version: "1"})
	r.srv.AddTool(mcp.Tool{Name: "a", InputSchema: objSchema}, "GET /a", r.mux)
	r.h = mcp.NewHandler(r.srv, []mcp.Era{era2026.New(era2026.WithSealer(sealer)), era2025.New(era2025.WithSessions(sealer, 0))},
		mcp.WithLogger(slog.New(slog.DiscardHandler)), mcp.WithAuth(auth.New(authConfig([]func(*auth.Config){withCapCallers}))),
		mcp.WithChangeNotifications(notes))
	r.url = newTestServer(t, r.h)
	return r
}

// TestNotify_StreamsTotalAtLimit: the notification streams of both eras
// — 2026-07-28 listens asking for list changes and 2025 sessions' GET
// streams — share one bound in all (ChangeNotifications.Streams), at its
// default (1024, 8 per caller) and configured lower. At the bound, half
// of each kind, one more of either kind, from a caller holding none, is
// refused with the 503 "overloaded" and nothing of a stream; once one
// stream is closed by its client, one more opens, and the next is
// refused again.
func TestNotify_StreamsTotalAtLimit(t *testing.T) {
	// Only the bound and the test may end a stream: at the 45 s lifetime,
	// the first listens of a run slowed that much ended, and stream 1025
	// opened (a run with the process stopped 500 ms in every 650 took 65
	// s). Restored once the servers closed.
	t.Cleanup(mcp.SetListenLifetimeForTest(time.Hour))
	for _, c := range []struct {
		name             string
		notes            mcp.ChangeNotifications
		total, perCaller int
	}{
		{"default", mcp.ChangeNotifications{}, 1024, 8},
		{"configured", mcp.ChangeNotifications{Streams: 6, StreamsPerCaller: 2}, 6, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := streamsReplica(t, c.notes)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			newSession := func(token string) *session {
				t.Helper()
				s := &session{token: token}
				resp, body := s.post(t, r, "initialize", `"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}`)
				if s.id = resp.Header.Get("Mcp-Session-Id"); s.id == "" {
					t.Fatalf("no session: %s", body)
				}
				return s
			}
			// open opens caller's i-th stream: a listen when i is even, a
			// GET of its session when odd. Refused, a listen's body has
			// been read (returned), a GET's has not (nil).
			open := func(caller string, s *session, i int) (*http.Response, []byte, bool) {
				t.Helper()
				if i%2 == 0 {
					st, ack := r.listen(t, ctx, caller, "w1", `"toolsListChanged":true`)
					if method(ack) == "notifications/subscriptions/acknowledged" {
						return st.resp, nil, true
					}
					return st.resp, append([]byte{}, ack["body"]...), false
				}
				st := s.get(t, r, caller, s.id)
				return st.resp, nil, st.resp.StatusCode == 200 && st.resp.Header.Get("Content-Type") == "text/event-stream"
			}
			var last *http.Response
			for n, callers := 0, c.total/c.perCaller; n < callers; n++ {
				caller := capCaller(n)
				for i := range c.perCaller {
					var s *session
					if i%2 == 1 {
						// A session per GET stream: a session's newer
						// stream ends its older one (TestPush_OneStreamPerSession).
						s = newSession(caller)
					}
					resp, _, ok := open(caller, s, i)
					if !ok {
						t.Fatalf("stream %d: %d %q", n*c.perCaller+i+1, resp.StatusCode, resp.Header.Get("Content-Type"))
					}
					last = resp
				}
			}
			late := capCaller(c.total / c.perCaller)
			ls := newSession(late)
			for i := range 2 {
				resp, body, ok := open(late, ls, i)
				if ok {
					t.Fatalf("stream %d of kind %d opened", c.total+1, i)
				}
				id := "7"
				if i == 1 {
					id = "" // a GET has no message: its refusals carry no id (record 028)
				}
				checkOverloaded(t, resp, body, id, "overloaded")
			}
			// The last stream opened is closed by its client: its slot
			// comes back once the server sees the connection go. Until it
			// does, opening is refused (and takes nothing).
			last.Body.Close()
			opened := false
			for range 200 {
				if _, _, opened = open(late, ls, 1); opened {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			if !opened {
				t.Fatal("no stream opened after one was closed")
			}
			resp, body, _ := open(capCaller(c.total/c.perCaller+1), newSession(capCaller(c.total/c.perCaller+1)), 0)
			checkOverloaded(t, resp, body, "7", "overloaded")
		})
	}
}
