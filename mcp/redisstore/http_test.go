package redisstore_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/redisstore"
	"github.com/mcpdual/mcpdual/mrtr"
)

// These tests drive replicas of a real endpoint over HTTP: each replica is
// an mcp.Handler behind its own httptest.Server, with its own Redis client,
// Limiter and ReplayGuard, and all of them share one mrtr key ring, as a
// fleet behind a load balancer does.

const resource = "http://127.0.0.1/mcp"

// fleet counts what the routes behind every replica did.
type fleet struct {
	urls    []string
	reads   atomic.Int64 // runs of GET /items/{id}
	deletes atomic.Int64 // runs of DELETE /items/{id}
	log     syncBuffer   // every replica's log
	// wipe: DELETE /wipe/{id} waits for its request to end and gives up,
	// writing nothing, while it is set; it deletes once it is not.
	wipe    atomic.Bool
	wiping  chan struct{}
	wipes   atomic.Int64
	wipeKey sync.Map // Idempotency-Keys DELETE /wipe/{id} saw
}

type replicaConfig struct {
	limiter func(t *testing.T) *redisstore.Limiter     // nil: no rate limit
	guard   func(t *testing.T) *redisstore.ReplayGuard // nil: no guard
}

func verify(_ context.Context, token string, _ *http.Request) (*auth.Principal, error) {
	switch token {
	case "alice", "bob":
		return &auth.Principal{Issuer: "https://issuer.example", Subject: token, ClientID: "app",
			Audience: []string{resource}, ExpiresAt: time.Now().Add(time.Hour)}, nil
	}
	return nil, auth.ErrInvalidToken
}

func newFleet(t *testing.T, replicas int, cfg replicaConfig) *fleet {
	t.Helper()
	secret := make([]byte, 32)
	rand.Read(secret)
	ring, err := mrtr.NewRing(mrtr.Key{ID: "k1", Secret: secret})
	if err != nil {
		t.Fatal(err)
	}
	f := &fleet{wiping: make(chan struct{}, 1)}
	for range replicas {
		mux := http.NewServeMux()
		mux.HandleFunc("GET /items/{id}", func(w http.ResponseWriter, r *http.Request) {
			f.reads.Add(1)
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"id":"`+r.PathValue("id")+`"}`)
		})
		mux.HandleFunc("DELETE /items/{id}", func(w http.ResponseWriter, r *http.Request) {
			f.deletes.Add(1)
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"deleted":"`+r.PathValue("id")+`"}`)
		})
		mux.HandleFunc("DELETE /wipe/{id}", func(w http.ResponseWriter, r *http.Request) {
			f.wipeKey.Store(r.Header.Get("Idempotency-Key"), true)
			if f.wipe.Load() {
				f.wiping <- struct{}{}
				<-r.Context().Done()
				return
			}
			f.wipes.Add(1)
			io.WriteString(w, `{"wiped":"`+r.PathValue("id")+`"}`)
		})
		srv := mcp.NewServer(mcp.Implementation{Name: "fleet", Version: "1.0.0"})
		idArg := json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`)
		srv.AddTool(mcp.Tool{Name: "get_item", InputSchema: idArg, Annotations: mcp.Annotations{ReadOnly: true}}, "GET /items/{id}", mux)
		srv.AddTool(mcp.Tool{Name: "delete_item", InputSchema: idArg, Annotations: mcp.Annotations{Destructive: true}}, "DELETE /items/{id}", mux)
		srv.AddTool(mcp.Tool{Name: "wipe_item", InputSchema: idArg, Annotations: mcp.Annotations{Destructive: true}}, "DELETE /wipe/{id}", mux)
		opts := []mcp.HandlerOption{
			mcp.WithLogger(slog.New(slog.NewTextHandler(&f.log, nil))),
			mcp.WithAuth(auth.New(auth.Config{Verifier: auth.VerifierFunc(verify), Resource: resource})),
		}
		if cfg.limiter != nil {
			opts = append(opts, mcp.WithRateLimit(cfg.limiter(t)))
		}
		if cfg.guard != nil {
			opts = append(opts, mcp.WithReplayGuard(cfg.guard(t)))
		}
		h := mcp.NewHandler(srv, []mcp.Era{era2026.New(era2026.WithSealer(mrtr.NewSealer(ring)))}, opts...)
		// Ends a request once DELETE /wipe/{id} waits: a server-side
		// cancellation (a deadline), with the client still reading.
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx, cancel := context.WithCancel(r.Context())
			defer cancel()
			go func() {
				select {
				case <-f.wiping:
					cancel()
				case <-ctx.Done():
				}
			}()
			h.ServeHTTP(w, r.WithContext(ctx))
		}))
		t.Cleanup(ts.Close)
		f.urls = append(f.urls, ts.URL)
	}
	return f
}

// syncBuffer is a log shared by replicas serving concurrently.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// toolCall is a 2026-07-28 tools/call, with form elicitation declared.
type toolCall struct {
	token, name, id string
	state           string // requestState of round 1, for round 2
	answer          string // inputResponses.confirm, for round 2
}

type reply struct {
	status int
	header http.Header
	raw    []byte
	msg    struct {
		Result *struct {
			ResultType        string         `json:"resultType"`
			RequestState      string         `json:"requestState"`
			IsError           bool           `json:"isError"`
			StructuredContent map[string]any `json:"structuredContent"`
			Content           []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
		Error *struct {
			Code int `json:"code"`
			Data struct {
				Reason string `json:"reason"`
			} `json:"data"`
		} `json:"error"`
	}
}

func (c toolCall) send(url string) (*reply, error) {
	params := map[string]any{
		"_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
			"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{}},
		},
		"name":      c.name,
		"arguments": map[string]string{"id": c.id},
	}
	if c.state != "" {
		params["requestState"] = c.state
		params["inputResponses"] = map[string]json.RawMessage{"confirm": json.RawMessage(c.answer)}
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", c.name)
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	r := &reply{status: resp.StatusCode, header: resp.Header}
	if r.raw, err = io.ReadAll(resp.Body); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(r.raw, &r.msg); err != nil {
		return nil, errors.New("not JSON: " + string(r.raw))
	}
	return r, nil
}

func (c toolCall) must(t testing.TB, url string) *reply {
	t.Helper()
	r, err := c.send(url)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

const accept = `{"action":"accept","content":{"confirm":true}}`

// round1 asks to delete id and returns the sealed state of the question.
func round1(t testing.TB, url, id string) string {
	t.Helper()
	state, _ := ask(t, url, "alice", "delete_item", id)
	return state
}

// ask is round 1 of a confirmation by token of tool on id: the sealed
// state and the question.
func ask(t testing.TB, url, token, tool, id string) (state, question string) {
	t.Helper()
	r := toolCall{token: token, name: tool, id: id}.must(t, url)
	if r.status != 200 || r.msg.Result == nil || r.msg.Result.ResultType != "input_required" || r.msg.Result.RequestState == "" {
		t.Fatalf("round 1: %d %s", r.status, r.raw)
	}
	var q struct {
		Result struct {
			InputRequests struct {
				Confirm struct {
					Params struct{ Message string }
				}
			}
		}
	}
	json.Unmarshal(r.raw, &q)
	return r.msg.Result.RequestState, q.Result.InputRequests.Confirm.Params.Message
}

// executed reports whether a round 2 ran the tool.
func executed(r *reply) bool {
	return r.status == 200 && r.msg.Result != nil && !r.msg.Result.IsError &&
		len(r.msg.Result.Content) == 1 && strings.HasPrefix(r.msg.Result.Content[0].Text, `{"deleted":`)
}

func (r *reply) outcome() string {
	if r.msg.Result == nil {
		return ""
	}
	s, _ := r.msg.Result.StructuredContent["outcome"].(string)
	return s
}

func (r *reply) reason() string {
	if r.msg.Error == nil {
		return ""
	}
	return r.msg.Error.Data.Reason
}

func limiterOn(addr, prefix string, perSecond float64, burst int) func(t *testing.T) *redisstore.Limiter {
	return func(t *testing.T) *redisstore.Limiter {
		return redisstore.NewLimiter(newClient(t, addr), perSecond, burst, redisstore.WithPrefix(prefix), patient)
	}
}

func guardOn(addr, prefix string) func(t *testing.T) *redisstore.ReplayGuard {
	return func(t *testing.T) *redisstore.ReplayGuard {
		return redisstore.NewReplayGuard(newClient(t, addr), redisstore.WithPrefix(prefix), patient)
	}
}

// TestHTTP_SharedBudget: a principal's budget is one across the fleet, and
// another principal's is their own.
func TestHTTP_SharedBudget(t *testing.T) {
	t.Parallel()
	f := newFleet(t, 2, replicaConfig{limiter: limiterOn(sharedAddr, testPrefix(t), 0.1, 4)})
	get := toolCall{token: "alice", name: "get_item", id: "1"}
	for i := range 4 {
		r := get.must(t, f.urls[i%2])
		if r.status != 200 || r.header.Get("X-RateLimit-Limit") != "4" || r.header.Get("X-RateLimit-Remaining") != strconv.Itoa(3-i) {
			t.Errorf("call %d on replica %d: %d %v %s", i+1, i%2, r.status, r.header, r.raw)
		}
	}
	for i, url := range f.urls {
		r := get.must(t, url)
		// Four units at one per ten seconds: the next in ten.
		if r.status != 429 || r.reason() != "rate_limited" || r.header.Get("Retry-After") != "10" || r.header.Get("X-RateLimit-Remaining") != "0" {
			t.Errorf("over the budget on replica %d: %d %v %s", i, r.status, r.header, r.raw)
		}
	}
	bob := get
	bob.token = "bob"
	if r := bob.must(t, f.urls[1]); r.status != 200 || r.header.Get("X-RateLimit-Remaining") != "3" {
		t.Errorf("bob: %d %v", r.status, r.header)
	}
	if n := f.reads.Load(); n != 5 {
		t.Errorf("the route ran %d times, want 4 for alice and 1 for bob", n)
	}
}

// TestHTTP_ConfirmOnce: one accepted confirmation, replayed 50 times at
// once across both replicas, runs the route once; the others are told it
// is running (503, retry) or get its recorded outcome.
func TestHTTP_ConfirmOnce(t *testing.T) {
	t.Parallel()
	p := testPrefix(t)
	f := newFleet(t, 2, replicaConfig{limiter: limiterOn(sharedAddr, p, 100, 1000), guard: guardOn(sharedAddr, p)})
	state := round1(t, f.urls[0], "a")
	var ran, used atomic.Int64
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			r, err := toolCall{token: "alice", name: "delete_item", id: "a", state: state, answer: accept}.send(f.urls[i%2])
			switch {
			case err != nil:
				t.Error(err)
			case executed(r):
				ran.Add(1)
			case r.status == 200 && r.msg.Result != nil && r.msg.Result.IsError && r.outcome() == "confirmation_already_used" &&
				r.msg.Result.StructuredContent["executed"] == true:
				used.Add(1)
			case r.status == 503 && r.reason() == "confirmation_in_progress" && r.header.Get("Retry-After") != "":
				used.Add(1)
			default:
				t.Errorf("replay %d: %d %s", i, r.status, r.raw)
			}
		})
	}
	wg.Wait()
	if ran.Load() != 1 || used.Load() != 49 || f.deletes.Load() != 1 {
		t.Errorf("%d executed, %d refused as used or running, route ran %d times; want 1, 49, 1", ran.Load(), used.Load(), f.deletes.Load())
	}
}

// TestHTTP_Outage: with Redis stopped, a confirmed call answers 503 with
// Retry-After and runs nothing, and so does a metered request; once Redis
// is back, both work, and the confirmation refused during the outage runs,
// once. The replicas use the default timeout, and reach Redis with a
// password in a redis:// URL that their logs never show.
func TestHTTP_Outage(t *testing.T) {
	t.Parallel()
	const password = "S3cret-pa55word"
	srv := ownRedis(t, "--requirepass", password)
	p := testPrefix(t)
	url := "redis://:" + password + "@" + srv.addr + "/0"
	client := func(t *testing.T) *redis.Client {
		opt, err := redisstore.ParseURL(url)
		if err != nil {
			t.Fatal(err)
		}
		c := redis.NewClient(opt)
		t.Cleanup(func() { c.Close() })
		return c
	}
	// guarded keeps its guard on the Redis that goes down and its limiter
	// on one that stays up, so the guard's failure is what answers;
	// limited has its limiter on the Redis that goes down.
	guarded := newFleet(t, 2, replicaConfig{
		limiter: limiterOn(sharedAddr, p, 100, 1000),
		guard:   func(t *testing.T) *redisstore.ReplayGuard { return redisstore.NewReplayGuard(client(t)) },
	})
	limited := newFleet(t, 2, replicaConfig{
		limiter: func(t *testing.T) *redisstore.Limiter { return redisstore.NewLimiter(client(t), 100, 1000) },
		guard:   func(t *testing.T) *redisstore.ReplayGuard { return redisstore.NewReplayGuard(client(t)) },
	})
	get := toolCall{token: "alice", name: "get_item", id: "1"}
	metered := func() error {
		r, err := get.send(limited.urls[1])
		if err == nil && r.status != 200 {
			err = fmt.Errorf("%d %s", r.status, r.raw)
		}
		return err
	}
	eventually(t, "a metered call before the outage", metered)
	state := round1(t, guarded.urls[0], "a")
	limitedState := round1(t, limited.urls[0], "b")
	reads := limited.reads.Load()

	srv.stop()
	confirm := toolCall{token: "alice", name: "delete_item", id: "a", state: state, answer: accept}
	for i, u := range guarded.urls {
		r := confirm.must(t, u)
		if r.status != 503 || r.header.Get("Retry-After") == "" || r.reason() != "replay_guard_unavailable" {
			t.Errorf("confirmed call on replica %d with Redis down: %d %v %s", i, r.status, r.header, r.raw)
		}
	}
	for i, u := range limited.urls {
		for _, c := range []toolCall{get, {token: "alice", name: "delete_item", id: "b", state: limitedState, answer: accept}} {
			r := c.must(t, u)
			if r.status != 503 || r.header.Get("Retry-After") == "" || r.reason() != "rate_limiter_unavailable" {
				t.Errorf("%s on replica %d with Redis down: %d %v %s", c.name, i, r.status, r.header, r.raw)
			}
		}
	}
	if guarded.deletes.Load() != 0 || limited.deletes.Load() != 0 || limited.reads.Load() != reads {
		t.Fatal("a route ran while Redis was down")
	}

	srv.restart(t)
	eventually(t, "a metered call after the restart", metered)
	eventually(t, "a new confirmation after the restart", func() error {
		c := toolCall{token: "alice", name: "delete_item", id: "c", state: round1(t, guarded.urls[0], "c"), answer: accept}
		r, err := c.send(guarded.urls[1])
		if err == nil && !executed(r) {
			err = fmt.Errorf("%d %s", r.status, r.raw)
		}
		return err
	})
	// The confirmation refused during the outage was never recorded: it
	// runs now, once.
	if r := confirm.must(t, guarded.urls[1]); !executed(r) {
		t.Errorf("confirmed call after the restart: %d %s", r.status, r.raw)
	}
	if r := confirm.must(t, guarded.urls[0]); r.outcome() != "confirmation_already_used" {
		t.Errorf("replay after the restart: %d %s", r.status, r.raw)
	}
	if n := guarded.deletes.Load(); n != 2 {
		t.Errorf("the route ran %d times, want twice: the new confirmation and the old one", n)
	}
	for _, f := range []*fleet{guarded, limited} {
		log := f.log.String()
		if !strings.Contains(log, "redisstore: ") {
			t.Errorf("the outage is not in the log:\n%s", log)
		}
		if strings.Contains(log, password) {
			t.Errorf("the log shows the Redis password:\n%s", log)
		}
	}
}

// TestHTTP_LastRunAcrossReplicas (design record 025, the last run): once a confirmed call
// ran on one replica, a new question for the same call on another says
// when it ran and what its route answered; another caller's question, or
// another call's, says nothing.
func TestHTTP_LastRunAcrossReplicas(t *testing.T) {
	t.Parallel()
	p := testPrefix(t)
	f := newFleet(t, 2, replicaConfig{guard: guardOn(sharedAddr, p)})
	state, q := ask(t, f.urls[0], "alice", "delete_item", "a")
	if strings.HasPrefix(q, "Note:") {
		t.Fatalf("a first question: %q", q)
	}
	if r := (toolCall{token: "alice", name: "delete_item", id: "a", state: state, answer: accept}).must(t, f.urls[0]); !executed(r) {
		t.Fatalf("the confirmed call: %d %s", r.status, r.raw)
	}
	_, q = ask(t, f.urls[1], "alice", "delete_item", "a")
	want := regexp.MustCompile(`^Note: this call, with the same arguments, already ran at 20\d\d-\d\d-\d\dT\d\d:\d\d:\d\dZ and its service answered status 200\. Confirm only if it should run again\. Confirm "delete_item": `)
	if !want.MatchString(q) {
		t.Errorf("on the other replica: %q", q)
	}
	if _, q := ask(t, f.urls[1], "bob", "delete_item", "a"); strings.HasPrefix(q, "Note:") {
		t.Errorf("another caller's question: %q", q)
	}
	if _, q := ask(t, f.urls[1], "alice", "delete_item", "b"); strings.HasPrefix(q, "Note:") {
		t.Errorf("another call's question: %q", q)
	}
}

// TestHTTP_InterruptedReleased (design record 019, an interrupted call): a confirmed call whose
// request ends while its route waits (the route gives up, writing
// nothing) is answered confirmation_interrupted and recorded nowhere: the
// Redis lease is released, so the retry on the other replica runs the
// route at once (not "in progress"), with the same Idempotency-Key, and
// only then is a retry told it ran.
func TestHTTP_InterruptedReleased(t *testing.T) {
	t.Parallel()
	p := testPrefix(t)
	f := newFleet(t, 2, replicaConfig{guard: guardOn(sharedAddr, p)})
	state, _ := ask(t, f.urls[0], "alice", "wipe_item", "a")
	confirm := toolCall{token: "alice", name: "wipe_item", id: "a", state: state, answer: accept}
	f.wipe.Store(true)
	r := confirm.must(t, f.urls[0])
	if r.status != 503 || r.reason() != "confirmation_interrupted" || r.header.Get("Retry-After") != "1" || r.msg.Result != nil {
		t.Fatalf("the interrupted call: %d %v %s", r.status, r.header, r.raw)
	}
	f.wipe.Store(false)
	r = confirm.must(t, f.urls[1])
	if r.status != 200 || r.msg.Result == nil || r.msg.Result.IsError || !strings.Contains(r.msg.Result.Content[0].Text, "wiped") {
		t.Fatalf("the retry on the other replica: %d %s", r.status, r.raw)
	}
	if r := confirm.must(t, f.urls[0]); r.outcome() != "confirmation_already_used" || r.msg.Result.StructuredContent["status"] != float64(200) {
		t.Errorf("after the run: %d %s", r.status, r.raw)
	}
	n := 0
	f.wipeKey.Range(func(any, any) bool { n++; return true })
	if f.wipes.Load() != 1 || n != 1 {
		t.Errorf("%d wipes with %d keys; want one run, one key for both", f.wipes.Load(), n)
	}
	if log := f.log.String(); strings.Count(log, "outcome=interrupted") != 1 || strings.Count(log, `outcome="executed, status 200"`) != 1 {
		t.Errorf("audit lines:\n%s", log)
	}
}
