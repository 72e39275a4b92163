package routertest

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/gorilla/mux"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/internal/syncbuf"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/mcptest"
)

// The host's own identity: its middleware puts a user in the context under
// its own key and rejects every request without one.
type userKey struct{}

const token = "tok-alice"

// hostAuth is the service's authentication middleware. A network request
// must carry the bearer token; an in-process request from the MCP endpoint
// carries no token, and is accepted when the endpoint's identity bridge
// (WithRouteRequest) put a user in its context — never trusted from the
// network, since only the endpoint can mark a request InProcess.
func hostAuth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if mcp.InProcess(r) {
			if u, _ := r.Context().Value(userKey{}).(string); u != "" {
				next.ServeHTTP(w, r)
				return
			}
		} else if r.Header.Get("Authorization") == "Bearer "+token {
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), userKey{}, "network:alice")))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":"unauthorized"}`)
	})
}

// bridge maps the endpoint's verified principal onto the host's identity.
func bridge(outer, inner *http.Request) *http.Request {
	p := auth.FromContext(inner.Context())
	return inner.WithContext(context.WithValue(inner.Context(), userKey{}, "mcp:"+p.Subject))
}

// report is what a route saw.
type report struct {
	Route, Method, Path, RawPath, ID, Query, Body, User string
	InProcess                                           bool
	IdempotencyKey                                      bool
}

// orders is the service's API. Each route writes what it saw; param reads
// a path parameter the way the router in use does.
type orders struct {
	mu    sync.Mutex
	seen  []report
	param func(r *http.Request, name string) string
}

func (o *orders) route(name string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		user, _ := r.Context().Value(userKey{}).(string)
		rep := report{Route: name, Method: r.Method, Path: r.URL.Path, RawPath: r.URL.RawPath, ID: o.param(r, "id"),
			Query: r.URL.RawQuery, Body: string(body), User: user, InProcess: mcp.InProcess(r),
			IdempotencyKey: r.Header.Get("Idempotency-Key") != ""}
		o.mu.Lock()
		o.seen = append(o.seen, rep)
		o.mu.Unlock()
		b, _ := json.Marshal(rep)
		if name == "prompt" {
			// A prompt route answers a GetPromptResult.
			b, _ = json.Marshal(map[string]any{"messages": []any{map[string]any{"role": "user",
				"content": map[string]string{"type": "text", "text": string(b)}}}})
		}
		w.Header().Set("Content-Type", "application/json")
		if name == "create" {
			w.WriteHeader(http.StatusCreated)
		}
		w.Write(b)
	}
}

// variant is one router with one mounting of the endpoint.
type variant struct {
	name string
	// build returns the server's handler, the endpoint's path, the path
	// prefix the network adds in front of the router's paths (StripPrefix),
	// and the prefix of the API's paths as the tools' handler sees them.
	build func(o *orders, endpoint func(tools http.Handler, prefix string) http.Handler) (srv http.Handler, mcpPath, netPrefix, prefix string)
}

func chiParam(r *http.Request, name string) string { return chi.URLParam(r, name) }

func chiAPI(r chi.Router, o *orders) {
	r.Get("/orders", o.route("list"))
	r.Post("/orders", o.route("create"))
	r.Get("/orders/{id}", o.route("get"))
	r.Delete("/orders/{id}", o.route("delete"))
	r.Get("/prompts/order-summary", o.route("prompt"))
}

var variants = []variant{
	{"servemux", func(o *orders, endpoint func(http.Handler, string) http.Handler) (http.Handler, string, string, string) {
		o.param = func(r *http.Request, name string) string { return r.PathValue(name) }
		api := http.NewServeMux()
		api.Handle("GET /orders", o.route("list"))
		api.Handle("POST /orders", o.route("create"))
		api.Handle("GET /orders/{id}", o.route("get"))
		api.Handle("DELETE /orders/{id}", o.route("delete"))
		api.Handle("GET /prompts/order-summary", o.route("prompt"))
		routes := hostAuth(api)
		top := http.NewServeMux()
		top.Handle("/mcp", endpoint(routes, ""))
		top.Handle("/", routes)
		return top, "/mcp", "", ""
	}},
	{"chi/outside", func(o *orders, endpoint func(http.Handler, string) http.Handler) (http.Handler, string, string, string) {
		o.param = chiParam
		r := chi.NewRouter()
		r.Use(hostAuth)
		chiAPI(r, o)
		top := http.NewServeMux()
		top.Handle("/mcp", endpoint(r, ""))
		top.Handle("/", r)
		return top, "/mcp", "", ""
	}},
	{"chi/inside", func(o *orders, endpoint func(http.Handler, string) http.Handler) (http.Handler, string, string, string) {
		o.param = chiParam
		r := chi.NewRouter()
		r.Use(hostAuth) // the endpoint sits behind the host's middleware too
		chiAPI(r, o)
		r.Handle("/mcp", endpoint(r, ""))
		return r, "/mcp", "", ""
	}},
	{"chi/route", func(o *orders, endpoint func(http.Handler, string) http.Handler) (http.Handler, string, string, string) {
		o.param = chiParam
		r := chi.NewRouter()
		r.Route("/api", func(api chi.Router) {
			api.Use(hostAuth)
			chiAPI(api, o)
			api.Handle("/mcp", endpoint(r, "/api"))
		})
		return r, "/api/mcp", "", "/api"
	}},
	{"chi/mount", func(o *orders, endpoint func(http.Handler, string) http.Handler) (http.Handler, string, string, string) {
		o.param = chiParam
		top := chi.NewRouter()
		api := chi.NewRouter()
		api.Use(hostAuth)
		chiAPI(api, o)
		api.Handle("/mcp", endpoint(top, "/api"))
		top.Mount("/api", api)
		return top, "/api/mcp", "", "/api"
	}},
	{"chi/stripprefix", func(o *orders, endpoint func(http.Handler, string) http.Handler) (http.Handler, string, string, string) {
		o.param = chiParam
		r := chi.NewRouter()
		r.Use(hostAuth)
		chiAPI(r, o)
		r.Handle("/mcp", endpoint(r, ""))
		top := http.NewServeMux()
		top.Handle("/svc/", http.StripPrefix("/svc", r))
		return top, "/svc/mcp", "/svc", ""
	}},
	{"gorilla", func(o *orders, endpoint func(http.Handler, string) http.Handler) (http.Handler, string, string, string) {
		o.param = func(r *http.Request, name string) string { return mux.Vars(r)[name] }
		r := mux.NewRouter().UseEncodedPath() // ids may hold an escaped "/"
		r.Use(hostAuth)
		r.Handle("/orders", o.route("list")).Methods(http.MethodGet)
		r.Handle("/orders", o.route("create")).Methods(http.MethodPost)
		r.Handle("/orders/{id}", o.route("get")).Methods(http.MethodGet)
		r.Handle("/orders/{id}", o.route("delete")).Methods(http.MethodDelete)
		r.Handle("/prompts/order-summary", o.route("prompt")).Methods(http.MethodGet)
		r.Handle("/mcp", endpoint(r, "")).Methods(http.MethodPost)
		return r, "/mcp", "", ""
	}},
}

func verifier(ctx context.Context, tok string, r *http.Request) (*auth.Principal, error) {
	if tok != token {
		return nil, auth.ErrInvalidToken
	}
	return &auth.Principal{Subject: "alice", Audience: []string{"http://127.0.0.1/mcp"}, ExpiresAt: time.Now().Add(time.Hour)}, nil
}

// newEndpoint registers the orders API as tools, a resource template and
// a prompt, all served by tools (the router), under prefix.
func newEndpoint(tools http.Handler, prefix string, opts ...mcp.HandlerOption) http.Handler {
	srv := mcp.NewServer(mcp.Implementation{Name: "orders", Version: "1.0.0"})
	obj := func(s string) json.RawMessage { return json.RawMessage(s) }
	byID := obj(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`)
	srv.AddTool(mcp.Tool{Name: "orders_list", InputSchema: obj(`{"type":"object","properties":{"status":{"type":"string"}}}`),
		Annotations: mcp.Annotations{ReadOnly: true, Idempotent: true}}, "GET "+prefix+"/orders", tools)
	srv.AddTool(mcp.Tool{Name: "orders_get", InputSchema: byID, Annotations: mcp.Annotations{ReadOnly: true, Idempotent: true}},
		"GET "+prefix+"/orders/{id}", tools)
	srv.AddTool(mcp.Tool{Name: "orders_create", InputSchema: obj(`{"type":"object","properties":{"item":{"type":"string"},"qty":{"type":"integer"}},"required":["item"]}`)},
		"POST "+prefix+"/orders", tools)
	srv.AddTool(mcp.Tool{Name: "orders_delete", InputSchema: byID, Annotations: mcp.Annotations{Destructive: true, Idempotent: true}},
		"DELETE "+prefix+"/orders/{id}", tools)
	srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "orders://{id}", Name: "order", MIMEType: "application/json"},
		"GET "+prefix+"/orders/{id}", tools)
	srv.AddPromptRoute(mcp.Prompt{Name: "order_summary", Arguments: []mcp.PromptArgument{{Name: "id", Required: true}}},
		"GET "+prefix+"/prompts/order-summary", tools)
	authn := auth.New(auth.Config{Verifier: auth.VerifierFunc(verifier), Resource: "http://127.0.0.1/mcp"})
	opts = append([]mcp.HandlerOption{mcp.WithAuth(authn)}, opts...)
	return mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, opts...)
}

var versions = []mcp.Version{mcp.Version20260728, mcp.Version20251125, mcp.Version20250618, mcp.Version20250326}

// confirm accepts a destructive tool's confirmation question.
func confirm(key string, req mcptest.InputRequest) (json.RawMessage, bool) {
	return json.RawMessage(`{"action":"accept","content":{"confirm":true}}`), true
}

// TestRouters runs the same tools, resource template and prompt on every
// router and mounting, in every revision. Each call must reach the route
// the network request of the same method and path reaches, and the route
// must see exactly what it would have seen from the network — method, path,
// escaping, path parameters (read the router's way), query and body — with
// the caller's identity mapped by the bridge.
func TestRouters(t *testing.T) {
	ctx := context.Background()
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			o := &orders{}
			handler, mcpPath, netPrefix, prefix := v.build(o, func(tools http.Handler, prefix string) http.Handler {
				return newEndpoint(tools, prefix, mcp.WithRouteRequest(bridge))
			})
			ts := httptest.NewServer(handler)
			defer ts.Close()

			// network does the equivalent request from the network and
			// returns what the route saw.
			network := func(t *testing.T, method, path, body string) report {
				t.Helper()
				req, _ := http.NewRequest(method, ts.URL+netPrefix+prefix+path, strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+token)
				if body != "" {
					req.Header.Set("Content-Type", "application/json")
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				o.mu.Lock()
				defer o.mu.Unlock()
				if len(o.seen) == 0 || resp.StatusCode >= 300 {
					t.Fatalf("network %s %s: status %d, no route ran", method, path, resp.StatusCode)
				}
				return o.seen[len(o.seen)-1]
			}
			last := func(t *testing.T) report {
				t.Helper()
				o.mu.Lock()
				defer o.mu.Unlock()
				if len(o.seen) == 0 {
					t.Fatal("no route ran")
				}
				return o.seen[len(o.seen)-1]
			}
			// same compares the in-process report with the network one.
			same := func(t *testing.T, got, net report, idem bool) {
				t.Helper()
				if !got.InProcess || got.User != "mcp:alice" || got.IdempotencyKey != idem {
					t.Errorf("in-process %v user %q idempotency key %v", got.InProcess, got.User, got.IdempotencyKey)
				}
				got.InProcess, got.User, got.IdempotencyKey = false, "", false
				net.User = ""
				if diff := cmp.Diff(net, got); diff != "" {
					t.Errorf("the route saw, in-process (+) against the network (-):\n%s", diff)
				}
			}
			for _, ver := range versions {
				t.Run(string(ver), func(t *testing.T) {
					c := mcptest.Dial(ts.URL+mcpPath, ver, mcptest.WithHeader("Authorization", "Bearer "+token),
						mcptest.WithCapabilities(json.RawMessage(`{"elicitation":{}}`)), mcptest.WithAnswers(confirm))
					tool := func(name string, args any) report {
						t.Helper()
						r, err := c.CallTool(ctx, name, args)
						if err != nil || r.Error != nil || strings.Contains(string(r.Result), `"isError":true`) {
							t.Fatalf("%s: %v %s", name, err, r.Raw)
						}
						return last(t)
					}
					same(t, tool("orders_list", map[string]any{"status": "open now"}), network(t, "GET", "/orders?status=open+now", ""), false)
					for _, id := range []string{"o-42", "a b", "a/b", "..%2Fadmin", "é"} {
						got := tool("orders_get", map[string]string{"id": id})
						same(t, got, network(t, "GET", "/orders/"+escape(id), ""), false)
						if got.Route != "get" {
							t.Errorf("id %q reached route %q", id, got.Route)
						}
					}
					same(t, tool("orders_create", map[string]any{"item": "pen", "qty": 2}), network(t, "POST", "/orders", `{"item":"pen","qty":2}`), false)

					r, err := c.CallTool(ctx, "orders_delete", map[string]string{"id": "o-42"})
					if ver == mcp.Version20260728 {
						if err != nil || r.Error != nil || strings.Contains(string(r.Result), `"isError":true`) {
							t.Fatalf("orders_delete: %v %s", err, r.Raw)
						}
						same(t, last(t), network(t, "DELETE", "/orders/o-42", ""), true)
					} else if err != nil || !strings.Contains(string(r.Result), "confirmation_required") {
						t.Errorf("orders_delete on %s: %v %s", ver, err, r.Raw)
					}

					r, err = c.ReadResource(ctx, "orders://o%2F1")
					if err != nil || r.Error != nil {
						t.Fatalf("resources/read: %v %s", err, r.Raw)
					}
					same(t, last(t), network(t, "GET", "/orders/o%2F1", ""), false)

					r, err = c.GetPrompt(ctx, "order_summary", map[string]string{"id": "o-42"})
					if err != nil || r.Error != nil {
						t.Fatalf("prompts/get: %v %s", err, r.Raw)
					}
					same(t, last(t), network(t, "GET", "/prompts/order-summary?id=o-42", ""), false)
				})
			}
		})
	}
}

// escape encodes one path segment as a client would.
func escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteString("%" + strings.ToUpper(string("0123456789abcdef"[c>>4])+string("0123456789abcdef"[c&15])))
	}
	return b.String()
}

// TestIdentity_WithoutBridge: without the identity bridge the host's
// middleware refuses the in-process call (it carries no token), the tool
// answers isError with the route's body, and the server logs one warning
// naming the tool — on every router.
func TestIdentity_WithoutBridge(t *testing.T) {
	ctx := context.Background()
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			o := &orders{}
			var log syncbuf.Buffer
			logger := slog.New(slog.NewTextHandler(&log, nil))
			handler, mcpPath, _, _ := v.build(o, func(tools http.Handler, prefix string) http.Handler {
				return newEndpoint(tools, prefix, mcp.WithLogger(logger))
			})
			ts := httptest.NewServer(handler)
			defer ts.Close()
			c := mcptest.Dial(ts.URL+mcpPath, mcp.Version20260728, mcptest.WithHeader("Authorization", "Bearer "+token))
			for range 2 {
				r, err := c.CallTool(ctx, "orders_get", map[string]string{"id": "o-42"})
				if err != nil || r.Error != nil || !strings.Contains(string(r.Result), `"isError":true`) ||
					!strings.Contains(string(r.Result), "unauthorized") {
					t.Fatalf("orders_get: %v %s", err, r.Raw)
				}
			}
			if len(o.seen) != 0 {
				t.Errorf("the route ran without an identity: %+v", o.seen)
			}
			out := log.String()
			if strings.Count(out, "did not see an identity it accepts") != 1 || !strings.Contains(out, "target=orders_get") {
				t.Errorf("want one warning naming orders_get:\n%s", out)
			}
		})
	}
}
