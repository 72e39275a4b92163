package mcp_test

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
)

type hostKey struct{}

// inProcessFixture is an authenticated endpoint mounted behind a host
// middleware that puts a value of its own and a deadline in every request's
// context, as routers and tracing middleware do.
func inProcessFixture(t *testing.T, mux *http.ServeMux, opts ...mcp.HandlerOption) (*fixture, *syncBuffer) {
	t.Helper()
	srv := mcp.NewServer(mcp.Implementation{Name: "inprocess", Version: "1"})
	schema := json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`)
	srv.AddTool(mcp.Tool{Name: "probe", InputSchema: schema, Annotations: mcp.Annotations{ReadOnly: true}}, "GET /probe/{id}", mux)
	srv.AddTool(mcp.Tool{Name: "refused", InputSchema: json.RawMessage(`{"type":"object"}`)}, "GET /refused", mux)
	log := &syncBuffer{}
	authn := auth.New(auth.Config{Verifier: auth.VerifierFunc(testVerifier), Resource: resourceURI})
	opts = append([]mcp.HandlerOption{mcp.WithAuth(authn), mcp.WithLogger(slog.New(slog.NewTextHandler(log, nil)))}, opts...)
	endpoint := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, opts...)
	outer := http.NewServeMux()
	outer.Handle("/mcp", endpoint)
	outer.Handle("/", mux)
	host := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(context.WithValue(r.Context(), hostKey{}, "outer"), time.Minute)
		defer cancel()
		outer.ServeHTTP(w, r.WithContext(ctx))
	})
	base := newTestServer(t, host)
	return &fixture{url: base + "/mcp"}, log
}

func (f *fixture) authed(t *testing.T, era mcp.Version, tool, args string) map[string]any {
	t.Helper()
	r := f.do(t, call{era: era, id: "7", method: "tools/call", params: `"name":` + quoteJSON(tool) + `,"arguments":` + args,
		header: map[string]string{"Authorization": "Bearer " + tokAlice}})
	if r.code() != 0 {
		t.Fatalf("%s: %s", tool, r.raw)
	}
	return r.result(t)
}

// TestInProcess_Request: the route sees a request as if it had come from
// the network at its own method and path, with the caller's identity and
// none of the endpoint request's context values, in every era.
func TestInProcess_Request(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /probe/{id}", func(w http.ResponseWriter, r *http.Request) {
		_, hasDeadline := r.Context().Deadline()
		p := auth.FromContext(r.Context())
		subject := ""
		if p != nil {
			subject = p.Subject
		}
		b, _ := json.Marshal(map[string]any{
			"inProcess": mcp.InProcess(r), "host": r.Context().Value(hostKey{}), "subject": subject, "deadline": hasDeadline,
			"path": r.URL.Path, "rawPath": r.URL.RawPath, "requestURI": r.RequestURI, "id": r.PathValue("id"),
			"pattern": r.Pattern, "authorization": r.Header.Get("Authorization"),
		})
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	})
	f, _ := inProcessFixture(t, mux)
	for _, era := range eras {
		for _, tc := range []struct{ id, path, rawPath, uri string }{
			{"a1", "/probe/a1", "", "/probe/a1"},
			{"a b", "/probe/a b", "", "/probe/a%20b"},
			{"a/b", "/probe/a/b", "/probe/a%2Fb", "/probe/a%2Fb"},
			{"50%", "/probe/50%", "", "/probe/50%25"},
		} {
			t.Run(string(era)+"/"+tc.id, func(t *testing.T) {
				res := f.authed(t, era, "probe", `{"id":`+quoteJSON(tc.id)+`}`)
				var got map[string]any
				if err := json.Unmarshal([]byte(text(res)), &got); err != nil {
					t.Fatalf("%v: %v", res, err)
				}
				want := map[string]any{
					"inProcess": true, "host": nil, "subject": "alice", "deadline": true,
					"path": tc.path, "rawPath": tc.rawPath, "requestURI": tc.uri, "id": tc.id,
					"pattern": "GET /probe/{id}", "authorization": "",
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("the route saw (-want +got):\n%s", diff)
				}
			})
		}
	}
	// The same route reached from the network is not in-process, whatever
	// it sends.
	_, body := fromNetwork(t, nil, strings.TrimSuffix(f.url, "/mcp")+"/probe/x")
	if !strings.Contains(string(body), `"inProcess":false`) {
		t.Errorf("network request: %s", body)
	}
}

// TestInProcess_RouteRequest: WithRouteRequest carries the host's own
// values and identity onto the route's request.
func TestInProcess_RouteRequest(t *testing.T) {
	t.Parallel()
	type userKey struct{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /probe/{id}", func(w http.ResponseWriter, r *http.Request) {
		b, _ := json.Marshal(map[string]any{"host": r.Context().Value(hostKey{}), "user": r.Context().Value(userKey{}),
			"header": r.Header.Get("X-Internal-User")})
		w.Write(b)
	})
	f, _ := inProcessFixture(t, mux, mcp.WithRouteRequest(func(outer, inner *http.Request) *http.Request {
		ctx := context.WithValue(inner.Context(), hostKey{}, outer.Context().Value(hostKey{}))
		ctx = context.WithValue(ctx, userKey{}, "user:"+auth.FromContext(inner.Context()).Subject)
		r := inner.WithContext(ctx)
		r.Header.Set("X-Internal-User", "alice")
		return r
	}))
	for _, era := range eras {
		res := f.authed(t, era, "probe", `{"id":"x"}`)
		if got := text(res); got != `{"header":"alice","host":"outer","user":"user:alice"}` {
			t.Errorf("%s: %s", era, got)
		}
	}
}

func TestInProcess_RouteRequestNil(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	ran := false
	mux.HandleFunc("GET /probe/{id}", func(w http.ResponseWriter, r *http.Request) { ran = true })
	f, log := inProcessFixture(t, mux, mcp.WithRouteRequest(func(outer, inner *http.Request) *http.Request { return nil }))
	res := f.authed(t, mcp.Version20260728, "probe", `{"id":"x"}`)
	if res["isError"] != true || text(res) != "The tool failed with an internal error." || ran {
		t.Errorf("result %v, route ran %v", res, ran)
	}
	if !strings.Contains(log.String(), "WithRouteRequest function returned nil") {
		t.Errorf("log: %s", log)
	}
}

// TestInProcess_RefusedIdentity: a route that answers 401 or 403 to an
// authenticated in-process call is logged once (each tool here has a
// route of its own), naming the tool.
func TestInProcess_RefusedIdentity(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /refused", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
	})
	mux.HandleFunc("GET /probe/{id}", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":"forbidden"}`, http.StatusForbidden)
	})
	f, log := inProcessFixture(t, mux)
	for _, era := range eras {
		res := f.authed(t, era, "refused", `{}`)
		if res["isError"] != true || text(res) != `{"error":"unauthorized"}` {
			t.Errorf("%s: %v", era, res)
		}
		f.authed(t, era, "probe", `{"id":"x"}`)
	}
	out := log.String()
	for _, tool := range []string{"target=refused status=401", "target=probe status=403"} {
		if n := strings.Count(out, tool); n != 1 {
			t.Errorf("%q logged %d times, want once:\n%s", tool, n, out)
		}
	}
	if n := strings.Count(out, "did not see an identity it accepts"); n != 2 {
		t.Errorf("%d warnings, want 2:\n%s", n, out)
	}
}

// TestInProcess_Cancellation: a client that goes away cancels the route.
func TestInProcess_Cancellation(t *testing.T) {
	t.Parallel()
	entered, canceled := make(chan struct{}), make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /probe/{id}", func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		select {
		case <-r.Context().Done():
			close(canceled)
		case <-time.After(10 * time.Second):
		}
	})
	f, _ := inProcessFixture(t, mux)
	ctx, cancel := context.WithCancel(context.Background())
	c := call{era: mcp.Version20260728, id: "1", method: "tools/call", params: `"name":"probe","arguments":{"id":"x"}`,
		header: map[string]string{"Authorization": "Bearer " + tokAlice}}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, f.url, strings.NewReader(c.body()))
	req.Header = headersFor(c)
	go func() {
		<-entered
		cancel()
	}()
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
	select {
	case <-canceled:
	case <-time.After(5 * time.Second):
		t.Fatal("the route's context was not canceled")
	}
}

// TestInProcess_WriteAfterReturn: a goroutine a route leaves behind cannot
// change the response or race with reading it, its headers included, nor
// reach the headers of a later call (run with -race).
func TestInProcess_WriteAfterReturn(t *testing.T) {
	t.Parallel()
	var wg sync.WaitGroup
	late := make(chan error, 1)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /probe/{id}", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("id") == "next" {
			if len(w.Header()) != 0 {
				t.Errorf("a route's answer starts with headers: %v", w.Header())
			}
			io.WriteString(w, "next")
			return
		}
		io.WriteString(w, "before")
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(5 * time.Millisecond)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTeapot)
			_, err := io.WriteString(w, " after")
			late <- err
		}()
	})
	f, _ := inProcessFixture(t, mux)
	res := f.authed(t, mcp.Version20260728, "probe", `{"id":"x"}`)
	if text(res) != "before" || res["isError"] != nil {
		t.Errorf("result %v", res)
	}
	wg.Wait()
	if err := <-late; err == nil {
		t.Error("a write after the route returned succeeded")
	}
	for range 20 {
		if res := f.authed(t, mcp.Version20260728, "probe", `{"id":"next"}`); text(res) != "next" || res["isError"] != nil {
			t.Fatalf("a later call: %v", res)
		}
	}
}

// TestInProcess_HeadersStartEmpty: a route's answer starts with no header,
// whatever the calls before it set, in every era.
func TestInProcess_HeadersStartEmpty(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	var seen atomic.Int32
	mux.HandleFunc("GET /probe/{id}", func(w http.ResponseWriter, r *http.Request) {
		seen.Add(1)
		if h := w.Header(); len(h) != 0 {
			t.Errorf("call %s: the answer starts with headers %v", r.PathValue("id"), h)
		}
		for i := range 3 {
			w.Header().Set("X-Call-"+strconv.Itoa(i), r.PathValue("id"))
		}
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, r.PathValue("id"))
	})
	f, _ := inProcessFixture(t, mux)
	for i := range 30 {
		for _, era := range []mcp.Version{mcp.Version20260728, mcp.Version20251125, mcp.Version20250618} {
			id := fmt.Sprintf("%s-%d", era, i)
			if res := f.authed(t, era, "probe", `{"id":"`+id+`"}`); text(res) != id || res["isError"] != nil {
				t.Fatalf("%s: %v", id, res)
			}
		}
	}
	if seen.Load() != 90 {
		t.Errorf("the route ran %d times, want 90", seen.Load())
	}
}

// TestInProcess_RefusedIdentityPerRoute: the warning is kept once per
// route, not per target: a template route refusing other tenants' items
// (403 for every URI a client tries) writes one line and keeps one
// record, however many URIs are read, and no log line holds more than a
// bounded piece of a client's string.
func TestInProcess_RefusedIdentityPerRoute(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /emails/{id}", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "not yours", http.StatusForbidden) })
	srv := mcp.NewServer(mcp.Implementation{Name: "warned", Version: "1"})
	srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "inbox://emails/{id}", Name: "email"}, "GET /emails/{id}", mux)
	log := &syncBuffer{}
	authn := auth.New(auth.Config{Verifier: auth.VerifierFunc(testVerifier), Resource: resourceURI})
	f := &fixture{url: newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, mcp.WithAuth(authn),
		mcp.WithLogger(slog.New(slog.NewTextHandler(log, nil)))))}
	long := strings.Repeat("x", 1500)
	for i := range 30 {
		f.do(t, call{era: mcp.Version20250618, id: "1", method: "resources/read", params: `"uri":"inbox://emails/` + strconv.Itoa(i) + long + `"`,
			header: map[string]string{"Authorization": "Bearer " + tokAlice}})
	}
	out := log.String()
	if n := strings.Count(out, "did not see an identity it accepts"); n != 1 {
		t.Errorf("%d warnings for one route, want 1", n)
	}
	for _, line := range strings.Split(out, "\n") {
		if len(line) > 1200 {
			t.Errorf("a log line of %d bytes", len(line))
		}
	}
}

// TestInProcess_RouteFlushes: a route that flushes its answer, as
// streaming handlers and many middlewares do (the http.Flusher assertion,
// http.ResponseController), answers in process what it answers from the
// network: the flush commits a 200, so a later WriteHeader changes
// nothing, in every era.
func TestInProcess_RouteFlushes(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /probe/{id}", func(w http.ResponseWriter, r *http.Request) {
		switch r.PathValue("id") {
		case "asserted":
			io.WriteString(w, "part one, ")
			w.(http.Flusher).Flush()
			io.WriteString(w, "part two")
		case "controller":
			if err := http.NewResponseController(w).Flush(); err != nil {
				http.Error(w, "flush: "+err.Error(), http.StatusInternalServerError)
				return
			}
			w.WriteHeader(http.StatusTeapot) // superfluous: the flush sent 200
			io.WriteString(w, "flushed")
		}
	})
	f, _ := inProcessFixture(t, mux)
	base := strings.TrimSuffix(f.url, "/mcp")
	for _, tc := range []struct{ id, want string }{{"asserted", "part one, part two"}, {"controller", "flushed"}} {
		resp, body := fromNetwork(t, nil, base+"/probe/"+tc.id)
		if resp.StatusCode != http.StatusOK || string(body) != tc.want {
			t.Fatalf("%s from the network: %d %q", tc.id, resp.StatusCode, body)
		}
		for _, era := range eras {
			res := f.authed(t, era, "probe", `{"id":"`+tc.id+`"}`)
			if got := text(res); got != tc.want || res["isError"] != nil {
				t.Errorf("%s/%s: %v", era, tc.id, res)
			}
		}
	}
}

// TestInProcess_UntypedBodySniffed: a route that writes its body without
// a Content-Type answers in process with the type net/http's server would
// have sent for it (http.DetectContentType): PNG bytes are an image block
// of a tool, plain text the text content of a resource, not text of
// U+FFFD and an application/octet-stream blob. A Content-Type set to nil
// opts out as it does on the network. In every era.
func TestInProcess_UntypedBodySniffed(t *testing.T) {
	t.Parallel()
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
	mux := http.NewServeMux()
	mux.HandleFunc("GET /probe/{id}", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("id") == "untyped" {
			w.Header()["Content-Type"] = nil // no type, and no sniffing
		}
		io.WriteString(w, png)
	})
	mux.HandleFunc("GET /readme", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello") })
	f, _ := inProcessFixture(t, mux)
	base := strings.TrimSuffix(f.url, "/mcp")
	for path, want := range map[string]string{"/probe/x": "image/png", "/readme": "text/plain; charset=utf-8", "/probe/untyped": ""} {
		resp, _ := fromNetwork(t, nil, base+path)
		if got := resp.Header.Get("Content-Type"); got != want {
			t.Fatalf("%s from the network: Content-Type %q, want %q", path, got, want)
		}
	}

	srv := mcp.NewServer(mcp.Implementation{Name: "sniffed", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "probe", InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`)}, "GET /probe/{id}", mux)
	srv.AddResource(mcp.Resource{URI: "docs://readme", Name: "readme"}, "GET /readme", mux)
	g := &fixture{url: newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}))}
	for _, era := range eras {
		res := g.do(t, call{era: era, id: "1", method: "tools/call", params: `"name":"probe","arguments":{"id":"x"}`}).result(t)
		blocks, _ := res["content"].([]any)
		if len(blocks) != 1 {
			t.Fatalf("%s: %v", era, res)
		}
		want := map[string]any{"type": "image", "mimeType": "image/png", "data": base64.StdEncoding.EncodeToString([]byte(png))}
		if diff := cmp.Diff(want, blocks[0]); diff != "" || res["isError"] != nil {
			t.Errorf("%s: an untyped PNG (-want +got):\n%s", era, diff)
		}

		res = g.do(t, call{era: era, id: "1", method: "tools/call", params: `"name":"probe","arguments":{"id":"untyped"}`}).result(t)
		if text(res) != strings.ToValidUTF8(png, "\uFFFD") {
			t.Errorf("%s: a body with Content-Type nil: %v", era, res)
		}

		res = g.do(t, call{era: era, id: "1", method: "resources/read", params: `"uri":"docs://readme"`, header: map[string]string{"Mcp-Name": "docs://readme"}}).result(t)
		contents, _ := res["contents"].([]any)
		if len(contents) != 1 {
			t.Fatalf("%s: %v", era, res)
		}
		wantC := map[string]any{"uri": "docs://readme", "mimeType": "text/plain", "text": "hello"}
		if diff := cmp.Diff(wantC, contents[0]); diff != "" {
			t.Errorf("%s: an untyped text resource (-want +got):\n%s", era, diff)
		}
	}
}

// TestInProcess_HeaderAfterStatus: a header a route sets after its status
// (a Content-Type after WriteHeader) never reaches a client over the
// network, which gets the headers as they stood at WriteHeader and a
// sniffed type; in process it does not change the answer either: the text
// stays a text block, not an image of it. In every era.
func TestInProcess_HeaderAfterStatus(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /probe/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		w.Header().Set("Content-Type", "image/png")
		io.WriteString(w, "plain words")
	})
	f, _ := inProcessFixture(t, mux)
	resp, body := fromNetwork(t, nil, strings.TrimSuffix(f.url, "/mcp")+"/probe/x")
	if got := resp.Header.Get("Content-Type"); got != "text/plain; charset=utf-8" || string(body) != "plain words" {
		t.Fatalf("from the network: Content-Type %q, body %q", got, body)
	}
	for _, era := range eras {
		res := f.authed(t, era, "probe", `{"id":"x"}`)
		if got := text(res); got != "plain words" || res["isError"] != nil {
			t.Errorf("%s: %v", era, res)
		}
	}
}

// TestInProcess_MediaTypeWithBadParameter: a Content-Type whose media type
// is sound but one of whose parameters is not (an unquoted space, a
// parameter without a value) is still read by its media type, as
// mime.ParseMediaType returns it with ErrInvalidMediaParameter: an image
// stays an image block, a route's own result its result, a text resource
// text — not U+FFFD text, the result's JSON as text, or a blob. In every
// era.
func TestInProcess_MediaTypeWithBadParameter(t *testing.T) {
	t.Parallel()
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
	mux := http.NewServeMux()
	mux.HandleFunc("GET /probe/{id}", func(w http.ResponseWriter, r *http.Request) {
		switch r.PathValue("id") {
		case "image":
			w.Header().Set("Content-Type", "image/png; name=chart 1.png")
			io.WriteString(w, png)
		case "own":
			w.Header().Set("Content-Type", mcp.ToolResultMediaType+"; charset")
			io.WriteString(w, `{"content":[{"type":"text","text":"mine"}],"isError":true}`)
		}
	})
	mux.HandleFunc("GET /readme", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/markdown; charset")
		io.WriteString(w, "# hello")
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "params", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "probe", InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`)}, "GET /probe/{id}", mux)
	srv.AddResource(mcp.Resource{URI: "docs://readme", Name: "readme"}, "GET /readme", mux)
	g := &fixture{url: newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}))}
	for _, era := range eras {
		res := g.do(t, call{era: era, id: "1", method: "tools/call", params: `"name":"probe","arguments":{"id":"image"}`}).result(t)
		want := []any{map[string]any{"type": "image", "mimeType": "image/png", "data": base64.StdEncoding.EncodeToString([]byte(png))}}
		if diff := cmp.Diff(want, res["content"]); diff != "" || res["isError"] != nil {
			t.Errorf("%s: an image with a bad parameter (-want +got):\n%s", era, diff)
		}
		res = g.do(t, call{era: era, id: "1", method: "tools/call", params: `"name":"probe","arguments":{"id":"own"}`}).result(t)
		if text(res) != "mine" || res["isError"] != true {
			t.Errorf("%s: a route's own result with a bad parameter: %v", era, res)
		}
		res = g.do(t, call{era: era, id: "1", method: "resources/read", params: `"uri":"docs://readme"`, header: map[string]string{"Mcp-Name": "docs://readme"}}).result(t)
		wantC := []any{map[string]any{"uri": "docs://readme", "mimeType": "text/markdown", "text": "# hello"}}
		if diff := cmp.Diff(wantC, res["contents"]); diff != "" {
			t.Errorf("%s: a text resource with a bad parameter (-want +got):\n%s", era, diff)
		}
	}
}

// TestInProcess_ResponseControllerDeadlines: a route that extends its
// deadlines or asks for full duplex through http.ResponseController, as
// long downloads and uploads do, and fails when it cannot, answers in
// process what it answers from the network; an in-process request's body
// and answer are in memory, where no read or write waits. In every era.
func TestInProcess_ResponseControllerDeadlines(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /probe/{id}", func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		later := time.Now().Add(time.Minute)
		for what, err := range map[string]error{"read deadline": rc.SetReadDeadline(later), "write deadline": rc.SetWriteDeadline(later),
			"full duplex": rc.EnableFullDuplex()} {
			if err != nil {
				http.Error(w, what+": "+err.Error(), http.StatusInternalServerError)
				return
			}
		}
		io.WriteString(w, "done")
	})
	f, _ := inProcessFixture(t, mux)
	resp, body := fromNetwork(t, nil, strings.TrimSuffix(f.url, "/mcp")+"/probe/x")
	if resp.StatusCode != http.StatusOK || string(body) != "done" {
		t.Fatalf("from the network: %d %q", resp.StatusCode, body)
	}
	for _, era := range eras {
		if res := f.authed(t, era, "probe", `{"id":"x"}`); text(res) != "done" || res["isError"] != nil {
			t.Errorf("%s: %v", era, res)
		}
	}
}

// TestInProcess_ServerContextValues: the two values net/http's server
// puts in every request's context — the *http.Server and the local
// address the request arrived at — are in the in-process request's too,
// as they are from the network: they are the server's, not a router's
// state, and code that reads them (building its own address, asserting
// their types) would otherwise find nothing, or panic. No other value of
// the MCP request's context reaches the route. In every era.
func TestInProcess_ServerContextValues(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /probe/{id}", func(w http.ResponseWriter, r *http.Request) {
		srv, _ := r.Context().Value(http.ServerContextKey).(*http.Server)
		local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		addr := ""
		if local != nil {
			addr = local.String()
		}
		fmt.Fprintf(w, "server=%v local=%s host=%v", srv != nil, addr, r.Context().Value(hostKey{}))
	})
	f, _ := inProcessFixture(t, mux)
	base := strings.TrimSuffix(f.url, "/mcp")
	_, body := fromNetwork(t, nil, base+"/probe/x")
	// The fixture's host middleware adds its value to every request; the
	// in-process request has none of the MCP request's.
	want := "server=true local=" + strings.TrimPrefix(base, "http://") + " host="
	if string(body) != want+"outer" {
		t.Fatalf("from the network: %q, want %q", body, want+"outer")
	}
	want += "<nil>"
	for _, era := range eras {
		if res := f.authed(t, era, "probe", `{"id":"x"}`); text(res) != want {
			t.Errorf("%s: %q, want %q", era, text(res), want)
		}
	}
}

// TestInProcess_TLSConnection: a call that reached the endpoint over TLS
// reaches its route with the connection's TLS state, as the same request
// would from the network: a host middleware that redirects plain HTTP to
// HTTPS (r.TLS == nil) lets the route answer instead of turning every
// call into a redirect, which a tool answers as an internal error. A
// call over plain HTTP still has none. In every era.
func TestInProcess_TLSConnection(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /probe/{id}", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "served over TLS "+tls.VersionName(r.TLS.Version))
	})
	requireTLS := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS == nil {
			http.Redirect(w, r, "https://"+r.Host+r.URL.RequestURI(), http.StatusPermanentRedirect)
			return
		}
		mux.ServeHTTP(w, r)
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "tls", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "probe", InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`)}, "GET /probe/{id}", requireTLS)
	outer := http.NewServeMux()
	outer.Handle("/mcp", mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}))
	outer.Handle("/", requireTLS)
	ts := httptest.NewTLSServer(outer)
	t.Cleanup(ts.Close)
	plain := newTestServer(t, outer)

	post := func(url string, client *http.Client, era mcp.Version) map[string]any {
		t.Helper()
		c := call{era: era, id: "1", method: "tools/call", params: `"name":"probe","arguments":{"id":"x"}`}
		req, _ := http.NewRequest(http.MethodPost, url+"/mcp", strings.NewReader(c.body()))
		req.Header = headersFor(c)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m struct{ Result map[string]any }
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil || resp.StatusCode != http.StatusOK || m.Result == nil {
			t.Fatalf("%s: %d %v %v", era, resp.StatusCode, m, err)
		}
		return m.Result
	}
	resp, body := fromNetwork(t, ts.Client(), ts.URL+"/probe/x")
	if resp.StatusCode != http.StatusOK || string(body) != "served over TLS TLS 1.3" {
		t.Fatalf("from the network: %d %q", resp.StatusCode, body)
	}
	for _, era := range eras {
		if res := post(ts.URL, ts.Client(), era); text(res) != "served over TLS TLS 1.3" || res["isError"] != nil {
			t.Errorf("%s over TLS: %v", era, res)
		}
		if res := post(plain, http.DefaultClient, era); text(res) != "The tool failed with an internal error." || res["isError"] != true {
			t.Errorf("%s over plain HTTP, redirected: %v", era, res)
		}
	}
}

// TestInProcess_NoContentHasNoBody: a route that answers 204 No Content
// and writes anyway (the encoder of a handler that sets the status first)
// sends no body from the network, and its write fails with
// http.ErrBodyNotAllowed: in process the tool's result is the empty text
// a 204 gives, not the bytes net/http would have dropped, and the route
// sees the same error. In every era.
func TestInProcess_NoContentHasNoBody(t *testing.T) {
	t.Parallel()
	writeErr := make(chan error, 8)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /probe/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNoContent)
		_, err := io.WriteString(w, `{"deleted":true}`)
		writeErr <- err
	})
	f, _ := inProcessFixture(t, mux)
	resp, body := fromNetwork(t, nil, strings.TrimSuffix(f.url, "/mcp")+"/probe/x")
	if err := <-writeErr; resp.StatusCode != http.StatusNoContent || len(body) != 0 || err != http.ErrBodyNotAllowed {
		t.Fatalf("from the network: %d %q, the route's write: %v", resp.StatusCode, body, err)
	}
	for _, era := range eras {
		res := f.authed(t, era, "probe", `{"id":"x"}`)
		if err := <-writeErr; text(res) != "" || res["isError"] != nil || err != http.ErrBodyNotAllowed {
			t.Errorf("%s: %v, the route's write: %v", era, res, err)
		}
	}
}

// fromNetwork GETs url over the network with c (http.DefaultClient when
// nil), as a client of the host reaches a route without MCP: the
// answer, its body read whole.
func fromNetwork(t *testing.T, c *http.Client, url string) (*http.Response, []byte) {
	t.Helper()
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, body
}
