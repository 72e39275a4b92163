// Package auth is the resource-server side of MCP authorization: it parses
// the bearer credential, lets the host verify it, enforces expiry and
// audience, builds every WWW-Authenticate challenge, resolves the
// X-Workspace-Id workspace and serves the RFC 9728 Protected Resource
// Metadata document.
//
// The host supplies what only it can know — how a token is verified (JWT,
// introspection, anything), which workspaces a person belongs to, and
// person-level permissions — through small interfaces. Everything that
// decides security on the wire (parsing, the fail-closed audience check,
// the challenges, what is logged) stays in this package, so every host
// gets the same answers.
//
// An Authenticator is passed to mcp.WithAuth. Tool handlers read the
// verified identity with FromContext and WorkspaceFromContext; the bearer
// token itself never reaches them.
package auth
