package mcp_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/ratelimit"
)

// batchReply is one member's response in a batch answer.
type batchReply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// TestBatch_2025_03_26: an array body is a 2025-03-26 batch when no
// MCP-Protocol-Version names another revision; each member is served as a
// POST of its own and answered in one JSON array, notifications and
// responses with nothing; a member's failure is its own response.
// Every other revision's array, and any array under WithoutBatches, is 400.
func TestBatch_2025_03_26(t *testing.T) {
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	ping := `{"jsonrpc":"2.0","id":"p","method":"ping"}`
	note := `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	call := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"items_get","arguments":{"id":"a1"}}}`
	unknown := `{"jsonrpc":"2.0","id":4,"method":"no/such"}`
	init := `{"jsonrpc":"2.0","id":5,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	meta := `{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
	resp := `{"jsonrpc":"2.0","id":"q1","result":{}}`
	errResp := `{"jsonrpc":"2.0","id":"q2","error":{"code":-1,"message":"no"}}`
	many := make([]string, 65)
	for i := range many {
		many[i] = ping
	}
	type want struct {
		ids   string         // the members' ids answered, in order, comma-joined
		codes map[string]int // member id → JSON-RPC error code, for the members that fail
	}
	cases := []struct {
		name    string
		header  string // MCP-Protocol-Version; "" sends none
		opts    []mcp.HandlerOption
		body    string
		status  int
		want    want
		refusal string // the 400's data.reason when the whole batch is refused
	}{
		{name: "no header", body: "[" + list + "," + ping + "," + note + "]", status: 200, want: want{ids: `1,"p"`}},
		{name: "2025-03-26 header", header: "2025-03-26", body: "[" + call + "," + ping + "]", status: 200, want: want{ids: `3,"p"`}},
		{name: "a failing member answers alone", body: "[" + unknown + "," + list + "]", status: 200, want: want{ids: `4,1`, codes: map[string]int{"4": -32601}}},
		{name: "initialize is refused in a batch", body: "[" + init + "," + ping + "]", status: 200, want: want{ids: `5,"p"`, codes: map[string]int{"5": -32600}}},
		{name: "a 2026 envelope is refused in a batch", body: "[" + meta + "]", status: 200, want: want{ids: `6`, codes: map[string]int{"6": -32600}}},
		{name: "a member that is not an object", body: "[1," + ping + "]", status: 200, want: want{ids: `null,"p"`, codes: map[string]int{"null": -32600}}},
		{name: "a batch in a batch", body: "[[" + ping + "],[[]]]", status: 200, want: want{ids: `null,null`, codes: map[string]int{"null": -32600}}},
		{name: "notifications only", body: "[" + note + "," + note + "]", status: 202},
		// A response answers no question here: refused, but never answered,
		// since an error with its id would read as the answer to one of the
		// client's own requests.
		{name: "a response is not answered", body: "[" + resp + "," + ping + "," + errResp + "]", status: 200, want: want{ids: `"p"`}},
		{name: "responses only", body: "[" + resp + "," + errResp + "]", status: 202},
		{name: "empty", body: "[]", status: 400, refusal: "empty_batch"},
		{name: "too many members", body: "[" + strings.Join(many, ",") + "]", status: 400, refusal: "batch_too_large"},
		{name: "2025-06-18 forbids batches", header: "2025-06-18", body: "[" + ping + "]", status: 400, refusal: "batch"},
		{name: "2025-11-25 forbids batches", header: "2025-11-25", body: "[" + ping + "]", status: 400, refusal: "batch"},
		{name: "2026-07-28 forbids batches", header: "2026-07-28", body: "[" + ping + "]", status: 400, refusal: "batch"},
		{name: "WithoutBatches", opts: []mcp.HandlerOption{mcp.WithoutBatches()}, body: "[" + ping + "]", status: 400, refusal: "batch"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, tc.opts...)
			hdr := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
			if tc.header != "" {
				hdr.Set("MCP-Protocol-Version", tc.header)
			}
			status, h, body := rawPost(t, f.url, hdr, tc.body)
			if status != tc.status {
				t.Fatalf("status %d, want %d: %s", status, tc.status, body)
			}
			if h.Get("Cache-Control") != "no-store" {
				t.Errorf("Cache-Control %q", h.Get("Cache-Control"))
			}
			if v := h.Get("MCP-Protocol-Version"); tc.refusal == "" && v != "2025-03-26" {
				t.Errorf("MCP-Protocol-Version %q on a served batch, want 2025-03-26", v)
			}
			switch {
			case tc.status == 202:
				if len(body) != 0 {
					t.Errorf("202 with a body: %s", body)
				}
			case tc.refusal != "":
				var e struct {
					ID    json.RawMessage `json:"id"`
					Error struct {
						Code int `json:"code"`
						Data struct {
							Reason string `json:"reason"`
						} `json:"data"`
					} `json:"error"`
				}
				if err := json.Unmarshal(body, &e); err != nil || e.Error.Code != -32600 || e.Error.Data.Reason != tc.refusal {
					t.Errorf("refusal %s, want -32600 reason %s", body, tc.refusal)
				}
			default:
				if ct := h.Get("Content-Type"); ct != "application/json" {
					t.Errorf("Content-Type %q", ct)
				}
				var replies []batchReply
				if err := json.Unmarshal(body, &replies); err != nil {
					t.Fatalf("not a JSON array: %v: %s", err, body)
				}
				var ids []string
				for _, r := range replies {
					id := string(r.ID)
					ids = append(ids, id)
					if r.JSONRPC != "2.0" {
						t.Errorf("member %s: jsonrpc %q", id, r.JSONRPC)
					}
					code, fails := tc.want.codes[id]
					switch {
					case fails && (r.Error == nil || r.Error.Code != code):
						t.Errorf("member %s: %s, want error %d", id, body, code)
					case !fails && (r.Error != nil || r.Result == nil):
						t.Errorf("member %s: %s, want a result", id, body)
					}
				}
				if got := strings.Join(ids, ","); got != tc.want.ids {
					t.Errorf("answered ids %s, want %s: %s", got, tc.want.ids, body)
				}
			}
		})
	}
}

// TestBatch_EachMemberCounted: every member spends the caller's rate
// budget as a POST of its own would; a member over it is answered -31429
// with its own id, the others are served.
func TestBatch_EachMemberCounted(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	// Burst 4: one token for the batch's POST, three for its members.
	f := newFixture(t, mcp.WithRateLimit(ratelimit.NewMemory(1, 4, ratelimit.WithClock(clk.now))))
	ping := func(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}` }
	hdr := http.Header{"Content-Type": {"application/json"}}
	status, _, body := rawPost(t, f.url, hdr, "["+ping("1")+","+ping("2")+","+ping("3")+","+ping("4")+","+ping("5")+"]")
	if status != 200 {
		t.Fatalf("status %d: %s", status, body)
	}
	var replies []batchReply
	if err := json.Unmarshal(body, &replies); err != nil || len(replies) != 5 {
		t.Fatalf("%v: %s", err, body)
	}
	for i, r := range replies {
		if want := string(rune('1' + i)); string(r.ID) != want {
			t.Errorf("reply %d has id %s, want %s", i, r.ID, want)
		}
		limited := r.Error != nil && r.Error.Code == -31429
		if wantLimited := i >= 3; limited != wantLimited {
			t.Errorf("member %s: limited %v, want %v: %s", r.ID, limited, wantLimited, body)
		}
	}
}

// TestBatch_Unserved: an endpoint that does not serve 2025-03-26 refuses
// every array, as before.
func TestBatch_Unserved(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "b", Version: "1"})
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New(era2025.WithVersions(mcp.Version20250618))})
	url := newTestServer(t, h)
	status, _, body := rawPost(t, url, http.Header{"Content-Type": {"application/json"}}, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`)
	if status != 400 || !strings.Contains(string(body), `"reason":"batch"`) {
		t.Errorf("%d %s, want 400 reason batch", status, body)
	}
}

func rawPost(t testing.TB, url string, hdr http.Header, body string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = hdr
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, b
}

// TestBatch_RefusedNotificationUnanswered: a notification is never
// answered, in a batch as alone (JSON-RPC 2.0, Batch): one the rate
// limit or the concurrency limit refuses gets no member in the answer,
// where it got an error with a null id that a client could not tell from
// the refusal of a message it could not parse. A malformed member without
// an id is still answered, with null.
func TestBatch_RefusedNotificationUnanswered(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	// Burst 3: one token for the batch's POST, two for its first members.
	f := newFixture(t, mcp.WithRateLimit(ratelimit.NewMemory(1, 3, ratelimit.WithClock(clk.now))))
	const (
		ping      = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
		note      = `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`
		late      = `{"jsonrpc":"2.0","id":2,"method":"ping"}`
		malformed = `{"jsonrpc":"1.0","method":"ping"}`
	)
	hdr := http.Header{"Content-Type": {"application/json"}}
	status, h, body := rawPost(t, f.url, hdr, "["+ping+","+note+","+note+","+late+"]")
	if status != 200 || h.Get("Content-Type") != "application/json" {
		t.Fatalf("status %d %q: %s", status, h.Get("Content-Type"), body)
	}
	var replies []batchReply
	if err := json.Unmarshal(body, &replies); err != nil || len(replies) != 2 {
		t.Fatalf("%v: %s, want the two requests answered and no notification", err, body)
	}
	if string(replies[0].ID) != "1" || replies[0].Result == nil {
		t.Errorf("reply 0: %s", body)
	}
	if string(replies[1].ID) != "2" || replies[1].Error == nil || replies[1].Error.Code != -31429 {
		t.Errorf("reply 1: %s, want id 2 refused -31429", body)
	}
	clk.advance(time.Hour)
	status, _, body = rawPost(t, f.url, hdr, "["+malformed+"]")
	if err := json.Unmarshal(body, &replies); status != 200 || err != nil || len(replies) != 1 || string(replies[0].ID) != "null" ||
		replies[0].Error == nil || replies[0].Error.Code != -32600 {
		t.Errorf("a malformed member without id: %d %s, want one -32600 with a null id", status, body)
	}
}

// TestBatch_MemberDepthAsAlone: the batch's array is a level of its own,
// so a member may nest as deep as the same message sent alone, where it
// had one level less and a batch holding a message valid alone was
// refused whole. An array nesting deeper still is refused whole, as a
// body past the bound.
func TestBatch_MemberDepthAsAlone(t *testing.T) {
	f := newFixture(t)
	hdr := http.Header{"Content-Type": {"application/json"}}
	// A ping whose params nest n objects below "_x".
	ping := func(id string, n int) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"ping","params":{"_x":` +
			strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) + `}}`
	}
	deepest := 0
	for n := 1; n <= 128; n++ { // the deepest ping served alone
		status, _, _ := rawPost(t, f.url, hdr, ping("1", n))
		if status != 200 {
			break
		}
		deepest = n
	}
	if deepest == 0 || deepest == 128 {
		t.Fatalf("no depth bound found (deepest %d)", deepest)
	}
	status, h, body := rawPost(t, f.url, hdr, " \n["+ping("1", deepest)+`,{"jsonrpc":"2.0","id":2,"method":"ping"}]`)
	if status != 200 || h.Get("Content-Type") != "application/json" {
		t.Fatalf("status %d: %s", status, body)
	}
	var replies []batchReply
	if err := json.Unmarshal(body, &replies); err != nil || len(replies) != 2 ||
		string(replies[0].ID) != "1" || replies[0].Result == nil || string(replies[1].ID) != "2" || replies[1].Result == nil {
		t.Errorf("a batch holding the deepest message served alone: %s", body)
	}
	status, _, body = rawPost(t, f.url, hdr, "["+ping("1", deepest+1)+"]")
	if status != 400 || !strings.Contains(string(body), `"too_deep"`) {
		t.Errorf("a member past the bound: %d %s, want 400 too_deep", status, body)
	}
}

// TestBatch_DestructiveToolNotConfirmedInBatch: a batch member never
// streams, so a destructive tool in a batch is not asked for its
// confirmation and does not run, even for a client whose session declared
// elicitation on an endpoint that asks 2025 clients; its refusal tells it
// to send the call alone, where it told it to accept text/event-stream,
// which it had. The other members are served.
func TestBatch_DestructiveToolNotConfirmedInBatch(t *testing.T) {
	t.Parallel()
	f := newLegacyFixture(t, mcp.LegacyInput{})
	id := sessionFor(t, f.a, tokAlice, mcp.Version20250326, `{"elicitation":{}}`)
	hdr := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
		"Authorization": {"Bearer " + tokAlice}, "Mcp-Session-Id": {id}}
	status, h, body := rawPost(t, f.a, hdr, `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"purge","arguments":{}}},{"jsonrpc":"2.0","id":2,"method":"ping"}]`)
	if status != 200 || h.Get("Content-Type") != "application/json" {
		t.Fatalf("status %d %q: %s", status, h.Get("Content-Type"), body)
	}
	var replies []struct {
		ID     json.RawMessage `json:"id"`
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(body, &replies); err != nil || len(replies) != 2 || string(replies[0].ID) != "1" || string(replies[1].ID) != "2" {
		t.Fatalf("%v: %s", err, body)
	}
	r := replies[0].Result
	if !r.IsError || len(r.Content) != 1 || !strings.Contains(r.Content[0].Text, "confirmation_required") ||
		!strings.Contains(r.Content[0].Text, "send the call alone") {
		t.Errorf("the destructive member: %s, want confirmation_required telling to send the call alone", body)
	}
	if n := f.executed.Load(); n != 0 {
		t.Errorf("the destructive tool ran %d times", n)
	}
}

// TestBatch_TooManyMembersRefusedBeforeCopied: a batch past 64 members is
// refused having counted them, not copied them out: a 1 MiB array of
// 520,000 numbers, decoded first, allocated 66 times its size (one
// json.RawMessage a member) to be answered batch_too_large. Now it
// allocates about the body it read, and a few objects. Counted in bytes
// and objects allocated, never in time.
func TestBatch_TooManyMembersRefusedBeforeCopied(t *testing.T) {
	f := newFixture(t)
	body := "[" + strings.Repeat("1,", 520_000) + "1]"
	if len(body) > 1<<20 {
		t.Fatalf("body %d bytes: over the limit", len(body))
	}
	hdr := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
	check := func(status int, got []byte) {
		t.Helper()
		var e struct {
			ID    json.RawMessage `json:"id"`
			Error struct {
				Code int `json:"code"`
				Data struct {
					Reason     string `json:"reason"`
					MaxMembers int    `json:"maxMembers"`
				} `json:"data"`
			} `json:"error"`
		}
		if status != 400 || json.Unmarshal(got, &e) != nil || e.Error.Code != -32600 ||
			e.Error.Data.Reason != "batch_too_large" || e.Error.Data.MaxMembers != 64 || e.ID != nil {
			t.Errorf("want 400 -32600 batch_too_large, maxMembers 64, no id (as every refused batch): %d %s", status, got)
		}
	}
	status, _, got := rawPost(t, f.url, hdr, body)
	check(status, got)

	rec, bytes, objects := servedAllocations(f.h, hdr, body)
	check(rec.Code, rec.Body.Bytes())
	if bytes > uint64(2*len(body)) || objects > 1_000 {
		t.Errorf("refusing a %d-byte batch allocated %d bytes, %d objects; want at most twice the body and 1,000 objects", len(body), bytes, objects)
	}
}
