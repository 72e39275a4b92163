// Package seam is what the core (package mcp) and the eras (era2025,
// era2026) share, and nothing else: the method table's row type, the
// request the core hands an era, the result an era stamps, the failures an
// era reports and the hooks an era plugs in. It lives under internal so
// that none of it is part of the public API: users pick eras
// (era2026.New(), era2025.New()) and pass them to mcp.NewHandler, and never
// see how they reach the core.
//
// The core owns the pipeline, written once: era selection, the method
// table, dispatch, errors and their HTTP statuses, encoding. An era owns
// only what differs between revisions: its envelope checks, its own
// methods (initialize, server/discover), and what it adds to results.
package seam
