// Package schema is the module's only user of
// github.com/santhosh-tekuri/jsonschema/v6. It checks tool schemas at
// registration, compiles each distinct one once (then, or on first use for
// the plain documents generators write), and validates values against them.
//
// Schemas without "$schema" are JSON Schema 2020-12, the MCP default. No
// "$ref" is ever fetched: the compiler has no loader, so a reference outside
// the document fails at registration instead of reaching the network or the
// file system. Validation failures come back as plain strings (a location
// and a reason) so no type of the dependency crosses the package boundary.
package schema
