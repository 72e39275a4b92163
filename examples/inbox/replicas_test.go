package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/mcptest"
)

// TestReplicas drives a fleet, not this process: .ci/replicas.sh starts
// Redis, replicas of this server (one INBOX_STATE_KEYS ring, -redis, one
// -public-url) and nginx balancing them round-robin, and names the balancer
// in INBOX_REPLICAS_URL. Without that variable the test skips; with it,
// anything else missing fails it. Every request goes through the
// balancer; nginx's X-Upstream header says which replica answered.
//
// Each replica keeps its own in-memory store, so an effect is counted by
// reading a record from every replica: a tool that ran on two replicas
// changed the record on both.
func TestReplicas(t *testing.T) {
	url := os.Getenv("INBOX_REPLICAS_URL")
	if url == "" {
		t.Skip("drives the fleet that .ci/replicas.sh starts (INBOX_REPLICAS_URL)")
	}
	d := &fleetDriver{url: strings.TrimSuffix(url, "/"), ctl: os.Getenv("INBOX_REPLICAS_CTL")}
	var err error
	if d.replicas, err = strconv.Atoi(os.Getenv("INBOX_REPLICAS_COUNT")); err != nil || d.replicas < 2 {
		t.Fatalf("INBOX_REPLICAS_COUNT: want the number of replicas (2 or more), got %q", os.Getenv("INBOX_REPLICAS_COUNT"))
	}
	if d.perSecond, d.burst, err = parseRate(os.Getenv("INBOX_REPLICAS_RATE")); err != nil {
		t.Fatalf("INBOX_REPLICAS_RATE: the replicas' -rate: %v", err)
	}
	if d.ctl == "" || os.Getenv("INBOX_REPLICAS_WORK") == "" {
		t.Fatal("INBOX_REPLICAS_CTL and INBOX_REPLICAS_WORK: set by .ci/replicas.sh, which restarts replicas and Redis for the test")
	}
	d.waitReady(t)
	t.Run("OneBudgetPerPrincipal", d.budget)
	t.Run("DuplicateConfirmationsRunOnce", d.duplicates)
	t.Run("TasksAcrossReplicas", d.tasks)             // replicas_tasks_test.go
	t.Run("LegacyInputAcrossReplicas", d.legacyInput) // replicas_legacy_test.go
	t.Run("LegacyAnswerResent", d.legacyAnswerResent) // replicas_legacy_test.go
	t.Run("KeyRotationUnderTraffic", d.rotation)
	t.Run("RedisOutage", d.outage)
	t.Logf("figures:\n  %s", strings.Join(d.figures, "\n  "))
}

type fleetDriver struct {
	url       string // the balancer
	ctl       string // .ci/replicas.sh, for its ctl commands
	replicas  int
	perSecond float64
	burst     int

	mu      sync.Mutex
	figures []string
}

func (d *fleetDriver) figure(t *testing.T, format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	t.Log(s)
	d.mu.Lock()
	d.figures = append(d.figures, s)
	d.mu.Unlock()
}

// Who calls: the budget test spends the admin's budget, the others share
// the writer's and the admin's, and the reader reads records back.
var (
	fleetAdmin  = who{token: "dev-admin", workspace: "ws_acme_prod"}
	fleetWriter = who{token: "dev-writer"}
	fleetReader = who{token: "dev-reader"}
)

// answer is one response through the balancer.
type answer struct {
	status   int
	header   http.Header
	body     []byte
	upstream string
}

// upstreamOf names the replica that answered: the last address of
// nginx's X-Upstream (nginx lists every replica it tried).
func upstreamOf(h http.Header) string {
	u := h.Get("X-Upstream")
	if i := strings.LastIndex(u, ","); i >= 0 {
		u = u[i+1:]
	}
	return strings.TrimSpace(u)
}

var fleetHTTP = &http.Client{Timeout: 15 * time.Second}

func (d *fleetDriver) rest(method, path string, w who) (answer, error) {
	req, err := http.NewRequest(method, d.url+path, nil)
	if err != nil {
		return answer{}, err
	}
	req.Header.Set("Authorization", "Bearer "+w.token)
	if w.workspace != "" {
		req.Header.Set("X-Workspace-Id", w.workspace)
	}
	resp, err := fleetHTTP.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, err = buf.ReadFrom(resp.Body)
	return answer{status: resp.StatusCode, header: resp.Header, body: buf.Bytes(), upstream: upstreamOf(resp.Header)}, err
}

// client speaks 2026-07-28 as w, with form elicitation declared.
func (d *fleetDriver) client(w who) *mcptest.Client {
	opts := []mcptest.Option{mcptest.WithHeader("Authorization", "Bearer "+w.token),
		mcptest.WithCapabilities(json.RawMessage(`{"elicitation":{}}`))}
	if w.workspace != "" {
		opts = append(opts, mcptest.WithHeader("X-Workspace-Id", w.workspace))
	}
	return mcptest.Dial(d.url+"/mcp", mcp.Version20260728, opts...)
}

func (d *fleetDriver) waitReady(t *testing.T) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		a, err := d.rest("GET", "/api/v1/inboxes", fleetReader)
		if err == nil && a.status == 200 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the balancer at %s does not answer: %v %d", d.url, err, a.status)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// ctl runs one of .ci/replicas.sh's ctl commands.
func (d *fleetDriver) run(t *testing.T, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "bash", append([]string{d.ctl, "ctl"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("ctl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// webhookState reads a webhook from every replica through the balancer
// (round-robin: a few reads reach them all) and returns, by replica, its
// secret's rotation time and hint: what a rotation changes.
func (d *fleetDriver) webhookState(t *testing.T, id string) map[string]string {
	t.Helper()
	seen := map[string]string{}
	for i := 0; i < 10*d.replicas && len(seen) < d.replicas; i++ {
		a, err := d.rest("GET", "/api/v1/webhooks/"+id, fleetReader)
		if err != nil || a.status != 200 || a.upstream == "" {
			t.Fatalf("reading %s: %v %d %s (upstream %q)", id, err, a.status, a.body, a.upstream)
		}
		var env struct {
			Data struct {
				RotatedAt  string `json:"secret_rotated_at"`
				SecretHint string `json:"secret_hint"`
			} `json:"data"`
		}
		if err := json.Unmarshal(a.body, &env); err != nil {
			t.Fatal(err)
		}
		seen[a.upstream] = env.Data.RotatedAt + " " + env.Data.SecretHint
	}
	if len(seen) < d.replicas {
		t.Fatalf("only %d of %d replicas answered through the balancer", len(seen), d.replicas)
	}
	return seen
}

// changed counts the replicas whose record differs between two reads.
func changed(before, after map[string]string) int {
	n := 0
	for up, v := range after {
		if before[up] != v {
			n++
		}
	}
	return n
}

// confirm is a tools/call of a destructive tool: round 1 asks, round 2
// answers with the state.
type confirm struct {
	tool string
	args map[string]string
}

func (c confirm) params(state string) map[string]any {
	p := map[string]any{"name": c.tool, "arguments": c.args}
	if state != "" {
		p["requestState"] = state
		p["inputResponses"] = map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]bool{"confirm": true}}}
	}
	return p
}

// outcome classifies an answer to a tools/call.
func outcome(r *mcptest.Response, err error) string {
	switch {
	case err != nil:
		return "transport_error"
	case r.Status == http.StatusServiceUnavailable && strings.Contains(string(r.Raw), `"confirmation_in_progress"`):
		// Another call holds the confirmation's lease: come back.
		return "confirmation_in_progress"
	case r.Status == http.StatusServiceUnavailable && strings.Contains(string(r.Raw), `"confirmation_interrupted"`):
		// The call's request ended before its tool answered: no outcome,
		// come back for it.
		return "confirmation_interrupted"
	case r.Status == http.StatusServiceUnavailable:
		return "unavailable"
	case r.Status == http.StatusTooManyRequests:
		return "rate_limited"
	case r.Status != http.StatusOK:
		return "http_" + strconv.Itoa(r.Status)
	case r.Error != nil && r.Error.Message == "Invalid or expired requestState":
		return "refused"
	case r.Error != nil:
		return fmt.Sprintf("error_%d", r.Error.Code)
	}
	var res struct {
		ResultType        string `json:"resultType"`
		RequestState      string `json:"requestState"`
		IsError           bool   `json:"isError"`
		StructuredContent struct {
			Outcome string `json:"outcome"`
		} `json:"structuredContent"`
	}
	_ = json.Unmarshal(r.Result, &res)
	switch {
	case res.ResultType == "input_required":
		return "input_required"
	case res.IsError && res.StructuredContent.Outcome != "":
		return res.StructuredContent.Outcome
	case res.IsError:
		return "tool_error"
	}
	return "executed"
}

// retryable answers are a client's to retry after a pause: nothing ran.
func retryable(o string) bool {
	return o == "rate_limited" || o == "unavailable" || o == "confirmation_in_progress" || o == "confirmation_interrupted" ||
		o == "transport_error" || o == "http_502" || o == "http_504"
}

// call sends a tools/call, retrying what a client retries (at most 8
// times), and returns the last answer, its outcome and the outcomes it
// retried.
func (c confirm) call(ctx context.Context, cl *mcptest.Client, state string) (*mcptest.Response, string, []string) {
	var retried []string
	for try := 0; ; try++ {
		r, err := cl.Call(ctx, "tools/call", c.params(state))
		o := outcome(r, err)
		if !retryable(o) || try == 8 {
			return r, o, retried
		}
		retried = append(retried, o)
		pause := 100 * time.Millisecond
		if r != nil {
			if s, err := strconv.Atoi(r.Header.Get("Retry-After")); err == nil && s > 0 {
				pause = min(time.Duration(s)*time.Second, time.Second)
			}
		}
		time.Sleep(pause)
	}
}

func requestState(r *mcptest.Response) string {
	var res struct {
		RequestState string `json:"requestState"`
	}
	if r != nil {
		_ = json.Unmarshal(r.Result, &res)
	}
	return res.RequestState
}

// rawOf is an answer's body, for failure messages.
func rawOf(r *mcptest.Response) string {
	if r == nil {
		return "(no answer)"
	}
	return string(r.Raw)
}

// upstreamOfResponse names the replica that answered r ("" for none).
func upstreamOfResponse(r *mcptest.Response) string {
	if r == nil {
		return ""
	}
	return upstreamOf(r.Header)
}

// keyID reads the id of the key that sealed a state from its header,
// which is not encrypted (design 002: version, id length, id, ...).
func keyID(state string) string {
	raw, err := base64.RawURLEncoding.DecodeString(state)
	if err != nil || len(raw) < 2 || len(raw) < 2+int(raw[1]) {
		return "?"
	}
	return string(raw[2 : 2+int(raw[1])])
}

// budget: one principal's requests, spread by the balancer over every
// replica and alternating between the REST API and the MCP endpoint, are
// admitted as one replica's budget would admit them: the burst, plus the
// rate for the time they took. Independent budgets would admit the
// replicas' count times as many.
func (d *fleetDriver) budget(t *testing.T) {
	ctx := context.Background()
	// About 500 requests a second: several times what three budgets
	// would admit, without loading the machine for nothing.
	const workers, window, pace = 8, 2 * time.Second, 16 * time.Millisecond
	c := d.client(fleetAdmin)
	var mu sync.Mutex
	admitted, refused, sent := 0, 0, 0
	other := map[string]int{}
	upstreams := map[string]bool{}
	start := time.Now()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; time.Since(start) < window && i < 1000; i++ {
				time.Sleep(time.Until(start.Add(time.Duration(i) * pace)))
				var status int
				var up string
				if (i+w)%2 == 0 {
					a, err := d.rest("GET", "/api/v1/inboxes", fleetAdmin)
					if err != nil {
						status = -1
					} else {
						status, up = a.status, a.upstream
					}
				} else {
					r, err := c.Call(ctx, "tools/list", nil)
					if err != nil {
						status = -1
					} else {
						status, up = r.Status, upstreamOf(r.Header)
					}
				}
				mu.Lock()
				sent++
				upstreams[up] = true
				switch status {
				case http.StatusOK:
					admitted++
				case http.StatusTooManyRequests:
					refused++
				default:
					other[strconv.Itoa(status)]++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	budget := float64(d.burst) + d.perSecond*elapsed.Seconds()
	ratio := float64(admitted) / budget
	d.figure(t, "rate budget: dev-admin sent %d requests (REST and MCP) in %.2f s through %d replicas; %d admitted, %d refused 429; "+
		"one replica's budget admits %d + %g/s × %.2f s = %.0f (admitted/budget %.2f); %d separate budgets would admit %.0f",
		sent, elapsed.Seconds(), len(upstreams), admitted, refused, d.burst, d.perSecond, elapsed.Seconds(), budget, ratio, d.replicas, budget*float64(d.replicas))
	if len(other) > 0 {
		t.Errorf("answers other than 200 and 429: %v", other)
	}
	if float64(sent) < float64(d.replicas+1)*budget || len(upstreams) < d.replicas {
		t.Fatalf("sent %d requests to %d replicas: too few to tell one budget from %d", sent, len(upstreams), d.replicas)
	}
	if math.Abs(ratio-1) > 0.10 {
		t.Errorf("admitted %d, %.2f times one budget (%.0f); want within 10%%", admitted, ratio, budget)
	}
}

// duplicates: one accepted confirmation, retried 50 times at once through
// the balancer, runs once across the replicas: the replay guard in Redis
// lets one retry through, whichever replica it reaches.
func (d *fleetDriver) duplicates(t *testing.T) {
	ctx := context.Background()
	c := d.client(fleetWriter)
	rot := confirm{tool: "webhooks_rotate_secret", args: map[string]string{"id": "whk_globex_ops"}}
	before := d.webhookState(t, "whk_globex_ops")
	r, o, _ := rot.call(ctx, c, "")
	state := requestState(r)
	if o != "input_required" || state == "" {
		t.Fatalf("round 1: %s %s", o, rawOf(r))
	}
	const n = 50
	outcomes := map[string]int{}
	upstreams := map[string]bool{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	release := make(chan struct{})
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-release
			r, err := c.Call(ctx, "tools/call", rot.params(state))
			o := outcome(r, err)
			mu.Lock()
			defer mu.Unlock()
			outcomes[o]++
			upstreams[upstreamOfResponse(r)] = true
		}()
	}
	close(release)
	wg.Wait()
	executions := changed(before, d.webhookState(t, "whk_globex_ops"))
	d.figure(t, "duplicate confirmations: %d concurrent retries of one webhooks_rotate_secret confirmation, answered by %d replicas: "+
		"executions by the stores %d, answers %v", n, len(upstreams), executions, outcomes)
	if executions != 1 || outcomes["executed"] != 1 || outcomes["confirmation_already_used"]+outcomes["confirmation_in_progress"] != n-1 {
		t.Errorf("want 1 execution and %d confirmation_already_used or confirmation_in_progress", n-1)
	}
	if len(upstreams) < d.replicas {
		t.Errorf("the retries reached %d of %d replicas", len(upstreams), d.replicas)
	}
}

// rings are the key ids each step of the rotation loads (.ci/replicas.sh
// builds the same rings from two secrets).
var rings = map[string][]string{"before": {"k1"}, "add": {"k1", "k2"}, "promote": {"k2", "k1"}, "retire": {"k2"}}

// rotation: replicas restarted one by one through the three steps of a
// key rotation while confirmations keep flowing, each round 2 sent a
// moment after its round 1 and mostly to another replica. No valid state
// is refused: every state sealed under a key every replica still holds
// opens wherever its round 2 lands.
func (d *fleetDriver) rotation(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	step := make([]string, d.replicas) // the step each replica runs
	for i := range step {
		step[i] = "before"
	}
	heldByAll := func(id string) bool {
		mu.Lock()
		defer mu.Unlock()
		for _, s := range step {
			if !slices.Contains(rings[s], id) {
				return false
			}
		}
		return true
	}

	// A k1 state kept past the end: once k1 is retired it must not open.
	kept := confirm{tool: "webhooks_send_test", args: map[string]string{"id": "whk_globex_ops"}}
	r, o, _ := kept.call(ctx, d.client(fleetWriter), "")
	keptState := requestState(r)
	if o != "input_required" || keyID(keptState) != "k1" {
		t.Fatalf("a k1 state before the rotation: %s, key %s", o, keyID(keptState))
	}

	type tally struct {
		rounds, executed, crossed   int
		refusedHeld, refusedRetired int
		outcomes, sealedBy, retried map[string]int
	}
	total := tally{outcomes: map[string]int{}, sealedBy: map[string]int{}, retried: map[string]int{}}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for _, w := range []struct {
		who     who
		webhook string
	}{{fleetWriter, "whk_globex_ops"}, {fleetAdmin, "whk_acme_erp"}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := d.client(w.who)
			call := confirm{tool: "webhooks_send_test", args: map[string]string{"id": w.webhook}}
			for i := 0; i < 500; i++ {
				select {
				case <-stop:
					return
				default:
				}
				r1, o1, retries1 := call.call(ctx, c, "")
				state := requestState(r1)
				if o1 != "input_required" || state == "" {
					mu.Lock()
					total.outcomes["round1_"+o1]++
					mu.Unlock()
					continue
				}
				// The user takes a moment to answer; restarts happen meanwhile.
				time.Sleep(time.Duration(50+rand.IntN(350)) * time.Millisecond)
				// A state counts as valid when every replica held its key
				// from before round 2 was sent until it was answered.
				kid := keyID(state)
				held := heldByAll(kid)
				r2, o2, retries2 := call.call(ctx, c, state)
				held = held && heldByAll(kid)
				mu.Lock()
				total.rounds++
				total.outcomes[o2]++
				total.sealedBy[kid]++
				for _, o := range append(retries1, retries2...) {
					total.retried[o]++
				}
				// A retry of an answer that was lost (a 502 while a replica
				// stopped) finds the confirmation used: it ran.
				if o2 == "executed" || (o2 == "confirmation_already_used" && len(retries2) > 0) {
					total.executed++
				}
				if upstreamOfResponse(r1) != upstreamOfResponse(r2) {
					total.crossed++
				}
				if o2 == "refused" {
					if held {
						total.refusedHeld++
					} else {
						total.refusedRetired++
					}
				}
				mu.Unlock()
			}
		}()
	}

	began := time.Now()
	for _, s := range []string{"add", "promote", "retire"} {
		if s == "retire" {
			// Retire k1 only once no state it sealed can still be
			// answered: the procedure waits the sealer's TTL and skew;
			// these clients answer within half a second, plus retries.
			time.Sleep(1500 * time.Millisecond)
		}
		for i := range d.replicas {
			d.run(t, "restart", strconv.Itoa(i), s)
			mu.Lock()
			step[i] = s
			mu.Unlock()
			time.Sleep(400 * time.Millisecond)
		}
	}
	time.Sleep(500 * time.Millisecond)
	close(stop)
	wg.Wait()

	_, o, _ = kept.call(ctx, d.client(fleetWriter), keptState)
	d.figure(t, "key rotation: %d replica restarts in %.1f s (k1 → k1,k2 → k2,k1 → k2) under traffic; %d confirmations (states sealed by %v), "+
		"%d executed, %d answered on another replica than the one that asked; refused: %d of states under a key every replica held, "+
		"%d of states under a retired key; client retries %v; answers %v; a k1 state kept past retirement: %s",
		3*d.replicas, time.Since(began).Seconds(), total.rounds, total.sealedBy, total.executed, total.crossed,
		total.refusedHeld, total.refusedRetired, total.retried, total.outcomes, o)
	if total.refusedHeld != 0 {
		t.Errorf("%d valid states refused during the rotation", total.refusedHeld)
	}
	for o, n := range total.outcomes {
		if strings.HasPrefix(o, "round1_") {
			t.Errorf("%d first rounds answered %s", n, strings.TrimPrefix(o, "round1_"))
		}
	}
	// A state whose key was retired while it was in flight is refused,
	// as it should be; the wait before step 3 makes that rare here.
	if total.executed != total.rounds-total.refusedRetired || total.rounds < 20 {
		t.Errorf("%d of %d confirmations executed; want all but those under a retired key, and at least 20", total.executed, total.rounds)
	}
	if total.sealedBy["k1"] == 0 || total.sealedBy["k2"] == 0 || total.crossed == 0 {
		t.Errorf("the traffic did not exercise both keys across replicas")
	}
	if o != "refused" {
		t.Errorf("a k1 state after k1 was retired: %s, want refused", o)
	}
}

// outage: with Redis stopped, nothing destructive runs and the endpoint
// answers 503 with Retry-After, for MCP and REST alike; once Redis is back
// the same confirmation runs, once.
func (d *fleetDriver) outage(t *testing.T) {
	ctx := context.Background()
	c := d.client(fleetWriter)
	rot := confirm{tool: "webhooks_rotate_secret", args: map[string]string{"id": "whk_globex_ops"}}
	r, o, _ := rot.call(ctx, c, "")
	state := requestState(r)
	if o != "input_required" || state == "" {
		t.Fatalf("round 1: %s %s", o, rawOf(r))
	}
	before := d.webhookState(t, "whk_globex_ops")

	d.run(t, "stop-redis")
	stopped := time.Now()
	answers := map[string]int{}
	withoutRetryAfter := 0
	note := func(kind string, status int, h http.Header) {
		answers[kind+"_"+strconv.Itoa(status)]++
		if status == http.StatusServiceUnavailable && h.Get("Retry-After") == "" {
			withoutRetryAfter++
		}
	}
	// Two requests a round, so that round-robin takes each kind to every
	// replica in turn.
	confirmedOn := map[string]bool{}
	for range d.replicas {
		r, err := c.Call(ctx, "tools/call", rot.params(state))
		if err != nil {
			t.Fatal(err)
		}
		note("confirmed_call", r.Status, r.Header)
		confirmedOn[upstreamOf(r.Header)] = true
		a, err := d.rest("POST", "/api/v1/webhooks/whk_globex_ops/rotate-secret", fleetWriter)
		if err != nil {
			t.Fatal(err)
		}
		note("rest_rotate", a.status, a.header)
	}
	r, err := c.Call(ctx, "tools/list", nil)
	if err != nil {
		t.Fatal(err)
	}
	note("tools_list", r.Status, r.Header)
	d.run(t, "start-redis")
	restarted := time.Now()
	recovered := time.Duration(-1)
	for time.Since(restarted) < 15*time.Second {
		r, err := c.Call(ctx, "tools/list", nil)
		if err == nil && r.Status == http.StatusOK {
			recovered = time.Since(restarted)
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	during := changed(before, d.webhookState(t, "whk_globex_ops"))
	_, first, _ := rot.call(ctx, c, state)
	_, again, _ := rot.call(ctx, c, state)
	after := changed(before, d.webhookState(t, "whk_globex_ops"))
	d.figure(t, "Redis outage (%.1f s): answers %v (%d 503 without Retry-After; the confirmed call reached %d replicas); "+
		"executions during the outage %d; recovered %v after Redis restarted; the same confirmation then: %s, then %s; executions in all %d",
		restarted.Sub(stopped).Seconds(), answers, withoutRetryAfter, len(confirmedOn), during, recovered.Round(time.Millisecond), first, again, after)
	for kind, n := range answers {
		if !strings.HasSuffix(kind, "_503") {
			t.Errorf("%d answers %s during the outage; want 503 only", n, kind)
		}
	}
	if withoutRetryAfter != 0 || during != 0 || len(confirmedOn) < d.replicas {
		t.Errorf("during the outage: %d 503 without Retry-After, %d executions", withoutRetryAfter, during)
	}
	if recovered < 0 || first != "executed" || again != "confirmation_already_used" || after != 1 {
		t.Errorf("after the outage: recovered %v, then %s and %s, %d executions; want executed once", recovered, first, again, after)
	}
}
