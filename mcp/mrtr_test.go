package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/content"
	"github.com/mcpdual/mcpdual/mrtr"
)

// rt is one 2026-07-28 (or 2025) request of a multi round-trip exchange.
type rt struct {
	era       mcp.Version // default 2026-07-28
	id        int
	method    string // default tools/call
	name      string
	uri       string // params.uri (resources/read)
	args      string // raw JSON object; "" sends no arguments
	caps      string // raw clientCapabilities; default {}
	state     string // raw JSON value of requestState; "" sends none
	responses string // raw JSON value of inputResponses; "" sends none
	header    map[string]string
}

func (c rt) body() string {
	params := []string{}
	if c.era == "" || c.era == mcp.Version20260728 {
		caps := c.caps
		if caps == "" {
			caps = "{}"
		}
		params = append(params, `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":`+caps+`}`)
	}
	if c.name != "" {
		params = append(params, `"name":`+quoteJSON(c.name))
	}
	if c.uri != "" {
		params = append(params, `"uri":`+quoteJSON(c.uri))
	}
	if c.args != "" {
		params = append(params, `"arguments":`+c.args)
	}
	if c.state != "" {
		params = append(params, `"requestState":`+c.state)
	}
	if c.responses != "" {
		params = append(params, `"inputResponses":`+c.responses)
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%s,"params":{%s}}`, c.id, quoteJSON(c.method), strings.Join(params, ","))
}

func (c rt) send(t testing.TB, url string) *reply {
	t.Helper()
	if c.method == "" {
		c.method = "tools/call"
	}
	if c.id == 0 {
		c.id = 1
	}
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(c.body()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	switch c.era {
	case "", mcp.Version20260728:
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", c.method)
		if c.name != "" {
			req.Header.Set("Mcp-Name", c.name)
		}
		if c.uri != "" {
			req.Header.Set("Mcp-Name", c.uri)
		}
	default:
		req.Header.Set("MCP-Protocol-Version", string(c.era))
	}
	for k, v := range c.header {
		req.Header.Set(k, v)
	}
	return send(t, req)
}

// interim is an input_required result.
type interim struct {
	ResultType    string                     `json:"resultType"`
	InputRequests map[string]json.RawMessage `json:"inputRequests"`
	RequestState  string                     `json:"requestState"`
	TTLMs         *int64                     `json:"ttlMs"`
	CacheScope    *string                    `json:"cacheScope"`
	Meta          map[string]any             `json:"_meta"`
}

func asInterim(t testing.TB, r *reply) interim {
	t.Helper()
	var in interim
	if r.status != 200 || r.code() != 0 {
		t.Fatalf("want input_required, got %d %s", r.status, r.raw)
	}
	json.Unmarshal(r.msg.Result, &in)
	if in.ResultType != "input_required" {
		t.Fatalf("resultType %q: %s", in.ResultType, r.raw)
	}
	if in.TTLMs != nil || in.CacheScope != nil {
		t.Errorf("input_required carries cache hints: %s", r.raw)
	}
	if in.Meta["io.modelcontextprotocol/serverInfo"] == nil {
		t.Errorf("no serverInfo: %s", r.raw)
	}
	return in
}

// toolResult decodes a complete tools/call result.
type toolResult struct {
	ResultType string `json:"resultType"`
	Content    []struct {
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent map[string]any `json:"structuredContent"`
	IsError           bool           `json:"isError"`
}

func asResult(t testing.TB, r *reply) toolResult {
	t.Helper()
	if r.status != 200 || r.code() != 0 {
		t.Fatalf("want a result, got %d %s", r.status, r.raw)
	}
	var res toolResult
	json.Unmarshal(r.msg.Result, &res)
	return res
}

func checkInvalidState(t testing.TB, r *reply) {
	t.Helper()
	if r.status != 200 || r.code() != -32602 || r.msg.Error.Message != "Invalid or expired requestState" ||
		string(r.msg.Error.Data) != `{"reason":"invalid_request_state"}` {
		t.Fatalf("want the invalid-state error, got %d %s", r.status, r.raw)
	}
}

// mrtrServer is one replica of an endpoint with MRTR tools.
type mrtrServer struct {
	url      string
	executed *atomic.Int64 // runs of the delete route
	idemKeys *sync.Map     // Idempotency-Key values the delete route saw -> count
	log      *syncBuffer
}

type mrtrConfig struct {
	sealer  *mrtr.Sealer
	guard   mcp.ReplayGuard
	shared  *mrtrServer // share counters with another replica
	handler []mcp.HandlerOption
}

func newMRTRServer(t testing.TB, cfg mrtrConfig) *mrtrServer {
	t.Helper()
	s := &mrtrServer{executed: &atomic.Int64{}, idemKeys: &sync.Map{}, log: &syncBuffer{}}
	if cfg.shared != nil {
		s.executed, s.idemKeys = cfg.shared.executed, cfg.shared.idemKeys
	}
	mux := http.NewServeMux()
	jsonOut := func(w http.ResponseWriter, v any) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(v)
	}
	mux.HandleFunc("GET /ask", func(w http.ResponseWriter, r *http.Request) {
		call := mcp.CallFromContext(r.Context())
		if ans, ok := call.Elicitation("name"); ok && ans.Action == mcp.ElicitAccept {
			var c struct{ Name string }
			json.Unmarshal(ans.Content, &c)
			jsonOut(w, map[string]string{"greeting": "Hello " + c.Name, "state": string(call.State())})
			return
		}
		call.RequireInput([]byte("step-1"), mcp.ElicitForm("name", "Your name?",
			json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)))
	})
	mux.HandleFunc("GET /sample", func(w http.ResponseWriter, r *http.Request) {
		call := mcp.CallFromContext(r.Context())
		if v, ok := call.InputResponse("s"); ok {
			w.Header().Set("Content-Type", "application/json")
			w.Write(v)
			return
		}
		call.RequireInput(nil, mcp.Sample("s", mcp.SamplingRequest{Messages: []mcp.SamplingMessage{{Role: content.User, Content: content.Text("Capital of France?")}}, MaxTokens: 20}))
	})
	mux.HandleFunc("GET /degrade", func(w http.ResponseWriter, r *http.Request) {
		call := mcp.CallFromContext(r.Context())
		if !call.Supports(mcp.CapSampling) {
			jsonOut(w, map[string]string{"answer": "no model available"})
			return
		}
		call.RequireInput(nil, mcp.Sample("s", mcp.SamplingRequest{Messages: []mcp.SamplingMessage{{Role: content.User, Content: content.Text("Hi")}}, MaxTokens: 5}))
	})
	mux.HandleFunc("GET /login", func(w http.ResponseWriter, r *http.Request) {
		mcp.CallFromContext(r.Context()).RequireInput([]byte("x"), mcp.ElicitURL("login", "Sign in", "https://localhost/login"), mcp.ListRoots("roots"))
	})
	mux.HandleFunc("GET /dupkeys", func(w http.ResponseWriter, r *http.Request) {
		mcp.CallFromContext(r.Context()).RequireInput(nil, mcp.ListRoots("a"), mcp.ListRoots("a"))
	})
	mux.HandleFunc("DELETE /items/{id}", func(w http.ResponseWriter, r *http.Request) {
		s.executed.Add(1)
		key := r.Header.Get("Idempotency-Key")
		n, _ := s.idemKeys.LoadOrStore(key, &atomic.Int64{})
		n.(*atomic.Int64).Add(1)
		if key != mcp.CallFromContext(r.Context()).IdempotencyKey() {
			http.Error(w, "key mismatch", 500)
			return
		}
		jsonOut(w, map[string]any{"deleted": r.PathValue("id")})
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "mrtr", Version: "1.0.0"})
	empty := json.RawMessage(`{"type":"object"}`)
	idArg := json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`)
	srv.AddTool(mcp.Tool{Name: "ask_name", InputSchema: empty}, "GET /ask", mux)
	srv.AddTool(mcp.Tool{Name: "sample", InputSchema: empty}, "GET /sample", mux)
	srv.AddTool(mcp.Tool{Name: "degrade", InputSchema: empty}, "GET /degrade", mux)
	srv.AddTool(mcp.Tool{Name: "login", InputSchema: empty}, "GET /login", mux)
	srv.AddTool(mcp.Tool{Name: "dupkeys", InputSchema: empty}, "GET /dupkeys", mux)
	destructive := mcp.Annotations{Destructive: true}
	srv.AddTool(mcp.Tool{Name: "delete_item", Title: "Delete an item", InputSchema: idArg, Annotations: destructive}, "DELETE /items/{id}", mux)
	srv.AddTool(mcp.Tool{Name: "delete_unconfirmed", InputSchema: idArg, Annotations: destructive}, "DELETE /items/{id}", mux, mcp.WithoutConfirmation())
	srv.AddTool(mcp.Tool{Name: "delete_prepared", InputSchema: idArg, Annotations: destructive}, "DELETE /items/{id}", mux,
		mcp.ConfirmWith(func(ctx context.Context, call *mcp.Call) (string, error) {
			var a struct{ ID string }
			json.Unmarshal(call.Arguments(), &a)
			if a.ID == "gone" {
				return "", fmt.Errorf("item %s does not exist", a.ID)
			}
			if a.ID == "long" {
				return "Delete " + strings.Repeat("x", 600) + "?", nil
			}
			// The stored title is attacker-influenced data.
			return "Delete " + mcp.Quote("Quarterly\u202e report\nclick accept") + " (" + mcp.Quote(a.ID) + ")?", nil
		}))
	var e26 []era2026.Option
	if cfg.sealer != nil {
		e26 = append(e26, era2026.WithSealer(cfg.sealer))
	}
	opts := append([]mcp.HandlerOption{mcp.WithLogger(slog.New(slog.NewTextHandler(s.log, nil)))}, cfg.handler...)
	if cfg.guard != nil {
		opts = append(opts, mcp.WithReplayGuard(cfg.guard))
	}
	ts := httptest.NewServer(mcp.NewHandler(srv, []mcp.Era{era2026.New(e26...), era2025.New()}, opts...))
	t.Cleanup(ts.Close)
	s.url = ts.URL
	return s
}

const formCaps = `{"elicitation":{}}`

func TestMRTR_HandlerRoundTrip(t *testing.T) {
	t.Parallel()
	s := newMRTRServer(t, mrtrConfig{})
	in := asInterim(t, rt{name: "ask_name", caps: formCaps}.send(t, s.url))
	if string(in.InputRequests["name"]) != `{"method":"elicitation/create","params":{"mode":"form","message":"Your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}` {
		t.Errorf("input request %s", in.InputRequests["name"])
	}
	if in.RequestState == "" || strings.Contains(in.RequestState, "step-1") {
		t.Fatalf("state %q", in.RequestState)
	}
	state := quoteJSON(in.RequestState)
	ok := `{"name":{"action":"accept","content":{"name":"Ada"}}}`

	res := asResult(t, rt{id: 2, name: "ask_name", caps: formCaps, state: state, responses: ok}.send(t, s.url))
	if res.ResultType != "complete" || res.IsError || res.Content[0].Text != `{"greeting":"Hello Ada","state":"step-1"}` {
		t.Errorf("round 2: %+v", res)
	}
	// Unknown extra keys are ignored.
	extra := `{"name":{"action":"accept","content":{"name":"Bo"}},"other":{"x":1}}`
	if res := asResult(t, rt{id: 3, name: "ask_name", caps: formCaps, state: state, responses: extra}.send(t, s.url)); !strings.Contains(res.Content[0].Text, "Hello Bo") {
		t.Errorf("extra keys: %+v", res)
	}
	// Missing answers: asked again, not an error.
	for _, responses := range []string{"", `{}`, `{"other":{"action":"accept"}}`} {
		asInterim(t, rt{id: 4, name: "ask_name", caps: formCaps, state: state, responses: responses}.send(t, s.url))
	}
	// inputResponses without a state reach the handler as plain client
	// input, with no state.
	if res := asResult(t, rt{id: 5, name: "ask_name", caps: formCaps, responses: ok}.send(t, s.url)); res.Content[0].Text != `{"greeting":"Hello Ada","state":""}` {
		t.Errorf("stateless answers: %+v", res)
	}
	for _, bad := range []string{`[]`, `{"name":"accept"}`} {
		r := rt{id: 6, name: "ask_name", caps: formCaps, responses: bad}.send(t, s.url)
		if r.status != 200 || r.code() != -32602 || r.msg.Error.Message != "Invalid inputResponses" {
			t.Errorf("stateless %s: %d %s", bad, r.status, r.raw)
		}
	}

	// Malformed inputResponses: -32602 in-band.
	for _, bad := range []string{`[]`, `"x"`, `{"name":"accept"}`, `{"name":{"action":"maybe"}}`, `{"name":{}}`,
		`{"name":{"action":"accept","content":[1]}}`, `{"name":{"action":1}}`} {
		r := rt{id: 6, name: "ask_name", caps: formCaps, state: state, responses: bad}.send(t, s.url)
		if r.status != 200 || r.code() != -32602 || r.msg.Error.Message != "Invalid inputResponses" {
			t.Errorf("%s: %d %s", bad, r.status, r.raw)
		}
	}
}

func TestMRTR_StateRefused(t *testing.T) {
	t.Parallel()
	s := newMRTRServer(t, mrtrConfig{})
	in := asInterim(t, rt{name: "ask_name", caps: formCaps}.send(t, s.url))
	ok := `{"name":{"action":"accept","content":{"name":"Ada"}}}`
	flipped := []byte(in.RequestState)
	flipped[len(flipped)/2] ^= 1
	if flipped[len(flipped)/2] == '-'^1 || flipped[len(flipped)/2] == '_'^1 {
		flipped[len(flipped)/2] = 'A'
	}
	cases := map[string]rt{
		"tampered suffix":      {name: "ask_name", state: quoteJSON(in.RequestState + "-TAMPERED")},
		"flipped character":    {name: "ask_name", state: quoteJSON(string(flipped))},
		"another tool":         {name: "sample", state: quoteJSON(in.RequestState)},
		"other arguments":      {name: "ask_name", args: `{"x":1}`, state: quoteJSON(in.RequestState)},
		"not a string":         {name: "ask_name", state: `{"s":1}`},
		"number":               {name: "ask_name", state: `12`},
		"null":                 {name: "ask_name", state: `null`},
		"empty":                {name: "ask_name", state: `""`},
		"oversize":             {name: "ask_name", state: quoteJSON(strings.Repeat("A", mrtr.MaxInboundBytes+1))},
		"on tools/list":        {method: "tools/list", state: quoteJSON(in.RequestState)},
		"on server/discover":   {method: "server/discover", state: quoteJSON(in.RequestState)},
		"garbage base64":       {name: "ask_name", state: `"!!!"`},
		"padded base64":        {name: "ask_name", state: quoteJSON(in.RequestState + "=")},
		"another era's server": {name: "ask_name", state: quoteJSON(asInterim(t, rt{name: "ask_name", caps: formCaps}.send(t, newMRTRServer(t, mrtrConfig{}).url)).RequestState)},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			c.caps, c.responses, c.id = formCaps, ok, 9
			checkInvalidState(t, c.send(t, s.url))
		})
	}
	if logs := s.log.String(); !strings.Contains(logs, "requestState refused") || strings.Contains(logs, in.RequestState) {
		t.Errorf("refusals not logged, or the state logged: %s", logs)
	}
}

// TestMRTR_LegacyIgnoresState: 2025 requests never honour requestState or
// inputResponses, and a tool that needs input says 2026-07-28 is needed.
func TestMRTR_LegacyIgnoresState(t *testing.T) {
	t.Parallel()
	s := newMRTRServer(t, mrtrConfig{})
	in := asInterim(t, rt{name: "ask_name", caps: formCaps}.send(t, s.url))
	for _, era := range []mcp.Version{mcp.Version20250618, mcp.Version20250326} {
		for _, state := range []string{"", quoteJSON(in.RequestState), `"forged"`} {
			r := rt{era: era, name: "ask_name", state: state, responses: `{"name":{"action":"accept","content":{"name":"Ada"}}}`}.send(t, s.url)
			res := asResult(t, r)
			if !res.IsError || !strings.Contains(res.Content[0].Text, "MCP 2026-07-28") || strings.Contains(string(r.raw), "Ada") {
				t.Errorf("%s state %q: %s", era, state, r.raw)
			}
		}
	}
}

func TestMRTR_Capabilities(t *testing.T) {
	t.Parallel()
	s := newMRTRServer(t, mrtrConfig{})
	missing := func(name, caps, want string) {
		t.Helper()
		r := rt{name: name, caps: caps}.send(t, s.url)
		if r.status != 400 || r.code() != -32021 {
			t.Fatalf("%s with %s: %d %s", name, caps, r.status, r.raw)
		}
		var data struct {
			Required json.RawMessage `json:"requiredCapabilities"`
		}
		json.Unmarshal(r.msg.Error.Data, &data)
		if string(data.Required) != want {
			t.Errorf("%s with %s: requiredCapabilities %s, want %s", name, caps, data.Required, want)
		}
	}
	missing("ask_name", `{}`, `{"elicitation":{"form":{}}}`)
	missing("ask_name", `{"elicitation":{"url":{}}}`, `{"elicitation":{"form":{}}}`)
	missing("sample", `{"elicitation":{}}`, `{"sampling":{}}`)
	missing("login", `{"elicitation":{}}`, `{"elicitation":{"url":{}},"roots":{}}`)
	missing("login", `{"elicitation":{"url":{}}}`, `{"roots":{}}`)

	asInterim(t, rt{name: "ask_name", caps: `{"elicitation":{"form":{},"url":{}}}`}.send(t, s.url))
	in := asInterim(t, rt{name: "login", caps: `{"elicitation":{"url":{}},"roots":{}}`}.send(t, s.url))
	if string(in.InputRequests["login"]) != `{"method":"elicitation/create","params":{"mode":"url","message":"Sign in","url":"https://localhost/login"}}` ||
		string(in.InputRequests["roots"]) != `{"method":"roots/list"}` {
		t.Errorf("requests %s %s", in.InputRequests["login"], in.InputRequests["roots"])
	}
	sampled := asInterim(t, rt{name: "sample", caps: `{"sampling":{}}`}.send(t, s.url))
	if !strings.HasPrefix(string(sampled.InputRequests["s"]), `{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Capital of France?"}}],"maxTokens":20}`) {
		t.Errorf("sampling request %s", sampled.InputRequests["s"])
	}
	answer := `{"s":{"role":"assistant","content":{"type":"text","text":"Paris"},"model":"m"}}`
	if res := asResult(t, rt{id: 2, name: "sample", caps: `{"sampling":{}}`, state: quoteJSON(sampled.RequestState), responses: answer}.send(t, s.url)); !strings.Contains(res.Content[0].Text, "Paris") {
		t.Errorf("sampling answer: %+v", res)
	}
	// A tool that can degrade does so when the capability is absent.
	if res := asResult(t, rt{name: "degrade"}.send(t, s.url)); res.Content[0].Text != `{"answer":"no model available"}` {
		t.Errorf("degrade: %+v", res)
	}
	asInterim(t, rt{name: "degrade", caps: `{"sampling":{}}`}.send(t, s.url))
	// A handler bug (two requests with one key) is an internal isError.
	if res := asResult(t, rt{name: "dupkeys", caps: `{"roots":{}}`}.send(t, s.url)); !res.IsError {
		t.Errorf("duplicate keys: %+v", res)
	}
	// input_required never comes from tools/list.
	r := rt{method: "tools/list", caps: formCaps}.send(t, s.url)
	if strings.Contains(string(r.raw), "input_required") {
		t.Errorf("tools/list: %s", r.raw)
	}
}

func ring(t testing.TB, ids ...string) *mrtr.Ring {
	t.Helper()
	var keys []mrtr.Key
	for _, id := range ids {
		keys = append(keys, mrtr.Key{ID: id, Secret: []byte(strings.Repeat(id, 32))[:32]})
	}
	r, err := mrtr.NewRing(keys...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestMRTR_Expiry(t *testing.T) {
	t.Parallel()
	clk := &fakeClock{t: time.Now()}
	s := newMRTRServer(t, mrtrConfig{sealer: mrtr.NewSealer(ring(t, "k1"), mrtr.WithClock(clk.now))})
	in := asInterim(t, rt{name: "ask_name", caps: formCaps}.send(t, s.url))
	ok := rt{id: 2, name: "ask_name", caps: formCaps, state: quoteJSON(in.RequestState), responses: `{"name":{"action":"accept","content":{"name":"Ada"}}}`}
	clk.advance(mrtr.DefaultTTL + mrtr.DefaultSkew - time.Second)
	asResult(t, ok.send(t, s.url))
	clk.advance(2 * time.Second)
	checkInvalidState(t, ok.send(t, s.url))
}

// confirmRound1 asks to delete id and returns the state.
func confirmRound1(t testing.TB, url, tool, id string) interim {
	t.Helper()
	return asInterim(t, rt{name: tool, args: `{"id":"` + id + `"}`, caps: formCaps}.send(t, url))
}

func confirmRound2(url, tool, id, state, answer string) rt {
	return rt{id: 2, name: tool, args: `{"id":"` + id + `"}`, caps: formCaps, state: quoteJSON(state), responses: `{"confirm":` + answer + `}`}
}

const accept = `{"action":"accept","content":{"confirm":true}}`

// TestConfirm covers the destructive flow in every era, asserting whether
// the route ran, never only the response.
func TestConfirm(t *testing.T) {
	t.Parallel()
	s := newMRTRServer(t, mrtrConfig{})
	ran := func(t *testing.T, want int64) {
		t.Helper()
		if got := s.executed.Swap(0); got != want {
			t.Errorf("route ran %d times, want %d", got, want)
		}
	}
	t.Run("2025 eras", func(t *testing.T) {
		for _, era := range []mcp.Version{mcp.Version20250618, mcp.Version20250326} {
			r := rt{era: era, name: "delete_item", args: `{"id":"a"}`}.send(t, s.url)
			res := asResult(t, r)
			if !res.IsError || !strings.Contains(res.Content[0].Text, "Do not retry") {
				t.Errorf("%s: %s", era, r.raw)
			}
			if era == mcp.Version20250618 && (res.StructuredContent["outcome"] != "confirmation_required" || res.StructuredContent["executed"] != false || res.StructuredContent["retryable"] != false) {
				t.Errorf("%s structuredContent %v", era, res.StructuredContent)
			}
			if era == mcp.Version20250326 && res.StructuredContent != nil {
				t.Errorf("2025-03-26 has no structuredContent: %s", r.raw)
			}
		}
		ran(t, 0)
	})
	t.Run("2026 without elicitation", func(t *testing.T) {
		for _, caps := range []string{`{}`, `{"elicitation":{"url":{}}}`, `{"sampling":{}}`} {
			r := rt{name: "delete_item", args: `{"id":"a"}`, caps: caps}.send(t, s.url)
			if r.status != 400 || r.code() != -32021 ||
				string(r.msg.Error.Data) != `{"reason":"confirmation_required","requiredCapabilities":{"elicitation":{"form":{}}},"retryable":false}` {
				t.Errorf("%s: %d %s", caps, r.status, r.raw)
			}
		}
		ran(t, 0)
	})
	t.Run("round 1", func(t *testing.T) {
		in := confirmRound1(t, s.url, "delete_item", "a")
		want := `{"method":"elicitation/create","params":{"mode":"form","message":"Confirm \"Delete an item\": this changes or deletes data and may not be undoable.","requestedSchema":{"type":"object","properties":{"confirm":{"type":"boolean","title":"Confirm","description":"Check to confirm. Leave unchecked to cancel.","default":false}},"required":["confirm"]}}}`
		if len(in.InputRequests) != 1 || string(in.InputRequests["confirm"]) != want {
			t.Errorf("round 1 requests %s", in.InputRequests)
		}
		ran(t, 0)
	})
	t.Run("accept executes once", func(t *testing.T) {
		in := confirmRound1(t, s.url, "delete_item", "a")
		r := confirmRound2(s.url, "delete_item", "a", in.RequestState, accept).send(t, s.url)
		res := asResult(t, r)
		if res.IsError || res.Content[0].Text != `{"deleted":"a"}` {
			t.Errorf("accepted: %s", r.raw)
		}
		ran(t, 1)
		keys := 0
		s.idemKeys.Range(func(k, v any) bool {
			keys++
			if len(k.(string)) != 22 {
				t.Errorf("Idempotency-Key %q", k)
			}
			return true
		})
		if keys != 1 {
			t.Errorf("%d idempotency keys", keys)
		}
	})
	outcomes := map[string]string{
		`{"action":"decline"}`:                            "confirmation_declined",
		`{"action":"cancel"}`:                             "confirmation_cancelled",
		`{"action":"accept","content":{"confirm":false}}`: "confirmation_declined",
	}
	for answer, outcome := range outcomes {
		t.Run(outcome+" "+answer, func(t *testing.T) {
			in := confirmRound1(t, s.url, "delete_item", "a")
			res := asResult(t, confirmRound2(s.url, "delete_item", "a", in.RequestState, answer).send(t, s.url))
			if !res.IsError || res.StructuredContent["outcome"] != outcome || res.StructuredContent["executed"] != false {
				t.Errorf("%+v", res)
			}
			ran(t, 0)
		})
	}
	for _, bad := range []string{`{"action":"accept","content":{"confirm":"true"}}`, `{"action":"accept","content":{"confirm":1}}`,
		`{"action":"accept"}`, `{"action":"accept","content":{}}`, `"accept"`, `{"action":"yes"}`} {
		t.Run("malformed "+bad, func(t *testing.T) {
			in := confirmRound1(t, s.url, "delete_item", "a")
			r := confirmRound2(s.url, "delete_item", "a", in.RequestState, bad).send(t, s.url)
			if r.status != 200 || r.code() != -32602 || r.msg.Error.Message != "Invalid inputResponses" {
				t.Errorf("%d %s", r.status, r.raw)
			}
			ran(t, 0)
		})
	}
	t.Run("tampered", func(t *testing.T) {
		in := confirmRound1(t, s.url, "delete_item", "a")
		checkInvalidState(t, confirmRound2(s.url, "delete_item", "a", in.RequestState+"-TAMPERED", accept).send(t, s.url))
		ran(t, 0)
	})
	t.Run("different arguments", func(t *testing.T) {
		in := confirmRound1(t, s.url, "delete_item", "a")
		checkInvalidState(t, confirmRound2(s.url, "delete_item", "b", in.RequestState, accept).send(t, s.url))
		ran(t, 0)
	})
	t.Run("another destructive tool", func(t *testing.T) {
		in := confirmRound1(t, s.url, "delete_item", "a")
		checkInvalidState(t, confirmRound2(s.url, "delete_prepared", "a", in.RequestState, accept).send(t, s.url))
		ran(t, 0)
	})
	t.Run("missing state", func(t *testing.T) {
		// A pre-answered confirmation is never executed: it gets a fresh round 1.
		r := rt{name: "delete_item", args: `{"id":"a"}`, caps: formCaps, responses: `{"confirm":` + accept + `}`}.send(t, s.url)
		asInterim(t, r)
		ran(t, 0)
	})
	t.Run("unanswered", func(t *testing.T) {
		in := confirmRound1(t, s.url, "delete_item", "a")
		r := rt{id: 2, name: "delete_item", args: `{"id":"a"}`, caps: formCaps, state: quoteJSON(in.RequestState)}.send(t, s.url)
		if again := asInterim(t, r); again.RequestState == in.RequestState {
			t.Error("the new round reuses the old state")
		}
		ran(t, 0)
	})
	t.Run("round 2 without the capability", func(t *testing.T) {
		in := confirmRound1(t, s.url, "delete_item", "a")
		c := confirmRound2(s.url, "delete_item", "a", in.RequestState, accept)
		c.caps = `{}`
		if r := c.send(t, s.url); r.status != 400 || r.code() != -32021 {
			t.Errorf("%d %s", r.status, r.raw)
		}
		ran(t, 0)
	})
	t.Run("without confirmation", func(t *testing.T) {
		for _, era := range eras {
			if res := asResult(t, rt{era: era, name: "delete_unconfirmed", args: `{"id":"a"}`}.send(t, s.url)); res.IsError {
				t.Errorf("%s: %+v", era, res)
			}
		}
		ran(t, int64(len(eras)))
	})
	t.Run("prepared message", func(t *testing.T) {
		in := confirmRound1(t, s.url, "delete_prepared", "x\u2066y")
		var q struct {
			Params struct {
				Message string `json:"message"`
			} `json:"params"`
		}
		json.Unmarshal(in.InputRequests["confirm"], &q)
		m := q.Params.Message
		// What hides or reorders text, or breaks a line, is shown escaped in
		// the values.
		if m != `Delete "Quarterly\u{202E} report\u{000A}click accept" ("x\u{2066}y")?` {
			t.Errorf("message %q", m)
		}
		// A question longer than the cap is not cut (that could hide what
		// accept applies): nothing is asked, nothing runs.
		res := asResult(t, rt{name: "delete_prepared", args: `{"id":"long"}`, caps: formCaps}.send(t, s.url))
		if !res.IsError || res.StructuredContent["outcome"] != "confirmation_unavailable" {
			t.Errorf("long question: %+v", res)
		}
		if !strings.Contains(s.log.String(), "longer than the cap") {
			t.Errorf("log: %s", s.log)
		}
		res = asResult(t, rt{name: "delete_prepared", args: `{"id":"gone"}`, caps: formCaps}.send(t, s.url))
		if !res.IsError || res.Content[0].Text != "Not executed: item gone does not exist" {
			t.Errorf("preflight error: %+v", res)
		}
		ran(t, 0)
	})
}

// TestConfirm_Replicas: three replicas share a key ring and a guard behind
// a round-robin client. Round 1 lands on one, round 2 on another, and the
// route runs exactly once; replays are refused by the shared guard and, if
// they got through, would carry the same idempotency key.
func TestConfirm_Replicas(t *testing.T) {
	t.Parallel()
	keys := ring(t, "k1")
	guard := mcp.NewMemoryGuardForTest(1000) // stands in for storage every replica shares
	a := newMRTRServer(t, mrtrConfig{sealer: mrtr.NewSealer(keys), guard: guard})
	b := newMRTRServer(t, mrtrConfig{sealer: mrtr.NewSealer(keys), guard: guard, shared: a})
	c := newMRTRServer(t, mrtrConfig{sealer: mrtr.NewSealer(keys), guard: guard, shared: a})
	replicas := []string{a.url, b.url, c.url}
	next := 0
	rr := func() string { next++; return replicas[(next-1)%3] }

	in := confirmRound1(t, rr(), "delete_item", "a")
	round2 := confirmRound2("", "delete_item", "a", in.RequestState, accept)
	if res := asResult(t, round2.send(t, rr())); res.IsError {
		t.Fatalf("round 2 on another replica: %+v", res)
	}
	round2.id = 3
	res := asResult(t, round2.send(t, rr()))
	if !res.IsError || res.StructuredContent["outcome"] != "confirmation_already_used" {
		t.Errorf("replay on the third replica: %+v", res)
	}
	if n := a.executed.Load(); n != 1 {
		t.Errorf("route ran %d times", n)
	}

	// With only the default, per-process guards, no replica can know
	// whether another ran a confirmation: one answered on another replica
	// than the one that asked is asked again, and nothing runs (design record 019).
	a2 := newMRTRServer(t, mrtrConfig{sealer: mrtr.NewSealer(keys)})
	b2 := newMRTRServer(t, mrtrConfig{sealer: mrtr.NewSealer(keys), shared: a2})
	in = confirmRound1(t, a2.url, "delete_item", "z")
	round2 = confirmRound2("", "delete_item", "z", in.RequestState, accept)
	again := asInterim(t, round2.send(t, b2.url))
	if again.RequestState == "" || again.RequestState == in.RequestState {
		t.Errorf("asked again with state %q", again.RequestState)
	}
	if n := a2.executed.Load(); n != 0 {
		t.Errorf("route ran %d times on a replica that did not ask", n)
	}
	if !strings.Contains(b2.log.String(), "asked again") {
		t.Errorf("log: %s", b2.log)
	}
	// Answered where it was asked, it runs once.
	round2.id = 4
	if res := asResult(t, round2.send(t, a2.url)); res.IsError {
		t.Errorf("on the replica that asked: %+v", res)
	}
	if n := a2.executed.Load(); n != 1 {
		t.Errorf("route ran %d times", n)
	}
}

// TestMRTR_Rotation: every phase of a key rotation keeps in-flight retries
// working, across replicas that are mid-rollout; a retired key's states are
// refused.
func TestMRTR_Rotation(t *testing.T) {
	t.Parallel()
	phase := map[string]*mrtrServer{
		"old":     newMRTRServer(t, mrtrConfig{sealer: mrtr.NewSealer(ring(t, "old"))}),
		"old,new": newMRTRServer(t, mrtrConfig{sealer: mrtr.NewSealer(ring(t, "old", "new"))}),
		"new,old": newMRTRServer(t, mrtrConfig{sealer: mrtr.NewSealer(ring(t, "new", "old"))}),
		"new":     newMRTRServer(t, mrtrConfig{sealer: mrtr.NewSealer(ring(t, "new"))}),
	}
	works := [][2]string{
		{"old", "old,new"}, {"old,new", "old"}, // phase 1 rolling out
		{"old,new", "new,old"}, {"new,old", "old,new"}, // phase 2 rolling out
		{"new,old", "new"}, {"new", "new,old"}, // phase 3 rolling out
	}
	ok := `{"name":{"action":"accept","content":{"name":"Ada"}}}`
	for _, w := range works {
		in := asInterim(t, rt{name: "ask_name", caps: formCaps}.send(t, phase[w[0]].url))
		r := rt{id: 2, name: "ask_name", caps: formCaps, state: quoteJSON(in.RequestState), responses: ok}.send(t, phase[w[1]].url)
		if res := asResult(t, r); res.IsError {
			t.Errorf("minted on [%s], retried on [%s]: %s", w[0], w[1], r.raw)
		}
	}
	in := asInterim(t, rt{name: "ask_name", caps: formCaps}.send(t, phase["old"].url))
	checkInvalidState(t, rt{id: 2, name: "ask_name", caps: formCaps, state: quoteJSON(in.RequestState), responses: ok}.send(t, phase["new"].url))
}
