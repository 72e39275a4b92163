package openapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/mcptest"
	"github.com/mcpdual/mcpdual/mcp/openapi"
)

const greetings = `
openapi: 3.0.3
info: {title: Greetings, version: "1"}
servers: [{url: /api}]
paths:
  /greetings/{name}:
    get:
      operationId: greet
      summary: Greet someone
      description: Returns a greeting for name.
      parameters:
        - {name: name, in: path, required: true, schema: {type: string, maxLength: 40}}
        - {name: formal, in: query, schema: {type: boolean}}
      responses:
        "200":
          description: The greeting
          content:
            application/json:
              schema:
                type: object
                required: [greeting]
                properties:
                  greeting: {type: string}
`

// A route described by an OpenAPI document becomes a tool without a
// hand-written definition: its name, schemas and hints come from the
// document, and calls run the route in-process.
func ExampleRegister() {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/greetings/{name}", func(w http.ResponseWriter, r *http.Request) {
		greeting := "Hi, " + r.PathValue("name") + "!"
		if r.URL.Query().Get("formal") == "true" {
			greeting = "Good day, " + r.PathValue("name") + "."
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"greeting": greeting})
	})

	srv := mcp.NewServer(mcp.Implementation{Name: "greetings", Version: "1.0.0"})
	report, err := openapi.Register(srv, []byte(greetings), mux)
	if err != nil {
		panic(err)
	}
	fmt.Println("tools:", report.Tools[0].Name)
	mux.Handle("/mcp", mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}))

	ts := httptest.NewServer(mux)
	defer ts.Close()
	c := mcptest.Dial(ts.URL+"/mcp", mcp.Version20250618)
	list, _ := c.Call(context.Background(), "tools/list", nil)
	fmt.Println(string(list.Result))
	res, _ := c.CallTool(context.Background(), "greet", map[string]any{"name": "Ada", "formal": true})
	fmt.Println(string(res.Result))
	// Output:
	// tools: greet
	// {"tools":[{"name":"greet","title":"Greet someone","description":"Returns a greeting for name.","inputSchema":{"type":"object","properties":{"name":{"type":"string","maxLength":40},"formal":{"type":"boolean"}},"required":["name"],"additionalProperties":false},"outputSchema":{"type":"object","required":["greeting"],"properties":{"greeting":{"type":"string"}}},"annotations":{"readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}]}
	// {"content":[{"type":"text","text":"{\"greeting\":\"Good day, Ada.\"}"}],"structuredContent":{"greeting":"Good day, Ada."}}
}

// What cannot be a tool is skipped and reported, with the JSON pointer of
// the construct; with FailUnsupported it fails registration instead.
func ExampleFailUnsupported() {
	spec := `
openapi: 3.0.3
info: {title: Files, version: "1"}
paths:
  /files:
    get:
      operationId: files_list
      responses: {"200": {description: The files}}
    post:
      operationId: files_upload
      requestBody:
        content:
          multipart/form-data:
            schema: {type: object, properties: {file: {type: string, format: binary}}}
      responses: {"201": {description: Stored}}
`
	srv := mcp.NewServer(mcp.Implementation{Name: "files", Version: "1.0.0"})
	_, err := openapi.Register(srv, []byte(spec), http.NotFoundHandler(), openapi.FailUnsupported())
	fmt.Println(err)

	report, _ := openapi.Register(srv, []byte(spec), http.NotFoundHandler())
	fmt.Println("registered:", report.Tools[0].Name)
	fmt.Println("skipped:", report.Skipped[0].OperationID, "-", report.Skipped[0].Reason)
	// Output:
	// openapi: POST /files (files_upload): /paths/~1files/post/requestBody/content: request bodies of type multipart/form-data are not supported: a tool sends JSON or application/x-www-form-urlencoded bodies
	// registered: files_list
	// skipped: files_upload - /paths/~1files/post/requestBody/content: request bodies of type multipart/form-data are not supported: a tool sends JSON or application/x-www-form-urlencoded bodies
}

// What a document cannot say is said in Go: this POST deletes, and the
// user confirms it with a message built from the call.
func ExampleWithOverride() {
	spec := `
openapi: 3.0.3
info: {title: Jobs, version: "1"}
paths:
  /jobs/{id}/purge:
    post:
      operationId: jobs_purge
      summary: Purge a job
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses: {"204": {description: Purged}}
`
	srv := mcp.NewServer(mcp.Implementation{Name: "jobs", Version: "1.0.0"})
	report, err := openapi.Register(srv, []byte(spec), http.NotFoundHandler(),
		openapi.WithOverride("jobs_purge", openapi.Override{
			Name:        "purge_job",
			Annotations: &mcp.Annotations{Destructive: true, Idempotent: true},
			Options: []mcp.ItemOption{mcp.ConfirmWith(func(ctx context.Context, call *mcp.Call) (string, error) {
				var args struct{ ID string }
				json.Unmarshal(call.Arguments(), &args)
				return "Purge job " + mcp.Quote(args.ID) + " and its logs?", nil
			})},
		}))
	if err != nil {
		panic(err)
	}
	fmt.Println(report.Tools[0].Operation, "->", report.Tools[0].Name)
	// Output:
	// POST /jobs/{id}/purge -> purge_job
}

// Names come from operationIds a tool name cannot hold, or from the
// method and path; WithNamer applies a host's own convention instead.
func ExampleWithNamer() {
	spec := `
openapi: 3.0.3
info: {title: Repos, version: "1"}
paths:
  /repos/{owner}/{repo}:
    get:
      operationId: repos/get
      parameters:
        - {name: owner, in: path, required: true, schema: {type: string}}
        - {name: repo, in: path, required: true, schema: {type: string}}
      responses: {"200": {description: The repository}}
  /meta:
    get:
      responses: {"200": {description: Meta}}
`
	srv := mcp.NewServer(mcp.Implementation{Name: "repos", Version: "1.0.0"})
	report, _ := openapi.Register(srv, []byte(spec), http.NotFoundHandler())
	for _, t := range report.Tools {
		fmt.Println(t.Operation, "->", t.Name)
	}

	srv = mcp.NewServer(mcp.Implementation{Name: "repos", Version: "1.0.0"})
	report, _ = openapi.Register(srv, []byte(spec), http.NotFoundHandler(),
		openapi.WithNamer(func(op openapi.Operation) string {
			if op.OperationID == "" {
				return "" // the rule's name
			}
			return "github." + strings.ReplaceAll(op.OperationID, "/", ".")
		}))
	for _, t := range report.Tools {
		fmt.Println(t.Operation, "->", t.Name)
	}
	// Output:
	// GET /repos/{owner}/{repo} -> repos_get
	// GET /meta -> get_meta
	// GET /repos/{owner}/{repo} -> github.repos.get
	// GET /meta -> get_meta
}
