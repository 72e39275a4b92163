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
//   - Name: the operationId made a valid tool name, or the method and
//     path (see Names); title and description: summary and description.
//   - Input schema: the path and query parameters (with their
//     descriptions) and the properties of a JSON or form object body, in
//     document order; a body that is not a plain object (an array, an
//     allOf...) is one argument named "body", sent as the whole JSON body.
//     Arguments are placed back where the document says (mcp.WithPlacement).
//   - Output schema: the JSON object schema of the 2xx answer, when every
//     2xx answer has it; each answer is checked against it as
//     [WithOutputSchemas] says (a mismatch is a tool error that says the
//     answer did not match the document, by default).
//   - Annotations: GET and HEAD read-only and idempotent, PUT and DELETE
//     idempotent, DELETE destructive (the library then asks the user to
//     confirm, unless mcp.WithoutConfirmation is given), never open-world.
//   - Confirmation of a destructive tool: a question that names the
//     operation and quotes its path parameters and short required body
//     fields ([WithConfirm] writes your own).
//   - Scopes: the security requirements' OAuth scopes, as mcp.RequireScopes.
//     Of alternative requirements (any one of them suffices), the first is
//     required, since RequireScopes demands one list and a challenge names
//     one; the Report notes it, and Override.Scopes chooses another.
//
// # Names
//
// A tool is named by Override.Name, else by [WithNamer], else by the
// operationId with each run of characters a tool name cannot hold
// replaced by "_" ("repos/get" -> "repos_get"), else (no operationId) by
// the lower-case method and the path's segments ("GET /pets/{id}" ->
// "get_pets_id"). A name over 128 characters keeps 119 and ends in "_"
// and 8 hex digits of its SHA-256. When two tools would share a name, the
// first in registration order keeps it and the next ends in "_" and 8 hex
// digits of the SHA-256 of its "METHOD /path", noted in its Report entry:
// the same document gives the same names on every run.
//
// # Arguments
//
// Path parameters may be strings, integers, numbers, booleans, or a oneOf
// or anyOf of those (GitHub's workflow_id: an id or a file name). A body
// property named like a parameter becomes the argument body_<name> (the
// parameter keeps the name; the Report notes it) and goes back to its
// name in the body the route gets. A readOnly property is left out of
// the input schema as before and also declared false there, so a caller
// that sends it anyway is refused before the route (an open body object
// would otherwise pass it on). A POST, PUT or PATCH the document gives no
// request body is sent without one. Query parameters and form fields are
// sent as the document's style says: arrays with explode false joined by
// "," (form), " " (spaceDelimited) or "|" (pipeDelimited); deepObject
// objects as name[key]=value, nested as deep as the value, and deepObject
// arrays as name[0]=value (the bracket form Rails, PHP and Stripe read).
// What that form makes of one call is at most 1 MiB of names and values
// (each value's name repeats the keys above it); a call past it is the
// tool's error, and the API is not called.
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
// # What is skipped
//
// Nothing is dropped silently. An operation a tool cannot serve as the
// document says is skipped and listed in Report.Skipped with the JSON
// pointer of the construct: a required header or cookie parameter (a
// tool's route gets none from the client), a multipart or other non-JSON,
// non-form body, an object query parameter or form field without a way
// to send it (style deepObject, or content or encoding application/json),
// a $ref outside the document. So is an operation the server refuses as
// a tool (mcp.Server.Check), with the server's reason: a path segment
// that is not one whole parameter ("{base}...{head}"), a path parameter
// of another type than string, integer, number or boolean, a method other
// than GET, HEAD, POST, PUT, PATCH and DELETE. The rules of routes and
// names are the server's; this package does not repeat them.
// [FailUnsupported] makes Register fail instead, with every problem listed;
// a mistake in the host's own options (an Override.Name or namer's name
// the server refuses, an override's invalid scope) always fails, as does
// a tool name the server already has. What a tool leaves out on purpose
// (an optional header) is listed in its notes.
// Webhooks and callbacks describe requests the API sends, not routes it
// serves, and are never tools.
//
// # Reading the document
//
// The document is read by a small reader of this package into a tree of
// nodes that keeps the document's order (paths, operations, properties:
// the tools and their schemas read like the document, and golden files
// stay stable) and every value as written (a const null or a large
// integer survives); JSON, what large generated documents are, is read in
// one pass over the bytes, YAML through go-yaml. Nothing is fetched: a
// $ref outside the document is reported at the operation that uses it.
// Only what tools need is taken from the tree, and the tree is garbage
// once Register returns: GitHub's 13 MB document (1,223 operations)
// registers in about 0.3 s with a peak under 100 MB (see
// .ci/openapi-github.sh). With libopenapi, which read documents before,
// the same registration peaked at about 500 MB.
package openapi
