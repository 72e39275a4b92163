package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/content"
	"github.com/mcpdual/mcpdual/mcp/task"
)

// The quick start: an existing REST route exposed as an MCP tool on /mcp.
func Example() {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/greetings/{name}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"greeting": "Hello, " + r.PathValue("name") + "!"})
	})

	srv := mcp.NewServer(mcp.Implementation{Name: "hello", Version: "1.0.0"})
	srv.AddTool(mcp.Tool{
		Name:        "greet",
		Description: "Greets someone by name.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
		Annotations: mcp.Annotations{ReadOnly: true, Idempotent: true},
	}, "GET /api/greetings/{name}", mux)
	mcp.AddToolFunc(srv, mcp.Tool{Name: "add", Description: "Adds two integers."},
		func(ctx context.Context, in struct{ A, B int }) (struct{ Sum int }, error) {
			return struct{ Sum int }{in.A + in.B}, nil
		})
	mux.Handle("/mcp", mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}))

	server := &http.Server{Addr: "127.0.0.1:8090", Handler: mux, ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout: 30 * time.Second, WriteTimeout: 60 * time.Second, IdleTimeout: 2 * time.Minute}
	// The README serves with server.ListenAndServe(); here the same server
	// runs on a port the system picks.
	ts := httptest.NewUnstartedServer(mux)
	ts.Config = server
	ts.Start()
	defer ts.Close()

	// A 2025-06-18 client (no _meta envelope).
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}}}`
	req, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, string(out))

	// The function tool: its schemas come from its types, its result is
	// structured.
	body = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"A":2,"B":3}}}`
	req, _ = http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	out, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, string(out))
	// Output:
	// 200 {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"greeting\":\"Hello, Ada!\"}"}]}}
	// 200 {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"Sum\":5}"}],"structuredContent":{"Sum":5}}}
}

// A tool handler reads the call it serves from its request's context.
func ExampleCallFromContext() {
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		call := mcp.CallFromContext(r.Context())
		fmt.Fprintf(w, `{"tool":%q,"revision":%q}`, call.Target(), call.ProtocolVersion())
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "demo", Version: "1.0.0"})
	srv.AddTool(mcp.Tool{Name: "whoami"}, "GET /whoami", handler)
	h := mcp.NewHandler(srv, []mcp.Era{era2025.New()})

	req := httptest.NewRequest("POST", "http://localhost/mcp",
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami"}}`))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	fmt.Println(rec.Body.String())
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"tool\":\"whoami\",\"revision\":\"2025-06-18\"}"}]}}
}

// An endpoint behind bearer authentication, with the Protected Resource
// Metadata mounted beside it. Requests without a token get the challenge
// that starts the client's OAuth login; the tool sees the verified
// principal, never the token.
func ExampleWithAuth() {
	verifier := auth.VerifierFunc(func(ctx context.Context, token string, r *http.Request) (*auth.Principal, error) {
		if token != "dev-token" { // a real verifier checks a JWT or introspects
			return nil, auth.ErrInvalidToken
		}
		return &auth.Principal{Issuer: "https://login.example.com", Subject: "ada",
			Audience: []string{"https://mcp.example.com/mcp"}, Scopes: []string{"notes:read"},
			ExpiresAt: time.Now().Add(time.Hour)}, nil
	})
	a := auth.New(auth.Config{Verifier: verifier, Resource: "https://mcp.example.com/mcp", Scopes: []string{"notes:read"}})

	srv := mcp.NewServer(mcp.Implementation{Name: "notes", Version: "1.0.0"})
	srv.AddTool(mcp.Tool{Name: "whoami"}, "GET /whoami", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"subject":%q,"authorization":%q}`, auth.FromContext(r.Context()).Subject, r.Header.Get("Authorization"))
	}), mcp.RequireScopes("notes:read"))

	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, mcp.WithAuth(a)))
	prm := auth.NewMetadataHandler(auth.ResourceMetadata{
		Resource:             "https://mcp.example.com/mcp",
		AuthorizationServers: []string{"https://login.example.com"},
		ScopesSupported:      []string{"notes:read"},
	})
	for _, p := range auth.MetadataPaths("https://mcp.example.com/mcp") {
		mux.Handle(p, prm)
	}

	post := func(token string) {
		req := httptest.NewRequest("POST", "http://localhost/mcp",
			strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami"}}`))
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		if c := rec.Header().Get("WWW-Authenticate"); c != "" {
			fmt.Println(rec.Code, c)
		} else {
			fmt.Println(rec.Code)
		}
		fmt.Println(rec.Body.String())
	}
	post("")
	post("dev-token")
	// Output:
	// 401 Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="notes:read"
	// {"jsonrpc":"2.0","error":{"code":-31401,"message":"Authentication required","data":{"reason":"unauthorized"}}}
	// 200
	// {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"subject\":\"ada\",\"authorization\":\"\"}"}]}}
}

// A resource template served by an existing route: the {id} of the URI
// fills the route's {id}, escaped as one path segment.
func ExampleServer_AddResourceTemplate() {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/emails/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "Email %s", r.PathValue("id"))
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "inbox", Version: "1.0.0"})
	srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "inbox://emails/{id}", Name: "email"}, "GET /api/emails/{id}", mux)
	h := mcp.NewHandler(srv, []mcp.Era{era2025.New()})

	req := httptest.NewRequest("POST", "http://localhost/mcp",
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"inbox://emails/e%2F1"}}`))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	fmt.Println(rec.Body.String())
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"inbox://emails/e%2F1","mimeType":"text/plain","text":"Email e/1"}]}}
}

// A prompt rendered by a Go function, with completions for its argument.
func ExampleServer_AddPrompt() {
	srv := mcp.NewServer(mcp.Implementation{Name: "inbox", Version: "1.0.0"})
	srv.AddPrompt(mcp.Prompt{Name: "summarize", Arguments: []mcp.PromptArgument{{Name: "folder", Required: true}}},
		func(ctx context.Context, args map[string]string) (*mcp.PromptResult, error) {
			return &mcp.PromptResult{Messages: []mcp.PromptMessage{
				{Role: content.User, Content: content.Text("Summarize the folder " + mcp.Quote(args["folder"]) + ".")},
			}}, nil
		},
		mcp.WithCompletion("folder", func(ctx context.Context, value string, args map[string]string) ([]string, error) {
			return []string{"inbox", "archive"}, nil
		}))
	h := mcp.NewHandler(srv, []mcp.Era{era2025.New()})

	req := httptest.NewRequest("POST", "http://localhost/mcp",
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"summarize","arguments":{"folder":"inbox"}}}`))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	fmt.Println(rec.Body.String())
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"messages":[{"role":"user","content":{"type":"text","text":"Summarize the folder \"inbox\"."}}]}}
}

// A tool handler asks the user for input over MCP 2026-07-28: it answers
// "input required", and on the client's retry reads the answer and the
// state it sealed.
func ExampleCall_RequireInput() {
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		call := mcp.CallFromContext(r.Context())
		if ans, ok := call.Elicitation("name"); ok && ans.Action == mcp.ElicitAccept {
			fmt.Fprintf(w, `{"answer":%s,"state":%q}`, ans.Content, call.State())
			return
		}
		call.RequireInput([]byte("asked-once"), mcp.ElicitForm("name", "What is your name?",
			json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)))
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "demo", Version: "1.0.0"})
	srv.AddTool(mcp.Tool{Name: "hello"}, "GET /hello", handler)
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New()})

	post := func(id int, extra string) map[string]any {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"hello",%s"_meta":{`+
			`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}`, id, extra)
		req := httptest.NewRequest("POST", "http://localhost/mcp", strings.NewReader(body))
		req.Header = http.Header{"Content-Type": {"application/json"}, "Mcp-Protocol-Version": {"2026-07-28"},
			"Mcp-Method": {"tools/call"}, "Mcp-Name": {"hello"}}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var out struct{ Result map[string]any }
		json.Unmarshal(rec.Body.Bytes(), &out)
		return out.Result
	}
	first := post(1, "")
	fmt.Println(first["resultType"])
	state, _ := json.Marshal(first["requestState"])
	second := post(2, `"requestState":`+string(state)+`,"inputResponses":{"name":{"action":"accept","content":{"name":"Ada"}}},`)
	fmt.Println(second["resultType"], second["content"])
	// Output:
	// input_required
	// complete [map[text:{"answer":{"name":"Ada"},"state":"asked-once"} type:text]]
}

// A route that answers 202 with a Location becomes a task for a client
// that takes one; tasks/get reads the job through its status route.
func ExampleWithTask() {
	var mu sync.Mutex
	done := false
	mux := http.NewServeMux()
	mux.HandleFunc("POST /reports", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "/jobs/r1")
		w.WriteHeader(http.StatusAccepted)
	})
	mux.HandleFunc("GET /jobs/{id}", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if done {
			io.WriteString(w, `{"status":"completed","result":"42 rows"}`)
			return
		}
		io.WriteString(w, `{"status":"working"}`)
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "demo", Version: "1.0.0"})
	srv.AddTool(mcp.Tool{Name: "report"}, "POST /reports", mux, mcp.WithTask(task.Config{Status: "GET /jobs/{id}"}))
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New()})

	post := func(method, name, params string) map[string]any {
		body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + params + `,"_meta":{` +
			`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` +
			`{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`
		req := httptest.NewRequest("POST", "http://localhost/mcp", strings.NewReader(body))
		req.Header = http.Header{"Content-Type": {"application/json"}, "Mcp-Protocol-Version": {"2026-07-28"},
			"Mcp-Method": {method}, "Mcp-Name": {name}}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var out struct{ Result map[string]any }
		json.Unmarshal(rec.Body.Bytes(), &out)
		return out.Result
	}
	created := post("tools/call", "report", `"name":"report","arguments":{}`)
	id := created["taskId"].(string)
	fmt.Println(created["resultType"], created["status"])
	fmt.Println(post("tasks/get", id, `"taskId":"`+id+`"`)["status"])
	mu.Lock()
	done = true
	mu.Unlock()
	got := post("tasks/get", id, `"taskId":"`+id+`"`)
	fmt.Println(got["status"], got["result"].(map[string]any)["content"])
	// Output:
	// task working
	// working
	// completed [map[text:42 rows type:text]]
}

// A server shutting down calls Close, so that the notification streams,
// which never go idle, end and Shutdown can finish; their clients listen
// again on another replica.
func ExampleHandler_Close() {
	srv := mcp.NewServer(mcp.Implementation{Name: "notes", Version: "1.0.0"})
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()},
		mcp.WithChangeNotifications(mcp.ChangeNotifications{}))
	server := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	server.RegisterOnShutdown(func() { h.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	go server.Serve(ln)

	// A 2026-07-28 client listens for changes of the tool list.
	body := `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}}}`
	req, _ := http.NewRequest("POST", "http://"+ln.Addr().String(), strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	events := bufio.NewScanner(resp.Body)
	next := func() string {
		for events.Scan() {
			if data, ok := strings.CutPrefix(events.Text(), "data: "); ok {
				var m struct {
					Method string `json:"method"`
				}
				json.Unmarshal([]byte(data), &m)
				if m.Method != "" {
					return m.Method
				}
				return "the listen's result"
			}
		}
		return "the end of the stream"
	}
	fmt.Println(next())

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	fmt.Println("shutdown:", server.Shutdown(ctx))
	fmt.Println(next())
	// Output:
	// notifications/subscriptions/acknowledged
	// shutdown: <nil>
	// the listen's result
}
