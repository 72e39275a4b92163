// Package typeschema builds a tool's input or output schema from a Go
// type, for hosts that have no OpenAPI document: the struct a route
// decodes its request into, or encodes its answer from, already says
// what the schema should.
//
//	srv.AddTool(mcp.Tool{
//		Name:         "notes_add",
//		InputSchema:  typeschema.MustFor[AddNote](),
//		OutputSchema: typeschema.MustFor[Note](),
//	}, "POST /api/notes", mux)
//
// The inference is github.com/google/jsonschema-go's, the library the
// official MCP Go SDK uses for the same purpose: a property per exported
// field under its json name (json:"-" fields are left out), required
// unless the field is omitempty or omitzero, described by the field's
// jsonschema tag, no properties beyond the struct's (additionalProperties
// false), pointers nullable, time.Time a string. The result is JSON Schema
// 2020-12, which AddTool compiles and every call is validated against.
package typeschema
