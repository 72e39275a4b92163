// Package seam is what the core (package mcp) and the eras (era2025,
// era2026) share: each revision's profile (its features, the names of
// the method-table rows it has, its statuses; the rows themselves are the
// core's), the request the core hands an era, the results an era stamps,
// the failures an era reports, and the Era interface the core calls.
//
// It lives under internal, so no other module can import it: a user picks
// eras (era2026.New(), era2025.New()) and passes them to mcp.NewHandler.
// The eras' exported Seam methods do return its Era interface, so a
// program outside this module can call those hooks through the value it is
// handed (they are not secret, only unnamed). It cannot replace them, since
// an interface has no fields to assign. Nor can it implement Era, though a
// generic type of its own can match every hook's signature without naming
// a type (its type parameters inferred from a real era's method values):
// Era also has an unexported method, which a type only gets by embedding
// Mark, which no other module can name. What Profiles returns is a copy.
//
// The core owns the pipeline, written once: era selection, the method
// table, dispatch, errors and their HTTP statuses, encoding. Each revision
// is data the core reads (Profile: what its wire allows, which methods it
// has, its statuses); the core branches on that data, never on which era
// a request is in. An era owns its profiles and its ladder: the envelope
// and routing-header checks, opening and sealing state (requestState, task
// ids), its own methods (initialize, server/discover), and the stamp it
// puts on results. The request it is handed is data the core filled in
// (Request), a few fields it sets to hand something back, and Core, the
// six things only the core can work out or take: a state's binding, a
// sealed 2025 session's binding, a tool's header parameters, the opened
// round and task, and its log.
package seam
