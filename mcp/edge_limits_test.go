package mcp_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/headers"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/task"
	"github.com/mcpdual/mcpdual/mrtr"
)

// TestBatch_MembersEdge: a 2025-03-26 batch of exactly 64 members is
// served, each answered; 65 is batch_too_large (TestBatch_2025_03_26).
func TestBatch_MembersEdge(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	many := make([]string, 64)
	for i := range many {
		many[i] = `{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"ping"}`
	}
	hdr := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
	status, _, body := rawPost(t, f.url, hdr, "["+strings.Join(many, ",")+"]")
	var answers []map[string]json.RawMessage
	if status != 200 || json.Unmarshal(body, &answers) != nil || len(answers) != 64 {
		t.Fatalf("64 members: %d, %d answers: %.300s", status, len(answers), body)
	}
	for _, a := range answers {
		if a["result"] == nil {
			t.Errorf("a member failed: %v", a)
		}
	}
}

// TestList_CursorEdge: a cursor longer than 128 bytes is refused before
// it is decoded, as Invalid params (-32602), not a crash or a 5xx.
func TestList_CursorEdge(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	long := base64.RawURLEncoding.EncodeToString([]byte("tools|1|" + strings.Repeat("f", 100)))
	for _, era := range eras {
		r := f.do(t, call{era: era, id: "1", method: "tools/list", params: `"cursor":"` + long + `"`})
		if r.status != 200 || r.code() != -32602 {
			t.Errorf("%s: a %d-byte cursor: %d %s", era, len(long), r.status, r.raw)
		}
	}
}

// TestLegacyInput_AnswerBytesEdge: an answer of exactly AnswerBytes is
// read (and refused here only because its id is no question's: 400); one
// byte more is 413 before it is read as an answer.
func TestLegacyInput_AnswerBytesEdge(t *testing.T) {
	t.Parallel()
	const max = 300
	f := newLegacyFixture(t, mcp.LegacyInput{AnswerBytes: max})
	body := func(n int) string {
		head := `{"jsonrpc":"2.0","id":"x","result":{"p":"`
		return head + strings.Repeat("p", n-len(head)-3) + `"}}`
	}
	if got := post(t, f.a, http.MethodPost, tokAlice, nil, body(max)).status; got != 400 {
		t.Errorf("an answer of %d bytes: %d, want 400 (unknown id)", max, got)
	}
	if got := post(t, f.a, http.MethodPost, tokAlice, nil, body(max+1)).status; got != 413 {
		t.Errorf("an answer of %d bytes: %d, want 413", max+1, got)
	}
}

// TestSession_CapabilitiesEdge: a 2025 session seals at most 2 KiB of
// the capabilities the server reads (record 025 §0). Kept capabilities of
// exactly 2,048 bytes are sealed whole and a call over the session sees
// them; one byte more and initialize still succeeds with a session (a
// client that declares more is not refused), which carries none of them:
// never a part.
func TestSession_CapabilitiesEdge(t *testing.T) {
	t.Parallel()
	ring := sessionRing(t, 1)
	url := sessionServer(t, []era2025.Option{era2025.WithSessions(mrtr.NewSealer(ring), 0)})
	caps := func(n int) string {
		head, tail := `{"elicitation":{"x":"`, `"}}`
		return head + strings.Repeat("e", n-len(head)-len(tail)) + tail
	}
	for _, v := range []mcp.Version{mcp.Version20251125, mcp.Version20250618, mcp.Version20250326} {
		for n, want := range map[int]string{2048: caps(2048), 2049: "{}"} {
			declared := caps(n)
			if len(declared) != n {
				t.Fatalf("%d bytes of capabilities written as %d", n, len(declared))
			}
			r := initialize(t, url, tokAlice, v, declared)
			id := r.header.Get("Mcp-Session-Id")
			if r.status != 200 || id == "" || !bytes.Contains(r.body, []byte(`"protocolVersion":"`+string(v)+`"`)) {
				t.Fatalf("%s, %d bytes: initialize %d id=%q %.200s", v, n, r.status, id, r.body)
			}
			if got := structured(t, callCaps(t, url, tokAlice, v, id)); got["caps"] != want {
				t.Errorf("%s, %d bytes: the session carries %.80q…, want %.80q…", v, n, got["caps"], want)
			}
		}
	}
}

// TestResources_ReadURIEdge: resources/read takes a URI of up to 2,048
// bytes (record 005). One of exactly 2,048 matching a template is read
// through its route; one byte more is "Resource not found" with the URI
// in its data, in every revision's code (-32002, -32602 on 2026-07-28),
// and no route runs.
func TestResources_ReadURIEdge(t *testing.T) {
	t.Parallel()
	f := newRPFixture(t)
	const prefix = "inbox://emails/"
	for _, era := range eras {
		at := prefix + strings.Repeat("m", 2048-len(prefix))
		id := at[len(prefix):]
		r := f.rpc(t, era, "resources/read", `"uri":`+quoteJSON(at))
		want := `[{"uri":"` + at + `","mimeType":"application/json","text":"{\"id\":\"` + id + `\"}\n"}]`
		if got := r.field(t, "contents"); string(got) != want || f.lastID.Load() != id {
			t.Errorf("%s: a %d-byte URI: %.200s", era, len(at), got)
		}
		hits := f.emailHits.Load()
		past := at + "m"
		r = f.rpc(t, era, "resources/read", `"uri":`+quoteJSON(past))
		notFound := -32002
		if era == mcp.Version20260728 {
			notFound = -32602
		}
		// The data echoes the URI's first 512 bytes
		// (TestResources_NotFoundEchoEdge).
		checkErr(t, r, 200, notFound, `{"uri":"`+past[:512]+`"}`)
		if r.msg.Error.Message != "Resource not found" {
			t.Errorf("%s: a %d-byte URI: message %q", era, len(past), r.msg.Error.Message)
		}
		if f.emailHits.Load() != hits {
			t.Errorf("%s: a %d-byte URI reached the route", era, len(past))
		}
	}
}

// TestResources_NotFoundEchoEdge: "Resource not found" echoes the URI
// asked in its data, at most its first 512 bytes: a URI of 512 whole, of
// 513 its first 512; cut where a character would be split, the echo ends
// before that character, so it stays the start of the URI asked (not a
// replacement character standing for half of one), in every revision.
func TestResources_NotFoundEchoEdge(t *testing.T) {
	t.Parallel()
	f := newRPFixture(t)
	const prefix = "inbox://nothing/"
	fill := func(n int) string { return prefix + strings.Repeat("n", n-len(prefix)) }
	split := fill(511) + "é" + "nn" // é's two bytes are the URI's 512th and 513th
	for _, era := range eras {
		notFound := -32002
		if era == mcp.Version20260728 {
			notFound = -32602
		}
		for uri, echo := range map[string]string{fill(512): fill(512), fill(513): fill(512), split: fill(511)} {
			r := f.rpc(t, era, "resources/read", `"uri":`+quoteJSON(uri))
			if r.status != 200 || r.code() != notFound {
				t.Fatalf("%s: %d %.200s", era, r.status, r.raw)
			}
			var data struct {
				URI string `json:"uri"`
			}
			if err := json.Unmarshal(r.msg.Error.Data, &data); err != nil || data.URI != echo {
				t.Errorf("%s, a %d-byte URI: data %s, want the URI's first %d bytes", era, len(uri), r.msg.Error.Data, len(echo))
			}
		}
	}
}

// TestEchoes_CutWhereACharacterEnds: what a refusal echoes of a client's
// name (an unknown tool's or prompt's, 128 bytes; a method's, 128; a
// revision's, 64; an input key's, 64) is cut where a character ends. A
// cut through one was sent as U+FFFD, so the echo was not the start of
// what was asked (as resources/read's was, TestResources_NotFoundEchoEdge).
func TestEchoes_CutWhereACharacterEnds(t *testing.T) {
	t.Parallel()
	f, rp := newFixture(t), newRPFixture(t)
	// é's two bytes are the name's 128th and 129th (or 64th and 65th).
	long := func(c string, n int) string { return strings.Repeat(c, n-1) + "é" + "zz" }
	data := func(t *testing.T, r *reply, member, want string) {
		t.Helper()
		var d map[string]string
		if err := json.Unmarshal(r.msg.Error.Data, &d); err != nil || d[member] != want {
			t.Errorf("data %s, want %s the first %d bytes", r.msg.Error.Data, member, len(want))
		}
		if strings.ContainsRune(string(r.raw), utf8.RuneError) || strings.Contains(string(r.raw), `\ufffd`) {
			t.Errorf("a replacement character: %s", r.raw)
		}
	}
	for _, era := range eras {
		t.Run(string(era), func(t *testing.T) {
			tool := long("t", 128)
			r := rt{era: era, name: tool, args: "{}", header: map[string]string{"Mcp-Name": headers.Encode(tool)}}.send(t, f.url)
			if r.status != 200 || r.code() != -32602 || r.msg.Error.Message != "Unknown tool: "+tool[:127] {
				t.Fatalf("an unknown tool: %d %s", r.status, r.raw)
			}
			data(t, r, "name", tool[:127])

			prompt := long("p", 128)
			r = rp.rpc(t, era, "prompts/get", `"name":`+quoteJSON(prompt))
			if r.status != 200 || r.code() != -32602 || r.msg.Error.Message != "Unknown prompt: "+prompt[:127] {
				t.Fatalf("an unknown prompt: %d %s", r.status, r.raw)
			}
			data(t, r, "name", prompt[:127])

			method := long("m", 128)
			r = rt{era: era, method: method, header: map[string]string{"Mcp-Method": method}}.send(t, f.url)
			status := 200
			if era == mcp.Version20260728 {
				status = 404
			}
			if r.status != status || r.code() != -32601 {
				t.Fatalf("an unknown method: %d %s", r.status, r.raw)
			}
			data(t, r, "method", method[:127])
		})
	}
	key := long("k", 64)
	r := rt{name: "echo", args: "{}", responses: `{` + quoteJSON(key) + `:1}`}.send(t, f.url)
	if r.status != 200 || r.code() != -32602 || r.msg.Error.Message != "Invalid inputResponses" {
		t.Fatalf("an input key: %d %s", r.status, r.raw)
	}
	data(t, r, "key", key[:63])

	revision := long("v", 64)
	r = f.do(t, call{id: "1", method: "tools/list", header: map[string]string{"MCP-Protocol-Version": revision}})
	if r.status != 400 || r.code() != -32022 {
		t.Fatalf("a revision: %d %s", r.status, r.raw)
	}
	var d struct {
		Requested string `json:"requested"`
	}
	if json.Unmarshal(r.msg.Error.Data, &d); d.Requested != revision[:63] {
		t.Errorf("data %s, want the revision's first 63 bytes", r.msg.Error.Data)
	}
}

// askServer is an endpoint whose tools ask the client for its roots:
// keyed asks once under a key of n bytes; rounds asks under "r" until it
// has been answered n times; purge, destructive, is confirmed with a
// question of n characters. 2025 clients are asked on the call's stream
// (WithLegacyInput).
type askServer struct {
	url    string
	log    *syncBuffer
	purged atomic.Int64 // runs of purge
}

func newAskServer(t *testing.T) *askServer {
	t.Helper()
	s := &askServer{log: &syncBuffer{}}
	srv := mcp.NewServer(mcp.Implementation{Name: "ask", Version: "1"})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "keyed", Description: "Asks once, under a key of n bytes."},
		func(ctx context.Context, in struct {
			N int `json:"n"`
		}) (map[string]any, error) {
			c := mcp.CallFromContext(ctx)
			key := strings.Repeat("k", in.N)
			if v, ok := c.InputResponse(key); ok {
				return map[string]any{"key": len(key), "answer": string(v)}, nil
			}
			c.RequireInput(nil, mcp.ListRoots(key))
			return nil, nil
		})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "rounds", Description: "Asks until answered n times."},
		func(ctx context.Context, in struct {
			N int `json:"n"`
		}) (map[string]any, error) {
			c := mcp.CallFromContext(ctx)
			done, _ := strconv.Atoi(string(c.State()))
			if _, ok := c.InputResponse("r"); done > 0 && !ok {
				return nil, fmt.Errorf("round %d came back without its answer", done)
			}
			if done >= in.N {
				return map[string]any{"rounds": done}, nil
			}
			c.RequireInput([]byte(strconv.Itoa(done+1)), mcp.ListRoots("r"))
			return nil, nil
		})
	type sized struct {
		N int `json:"n"`
	}
	mcp.AddToolFunc(srv, mcp.Tool{Name: "purge", Description: "Deletes everything.", Annotations: mcp.Annotations{Destructive: true}},
		func(context.Context, sized) (map[string]any, error) {
			s.purged.Add(1)
			return map[string]any{"purged": true}, nil
		},
		mcp.ConfirmWithInput(func(_ context.Context, in sized) (string, error) { return strings.Repeat("x", in.N), nil }))
	ring := sessionRing(t, 5)
	a := auth.New(auth.Config{Resource: resourceURI, Verifier: auth.VerifierFunc(testVerifier)})
	s.url = newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(era2026.WithSealer(mrtr.NewSealer(ring))),
		era2025.New(era2025.WithSessions(mrtr.NewSealer(ring), 0))},
		mcp.WithAuth(a), mcp.WithLegacyInput(mcp.LegacyInput{Wait: 10 * time.Second}),
		mcp.WithLogger(slog.New(slog.NewTextHandler(s.log, nil)))))
	return s
}

const rootsCaps = `{"roots":{}}`

// legacyEras are the revisions that ask on the call's stream.
var legacyEras = []mcp.Version{mcp.Version20251125, mcp.Version20250618, mcp.Version20250326}

// TestLegacyInput_RoundsEdge: a 2025 call may ask its client 8 times
// (maxLegacyRounds). A tool answered 8 times completes with its result;
// one that asks a 9th time is never asked it: after the 8th answer the
// call ends in an isError, logged, and nothing more is asked. In every
// 2025 revision, over HTTP (the question on the call's event stream, each
// answer a POST of its own). A 2026-07-28 client drives its own rounds,
// each a request: no bound applies there.
func TestLegacyInput_RoundsEdge(t *testing.T) {
	t.Parallel()
	s := newAskServer(t)
	const bound = 8
	for _, v := range legacyEras {
		session := sessionFor(t, s.url, tokAlice, v, rootsCaps)
		for _, n := range []int{bound, bound + 1} {
			st := openCallArgs(t, s.url, tokAlice, session, v, "rounds", `{"n":`+strconv.Itoa(n)+`}`)
			if ct := st.resp.Header.Get("Content-Type"); st.resp.StatusCode != 200 || !strings.HasPrefix(ct, "text/event-stream") {
				t.Fatalf("%s, %d rounds: %d %q", v, n, st.resp.StatusCode, ct)
			}
			for i := range bound {
				q := st.next(t)
				if q["method"] != "roots/list" || q["id"] == nil {
					t.Fatalf("%s, %d rounds: question %d: %v", v, n, i+1, q)
				}
				if got := answer(t, s.url, tokAlice, q["id"], `{"roots":[]}`); got != 202 {
					t.Fatalf("%s, %d rounds: answer %d: %d", v, n, i+1, got)
				}
			}
			last := st.next(t)
			if _, asked := last["method"]; asked {
				t.Fatalf("%s, %d rounds: asked a %dth time: %v", v, n, bound+1, last)
			}
			text, isErr := resultText(t, last)
			switch {
			case n == bound && (isErr || text != `{"rounds":8}`):
				t.Errorf("%s, answered %d times: %q isError=%v", v, n, text, isErr)
			case n > bound && (!isErr || text != "The tool failed with an internal error."):
				t.Errorf("%s, asking a %dth time: %q isError=%v", v, n, text, isErr)
			}
			if m, more := <-st.events; more {
				t.Errorf("%s, %d rounds: more after the result: %v", v, n, m)
			}
		}
	}
	if logs := s.log.String(); strings.Count(logs, "kept asking a 2025 client") != len(legacyEras) || !strings.Contains(logs, "rounds=8") {
		t.Errorf("log: %s", logs)
	}
}

// TestInput_KeyEdge: an input request's key may have 64 bytes
// (maxInputKey). A key of 64 is asked — in the input_required result on
// 2026-07-28, on the call's stream in the 2025 revisions — and its answer
// reaches the tool under it; a key of 65 is the tool's bug: nothing is
// asked, the call is an isError, the log names the bound.
func TestInput_KeyEdge(t *testing.T) {
	t.Parallel()
	s := newAskServer(t)
	const bound = 64
	key := strings.Repeat("k", bound)
	alice := map[string]string{"Authorization": "Bearer " + tokAlice}
	want := `{"answer":"{\"roots\":[]}","key":64}`
	for _, era := range eras {
		t.Run(string(era), func(t *testing.T) {
			if era == mcp.Version20260728 {
				in := asInterim(t, rt{name: "keyed", args: `{"n":64}`, caps: rootsCaps, header: alice}.send(t, s.url))
				if len(in.InputRequests) != 1 || string(in.InputRequests[key]) != `{"method":"roots/list"}` {
					t.Fatalf("a %d-byte key: %v", bound, in.InputRequests)
				}
				res := asResult(t, rt{id: 2, name: "keyed", args: `{"n":64}`, caps: rootsCaps, state: quoteJSON(in.RequestState),
					responses: `{` + quoteJSON(key) + `:{"roots":[]}}`, header: alice}.send(t, s.url))
				if res.IsError || len(res.Content) != 1 || res.Content[0].Text != want {
					t.Errorf("the answer under a %d-byte key: %+v", bound, res)
				}
				res = asResult(t, rt{name: "keyed", args: `{"n":65}`, caps: rootsCaps, header: alice}.send(t, s.url))
				if res.ResultType != "complete" || !res.IsError || res.Content[0].Text != "The tool failed with an internal error." {
					t.Errorf("a %d-byte key: %+v", bound+1, res)
				}
				return
			}
			session := sessionFor(t, s.url, tokAlice, era, rootsCaps)
			st := openCallArgs(t, s.url, tokAlice, session, era, "keyed", `{"n":64}`)
			q := st.next(t)
			if q["method"] != "roots/list" {
				t.Fatalf("a %d-byte key: %v", bound, q)
			}
			if got := answer(t, s.url, tokAlice, q["id"], `{"roots":[]}`); got != 202 {
				t.Fatalf("answer: %d", got)
			}
			if text, isErr := resultText(t, st.next(t)); isErr || text != want {
				t.Errorf("the answer under a %d-byte key: %q isError=%v", bound, text, isErr)
			}
			st = openCallArgs(t, s.url, tokAlice, session, era, "keyed", `{"n":65}`)
			if ct := st.resp.Header.Get("Content-Type"); st.resp.StatusCode != 200 || ct != "application/json" {
				t.Errorf("a %d-byte key: %d %q, want one JSON answer, no stream", bound+1, st.resp.StatusCode, ct)
			}
			if text, isErr := resultText(t, st.next(t)); !isErr || text != "The tool failed with an internal error." {
				t.Errorf("a %d-byte key: %q isError=%v", bound+1, text, isErr)
			}
		})
	}
	if logs := s.log.String(); strings.Count(logs, "must have 1 to 64 bytes") != len(eras) {
		t.Errorf("log: %s", logs)
	}
}

// TestTasks_JobInputKeyEdge: a job waiting for input names each question
// by a key of at most 64 bytes, as a tool's own questions are
// (TestInput_KeyEdge). tasks/get shows a job asking under a 64-byte key
// as it is; a 65-byte key is the host's bug: Internal error, the
// question never reaching the client. Tasks are a 2026-07-28 extension.
func TestTasks_JobInputKeyEdge(t *testing.T) {
	t.Parallel()
	ts := newTaskServer(t)
	url := ts.urls[0]
	id := ts.start(t, url, tokAlice, "")
	const question = `{"method":"elicitation/create","params":{"message":"Go on?","requestedSchema":{"type":"object"}}}`
	for _, n := range []int{64, 65} {
		key := strings.Repeat("k", n)
		ts.store.set("job-1", func(j *testJob) {
			j.Status, j.StatusMessage = task.InputRequired, ""
			j.InputRequests = map[string]json.RawMessage{key: json.RawMessage(question)}
		})
		r := ts.get(t, url, tokAlice, "", id)
		if n == 64 {
			if r.status != 200 || r.code() != 0 || r.str("status") != "input_required" ||
				string(r.Result["inputRequests"]) != `{`+quoteJSON(key)+`:`+question+`}` {
				t.Errorf("a %d-byte key: %d %s", n, r.status, r.raw)
			}
			continue
		}
		if r.status != 200 || r.code() != -32603 || r.Error.Message != "Internal error" || r.Result != nil ||
			bytes.Contains(r.raw, []byte(key)) {
			t.Errorf("a %d-byte key: %d %s", n, r.status, r.raw)
		}
	}
}

// TestTasks_TTLEdge: a task may live 7 days (task.Config.TTL). A tool
// whose tasks live exactly that long registers, and its task carries
// ttlMs 604800000 in every revision that shows it — the 2026-07-28
// CreateTaskResult and tasks/get, a job reference's structuredContent on
// 2026-07-28 without the extension, 2025-11-25 and 2025-06-18 — and its
// id, sealed for that long, opens (2025-03-26 follows it by its status
// tool). A nanosecond more, or the next millisecond the wire could carry,
// panics at registration, naming the bound.
func TestTasks_TTLEdge(t *testing.T) {
	t.Parallel()
	const week = 7 * 24 * time.Hour
	store := &jobStore{jobs: map[string]*testJob{}}
	mux := store.mux()
	srv := mcp.NewServer(mcp.Implementation{Name: "tasks", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "slow", InputSchema: json.RawMessage(`{"type":"object"}`)}, "POST /jobs", mux,
		mcp.WithTask(task.Config{Status: "GET /jobs/{id}", TTL: week, PollInterval: time.Second, StatusTool: "slow_status"}))
	ring := sessionRing(t, 9)
	url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(era2026.WithSealer(mrtr.NewSealer(ring))),
		era2025.New(era2025.WithSealer(mrtr.NewSealer(ring)))},
		mcp.WithLogger(slog.New(slog.DiscardHandler)), mcp.WithAuth(auth.New(authConfig(nil)))))
	const ttlMs = "604800000"

	r := rpc(t, url, tokAlice, "", "tools/call", "slow", metaTasks, `"name":"slow","arguments":{}`)
	if r.status != 200 || r.str("resultType") != "task" || string(r.Result["ttlMs"]) != ttlMs {
		t.Fatalf("2026-07-28 with the extension: %d %s", r.status, r.raw)
	}
	id := r.str("taskId")
	if g := rpc(t, url, tokAlice, "", "tasks/get", id, metaTasks, `"taskId":`+quoteJSON(id)); g.status != 200 || g.str("status") != "working" || string(g.Result["ttlMs"]) != ttlMs {
		t.Errorf("tasks/get of a week-long task: %d %s", g.status, g.raw)
	}
	for _, c := range []struct {
		name string
		call func(tool, args string) *rpcReply
	}{
		{"2026-07-28 without the extension", func(tool, args string) *rpcReply {
			return rpc(t, url, tokAlice, "", "tools/call", tool, metaNoTasks, `"name":`+quoteJSON(tool)+`,"arguments":`+args)
		}},
		{"2025-11-25", legacyCall(t, url, "2025-11-25")},
		{"2025-06-18", legacyCall(t, url, "2025-06-18")},
		{"2025-03-26", legacyCall(t, url, "2025-03-26")},
	} {
		a := answerOf(t, c.call("slow", `{}`))
		var id string
		if c.name == "2025-03-26" {
			_, rest, _ := strings.Cut(a.Content[0].Text, `{"taskId": "`)
			id, _, _ = strings.Cut(rest, `"`)
		} else {
			id, _ = a.StructuredContent["taskId"].(string)
			if a.StructuredContent["ttlMs"] != 604800000.0 {
				t.Errorf("%s: the job reference: %+v", c.name, a)
			}
		}
		if a.IsError || id == "" {
			t.Fatalf("%s: the start: %+v", c.name, a)
		}
		if a = answerOf(t, c.call("slow_status", `{"taskId":`+quoteJSON(id)+`}`)); a.IsError || !strings.Contains(a.Content[0].Text, "working (queued)") {
			t.Errorf("%s: following a week-long task: %+v", c.name, a)
		}
	}

	for _, ttl := range []time.Duration{week + time.Nanosecond, week + time.Millisecond} {
		func() {
			defer func() {
				if p := recover(); !strings.Contains(fmt.Sprint(p), "TTL must be at least 1 ms and at most 7 days") {
					t.Errorf("a TTL of %v: %v", ttl, p)
				}
			}()
			mcp.WithTask(task.Config{Status: "GET /jobs/{id}", TTL: ttl})
		}()
	}
}

// legacyCall calls a tool as alice in revision version.
func legacyCall(t *testing.T, url, version string) func(tool, args string) *rpcReply {
	return func(tool, args string) *rpcReply {
		return legacyRPC(t, url, tokAlice, version, "tools/call", `"name":`+quoteJSON(tool)+`,"arguments":`+args)
	}
}

// TestTaskListen_IDsEdge: one subscriptions/listen follows at most 16
// tasks (a status read each a round). Sixteen of the caller's tasks open
// a stream acknowledging all of them; a seventeenth — each id valid — is
// Invalid params naming the bound, before any is opened. Task listens are
// 2026-07-28's.
func TestTaskListen_IDsEdge(t *testing.T) {
	t.Parallel()
	ts := newTaskServer(t)
	url := ts.urls[0]
	ids := make([]string, 17)
	for i := range ids {
		ids[i] = ts.start(t, url, tokAlice, "")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := openListen(t, ctx, url, tokAlice, metaTasks, taskIDs(ids[:16]...), "application/json, text/event-stream")
	ack := s.next(t)
	var ap struct {
		Notifications map[string][]string `json:"notifications"`
	}
	json.Unmarshal(ack["params"], &ap)
	if s.resp.StatusCode != 200 || string(ack["method"]) != `"notifications/subscriptions/acknowledged"` ||
		!slices.Equal(ap.Notifications["taskIds"], ids[:16]) {
		t.Fatalf("16 tasks: %d %v", s.resp.StatusCode, ack)
	}
	cancel()
	s = openListen(t, context.Background(), url, tokAlice, metaTasks, taskIDs(ids...), "application/json, text/event-stream")
	var r rpcReply
	if err := json.NewDecoder(s.resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	if s.resp.StatusCode != 200 || r.code() != -32602 || r.Error.Message != "Invalid params: at most 16 taskIds on one stream" || r.Error.Data != nil {
		t.Errorf("17 tasks: %d %+v", s.resp.StatusCode, r.Error)
	}
}

// TestPush_SubscribeURIEdge: a 2025 session subscribes to a URI of at
// most 1536 bytes (maxPushURI: with its workspace it fits what the
// session store keeps). One of exactly 1536 is subscribed and its update
// reaches the session's GET stream whole; one byte more is Invalid
// params naming the bound, in every 2025 revision.
func TestPush_SubscribeURIEdge(t *testing.T) {
	t.Parallel()
	f := newFleet(t, 1)
	r := f.replicas[0]
	const bound = 1536
	at := "mail://w1/" + strings.Repeat("b", bound-len("mail://w1/"))
	for _, v := range legacyEras {
		s := newSessionIn(t, r, v)
		stream := s.get(t, r, tokAlice, s.id)
		if stream.resp.StatusCode != 200 {
			t.Fatalf("%s: GET %d", v, stream.resp.StatusCode)
		}
		if _, body := s.post(t, r, "resources/subscribe", `"uri":"`+at+`"`); body != `{"jsonrpc":"2.0","id":1,"result":{}}` {
			t.Fatalf("%s: a %d-byte URI: %.300s", v, len(at), body)
		}
		r.h.NotifyResourceUpdated(t.Context(), "w1", at)
		if m := stream.within(t, 10*time.Second); method(m) != "notifications/resources/updated" || string(m["params"]) != `{"uri":"`+at+`"}` {
			t.Errorf("%s: the update of a %d-byte URI: %.300s", v, len(at), m)
		}
		resp, body := s.post(t, r, "resources/subscribe", `"uri":"`+at+`b"`)
		if want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params: uri must be a resource URI of at most 1536 bytes"}}`; resp.StatusCode != 200 || body != want {
			t.Errorf("%s: a %d-byte URI: %d %.300s", v, len(at)+1, resp.StatusCode, body)
		}
	}
}

// TestNotify_ListenURIEdge: a 2026-07-28 listen subscribes to URIs of at
// most 2048 bytes (maxEventURI, what an event carries). One of exactly
// 2048 is acknowledged and its update reaches the stream whole; one byte
// more is Invalid params naming the bound, and no stream opens.
func TestNotify_ListenURIEdge(t *testing.T) {
	t.Parallel()
	f := newFleet(t, 1)
	r := f.replicas[0]
	const bound = 2048
	at := "mail://w1/" + strings.Repeat("b", bound-len("mail://w1/"))
	s, ack := r.listen(t, t.Context(), tokAlice, "w1", `"resourceSubscriptions":["`+at+`"]`)
	if method(ack) != "notifications/subscriptions/acknowledged" || !strings.Contains(string(ack["params"]), `"resourceSubscriptions":["`+at+`"]`) {
		t.Fatalf("a %d-byte URI: %.300s %.300s", len(at), ack["body"], ack["params"])
	}
	if err := r.h.NotifyResourceUpdated(t.Context(), "w1", at); err != nil {
		t.Fatal(err)
	}
	if m := s.within(t, 10*time.Second); method(m) != "notifications/resources/updated" || !strings.Contains(string(m["params"]), `"uri":"`+at+`"`) {
		t.Errorf("the update of a %d-byte URI: %.300s", len(at), m)
	}
	_, got := r.listen(t, t.Context(), tokAlice, "w1", `"resourceSubscriptions":["`+at+`b"]`)
	want := `{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params: notifications.resourceSubscriptions must be an array of resource URIs of at most 2048 bytes"}}`
	if string(got["status"]) != "200 OK" || strings.TrimSpace(string(got["body"])) != want {
		t.Errorf("a %d-byte URI: %s %.300s", len(at)+1, got["status"], got["body"])
	}
}

// TestCompletion_ValuesEdge: a completion holds at most 100 values
// (maxCompletions). A source giving exactly 100 is sent whole, hasMore
// false; one giving 101 is cut to its first 100, with total 101 and
// hasMore true, in every revision.
func TestCompletion_ValuesEdge(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Implementation{Name: "complete", Version: "1"})
	srv.AddPrompt(mcp.Prompt{Name: "pick", Arguments: []mcp.PromptArgument{{Name: "n"}}},
		func(context.Context, map[string]string) (*mcp.PromptResult, error) { return &mcp.PromptResult{}, nil },
		mcp.WithCompletion("n", func(_ context.Context, value string, _ map[string]string) ([]string, error) {
			n, _ := strconv.Atoi(value) // the value asked is how many values the source gives
			out := make([]string, n)
			for i := range out {
				out[i] = "v" + strconv.Itoa(i)
			}
			return out, nil
		}))
	f := &rpFixture{url: newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}))}
	values := func(n int) string {
		q := make([]string, n)
		for i := range q {
			q[i] = `"v` + strconv.Itoa(i) + `"`
		}
		return "[" + strings.Join(q, ",") + "]"
	}
	for _, era := range eras {
		for n, want := range map[int]string{
			100: `{"values":` + values(100) + `,"total":100,"hasMore":false}`,
			101: `{"values":` + values(100) + `,"total":101,"hasMore":true}`,
		} {
			r := f.rpc(t, era, "completion/complete", `"ref":{"type":"ref/prompt","name":"pick"},"argument":{"name":"n","value":"`+strconv.Itoa(n)+`"}`)
			if got := string(r.field(t, "completion")); got != want {
				t.Errorf("%s, %d values: …%s", era, n, got[max(0, len(got)-60):])
			}
		}
	}
}

// TestConfirm_QuestionEdge: a confirmation question may have 500
// characters (maxQuestion). One of exactly 500 is asked as it is — in the
// input_required result on 2026-07-28, on the call's stream in the 2025
// revisions with elicitation; one of 501 is never cut (the cut could hide
// what "accept" applies to): nothing is asked, nothing runs, the call is
// an isError confirmation_unavailable and the log names the cap.
func TestConfirm_QuestionEdge(t *testing.T) {
	t.Parallel()
	s := newAskServer(t)
	alice := map[string]string{"Authorization": "Bearer " + tokAlice}
	question := strings.Repeat("x", 500)
	const unavailable = "Not executed (confirmation_unavailable): the server could not phrase a confirmation question for purge. Ask the user to do it in the application."
	for _, era := range []mcp.Version{mcp.Version20260728, mcp.Version20251125, mcp.Version20250618} {
		t.Run(string(era), func(t *testing.T) {
			var asked map[string]any
			if era == mcp.Version20260728 {
				in := asInterim(t, rt{name: "purge", args: `{"n":500}`, caps: formCaps, header: alice}.send(t, s.url))
				json.Unmarshal(in.InputRequests["confirm"], &asked)
				res := asResult(t, rt{name: "purge", args: `{"n":501}`, caps: formCaps, header: alice}.send(t, s.url))
				if res.ResultType != "complete" || !res.IsError || res.Content[0].Text != unavailable ||
					res.StructuredContent["outcome"] != "confirmation_unavailable" {
					t.Errorf("a question of 501 characters: %+v", res)
				}
			} else {
				session := sessionFor(t, s.url, tokAlice, era, formCaps)
				st := openCallArgs(t, s.url, tokAlice, session, era, "purge", `{"n":500}`)
				asked = st.next(t)
				if got := answer(t, s.url, tokAlice, asked["id"], `{"action":"decline"}`); got != 202 {
					t.Fatalf("declining: %d", got)
				}
				if text, isErr := resultText(t, st.next(t)); !isErr || !strings.Contains(text, "confirmation_declined") {
					t.Errorf("declined: %q", text)
				}
				st = openCallArgs(t, s.url, tokAlice, session, era, "purge", `{"n":501}`)
				if ct := st.resp.Header.Get("Content-Type"); ct != "application/json" {
					t.Errorf("a question of 501 characters: %q, want one JSON answer, no stream", ct)
				}
				if text, isErr := resultText(t, st.next(t)); !isErr || text != unavailable {
					t.Errorf("a question of 501 characters: %q isError=%v", text, isErr)
				}
			}
			params, _ := asked["params"].(map[string]any)
			if asked["method"] != "elicitation/create" || params["message"] != question {
				t.Errorf("a question of 500 characters: %v", asked)
			}
		})
	}
	if s.purged.Load() != 0 {
		t.Errorf("purge ran %d times", s.purged.Load())
	}
	if logs := s.log.String(); strings.Count(logs, "longer than the cap") != 3 || !strings.Contains(logs, "limit=500") {
		t.Errorf("log: %s", logs)
	}
}

// TestSession_CapabilityDepthEdge: a 2025 session keeps a capability
// nested at most 6 levels, its own object the first (the session seals 8:
// its payload and the capabilities object above it). One of exactly 6 is
// kept whole; one of 7 is left out while the others are kept, in every
// 2025 revision.
func TestSession_CapabilityDepthEdge(t *testing.T) {
	t.Parallel()
	url := sessionServer(t, []era2025.Option{era2025.WithSessions(mrtr.NewSealer(sessionRing(t, 1)), 0)})
	nested := func(levels int) string { // the extensions object and levels-1 below it
		return `{"a":` + strings.Repeat(`{"b":`, levels-2) + `{}` + strings.Repeat(`}`, levels-2) + `}`
	}
	for _, v := range legacyEras {
		for levels, want := range map[int]string{
			6: `{"elicitation":{},"extensions":` + nested(6) + `}`,
			7: `{"elicitation":{}}`,
		} {
			declared := `{"elicitation":{},"extensions":` + nested(levels) + `}`
			r := initialize(t, url, tokAlice, v, declared)
			id := r.header.Get("Mcp-Session-Id")
			if r.status != 200 || id == "" {
				t.Fatalf("%s, %d levels: initialize %d %.200s", v, levels, r.status, r.body)
			}
			if got := structured(t, callCaps(t, url, tokAlice, v, id)); got["caps"] != want {
				t.Errorf("%s, %d levels: the session carries %v, want %s", v, levels, got["caps"], want)
			}
		}
	}
}
