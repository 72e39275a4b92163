// Package typeschema builds a tool's input or output schema from a Go
// type: the struct a route decodes its request into, or encodes its answer
// from, already says what the schema should. mcp.AddToolFunc uses the same
// rules for a function's argument and result types.
//
//	srv.AddTool(mcp.Tool{
//		Name:         "notes_add",
//		InputSchema:  typeschema.MustFor[AddNote](),
//		OutputSchema: typeschema.MustFor[Note](),
//	}, "POST /api/notes", mux)
//
// The schema is JSON Schema 2020-12 and follows encoding/json, so what the
// schema admits decodes into the type and what the type encodes validates:
//
//   - A property per exported field under its json name; json:"-" fields
//     are left out; the fields of an embedded struct without a json name
//     are promoted, as encoding/json promotes them. No property beyond
//     the struct's is admitted ("additionalProperties": false).
//   - A field is required unless it is omitempty or omitzero (or
//     promoted through an embedded pointer). A pointer field without
//     omitempty or omitzero is required and nullable: encoding/json
//     writes nil there as null and decodes null into it. With omitempty
//     or omitzero a pointer is optional and not nullable (nil is left
//     out).
//   - Types: bool "boolean"; integers "integer" (unsigned ones with
//     "minimum": 0, 8- to 32-bit ones with their range); floats "number"; strings "string"; []byte a base64
//     "string"; slices and arrays "array" (never null: mcp.AddToolFunc sends
//     a nil slice as []); maps with string, integer or text keys "object"
//     with "additionalProperties"; time.Time a "date-time" string;
//     json.RawMessage, interfaces and types with their own MarshalJSON
//     any value (an anyOf naming every JSON type); other
//     encoding.TextMarshaler types "string"; a ",string" field "string".
//   - A struct type used in more than one place, or inside itself, is
//     described once under "$defs" and referred to with "$ref" ("#" for
//     the root type); one used once is written in place. So is a named
//     map or slice type that holds itself with no struct between (type
//     Tree map[string]Tree). The work and the schema grow with the number
//     of distinct types, however deeply they nest.
//   - A json tag name encoding/json ignores (one holding a quote or a
//     backslash) is ignored here too: the member is named after the field.
//     A ",string" field is a string where encoding/json quotes it: a
//     scalar, or an unnamed pointer to one.
//   - A pointer inside a slice or map may be null there (encoding/json
//     writes nil as null and nothing can leave an item out), as may a
//     pointer field without omitempty. Nothing else admits null unless
//     the field says so (the nullable key below).
//     Null is admitted with anyOf branches of one type each, never with a
//     type array, and no schema is the bare {}: the schemas raise no
//     warning in the MCP Inspector's strict mode (.ci/schema-strict.sh).
//
// The jsonschema tag is the field's description, as in the official MCP
// Go SDK:
//
//	Country string `json:"country" jsonschema:"ISO 3166-1 alpha-2 code"`
//
// The mcp tag adds constraints, as comma-separated keys:
//
//	Status string   `json:"status" mcp:"enum=draft|sent|archived,default=draft"`
//	Limit  int      `json:"limit,omitempty" mcp:"minimum=1,maximum=100,example=20"`
//	Email  string   `json:"email" mcp:"format=email,maxLength=254"`
//	Code   string   `json:"code" mcp:"pattern=^[A-Z]{2}$"`
//	Tags   []string `json:"tags" mcp:"maxItems=10,uniqueItems,minLength=1"`
//	Note   []string `json:"note" mcp:"nullable"`
//
// Keys: enum (values separated by |), minimum, maximum,
// exclusiveMinimum, exclusiveMaximum, minLength, maxLength, pattern,
// format, minItems, maxItems, uniqueItems, default, example (repeatable:
// the schema's "examples"), title, and nullable (the field also admits
// null). On a slice or array field the value keywords (enum, bounds,
// lengths, pattern, format) apply to its items and minItems, maxItems and
// uniqueItems to the array. Values of enum, default and example are
// written as the field's type takes them (text for strings, numbers,
// true/false); for other types they are JSON. A comma inside a value is
// written \, and a | inside an enum value \|; other backslashes are kept
// (a pattern's \d stays \d). A key that does not fit the field's type, an
// unknown key or a value of the wrong type is an error naming the field.
package typeschema
