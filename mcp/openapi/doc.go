// Package openapi registers a REST API as MCP tools from its OpenAPI 3.0
// or 3.1 document: each selected operation becomes a tool served by the
// host's own handler, in-process, through [mcp.Server.AddTool], so a
// service that already describes its API does not write a definition and
// a JSON Schema by hand for each tool.
//
//	report, err := openapi.Register(srv, spec, mux,
//		openapi.WithTags("emails"),
//		openapi.WithOverride("emails_reprocess", openapi.Override{
//			Annotations: &mcp.Annotations{Destructive: true, Idempotent: true},
//		}))
//
// # What a tool gets from its operation
//
//   - Name, title, description: operationId, summary, description.
//   - Input schema: the path and query parameters (with their
//     descriptions) and the properties of a JSON or form object body, in
//     document order; a body that is not a plain object (an array, an
//     allOf...) is one argument named "body", sent as the whole JSON body.
//     Arguments are placed back where the document says (mcp.WithPlacement).
//   - Output schema: the JSON object schema of the 2xx answer, when every
//     2xx answer has it.
//   - Annotations: GET and HEAD read-only and idempotent, PUT and DELETE
//     idempotent, DELETE destructive (the library then asks the user to
//     confirm, unless mcp.WithoutConfirmation is given), never open-world.
//   - Scopes: the security requirements' OAuth scopes, as mcp.RequireScopes.
//
// Overrides ([WithOverride]) change what the document cannot say, such as
// a destructive POST or a confirmation message (mcp.ConfirmWith). GET
// operations can also be read as resources ([WithResource],
// [WithResourceTemplate]).
//
// # Schemas
//
// Each tool schema is one self-contained JSON Schema 2020-12 document:
// every schema a $ref names is copied into its $defs and the $ref
// rewritten, so it validates offline. OpenAPI 3.0 schemas are converted:
// nullable becomes a "null" type, boolean exclusiveMinimum and
// exclusiveMaximum become the numeric bound, example becomes examples; a
// keyword 3.0 does not have is an error. OpenAPI 3.1 schemas are 2020-12
// already. readOnly properties are left out of inputs and writeOnly ones
// out of outputs, as OpenAPI says they are never sent that way. The
// OpenAPI-only annotations discriminator, xml and externalDocs, and x-
// extensions other than x-mcp-header, are left out.
//
// # What fails
//
// Nothing is dropped silently. What a tool cannot do as the document says
// fails at registration, with the operation and the JSON pointer of the
// construct: a required header or cookie parameter (a tool's route gets
// none from the client), a multipart or other non-JSON, non-form body, a
// query parameter serialized otherwise than the library sends it
// (comma-separated or deepObject), a path wildcard that is not a string or
// integer, a $ref outside the document, alternative security requirements
// with different scopes, methods other than GET, HEAD, POST, PUT, PATCH
// and DELETE. [SkipUnsupported] skips such operations instead and lists
// them, with the reason, in the [Report]; what a tool leaves out on
// purpose (an optional header) is listed in its notes. Webhooks and
// callbacks describe requests the API sends, not routes it serves, and
// are never tools.
//
// # Why libopenapi
//
// The document is read with github.com/pb33f/libopenapi, which reads
// OpenAPI 3.0, 3.1 (and 3.2) into one model, keeps the document's order
// (paths, operations, properties: the tools and their schemas read like
// the document, and golden files stay stable), keeps every value as the
// YAML node written (a const null or a large integer survives), exposes
// each reference before it is resolved (so it can be copied into $defs),
// and fetches no file or URL unless asked. kin-openapi, the other
// candidate, holds paths and properties in Go maps, which loses that order.
package openapi
