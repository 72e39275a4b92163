package typeschema_test

import (
	"fmt"
	"net/http"

	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/typeschema"
)

// A tool's schemas from the structs its route already decodes and encodes.
func ExampleFor() {
	type Greeting struct {
		Name   string `json:"name" jsonschema:"Who to greet"`
		Formal bool   `json:"formal,omitempty"`
	}
	schema, err := typeschema.For[Greeting]()
	if err != nil {
		panic(err)
	}
	fmt.Println(string(schema))

	srv := mcp.NewServer(mcp.Implementation{Name: "greetings", Version: "1.0.0"})
	srv.AddTool(mcp.Tool{Name: "greet", InputSchema: schema}, "POST /greetings", http.NotFoundHandler())
	// Output:
	// {"type":"object","properties":{"name":{"type":"string","description":"Who to greet"},"formal":{"type":"boolean"}},"required":["name"],"additionalProperties":false}
}

// MustFor suits registration code, where a type that cannot be a schema
// is a programming error.
func ExampleMustFor() {
	type Note struct {
		ID   string `json:"id"`
		Text string `json:"text"`
	}
	srv := mcp.NewServer(mcp.Implementation{Name: "notes", Version: "1.0.0"})
	srv.AddTool(mcp.Tool{Name: "notes_get", OutputSchema: typeschema.MustFor[Note]()}, "GET /notes/latest", http.NotFoundHandler())
	fmt.Println(string(typeschema.MustFor[Note]()))
	// Output:
	// {"type":"object","properties":{"id":{"type":"string"},"text":{"type":"string"}},"required":["id","text"],"additionalProperties":false}
}
