package seam

// CodeSessionNotFound is the code of a 404 for a session id that does not
// open: the client initializes again.
const CodeSessionNotFound = -32001

// SessionNotFound is the one answer to a session id that does not open,
// whatever the reason (expired, tampered, another key ring, another
// caller; the reason goes to the log only).
func SessionNotFound() *Failure {
	return &Failure{Code: CodeSessionNotFound, Message: "Session not found: initialize again", Status: 404}
}
