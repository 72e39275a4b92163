package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/internal/syncbuf"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/observe"
	"github.com/mcpdual/mcpdual/mcp/ratelimit"
)

// waitEvents waits until o has recorded n events (done runs after the
// response is written, so the client may see the answer first) and takes
// them, plus any that arrive within a short grace.
func waitEvents(t *testing.T, o *recordingObserver, n int) []observe.Event {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		o.mu.Lock()
		got := len(o.events)
		o.mu.Unlock()
		if got >= n || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	events, _, _ := o.take()
	return events
}

// TestObserver_BatchPerMember: each member of a 2025-03-26 batch is
// observed once, as a POST of its own, and nothing else is: the array is
// no MCP message. It was also reported, as a message whose method was
// never read (otelmcp: a span "mcp", _OTHER, and one more duration
// spanning every member).
func TestObserver_BatchPerMember(t *testing.T) {
	o := newObserved(t)
	body := `[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`
	status, resp := o.post(t, mcp.Version20250326, tokAlice, body, nil)
	if status != 200 || !strings.HasPrefix(string(resp), "[") {
		t.Fatalf("batch: %d %s", status, resp)
	}
	events := waitEvents(t, o.obs, 2)
	var methods []string
	for _, ev := range events {
		methods = append(methods, ev.Method)
	}
	if len(events) != 2 || methods[0] != "tools/list" || methods[1] != "tools/list" {
		t.Errorf("events for a batch of two tools/list: %q, want exactly the two members", methods)
	}
}

// panicLimiter stands for a host's rate limiter (a Redis client, say) that
// panics.
type panicLimiter struct{}

func (panicLimiter) Take(context.Context, string, int) (ratelimit.Decision, error) {
	panic("limiter bug")
}

// TestObserver_PanicAfterBegin: a panic that escapes the endpoint after
// the observer's Request was called (here the host's per-principal
// limiter, which runs after the method is read) still ends the event, as
// an answer cut short (500): done never ran, so otelmcp's span was never
// ended and no duration recorded.
func TestObserver_PanicAfterBegin(t *testing.T) {
	o := newObserved(t, mcp.WithRateLimit(panicLimiter{}))
	body, h := toolsCall(mcp.Version20250618, "1", "echo", `{}`, "")
	req, _ := http.NewRequest(http.MethodPost, o.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	req.Header.Set("Authorization", "Bearer "+tokAlice)
	for k, v := range h {
		req.Header.Set(k, v)
	}
	if resp, err := http.DefaultClient.Do(req); err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	events := waitEvents(t, o.obs, 1)
	if len(events) != 1 {
		t.Fatalf("%d events for a request whose serving panicked, want 1 (done never ran)", len(events))
	}
	if ev := events[0]; ev.Method != "tools/call" || ev.Status < 500 {
		t.Errorf("event %+v: want the method and a 5xx status", ev)
	}
}

// TestObserver_SubscribeTarget: resources/subscribe and unsubscribe
// carry their URI as the event's target, as resources/read does (the
// conventions want mcp.resource.uri on all three); they carried none.
func TestObserver_SubscribeTarget(t *testing.T) {
	obs := &recordingObserver{}
	f := newFleet(t, 1, mcp.WithObserver(obs))
	s := newSession(t, f.replicas[0])
	obs.take()
	if _, body := s.post(t, f.replicas[0], "resources/subscribe", `"uri":"mail://w1/inbox"`); !strings.Contains(body, `"result"`) {
		t.Fatalf("subscribe: %s", body)
	}
	events := waitEvents(t, obs, 1)
	if len(events) != 1 || events[0].Method != "resources/subscribe" {
		t.Fatalf("events %+v", events)
	}
	if events[0].Target != "mail://w1/inbox" {
		t.Errorf("resources/subscribe target %q, want the URI", events[0].Target)
	}
}

// TestObserver_GetStreamIsNoMessage: a 2025 session's GET stream that
// opened is no MCP message and is not observed; it was, when it closed
// (up to 30 minutes later), as one whose method was never read: otelmcp
// made it a span "mcp" and put its whole life in the operation duration,
// where it could not be told from a refused POST. Refused GETs are
// observed as any refusal is.
func TestObserver_GetStreamIsNoMessage(t *testing.T) {
	obs := &recordingObserver{}
	f := newFleet(t, 1, mcp.WithObserver(obs))
	s := newSession(t, f.replicas[0])
	obs.take()
	stream := s.get(t, f.replicas[0], tokAlice, s.id)
	if stream.resp.StatusCode != 200 {
		t.Fatalf("GET: %d", stream.resp.StatusCode)
	}
	time.Sleep(100 * time.Millisecond)
	stream.resp.Body.Close()
	events := waitEvents(t, obs, 1)
	for _, ev := range events {
		if ev.Method == "" && ev.Status == 200 && ev.Code == 0 {
			t.Errorf("a GET stream reported as an MCP message with no method: %+v (lived %v)", ev, ev.Duration)
		}
	}
}

// TestObserver_AnswerIsNoOperation: a 2025 client's POSTed answer to a
// question (an elicitation/create or sampling/createMessage result) is a
// JSON-RPC response, not a request: it is not observed, whether delivered
// (202) or refused (400). It was, as a message whose method was never read
// (otelmcp: a span "mcp" with mcp.method.name _OTHER and a duration of its
// own). The call that asked is observed once, with the wait in it.
func TestObserver_AnswerIsNoOperation(t *testing.T) {
	t.Parallel()
	for _, v := range []mcp.Version{mcp.Version20251125, mcp.Version20250618} {
		t.Run(string(v), func(t *testing.T) {
			obs := &recordingObserver{}
			f := newLegacyFixture(t, mcp.LegacyInput{}, mcp.WithObserver(obs))
			caps := `{"elicitation":{},"sampling":{}}`
			if v == mcp.Version20251125 {
				caps = `{"elicitation":{"form":{}},"sampling":{}}`
			}
			session := sessionFor(t, f.a, tokAlice, v, caps)
			waitEvents(t, obs, 1) // the initialize

			s := openCall(t, f.a, tokAlice, session, v, "ask")
			q := s.next(t)
			if q["method"] != "elicitation/create" {
				t.Fatalf("question %v", q)
			}
			refused := post(t, f.b, http.MethodPost, tokAlice, nil,
				`{"jsonrpc":"2.0","id":"mcpdual-q-AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAA","result":{"action":"accept","content":{"n":"Ann"}}}`)
			if refused.status != 400 || !strings.Contains(string(refused.body), `"code":-32600`) || !strings.Contains(string(refused.body), `"unknown_request_id"`) {
				t.Errorf("made-up answer: %d %s, want 400 -32600 unknown_request_id", refused.status, refused.body)
			}
			if got := answer(t, f.b, tokAlice, q["id"], `{"action":"accept","content":{"n":"Ann"}}`); got != 202 {
				t.Fatalf("elicitation answer: %d, want 202", got)
			}
			if _, isErr := resultText(t, s.next(t)); isErr {
				t.Error("ask: isError")
			}
			<-f.answers

			s = openCall(t, f.b, tokAlice, session, v, "summarize")
			if q = s.next(t); q["method"] != "sampling/createMessage" {
				t.Fatalf("question %v", q)
			}
			if got := answer(t, f.a, tokAlice, q["id"], `{"role":"assistant","content":{"type":"text","text":"done"},"model":"m"}`); got != 202 {
				t.Fatalf("sampling answer: %d, want 202", got)
			}
			if _, isErr := resultText(t, s.next(t)); isErr {
				t.Error("summarize: isError")
			}
			<-f.answers

			events := waitEvents(t, obs, 2)
			var got []string
			for _, ev := range events {
				got = append(got, fmt.Sprintf("%s %s %d %d", ev.Method, ev.Target, ev.Status, ev.Code))
			}
			// done runs after the response is written: the two calls' events
			// may come in either order.
			slices.Sort(got)
			want := []string{"tools/call ask 200 0", "tools/call summarize 200 0"}
			if !slices.Equal(got, want) {
				t.Errorf("events %q, want %q: an answer is no operation", got, want)
			}
		})
	}
}

// TestObserver_RateLimitedAnswerIsNoOperation: a 2025 client's answer
// refused by the per-principal rate limit (429) is no more observed than
// one delivered or refused otherwise: it is a JSON-RPC response, known to
// be one before the limit is taken. It was observed as a message whose
// method was never read. A request refused by the same limit is.
func TestObserver_RateLimitedAnswerIsNoOperation(t *testing.T) {
	t.Parallel()
	for _, v := range []mcp.Version{mcp.Version20251125, mcp.Version20250618, mcp.Version20250326} {
		t.Run(string(v), func(t *testing.T) {
			obs := &recordingObserver{}
			clk := &fakeClock{t: time.Unix(2_000_000_000, 0)}
			// Burst 1: the initialize spends the principal's one token.
			f := newLegacyFixture(t, mcp.LegacyInput{}, mcp.WithObserver(obs),
				mcp.WithRateLimit(ratelimit.NewMemory(1, 1, ratelimit.WithClock(clk.now))))
			session := sessionFor(t, f.a, tokAlice, v, `{"sampling":{}}`)
			waitEvents(t, obs, 1) // the initialize

			limited := post(t, f.a, http.MethodPost, tokAlice, nil,
				`{"jsonrpc":"2.0","id":"mcpdual-q-AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAA","result":{"role":"assistant","content":{"type":"text","text":"x"},"model":"m"}}`)
			if limited.status != http.StatusTooManyRequests {
				t.Fatalf("answer over the limit: %d %s, want 429", limited.status, limited.body)
			}
			ping := post(t, f.a, http.MethodPost, tokAlice, map[string]string{"Mcp-Session-Id": session, "MCP-Protocol-Version": string(v)},
				`{"jsonrpc":"2.0","id":9,"method":"ping"}`)
			if ping.status != http.StatusTooManyRequests {
				t.Fatalf("ping over the limit: %d %s, want 429", ping.status, ping.body)
			}
			var got []string
			for _, ev := range waitEvents(t, obs, 1) {
				got = append(got, fmt.Sprintf("%q %d", ev.Method, ev.Status))
			}
			if want := []string{`"ping" 429`}; !slices.Equal(got, want) {
				t.Errorf("events %q, want %q: an answer is no operation, refused by the limit too", got, want)
			}
		})
	}
}

// TestObserver_AnswerRefusalsAreLogged: an answer is not observed, so
// each of its refusals is logged, or nothing would tell of it: the one
// to an id that is no question's (400), the one over
// LegacyInput.AnswerBytes (413, which was neither observed nor logged),
// and the one over the caller's rate (429).
func TestObserver_AnswerRefusalsAreLogged(t *testing.T) {
	t.Parallel()
	for _, v := range []mcp.Version{mcp.Version20251125, mcp.Version20250618, mcp.Version20250326} {
		t.Run(string(v), func(t *testing.T) {
			obs := &recordingObserver{}
			var logs syncbuf.Buffer
			clk := &fakeClock{t: time.Unix(2_000_000_000, 0)}
			// Burst 3: the initialize and two answers; the third answer is
			// over the rate.
			f := newLegacyFixture(t, mcp.LegacyInput{AnswerBytes: 200}, mcp.WithObserver(obs),
				mcp.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))),
				mcp.WithRateLimit(ratelimit.NewMemory(1, 3, ratelimit.WithClock(clk.now))))
			sessionFor(t, f.a, tokAlice, v, `{"sampling":{}}`)
			waitEvents(t, obs, 1) // the initialize

			unknown := `{"jsonrpc":"2.0","id":"mcpdual-q-AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAA","result":{"p":"` + strings.Repeat("p", 20) + `"}}`
			big := `{"jsonrpc":"2.0","id":"mcpdual-q-AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAA","result":{"p":"` + strings.Repeat("p", 200) + `"}}`
			for i, tc := range []struct {
				body   string
				status int
				reason string
			}{
				{unknown, http.StatusBadRequest, "not_this_callers"},
				{big, http.StatusRequestEntityTooLarge, "too_large"},
				{unknown, http.StatusTooManyRequests, "rate_limited"},
			} {
				if got := post(t, f.a, http.MethodPost, tokAlice, nil, tc.body); got.status != tc.status {
					t.Fatalf("answer %d: %d %s, want %d", i, got.status, got.body, tc.status)
				}
				line := `msg="mcp: an answer to a question was refused" reason=` + tc.reason
				if n := strings.Count(logs.String(), line); n != 1 {
					t.Errorf("answer %d refused %d: %q logged %d times, want once:\n%s", i, tc.status, line, n, logs.String())
				}
			}
			obs.mu.Lock()
			events := obs.events
			obs.mu.Unlock()
			if len(events) != 0 {
				t.Errorf("%d events; an answer is no operation, refused or not: %+v", len(events), events)
			}
		})
	}
}

// TestObserver_RefusedBatchMembers: a member of a 2025-03-26 batch that
// the endpoint refuses before serving it (not an object, an initialize,
// a message with a 2026-07-28 envelope) is a message it received and
// answered, and is observed as the members it serves are, each as a POST
// of its own: its method, id, target and _meta, a 400 with -32600. None
// was: a batch of such members left no span, no duration and no access
// log line at all, though answered 200.
func TestObserver_RefusedBatchMembers(t *testing.T) {
	o := newObserved(t)
	notObject := `1`
	initialize := `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	enveloped := `{"jsonrpc":"2.0","id":"e","method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"},"name":"echo","arguments":{}}}`
	served := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	body := "[" + strings.Join([]string{notObject, initialize, enveloped, served}, ",") + "]"
	status, resp := o.post(t, mcp.Version20250326, tokAlice, body, nil)
	var answers []struct {
		ID    json.RawMessage
		Error *struct{ Code int }
	}
	if err := json.Unmarshal(resp, &answers); status != 200 || err != nil || len(answers) != 4 {
		t.Fatalf("batch: %d %s", status, resp)
	}
	for i, a := range answers[:3] {
		if a.Error == nil || a.Error.Code != -32600 {
			t.Fatalf("member %d answered %s, want -32600", i, resp)
		}
	}
	events := waitEvents(t, o.obs, 4)
	if len(events) != 4 {
		t.Fatalf("%d events for a batch of four members, want one each: %+v", len(events), events)
	}
	refusal := func(member, method, id, target string, known bool, message string) observe.Event {
		return observe.Event{Transport: "http", Method: method, ID: id, Target: target, TargetKnown: known,
			Version: string(mcp.Version20250326), Principal: alice, Status: http.StatusBadRequest, Code: -32600,
			Message: message, BytesIn: len(member)}
	}
	want := []observe.Event{
		refusal(notObject, "", "", "", false, "Invalid Request: a batch member must be a JSON object"),
		refusal(initialize, "initialize", "7", "", false, "Invalid Request: initialize must not be part of a batch"),
		refusal(enveloped, "tools/call", `"e"`, "echo", true, "Invalid Request: a batch is a 2025-03-26 message; a message with a "+
			"io.modelcontextprotocol/protocolVersion _meta envelope must be sent alone"),
	}
	ignore := cmpopts.IgnoreFields(observe.Event{}, "Start", "Duration", "RawMeta", "ClientAddr", "BytesOut")
	for i, w := range want {
		got := events[i]
		if diff := cmp.Diff(w, got, ignore); diff != "" {
			t.Errorf("member %d: event (-want +got):\n%s", i, diff)
		}
		if got.ClientAddr == "" || got.Start.IsZero() || got.Duration <= 0 {
			t.Errorf("member %d: address or timing missing: %+v", i, got)
		}
		// The member's answer, as the array holds it: what was written for it.
		id := w.ID
		if id == "" {
			id = "null"
		}
		answer := `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32600,"message":"` + w.Message + `"}}`
		if !strings.Contains(string(resp), answer) || got.BytesOut != len(answer) {
			t.Errorf("member %d: bytesOut %d, want %d, the length of %s", i, got.BytesOut, len(answer), answer)
		}
	}
	if tp, _ := events[2].Meta("traceparent"); tp != "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" {
		t.Errorf("the enveloped member's _meta traceparent %q", tp)
	}
	if ev := events[3]; ev.Method != "tools/list" || ev.Status != 200 || ev.Code != 0 {
		t.Errorf("the served member: %+v", ev)
	}
}

// TestObserver_RouteTargetCut: the route event of a resource template's
// read names the URI the client sent, up to 2 KB: it is cut as the
// message's event cuts its target (128 bytes where a character ends, and a
// mark), for every observer. It was given whole.
func TestObserver_RouteTargetCut(t *testing.T) {
	obs := &recordingObserver{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /items/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{}`))
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "templates", Version: "1"})
	srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "test://items/{id}", Name: "items"}, "GET /items/{id}", mux)
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, mcp.WithObserver(obs))
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	o := &observed{url: ts.URL, obs: obs, clk: &fakeClock{}}
	uri := "test://items/" + strings.Repeat("a", 1800) // ASCII: 2026-07-28 repeats it in Mcp-Name
	want := uri[:128] + "…"
	for _, era := range []mcp.Version{mcp.Version20260728, mcp.Version20250618} {
		params := `"uri":"` + uri + `"`
		hdr := map[string]string{}
		if era == mcp.Version20260728 {
			params = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},` +
				`"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}},` + params
			hdr["Mcp-Method"], hdr["Mcp-Name"] = "resources/read", uri
		}
		status, resp := o.post(t, era, "", `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{`+params+`}}`, hdr)
		if status != 200 || !strings.Contains(string(resp), `"contents"`) {
			t.Fatalf("%s: read: %d %.300s", era, status, resp)
		}
		events, routes, _ := obs.take()
		if len(events) != 1 || events[0].Target != want {
			t.Fatalf("%s: message events %+v", era, events)
		}
		if len(routes) != 1 || routes[0].Target != want || routes[0].Pattern != "GET /items/{id}" {
			var got string
			if len(routes) == 1 {
				got = routes[0].Target
			}
			t.Errorf("%s: %d route events, target of %d bytes, want %q", era, len(routes), len(got), want)
		}
	}
}
