package seam

// Sessions is implemented by an era that issues sealed sessions
// (Mcp-Session-Id): the core asks it about a DELETE, which carries no
// body and so reaches no other hook.
type Sessions interface {
	// EndSession checks the Mcp-Session-Id of a DELETE: nil when it
	// opens (the core acknowledges it), a Failure (404) otherwise. A
	// sealed session holds no state to discard, so nothing else happens.
	EndSession(r *Request) error
	// Issues reports whether sessions are on.
	Issues() bool
}

// CodeSessionNotFound is the code of a 404 for a session id that does not
// open: the client initializes again.
const CodeSessionNotFound = -32001

// SessionNotFound is the one answer to a session id that does not open,
// whatever the reason (expired, tampered, another key ring, another
// caller; the reason goes to the log only).
func SessionNotFound() *Failure {
	return &Failure{Code: CodeSessionNotFound, Message: "Session not found: initialize again", Status: 404}
}
