package mcp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/content"
	"github.com/mcpdual/mcpdual/mcp/observe"
	"github.com/mcpdual/mcpdual/mcp/stdio"
	"github.com/mcpdual/mcpdual/mcp/task"
	"github.com/mcpdual/mcpdual/mrtr"
)

// The house rule: secrets never reach logs or error messages. This file
// plants a distinct marker everywhere a secret can enter the endpoint —
// the bearer token, a cookie, a tool's and a prompt's arguments, a
// route's failing answer and its panic, the key ring's secret, what
// requestState, a 2025 session id and a task id seal, header values that
// mirror arguments, malformed and oversized bodies, the answers a client
// gives to the endpoint's questions — and then looks for every marker, in
// every spelling a leak could take (secForms), in everything the endpoint
// wrote: its log at every level (a text and a JSON handler, with the
// access log on it), every field of every observer event, and the status,
// headers and body of every response. A marker may appear in a response
// only where the probe says why the protocol sends it back to the client
// that sent it. The sealed values the endpoint hands out (requestState,
// session ids, task ids) may appear in responses, which carry them to the
// client they were issued to, but never in a log or an observer event:
// each is a bearer of what it seals (a session, a task, a confirmation's
// round) for its lifetime.

// The markers: letters and digits only, so that each is one token68, one
// header value and one JSON string as it is, and long enough that its
// base64 spellings are found wherever it starts.
const (
	mkBearer        = "mkBearerTokenQz7Wv3Lp9Tx"
	mkBearerBad     = "mkBearerBadSigQz7Wv3Lp9Tx"
	mkBearerExpired = "mkBearerExpiredQz7Wv3Lp9Tx"
	mkBearerAud     = "mkBearerOtherAudQz7Wv3Lp9Tx"
	mkBearerDown    = "mkBearerVerifierDownQz7Wv3Lp9Tx"
	mkBearerPanic   = "mkBearerVerifierPanicQz7Wv3Lp9Tx"
	mkBearerBroken  = "mkBearerMalformedQz7Wv3Lp9Tx"
	mkCookie        = "mkCookieSessionQz7Wv3Lp9Tx"
	mkPassword      = "mkPasswordArgQz7Wv3Lp9Tx"
	mkEchoed        = "mkEchoedArgQz7Wv3Lp9Tx"
	mkInvalidArg    = "mkInvalidArgQz7Wv3Lp9Tx"
	mkRouteBody     = "mkRouteBodyQz7Wv3Lp9Tx"
	mkRouteHeader   = "mkRouteHeaderQz7Wv3Lp9Tx"
	mkPanic         = "mkPanicValueQz7Wv3Lp9Tx"
	mkFuncError     = "mkFuncErrorQz7Wv3Lp9Tx"
	mkPromptArg     = "mkPromptArgQz7Wv3Lp9Tx"
	mkPromptPin     = "mkPromptPinQz7Wv3Lp9Tx"
	mkCompletion    = "mkCompletionQz7Wv3Lp9Tx"
	mkState         = "mkRequestStatePlainQz7Wv3Lp9Tx"
	mkSessionCaps   = "mkSessionCapsPlainQz7Wv3Lp9Tx"
	mkJobID         = "mkJobIDPlainQz7Wv3Lp9Tx"
	mkAnswer        = "mkElicitAnswerQz7Wv3Lp9Tx"
	mkFormRefused   = "mkFormRefusedQz7Wv3Lp9Tx"
	mkSampled       = "mkSampledAnswerQz7Wv3Lp9Tx"
	mkForged        = "mkForgedSealedQz7Wv3Lp9Tx"
	mkHeaderName    = "mkHeaderNameQz7Wv3Lp9Tx"
	mkHeaderMethod  = "mkHeaderMethodQz7Wv3Lp9Tx"
	mkHeaderVersion = "mkHeaderVersionQz7Wv3Lp9Tx"
	mkParamHeader   = "mkParamHeaderQz7Wv3Lp9Tx"
	mkParamArg      = "mkParamArgQz7Wv3Lp9Tx"
	mkBody          = "mkMalformedBodyQz7Wv3Lp9Tx"
	mkOversized     = "mkOversizedBodyQz7Wv3Lp9Tx"
	mkOutput        = "mkToolOutputQz7Wv3Lp9Tx"
	// mkNumeric is a number: an argument or an output value a schema's
	// bound refuses.
	mkNumeric = "7331975318642"
	// mkKeyRing is the ring's secret itself: 32 bytes, more than 16 of
	// them distinct, as mrtr asks of a secret.
	mkKeyRing = "mkKeyRingSecretQz7Wv3Lp9TxAbCdEf"
)

var secMarkers = []string{mkBearer, mkBearerBad, mkBearerExpired, mkBearerAud, mkBearerDown, mkBearerPanic, mkBearerBroken,
	mkCookie, mkPassword, mkEchoed, mkInvalidArg, mkRouteBody, mkRouteHeader, mkPanic, mkFuncError, mkPromptArg, mkPromptPin,
	mkCompletion, mkState, mkSessionCaps, mkJobID, mkAnswer, mkFormRefused, mkSampled, mkForged, mkHeaderName, mkHeaderMethod, mkHeaderVersion,
	mkParamHeader, mkParamArg, mkBody, mkOversized, mkOutput, mkNumeric, mkKeyRing}

// secForms are the spellings of m a leak could take: as it is, in hex,
// and in base64 (standard and URL alphabets) starting at any of the three
// offsets a byte can have inside a group. Of a base64 spelling only the
// characters the marker's bytes alone decide are kept: the first and last
// group also hold bytes of whatever surrounds it.
func secForms(m string) []string {
	forms := []string{m, hex.EncodeToString([]byte(m))}
	if m == mkNumeric {
		// A number is printed grouped, or with its first digit apart
		// (7.331975318642×10¹²).
		forms = append(forms, "7,331,975,318,642", m[1:])
	}
	for pad := range 3 {
		b := append(bytes.Repeat([]byte{0}, pad), m...)
		first := (pad + 2) / 3     // the first group wholly of the marker
		last := (pad + len(m)) / 3 // one past the last such group
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
			forms = append(forms, enc.EncodeToString(b)[4*first:4*last])
		}
	}
	return forms
}

// TestSecForms_FindEveryEncoding holds the finder to what it is for: a
// marker base64-encoded inside other bytes, at every offset, is found.
func TestSecForms_FindEveryEncoding(t *testing.T) {
	t.Parallel()
	for pad := range 5 {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			text := enc.EncodeToString([]byte(strings.Repeat("\x01", pad) + `{"s":"` + mkState + `"}` + "\xff"))
			if secFind(text, mkState) == "" {
				t.Errorf("offset %d: %s not found in %s", pad, mkState, text)
			}
		}
	}
	if secFind(hex.EncodeToString([]byte("x"+mkState)), mkState) == "" || secFind("nothing here", mkState) != "" {
		t.Error("hex, or a text without the marker")
	}
}

// secFind returns the spelling of m that text holds, "" when none.
func secFind(text, m string) string {
	for _, f := range secForms(m) {
		if strings.Contains(text, f) {
			return f
		}
	}
	return ""
}

// secObserver records every event the endpoint gives its observer, each
// field as text, when the event begins and when it is done: what any
// observer could read and ship (a span, a metric label, a log line).
type secObserver struct {
	mu      sync.Mutex
	records []secRecord
}

type secRecord struct {
	kind   string // "Event" or "RouteEvent"
	fields map[string]string
}

func (o *secObserver) Request(ctx context.Context, ev *observe.Event) (context.Context, func()) {
	o.add("Event", ev)
	return ctx, func() { o.add("Event", ev) }
}

func (o *secObserver) Route(_, inner context.Context, ev *observe.RouteEvent) (context.Context, func()) {
	o.add("RouteEvent", ev)
	return inner, func() { o.add("RouteEvent", ev) }
}

// add copies every field of the struct v points to, by reflection, so
// that a field added later is looked at too; bytes as the text they hold.
func (o *secObserver) add(kind string, v any) {
	rv := reflect.ValueOf(v).Elem()
	fields := map[string]string{}
	for i := range rv.NumField() {
		f := rv.Field(i)
		if f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.Uint8 {
			fields[rv.Type().Field(i).Name] = string(f.Bytes())
			continue
		}
		fields[rv.Type().Field(i).Name] = fmt.Sprint(f.Interface())
	}
	o.mu.Lock()
	o.records = append(o.records, secRecord{kind, fields})
	o.mu.Unlock()
}

func (o *secObserver) snapshot() []secRecord {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]secRecord(nil), o.records...)
}

// secReply is one response as the client got it.
type secReply struct {
	label  string
	status int
	header http.Header
	body   []byte
}

// secEnv is one endpoint with everything it writes captured.
type secEnv struct {
	t       *testing.T
	url     string
	h       *mcp.Handler
	log     *syncBuffer
	obs     *secObserver
	mu      sync.Mutex
	replies []secReply
	sealed  []string            // values the endpoint sealed and handed out
	got     map[string][]string // what the tools and routes were given, by name
}

func (e *secEnv) saw(what, v string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.got[what] = append(e.got[what], v)
}

func (e *secEnv) gotten(what string) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.got[what]...)
}

func (e *secEnv) keepSealed(v string) {
	if v == "" {
		e.t.Fatal("no sealed value to keep")
	}
	e.mu.Lock()
	e.sealed = append(e.sealed, v)
	e.mu.Unlock()
}

// secCaps are the 2026-07-28 capabilities a call declares by default.
const secCaps = `{"elicitation":{"form":{}},"sampling":{}}`

// secPrincipal is who mkBearer is.
func secPrincipal() *auth.Principal {
	return &auth.Principal{Issuer: "https://as.example.com", Subject: "alice", ClientID: "client-1",
		Audience: []string{resourceURI}, Scopes: []string{"mcp:read"}, ExpiresAt: time.Now().Add(time.Hour)}
}

// secVerifier accepts mkBearer and refuses the other bearer markers each
// its own way; its errors and its panic quote the token, as a careless
// verifier's might, and its panic what it read of the token too (which
// cutting the token out does not reach).
func secVerifier(_ context.Context, token string, _ *http.Request) (*auth.Principal, error) {
	p := secPrincipal()
	switch token {
	case mkBearer:
		return p, nil
	case mkBearerExpired:
		p.ExpiresAt = time.Now().Add(-time.Hour)
		return p, nil
	case mkBearerAud:
		p.Audience = []string{"https://other.example.com/mcp"}
		return p, nil
	case mkBearerDown:
		return nil, errors.New("introspection of " + token + " failed: upstream answered 502")
	case mkBearerPanic:
		panic("verifier bug on " + token + " with claims " + mkPanic)
	}
	return nil, fmt.Errorf("%w: bad signature on %s", auth.ErrInvalidToken, token)
}

// secBodyBytes is the endpoint's body limit in these tests.
const secBodyBytes = 64 << 10

// secAnswerBytes bounds a 2025 client's answer in these tests.
const secAnswerBytes = 4 << 10

func newSecEnv(t *testing.T) *secEnv {
	t.Helper()
	e := &secEnv{t: t, log: &syncBuffer{}, obs: &secObserver{}, got: map[string][]string{}}
	mux := http.NewServeMux()
	jsonBody := func(w http.ResponseWriter, status int, body string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
	mux.HandleFunc("POST /login", func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Password string `json:"password"`
		}
		json.NewDecoder(r.Body).Decode(&in)
		e.saw("login route", in.Password)
		jsonBody(w, 200, `{"ok":true}`)
	})
	mux.HandleFunc("POST /echo", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		jsonBody(w, 200, string(b))
	})
	mux.HandleFunc("GET /fails", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Debug", "db user=app "+mkRouteHeader)
		w.Header().Set("Set-Cookie", "sid="+mkRouteHeader)
		jsonBody(w, 500, `{"error":"connect failed: password=`+mkRouteBody+`"}`)
	})
	mux.HandleFunc("GET /panics", func(w http.ResponseWriter, r *http.Request) { panic("lost the connection of " + mkPanic) })
	mux.HandleFunc("GET /leaky", func(w http.ResponseWriter, r *http.Request) {
		jsonBody(w, 200, `{"apiKey":"`+mkOutput+`","pin":`+mkNumeric+`}`)
	})
	mux.HandleFunc("POST /jobs", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "/jobs/"+mkJobID)
		jsonBody(w, http.StatusAccepted, `{"id":"`+mkJobID+`","status":"working"}`)
	})
	mux.HandleFunc("GET /jobs/{id}", func(w http.ResponseWriter, r *http.Request) {
		e.saw("job", r.PathValue("id"))
		if r.PathValue("id") != mkJobID {
			http.NotFound(w, r)
			return
		}
		jsonBody(w, 200, `{"status":"completed","result":{"done":true}}`)
	})
	mux.HandleFunc("POST /vault", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		e.saw("vault", string(b))
		jsonBody(w, 200, `{"stored":true}`)
	})
	mux.HandleFunc("GET /docs/{name}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Debug", mkRouteHeader)
		jsonBody(w, 503, `{"error":"storage key `+mkRouteBody+` refused"}`)
	})

	srv := mcp.NewServer(mcp.Implementation{Name: "secrets", Version: "1"})
	obj := func(s string) json.RawMessage { return json.RawMessage(s) }
	login := obj(`{"type":"object","properties":{"user":{"type":"string"},"password":{"type":"string"}}}`)
	srv.AddTool(mcp.Tool{Name: "login", Description: "Logs in.", InputSchema: login}, "POST /login", mux)
	srv.AddTool(mcp.Tool{Name: "echo", Description: "Answers its arguments.", InputSchema: login}, "POST /echo", mux)
	srv.AddTool(mcp.Tool{Name: "strict", Description: "Takes a numeric password.",
		InputSchema: obj(`{"type":"object","properties":{"password":{"type":"string","pattern":"^[0-9]+$","maxLength":8},"pin":{"type":"integer","minimum":0,"maximum":9999}}}`)}, "POST /login", mux)
	empty := obj(`{"type":"object"}`)
	srv.AddTool(mcp.Tool{Name: "fails", Description: "Fails.", InputSchema: empty}, "GET /fails", mux)
	srv.AddTool(mcp.Tool{Name: "panics", Description: "Panics.", InputSchema: empty}, "GET /panics", mux)
	srv.AddTool(mcp.Tool{Name: "leaky", Description: "Answers a key its output schema refuses.", InputSchema: empty,
		OutputSchema: obj(`{"type":"object","properties":{"apiKey":{"type":"string","pattern":"^sk-"},"pin":{"type":"integer","maximum":9999}}}`)},
		"GET /leaky", mux)
	srv.AddTool(mcp.Tool{Name: "vault", Description: "Stores a secret.",
		InputSchema: obj(`{"type":"object","properties":{"secret":{"type":"string","x-mcp-header":"Secret"}}}`)}, "POST /vault", mux)
	srv.AddTool(mcp.Tool{Name: "job", Description: "Starts a job.", InputSchema: empty}, "POST /jobs", mux,
		mcp.WithTask(task.Config{Status: "GET /jobs/{id}", StatusTool: "job_status"}))
	type loginIn struct {
		User     string `json:"user"`
		Password string `json:"password"`
	}
	mcp.AddToolFunc(srv, mcp.Tool{Name: "login_func", Description: "Logs in."},
		func(ctx context.Context, in loginIn) (map[string]any, error) {
			e.saw("login func", in.Password)
			return map[string]any{"ok": true}, nil
		})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "login_fails", Description: "Fails to log in."},
		func(ctx context.Context, in loginIn) (map[string]any, error) {
			return nil, errors.New("the directory refused the bind of " + mkFuncError)
		})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "panics_func", Description: "Panics."},
		func(ctx context.Context, in loginIn) (map[string]any, error) {
			panic(errors.New("cannot log in with " + in.Password + " " + mkPanic))
		})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "wipe", Description: "Wipes an account.", Annotations: mcp.Annotations{Destructive: true}},
		func(ctx context.Context, in loginIn) (map[string]any, error) {
			e.saw("wipe", in.Password)
			return map[string]any{"wiped": true}, nil
		})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "ask", Description: "Asks for an answer."},
		func(ctx context.Context, in struct{}) (map[string]any, error) {
			c := mcp.CallFromContext(ctx)
			if a, ok := c.Elicitation("answer"); ok {
				e.saw("elicited", string(a.Content))
				e.saw("state", string(c.State()))
				return map[string]any{"answered": true}, nil
			}
			c.RequireInput([]byte(mkState), mcp.ElicitForm("answer", "Your favourite colour?",
				obj(`{"type":"object","properties":{"colour":{"type":"string"},"pin":{"type":"string","pattern":"^[0-9]{4}$"}}}`)))
			return nil, nil
		})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "summarize", Description: "Asks the client's model."},
		func(ctx context.Context, in struct{}) (map[string]any, error) {
			c := mcp.CallFromContext(ctx)
			if v, ok := c.InputResponse("llm"); ok {
				e.saw("sampled", string(v))
				return map[string]any{"summarized": true}, nil
			}
			c.RequireInput([]byte(mkState), mcp.Sample("llm", mcp.SamplingRequest{MaxTokens: 10,
				Messages: []mcp.SamplingMessage{{Role: content.User, Content: content.Text("Summarize.")}}}))
			return nil, nil
		})
	type greetArgs struct {
		Secret string `json:"secret"`
		Pin    *int   `json:"pin,omitempty"`
	}
	mcp.AddPromptFunc(srv, mcp.Prompt{Name: "greet", Description: "Greets."},
		func(ctx context.Context, a greetArgs) (*mcp.PromptResult, error) {
			e.saw("prompt", a.Secret)
			return &mcp.PromptResult{Messages: []mcp.PromptMessage{{Role: content.User, Content: content.Text("Hello.")}}}, nil
		},
		mcp.WithCompletion("secret", func(ctx context.Context, value string, args map[string]string) ([]string, error) {
			e.saw("completion", value)
			return []string{"alpha", "beta"}, nil
		}))
	srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "vault://docs/{name}", Name: "docs"}, "GET /docs/{name}", mux)
	mcp.AddPromptFunc(srv, mcp.Prompt{Name: "greet_panics", Description: "Panics."},
		func(ctx context.Context, a greetArgs) (*mcp.PromptResult, error) {
			panic("cannot greet with " + a.Secret + " " + mkPanic)
		},
		// A completion function's panic reaches the recover of dispatch
		// itself, which no other probe's does.
		mcp.WithCompletion("secret", func(ctx context.Context, value string, args map[string]string) ([]string, error) {
			panic("cannot complete " + value + " " + mkPanic)
		}))
	type keyVars struct {
		Name string `json:"name"`
	}
	mcp.AddTemplateFunc(srv, mcp.ResourceTemplate{URITemplate: "vault://keys/{name}", Name: "keys"},
		func(ctx context.Context, v keyVars) (string, error) { panic("no key " + v.Name + " " + mkPanic) })
	srv.AddTool(mcp.Tool{Name: "job_panics", Description: "Starts a job its reader fails on.", InputSchema: empty}, "POST /jobs", mux,
		mcp.WithTask(task.Config{Status: "GET /jobs/{id}", StatusTool: "job_panics_status",
			Accepted: func(h http.Header, body []byte) (map[string]string, bool) {
				panic("cannot read " + string(body) + " " + mkPanic)
			}}))

	ring, err := mrtr.NewRing(mrtr.Key{ID: "k1", Secret: []byte(mkKeyRing)})
	if err != nil {
		t.Fatal(err)
	}
	sealer := mrtr.NewSealer(ring)
	// Every level, in both of slog's handlers: the JSON one writes []byte
	// values in base64, which secForms spells too.
	logger := slog.New(slog.NewMultiHandler(
		slog.NewTextHandler(e.log, &slog.HandlerOptions{Level: slog.LevelDebug}),
		slog.NewJSONHandler(e.log, &slog.HandlerOptions{Level: slog.LevelDebug})))
	e.h = mcp.NewHandler(srv, []mcp.Era{era2026.New(era2026.WithSealer(sealer)), era2025.New(era2025.WithSessions(sealer, 0))},
		mcp.WithLogger(logger),
		mcp.WithObserver(observe.Join(e.obs, observe.AccessLog(logger))),
		mcp.WithAuth(auth.New(auth.Config{Resource: resourceURI, Verifier: auth.VerifierFunc(secVerifier)})),
		mcp.WithLegacyInput(mcp.LegacyInput{AnswerBytes: secAnswerBytes}),
		mcp.WithLimits(mcp.Limits{BodyBytes: secBodyBytes}))
	ts := httptest.NewServer(e.h)
	t.Cleanup(ts.Close)
	e.url = ts.URL
	return e
}

// secCall is one HTTP request to the endpoint.
type secCall struct {
	label   string
	era     mcp.Version
	method  string            // the JSON-RPC method
	params  string            // members of params, without braces; 2026-07-28 gets _meta
	caps    string            // 2026-07-28 client capabilities (default secCaps)
	name    string            // Mcp-Name on 2026-07-28
	header  map[string]string // overrides; "" deletes
	body    string            // sent as it is when set
	query   string            // the URL's query
	chunked bool              // send without a Content-Length
}

func (c secCall) payload() string {
	if c.body != "" {
		return c.body
	}
	members := c.params
	if c.era == mcp.Version20260728 {
		caps := c.caps
		if caps == "" {
			caps = secCaps
		}
		meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps +
			`,"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}`
		if members != "" {
			members = meta + "," + members
		} else {
			members = meta
		}
	}
	return `{"jsonrpc":"2.0","id":1,"method":` + quoteJSON(c.method) + `,"params":{` + members + `}}`
}

// do sends c with what a client of its revision sends, plus the bearer
// token and a cookie, and keeps the response.
func (e *secEnv) do(c secCall) secReply {
	e.t.Helper()
	var body io.Reader = strings.NewReader(c.payload())
	if c.chunked {
		body = io.MultiReader(body) // no length known: sent chunked
	}
	req, err := http.NewRequest(http.MethodPost, e.url+c.query, body)
	if err != nil {
		e.t.Fatal(err)
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("Authorization", "Bearer "+mkBearer)
	h.Set("Cookie", "sid="+mkCookie)
	if c.era != "" {
		h.Set("MCP-Protocol-Version", string(c.era))
	}
	if c.era == mcp.Version20260728 {
		h.Set("Mcp-Method", c.method)
		if c.name != "" {
			h.Set("Mcp-Name", c.name)
		}
	}
	for k, v := range c.header {
		if v == "" {
			h.Del(k)
		} else {
			h.Set(k, v)
		}
	}
	return e.send(c.label, req)
}

func (e *secEnv) send(label string, req *http.Request) secReply {
	e.t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r := secReply{label: label, status: resp.StatusCode, header: resp.Header, body: b}
	e.mu.Lock()
	e.replies = append(e.replies, r)
	e.mu.Unlock()
	return r
}

// call sends a tools/call of tool with args (a JSON object).
func (e *secEnv) call(v mcp.Version, tool, args string) secReply {
	e.t.Helper()
	return e.do(secCall{label: "tools/call " + tool, era: v, method: "tools/call", name: tool,
		params: `"name":` + quoteJSON(tool) + `,"arguments":` + args})
}

// secMessage is a JSON-RPC answer, decoded.
type secMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result struct {
		ResultType        string                     `json:"resultType"`
		IsError           bool                       `json:"isError"`
		Content           []map[string]any           `json:"content"`
		StructuredContent map[string]any             `json:"structuredContent"`
		RequestState      string                     `json:"requestState"`
		InputRequests     map[string]json.RawMessage `json:"inputRequests"`
		TaskID            string                     `json:"taskId"`
		Status            string                     `json:"status"`
		Messages          []any                      `json:"messages"`
		Completion        struct {
			Values []string `json:"values"`
		} `json:"completion"`
	} `json:"result"`
	Error *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

func (r secReply) msg(t *testing.T) secMessage {
	t.Helper()
	var m secMessage
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("%s: not one JSON-RPC message: %d %q", r.label, r.status, r.body)
	}
	return m
}

// code is the JSON-RPC error code of r (0 for a result).
func (r secReply) code(t *testing.T) int {
	t.Helper()
	if m := r.msg(t); m.Error != nil {
		return m.Error.Code
	}
	return 0
}

// wantToolResult asserts r is a tool result, an error one when isError.
func (r secReply) wantToolResult(t *testing.T, isError bool) secMessage {
	t.Helper()
	m := r.msg(t)
	if r.status != 200 || m.Error != nil || m.Result.IsError != isError || len(m.Result.Content) == 0 {
		t.Errorf("%s: want a tool result with isError %v, got %d %s", r.label, isError, r.status, r.body)
	}
	return m
}

// wantError asserts r is the JSON-RPC error code with HTTP status.
func (r secReply) wantError(t *testing.T, status, code int) {
	t.Helper()
	if r.status != status || r.code(t) != code {
		t.Errorf("%s: want %d %d, got %d %s", r.label, status, code, r.status, r.body)
	}
}

// check looks for every marker and every sealed value in what the
// endpoint wrote. echoed names the markers the probe's responses may
// carry, and logged those its log may, each with why. A RouteEvent's
// Path may hold the task's job id: it is the path of the host's own
// status route, which holds the job id as the host's access log does
// (observe.RouteEvent says so); the sealing keeps it from the client, not
// from the host.
func (e *secEnv) check(t *testing.T, echoed, logged map[string]string) {
	t.Helper()
	e.mu.Lock()
	sealed := append([]string(nil), e.sealed...)
	replies := append([]secReply(nil), e.replies...)
	e.mu.Unlock()
	logs := e.log.String()
	records := e.obs.snapshot()
	if len(records) == 0 || !strings.Contains(logs, "mcp: request") {
		t.Fatalf("nothing observed or no access log: %d events, log %q", len(records), logs)
	}
	for _, m := range secMarkers {
		if _, ok := logged[m]; !ok {
			if f := secFind(logs, m); f != "" {
				t.Errorf("the log holds %s (as %q):\n%s", m, f, logs)
			}
		}
		for _, rec := range records {
			for name, v := range rec.fields {
				if rec.kind == "RouteEvent" && name == "Path" && m == mkJobID {
					continue
				}
				if f := secFind(v, m); f != "" {
					t.Errorf("an observer's %s.%s holds %s (as %q): %q", rec.kind, name, m, f, v)
				}
			}
		}
		if _, ok := echoed[m]; ok {
			continue
		}
		for _, r := range replies {
			if f := secFind(string(r.body), m); f != "" {
				t.Errorf("%s: the response body holds %s (as %q): %s", r.label, m, f, r.body)
			}
			for k, vs := range r.header {
				if f := secFind(k+": "+strings.Join(vs, ", "), m); f != "" {
					t.Errorf("%s: the response header %s holds %s (as %q): %q", r.label, k, m, f, vs)
				}
			}
		}
	}
	for _, s := range sealed {
		if strings.Contains(logs, s) {
			t.Errorf("the log holds the sealed value %s:\n%s", s, logs)
		}
		for _, rec := range records {
			for name, v := range rec.fields {
				if strings.Contains(v, s) {
					t.Errorf("an observer's %s.%s holds the sealed value %s", rec.kind, name, s)
				}
			}
		}
	}
}

// secProbe is one way a secret enters, sent in every revision in eras
// (nil: all).
type secProbe struct {
	name string
	eras []mcp.Version
	run  func(t *testing.T, e *secEnv, v mcp.Version)
	// echoed are the markers the protocol sends back to the client that
	// sent them, each with why.
	echoed map[string]string
	// logged are the markers the log may hold, each with why.
	logged map[string]string
}

var (
	secEras2026    = []mcp.Version{mcp.Version20260728}
	secEras2025    = []mcp.Version{mcp.Version20251125, mcp.Version20250618, mcp.Version20250326}
	secErasElicit  = []mcp.Version{mcp.Version20260728, mcp.Version20251125, mcp.Version20250618}
	secErasBatches = []mcp.Version{mcp.Version20250326}
)

func secProbes() []secProbe {
	return []secProbe{
		{name: "password argument of a route tool", run: func(t *testing.T, e *secEnv, v mcp.Version) {
			e.call(v, "login", `{"user":"alice","password":"`+mkPassword+`"}`).wantToolResult(t, false)
			if got := e.gotten("login route"); len(got) != 1 || got[0] != mkPassword {
				t.Errorf("the route got %q", got)
			}
		}},
		{name: "password argument of a function tool", run: func(t *testing.T, e *secEnv, v mcp.Version) {
			e.call(v, "login_func", `{"user":"alice","password":"`+mkPassword+`"}`).wantToolResult(t, false)
			if got := e.gotten("login func"); len(got) != 1 || got[0] != mkPassword {
				t.Errorf("the function got %q", got)
			}
		}},
		{name: "argument the tool answers with", run: func(t *testing.T, e *secEnv, v mcp.Version) {
			r := e.call(v, "echo", `{"password":"`+mkEchoed+`"}`)
			r.wantToolResult(t, false)
			if !strings.Contains(string(r.body), mkEchoed) {
				t.Errorf("the echo lost the argument: %s", r.body)
			}
		}, echoed: map[string]string{mkEchoed: "the tool's own result holds its argument: the client asked for it"}},
		{name: "argument the input schema refuses", run: func(t *testing.T, e *secEnv, v mcp.Version) {
			e.call(v, "strict", `{"password":"`+mkInvalidArg+`","pin":`+mkNumeric+`}`).wantToolResult(t, true)
			if got := e.gotten("login route"); len(got) != 0 {
				t.Errorf("the route ran: %q", got)
			}
		}},
		// 2025-03-26 has no outputSchema: the route's output is the
		// tool's result there, not checked.
		{name: "output the outputSchema refuses", eras: secErasElicit, run: func(t *testing.T, e *secEnv, v mcp.Version) {
			e.call(v, "leaky", `{}`).wantToolResult(t, true)
			if !strings.Contains(e.log.String(), "does not match its outputSchema") {
				t.Errorf("the violation is not logged: %s", e.log.String())
			}
		}},
		{name: "route failing with a 5xx", run: func(t *testing.T, e *secEnv, v mcp.Version) {
			e.call(v, "fails", `{}`).wantToolResult(t, true)
			if !strings.Contains(e.log.String(), "tool route failed") {
				t.Errorf("the failure is not logged: %s", e.log.String())
			}
		}},
		{name: "route panicking", run: func(t *testing.T, e *secEnv, v mcp.Version) {
			e.call(v, "panics", `{}`).wantToolResult(t, true)
			if !strings.Contains(e.log.String(), "tool handler panicked") {
				t.Errorf("the panic is not logged: %s", e.log.String())
			}
		}},
		{name: "function failing", run: func(t *testing.T, e *secEnv, v mcp.Version) {
			e.call(v, "login_fails", `{"user":"alice","password":"`+mkPassword+`"}`).wantToolResult(t, true)
			if !strings.Contains(e.log.String(), "tool function failed") || !strings.Contains(e.log.String(), mkFuncError) {
				t.Errorf("the error is not logged as returned: %s", e.log.String())
			}
		}, logged: map[string]string{mkFuncError: "a function's error is its message to the operator, logged as it returns it " +
			"and never sent (design record 011): what the host writes there is the host's to keep secret-free"}},
		{name: "function panicking", run: func(t *testing.T, e *secEnv, v mcp.Version) {
			e.call(v, "panics_func", `{"user":"alice","password":"`+mkPassword+`"}`).wantToolResult(t, true)
			if !strings.Contains(e.log.String(), "tool function panicked") {
				t.Errorf("the panic is not logged: %s", e.log.String())
			}
		}},
		{name: "prompt, completion, resource and task functions panicking", run: func(t *testing.T, e *secEnv, v mcp.Version) {
			e.do(secCall{label: "prompts/get", era: v, method: "prompts/get", name: "greet_panics",
				params: `"name":"greet_panics","arguments":{"secret":"` + mkPromptArg + `"}`}).wantError(t, 200, -32603)
			e.do(secCall{label: "resources/read", era: v, method: "resources/read", name: "vault://keys/a",
				params: `"uri":"vault://keys/a"`}).wantError(t, 200, -32603)
			e.call(v, "job_panics", `{}`).wantToolResult(t, true)
			e.do(secCall{label: "completion/complete", era: v, method: "completion/complete",
				params: `"ref":{"type":"ref/prompt","name":"greet_panics"},"argument":{"name":"secret","value":"` + mkCompletion + `"}`}).wantError(t, 200, -32603)
			for _, want := range []string{"prompt panicked", "resource function panicked", "task Accepted function panicked",
				`msg="mcp: panic while serving a request" method=completion/complete panic.type=string panic.at="github.com/mcpdual/mcpdual/mcp_test.newSecEnv.func`} {
				if !strings.Contains(e.log.String(), want) {
					t.Errorf("the log lacks %q: %s", want, e.log.String())
				}
			}
		}},
		{name: "resource route failing with a 5xx", run: func(t *testing.T, e *secEnv, v mcp.Version) {
			r := e.do(secCall{label: "resources/read", era: v, method: "resources/read", name: "vault://docs/a", params: `"uri":"vault://docs/a"`})
			r.wantError(t, 200, -32603)
			if !strings.Contains(e.log.String(), "resource route failed") {
				t.Errorf("the failure is not logged: %s", e.log.String())
			}
		}},
		{name: "prompt argument", run: func(t *testing.T, e *secEnv, v mcp.Version) {
			r := e.do(secCall{label: "prompts/get", era: v, method: "prompts/get", name: "greet",
				params: `"name":"greet","arguments":{"secret":"` + mkPromptArg + `"}`})
			if m := r.msg(t); r.status != 200 || m.Error != nil || len(m.Result.Messages) != 1 {
				t.Errorf("prompts/get: %d %s", r.status, r.body)
			}
			if got := e.gotten("prompt"); len(got) != 1 || got[0] != mkPromptArg {
				t.Errorf("the prompt got %q", got)
			}
		}},
		{name: "prompt argument not of its field's type", run: func(t *testing.T, e *secEnv, v mcp.Version) {
			r := e.do(secCall{label: "prompts/get", era: v, method: "prompts/get", name: "greet",
				params: `"name":"greet","arguments":{"secret":"` + mkPromptArg + `","pin":"` + mkPromptPin + `"}`})
			r.wantError(t, 200, -32602)
		}},
		{name: "completion value", run: func(t *testing.T, e *secEnv, v mcp.Version) {
			r := e.do(secCall{label: "completion/complete", era: v, method: "completion/complete",
				params: `"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"secret","value":"` + mkCompletion + `"}`})
			if m := r.msg(t); r.status != 200 || len(m.Result.Completion.Values) != 2 {
				t.Errorf("completion/complete: %d %s", r.status, r.body)
			}
			if got := e.gotten("completion"); len(got) != 1 || got[0] != mkCompletion {
				t.Errorf("the completion got %q", got)
			}
		}},
		{name: "elicitation answer", eras: secErasElicit, run: func(t *testing.T, e *secEnv, v mcp.Version) {
			answer := `{"action":"accept","content":{"colour":"` + mkAnswer + `"}}`
			if v == mcp.Version20260728 {
				e.retry(t, "ask", "answer", answer)
			} else {
				e.askLegacy(t, v, "ask", `{"elicitation":{"form":{},"note":"`+mkSessionCaps+`"}}`, answer)
			}
			if got := e.gotten("elicited"); len(got) != 1 || !strings.Contains(got[0], mkAnswer) {
				t.Errorf("the tool got %q", got)
			}
		}},
		{name: "elicitation answer the form refuses", eras: secErasElicit, run: func(t *testing.T, e *secEnv, v mcp.Version) {
			// Refused against the form asked, in a violation that says
			// where and what the form wants, never the value.
			answer := `{"action":"accept","content":{"colour":"red","pin":"` + mkFormRefused + `"}}`
			if v == mcp.Version20260728 {
				first := e.call(v, "ask", `{}`)
				m := first.msg(t)
				e.keepSealed(m.Result.RequestState)
				r := e.do(secCall{label: "tools/call ask answered", era: v, method: "tools/call", name: "ask",
					params: `"name":"ask","arguments":{},"requestState":` + quoteJSON(m.Result.RequestState) + `,"inputResponses":{"answer":` + answer + `}`})
				r.wantError(t, 200, -32602)
				if m := r.msg(t); m.Error == nil || !strings.Contains(string(m.Error.Data), `"violation":"/pin: does not match pattern`) {
					t.Errorf("the refusal: %s", r.body)
				}
			} else {
				e.askLegacyEnding(t, v, "ask", `{}`, `{"elicitation":{"form":{},"note":"`+mkSessionCaps+`"}}`, answer, -32602)
			}
			if got := e.gotten("elicited"); len(got) != 0 {
				t.Errorf("the tool got %q", got)
			}
		}},
		{name: "sampling answer", run: func(t *testing.T, e *secEnv, v mcp.Version) {
			answer := `{"role":"assistant","content":{"type":"text","text":"` + mkSampled + `"},"model":"m","stopReason":"endTurn"}`
			if v == mcp.Version20260728 {
				e.retry(t, "summarize", "llm", answer)
			} else {
				e.askLegacy(t, v, "summarize", `{"sampling":{"note":"`+mkSessionCaps+`"}}`, answer)
			}
			if got := e.gotten("sampled"); len(got) != 1 || !strings.Contains(got[0], mkSampled) {
				t.Errorf("the tool got %q", got)
			}
		}},
		{name: "confirmed destructive call", eras: secErasElicit, run: func(t *testing.T, e *secEnv, v mcp.Version) {
			args := `{"user":"alice","password":"` + mkPassword + `"}`
			answer := `{"action":"accept","content":{"confirm":true}}`
			if v == mcp.Version20260728 {
				e.retryWith(t, "wipe", args, "confirm", answer)
			} else {
				e.askLegacyWith(t, v, "wipe", args, `{"elicitation":{"form":{},"note":"`+mkSessionCaps+`"}}`, answer)
			}
			if got := e.gotten("wipe"); len(got) != 1 || got[0] != mkPassword {
				t.Errorf("the tool got %q", got)
			}
			if !strings.Contains(e.log.String(), "mcp: destructive tool") {
				t.Errorf("no audit line: %s", e.log.String())
			}
		}},
		{name: "requestState forged", eras: secEras2026, run: func(t *testing.T, e *secEnv, v mcp.Version) {
			r := e.do(secCall{label: "forged requestState", era: v, method: "tools/call", name: "ask",
				params: `"name":"ask","arguments":{},"requestState":"` + mkForged + `","inputResponses":{"answer":{"action":"accept","content":{"colour":"` + mkAnswer + `"}}}`})
			r.wantError(t, 200, -32602)
			if !strings.Contains(e.log.String(), "requestState refused") {
				t.Errorf("the refusal is not logged: %s", e.log.String())
			}
		}},
		{name: "inputResponses malformed", eras: secEras2026, run: func(t *testing.T, e *secEnv, v mcp.Version) {
			for _, responses := range []string{`"` + mkAnswer + `"`, `{"answer":"` + mkAnswer + `"}`, `{"answer":{"action":"` + mkAnswer + `"}}`} {
				r := e.do(secCall{label: "inputResponses " + responses, era: v, method: "tools/call", name: "ask",
					params: `"name":"ask","arguments":{},"inputResponses":` + responses})
				if r.status >= 500 || r.code(t) == 0 && !r.msg(t).Result.IsError && r.msg(t).Result.ResultType != "input_required" {
					t.Errorf("%s: %d %s", responses, r.status, r.body)
				}
			}
		}},
		{name: "2025 answers refused", eras: secEras2025, run: func(t *testing.T, e *secEnv, v mcp.Version) {
			// An answer to no question, and one past the bound: both
			// refused, neither quoted.
			for _, body := range []string{
				`{"jsonrpc":"2.0","id":"q-unknown","result":{"action":"accept","content":{"colour":"` + mkAnswer + `"}}}`,
				`{"jsonrpc":"2.0","id":"q-unknown","result":{"action":"accept","content":{"colour":"` + strings.Repeat(mkAnswer, secAnswerBytes/len(mkAnswer)+1) + `"}}}`,
				`{"jsonrpc":"2.0","id":"q-unknown","error":{"code":-1,"message":"` + mkAnswer + `"}}`,
			} {
				r := e.do(secCall{label: "an answer", era: v, body: body})
				if r.status < 400 || r.status >= 500 {
					t.Errorf("an answer to no question: %d %s", r.status, r.body)
				}
			}
			// Answers are not observed: a request that is gives the
			// check an event to look at.
			e.do(secCall{label: "tools/list", era: v, method: "tools/list"})
		}},
		{name: "session id forged", eras: secEras2025, run: func(t *testing.T, e *secEnv, v mcp.Version) {
			r := e.do(secCall{label: "forged session", era: v, method: "tools/list", header: map[string]string{"Mcp-Session-Id": mkForged}})
			if r.status != 404 {
				t.Errorf("a forged session id: %d %s", r.status, r.body)
			}
		}},
		{name: "task id", run: func(t *testing.T, e *secEnv, v mcp.Version) {
			if v == mcp.Version20260728 {
				r := e.do(secCall{label: "a task", era: v, method: "tools/call", name: "job",
					caps: `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`, params: `"name":"job","arguments":{}`})
				id := r.msg(t).Result.TaskID
				if r.status != 200 || r.msg(t).Result.ResultType != "task" {
					t.Fatalf("a task: %d %s", r.status, r.body)
				}
				e.keepSealed(id)
				g := e.do(secCall{label: "tasks/get", era: v, method: "tasks/get", name: id,
					caps: `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`, params: `"taskId":` + quoteJSON(id)})
				if g.status != 200 || g.msg(t).Result.Status != "completed" {
					t.Errorf("tasks/get: %d %s", g.status, g.body)
				}
				g = e.do(secCall{label: "tasks/get forged", era: v, method: "tasks/get", name: mkForged,
					caps: `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`, params: `"taskId":"` + mkForged + `"`})
				if g.code(t) == 0 {
					t.Errorf("a forged task id: %d %s", g.status, g.body)
				}
			}
			// Without the extension (every 2025 client): a job reference
			// and the status tool that reads it.
			m := e.call(v, "job", `{}`).wantToolResult(t, false)
			text, _ := m.Result.Content[0]["text"].(string)
			_, rest, _ := strings.Cut(text, `{"taskId": "`)
			ref, _, _ := strings.Cut(rest, `"`)
			if ref == "" {
				t.Fatalf("no job reference: %s", text)
			}
			e.keepSealed(ref)
			s := e.call(v, "job_status", `{"taskId":`+quoteJSON(ref)+`}`).wantToolResult(t, false)
			if !strings.Contains(fmt.Sprint(s.Result.Content), "done") {
				t.Errorf("the status tool: %v", s.Result.Content)
			}
			e.do(secCall{label: "job_status forged", era: v, method: "tools/call", name: "job_status",
				params: `"name":"job_status","arguments":{"taskId":"` + mkForged + `"}`}).wantError(t, 200, -32602)
			if got := e.gotten("job"); len(got) == 0 || got[0] != mkJobID {
				t.Errorf("the status route got %q", got)
			}
		}},
		{name: "Mcp-Name malformed", eras: secEras2026, run: func(t *testing.T, e *secEnv, v mcp.Version) {
			for _, h := range []string{mkHeaderName, "=?base64?" + mkHeaderName + "!?=", "=?base64?" + base64.StdEncoding.EncodeToString([]byte(mkHeaderName)) + "?="} {
				r := e.do(secCall{label: "Mcp-Name " + h, era: v, method: "tools/call", name: h, params: `"name":"login","arguments":{}`})
				r.wantError(t, 400, -32020)
			}
		}},
		{name: "Mcp-Method malformed", eras: secEras2026, run: func(t *testing.T, e *secEnv, v mcp.Version) {
			r := e.do(secCall{label: "Mcp-Method", era: v, method: "tools/list", header: map[string]string{"Mcp-Method": mkHeaderMethod}})
			r.wantError(t, 400, -32020)
		}},
		{name: "Mcp-Param malformed", eras: secEras2026, run: func(t *testing.T, e *secEnv, v mcp.Version) {
			param := func(label, header, arg string) secReply {
				c := secCall{label: label, era: v, method: "tools/call", name: "vault",
					params: `"name":"vault","arguments":{"secret":"` + arg + `"}`, header: map[string]string{"Mcp-Param-Secret": header}}
				return e.do(c)
			}
			param("matching", mkParamArg, mkParamArg).wantToolResult(t, false)
			param("mismatch", mkParamHeader, mkParamArg).wantError(t, 400, -32020)
			param("missing", "", mkParamArg).wantError(t, 400, -32020)
			param("bad encoding", "=?base64?"+mkParamHeader+"!?=", mkParamArg).wantError(t, 400, -32020)
			param("encoded mismatch", "=?base64?"+base64.StdEncoding.EncodeToString([]byte(mkParamHeader))+"?=", mkParamArg).wantError(t, 400, -32020)
			req, _ := http.NewRequest(http.MethodPost, e.url, strings.NewReader(secCall{era: v, method: "tools/call",
				params: `"name":"vault","arguments":{"secret":"` + mkParamArg + `"}`}.payload()))
			for k, vs := range map[string][]string{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
				"Authorization": {"Bearer " + mkBearer}, "Mcp-Protocol-Version": {string(v)}, "Mcp-Method": {"tools/call"},
				"Mcp-Name": {"vault"}, "Mcp-Param-Secret": {mkParamArg, mkParamHeader}} {
				req.Header[k] = vs
			}
			r := e.send("duplicate", req)
			r.wantError(t, 400, -32020)
			if got := e.gotten("vault"); len(got) != 1 {
				t.Errorf("the route ran %d times", len(got))
			}
		}},
		{name: "MCP-Protocol-Version malformed", run: func(t *testing.T, e *secEnv, v mcp.Version) {
			r := e.do(secCall{label: "MCP-Protocol-Version", era: v, method: "tools/list", header: map[string]string{"MCP-Protocol-Version": mkHeaderVersion}})
			if r.status != 400 || r.code(t) == 0 {
				t.Errorf("a version of no revision: %d %s", r.status, r.body)
			}
		}, echoed: map[string]string{mkHeaderVersion: "UnsupportedProtocolVersion's data.requested echoes the header the client sent (spec-digest 31)"}},
		{name: "bearer token refused", run: func(t *testing.T, e *secEnv, v mcp.Version) {
			for _, c := range []struct {
				authz, query string
				status, code int
				logged       bool
			}{
				{authz: "Bearer " + mkBearerBad, status: 401, code: -31401},
				{authz: "Bearer " + mkBearerExpired, status: 401, code: -31401},
				{authz: "Bearer " + mkBearerAud, status: 401, code: -31401},
				{authz: "Bearer " + mkBearerDown, status: 503, code: -31503, logged: true},
				{authz: "Bearer " + mkBearerPanic, status: 500, code: -32603, logged: true},
				{authz: "Bearer  " + mkBearerBroken, status: 400, code: -31401},
				{authz: "Bearer " + mkBearerBroken + " " + mkBearerBroken, status: 400, code: -31401},
				{authz: "Bearer " + mkBearerBroken + "\"", status: 400, code: -31401},
				{authz: "Basic " + mkBearerBroken, status: 401, code: -31401},
				{authz: "Bearer " + mkBearer, query: "?access_token=" + mkBearerBroken, status: 400, code: -31401},
			} {
				r := e.do(secCall{label: c.authz + c.query, era: v, method: "tools/list", query: c.query, header: map[string]string{"Authorization": c.authz}})
				r.wantError(t, c.status, c.code)
				if c.logged && !strings.Contains(e.log.String(), "[token]") {
					t.Errorf("%s: the cause is not logged with the token cut: %s", c.authz, e.log.String())
				}
			}
		}},
		{name: "malformed body", run: func(t *testing.T, e *secEnv, v mcp.Version) {
			head := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"login","arguments":{"password":`
			for _, body := range []string{
				head + `"` + mkBody,
				head + mkBody + `}}}`,
				head + `"` + mkBody + "\xff\xfe" + `"}}}`,
				head + `"` + mkBody + "\x01" + `"}}}`,
				head + `"x","password":"` + mkBody + `"}}}`,
				head + `"` + mkBody + `"},"arguments":{}}}`,
				`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"` + mkBody + `"}`,
				`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"login","arguments":"` + mkBody + `"}}`,
				`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"login","arguments":["` + mkBody + `"]}}`,
				`{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"login","arguments":{"password":"` + mkBody + `"}}}`,
				`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"login","arguments":{"password":"` + mkBody + `"}}}` + mkBody,
				`password=` + mkBody,
				`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"login","arguments":{"password":"` + mkBody + `"` + strings.Repeat(`,"a":[`, 70) + `1` + strings.Repeat(`]`, 70) + `}}}`,
			} {
				r := e.do(secCall{label: "malformed " + body, era: v, body: body})
				if r.status != 400 && r.code(t) == 0 && !r.msg(t).Result.IsError {
					t.Errorf("%q was served: %d %s", body, r.status, r.body)
				}
			}
			r := e.do(secCall{label: "form body", era: v, body: "password=" + mkBody, header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}})
			if r.status != 415 {
				t.Errorf("a form body: %d %s", r.status, r.body)
			}
			if got := e.gotten("login route"); len(got) != 0 {
				t.Errorf("the route ran: %q", got)
			}
		}},
		{name: "oversized body", run: func(t *testing.T, e *secEnv, v mcp.Version) {
			big := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"login","arguments":{"password":"` +
				strings.Repeat(mkOversized, secBodyBytes/len(mkOversized)+1) + `"}}}`
			for _, chunked := range []bool{false, true} {
				r := e.do(secCall{label: fmt.Sprintf("oversized, chunked %v", chunked), era: v, body: big, chunked: chunked})
				if r.status != 413 {
					t.Errorf("chunked %v: %d %s", chunked, r.status, r.body)
				}
			}
		}},
		{name: "batch", eras: secErasBatches, run: func(t *testing.T, e *secEnv, v mcp.Version) {
			r := e.do(secCall{label: "batch", era: v, body: `[` +
				`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"login","arguments":{"password":"` + mkPassword + `"}}},` +
				`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fails","arguments":{}}},` +
				`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"login","arguments":"` + mkBody + `"}}]`})
			if r.status != 200 || !bytes.HasPrefix(r.body, []byte("[")) {
				t.Errorf("a batch: %d %s", r.status, r.body)
			}
		}},
	}
}

// retry runs a 2026-07-28 multi round-trip call of tool: the first round
// asks (its requestState seals mkState), the second answers key.
func (e *secEnv) retry(t *testing.T, tool, key, answer string) {
	t.Helper()
	e.retryWith(t, tool, `{}`, key, answer)
}

// retryWith is retry with the call's arguments.
func (e *secEnv) retryWith(t *testing.T, tool, args, key, answer string) {
	t.Helper()
	v := mcp.Version20260728
	first := e.call(v, tool, args)
	m := first.msg(t)
	if first.status != 200 || m.Result.ResultType != "input_required" || m.Result.InputRequests[key] == nil {
		t.Fatalf("the first round: %d %s", first.status, first.body)
	}
	e.keepSealed(m.Result.RequestState)
	second := e.do(secCall{label: "tools/call " + tool + " answered", era: v, method: "tools/call", name: tool,
		params: `"name":` + quoteJSON(tool) + `,"arguments":` + args + `,"requestState":` + quoteJSON(m.Result.RequestState) +
			`,"inputResponses":{` + quoteJSON(key) + `:` + answer + `}`})
	second.wantToolResult(t, false)
	if got := e.gotten("state"); tool == "ask" && (len(got) != 1 || got[0] != mkState) {
		t.Errorf("the state came back as %q", got)
	}
}

// askLegacy runs a 2025 call of tool that asks its client (caps are the
// capabilities initialize declares, which the session seals): the
// question comes on the call's event stream, answer is POSTed back, and
// the call's result ends the stream.
func (e *secEnv) askLegacy(t *testing.T, v mcp.Version, tool, caps, answer string) {
	t.Helper()
	e.askLegacyWith(t, v, tool, `{}`, caps, answer)
}

// askLegacyWith is askLegacy with the call's arguments.
func (e *secEnv) askLegacyWith(t *testing.T, v mcp.Version, tool, args, caps, answer string) {
	t.Helper()
	e.askLegacyEnding(t, v, tool, args, caps, answer, 0)
}

// askLegacyEnding is askLegacyWith for a call that ends with the JSON-RPC
// error wantCode once answered (0: with a result that is not an error).
func (e *secEnv) askLegacyEnding(t *testing.T, v mcp.Version, tool, args, caps, answer string, wantCode int) {
	t.Helper()
	ini := e.do(secCall{label: "initialize", method: "initialize",
		params: `"protocolVersion":"` + string(v) + `","capabilities":` + caps + `,"clientInfo":{"name":"t","version":"1"}`})
	session := ini.header.Get("Mcp-Session-Id")
	if ini.status != 200 || session == "" {
		t.Fatalf("initialize: %d %s", ini.status, ini.body)
	}
	e.keepSealed(session)
	hdr := map[string]string{"Mcp-Session-Id": session}
	req, err := http.NewRequest(http.MethodPost, e.url, strings.NewReader(
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":`+quoteJSON(tool)+`,"arguments":`+args+`}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+mkBearer)
	req.Header.Set("Cookie", "sid="+mkCookie)
	req.Header.Set("MCP-Protocol-Version", string(v))
	req.Header.Set("Mcp-Session-Id", session)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var raw bytes.Buffer
	events := make(chan secMessage, 4)
	go func() {
		defer close(events)
		sc := bufio.NewScanner(io.TeeReader(resp.Body, &raw))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var m secMessage
				json.Unmarshal([]byte(data), &m)
				events <- m
			}
		}
	}()
	next := func() secMessage {
		t.Helper()
		select {
		case m, ok := <-events:
			if !ok {
				t.Fatalf("the stream ended: %s", raw.String())
			}
			return m
		case <-time.After(10 * time.Second):
			t.Fatal("no event")
		}
		return secMessage{}
	}
	q := next()
	if q.Method != "elicitation/create" && q.Method != "sampling/createMessage" {
		t.Fatalf("not a question: %+v", q)
	}
	a := e.do(secCall{label: "the answer", era: v, header: hdr,
		body: `{"jsonrpc":"2.0","id":` + string(q.ID) + `,"result":` + answer + `}`})
	if a.status != 202 {
		t.Errorf("the answer: %d %s", a.status, a.body)
	}
	switch last := next(); {
	case wantCode == 0 && (last.Error != nil || last.Result.IsError):
		t.Errorf("the answered call: %+v", last)
	case wantCode != 0 && (last.Error == nil || last.Error.Code != wantCode):
		t.Errorf("the answered call: %+v, want the error %d", last, wantCode)
	}
	// The call's result is the stream's last event: it ends there.
	select {
	case m, ok := <-events:
		if ok {
			t.Errorf("an event after the result: %+v", m)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the stream did not end after the call's result")
	}
	e.mu.Lock()
	e.replies = append(e.replies, secReply{label: "tools/call " + tool + " stream", status: resp.StatusCode, header: resp.Header, body: raw.Bytes()})
	e.mu.Unlock()
}

// TestSecrets_NeverInLogsOrErrors: every way a secret enters, in every
// revision it applies to, over HTTP; no marker reaches the log or an
// observer, and a response only where the probe says the protocol sends
// it back.
func TestSecrets_NeverInLogsOrErrors(t *testing.T) {
	t.Parallel()
	for _, p := range secProbes() {
		eraList := p.eras
		if eraList == nil {
			eraList = eras
		}
		for _, v := range eraList {
			t.Run(p.name+"/"+string(v), func(t *testing.T) {
				t.Parallel()
				e := newSecEnv(t)
				p.run(t, e, v)
				e.check(t, p.echoed, p.logged)
			})
		}
	}
}

// TestSecrets_KeyRingTextNeverQuoted: a key ring's text that is refused
// is refused without quoting the secret it holds, however it is wrong.
func TestSecrets_KeyRingTextNeverQuoted(t *testing.T) {
	t.Parallel()
	good := base64.StdEncoding.EncodeToString([]byte(mkKeyRing))
	for _, text := range []string{
		good + ":k1",                         // written backwards
		"k1:" + good[:20],                    // cut short
		"k1:" + good + "x",                   // one character too many
		"k1:" + good + ",k1:" + good,         // an id twice
		"k1:" + good + ",k2:" + good,         // a secret twice
		"bad id!:" + good,                    // an id of characters it may not hold
		"k1:" + good[:10] + "\n" + good[10:], // broken across lines
		"k1 " + good,                         // no colon
	} {
		_, err := mrtr.ParseKeys(text)
		if err == nil {
			t.Errorf("%q was taken", text)
			continue
		}
		for _, f := range append(secForms(mkKeyRing), good, good[:20], good[10:]) {
			if strings.Contains(err.Error(), f) {
				t.Errorf("%q: the error quotes the secret: %v", text, err)
			}
		}
	}
}

// TestSecrets_StdioNeverLogged: the same endpoint over stdio, whose own
// log also says what it cannot tell the client (a refused notification, a
// response that answers no question, a line over the bound).
func TestSecrets_StdioNeverLogged(t *testing.T) {
	t.Parallel()
	e := newSecEnv(t)
	stdioLog := &syncBuffer{}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		err := stdio.Serve(ctx, e.h, inR, outW, stdio.WithPrincipal(secPrincipal()), stdio.WithMaxMessageBytes(secBodyBytes/2),
			stdio.WithLogger(slog.New(slog.NewTextHandler(stdioLog, &slog.HandlerOptions{Level: slog.LevelDebug}))))
		outW.Close()
		done <- err
	}()
	lines := make(chan []byte, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 4<<20)
		for sc.Scan() {
			lines <- bytes.Clone(sc.Bytes())
		}
	}()
	t.Cleanup(func() { cancel(); inW.Close(); outR.Close() })
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	call := func(id int, tool, args string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args)
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	requests := []string{
		call(1, "login", `{"password":"`+mkPassword+`"}`),
		call(2, "login_func", `{"user":"alice","password":"`+mkPassword+`"}`),
		call(3, "fails", `{}`),
		call(4, "panics", `{}`),
		call(5, "panics_func", `{"user":"alice","password":"`+mkPassword+`"}`),
		call(6, "strict", `{"password":"`+mkInvalidArg+`","pin":`+mkNumeric+`}`),
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"login","arguments":{"password":` + mkBody + `}}}`,
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"login","arguments":{"password":"` + strings.Repeat(mkOversized, secBodyBytes/len(mkOversized)) + `"}}}`,
		`{"jsonrpc":"2.0","id":9,"method":"prompts/get","params":{"name":"greet","arguments":{"secret":"` + mkPromptArg + `","pin":"` + mkPromptPin + `"}}}`,
	}
	for _, l := range requests {
		send(l)
	}
	// Lines nobody answers: notifications the endpoint refuses, and
	// responses that answer no question.
	send(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"login","arguments":{"password":"` + mkPassword + `"}}}`)
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"` + mkBody + `","reason":"` + mkBody + `"}}`)
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":"` + mkBody + `"}`)
	send(`{"jsonrpc":"2.0","id":"q-unknown","result":{"action":"accept","content":{"colour":"` + mkAnswer + `"}}}`)
	send(`{"jsonrpc":"2.0","id":"q-unknown","error":{"code":-1,"message":"` + mkAnswer + `"}}`)
	// A revision of no name, which the answer's data.requested echoes: to
	// the client that sent it on a request, to nobody on a notification.
	send(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"` + mkHeaderVersion + `"}}}`)
	send(`{"jsonrpc":"2.0","id":10,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"` + mkHeaderVersion + `"}}}`)
	send(`{"jsonrpc":"2.0","id":11,"method":"ping"}`)
	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return")
	}
	var out []string
	answered := map[string]bool{}
	for l := range lines {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		json.Unmarshal(l, &m)
		answered[string(m.ID)] = true
		out = append(out, string(l))
	}
	// Request 7 does not parse: its answer has no id.
	for _, id := range []string{"0", "1", "2", "3", "4", "5", "6", "", "8", "9", "10", "11"} {
		if !answered[id] {
			t.Errorf("request %s was not answered: %q", id, out)
		}
	}
	if got := e.gotten("login route"); len(got) != 1 || got[0] != mkPassword {
		t.Errorf("the route got %q", got)
	}
	logs := e.log.String() + stdioLog.String()
	for _, want := range []string{"tool route failed", "tool handler panicked", "tool function panicked", "notification was refused", "answers no question"} {
		if !strings.Contains(logs, want) {
			t.Errorf("the log lacks %q:\n%s", want, logs)
		}
	}
	for _, m := range secMarkers {
		if f := secFind(logs, m); f != "" {
			t.Errorf("the log holds %s (as %q):\n%s", m, f, logs)
		}
		for _, rec := range e.obs.snapshot() {
			for name, v := range rec.fields {
				if name == "RawMeta" && m == mkHeaderVersion {
					// _meta is given to observers as sent (trace context
					// travels there): the revision named in it is no
					// secret, and over stdio that is where it is named.
					continue
				}
				if f := secFind(v, m); f != "" {
					t.Errorf("an observer's %s.%s holds %s (as %q): %q", rec.kind, name, m, f, v)
				}
			}
		}
		if m == mkHeaderVersion {
			continue // the request's answer echoes it: UnsupportedProtocolVersion's data.requested
		}
		for _, l := range out {
			if f := secFind(l, m); f != "" {
				t.Errorf("an answer holds %s (as %q): %s", m, f, l)
			}
		}
	}
}
