// Package mrtr seals and opens the requestState of MCP multi round-trip
// requests (revision 2026-07-28).
//
// A server that answers "input required" hands the client an opaque
// requestState and gets it back, unchanged, on the retry. The client is not
// trusted with it: a [Sealer] encrypts the state with XChaCha20-Poly1305 and
// binds it to the request it belongs to (principal, workspace, audience,
// protocol version, method, target and a digest of the canonical
// arguments), with an issue time, an expiry and a random nonce. Any replica
// holding the same [Ring] can open it, so the retry may land anywhere.
//
// Every failure, whatever its cause, is the one error [ErrInvalid]; the
// cause is available to the server's log through [Reason] and never goes to
// the client.
//
// # Key rotation
//
// The first key of a ring seals; every key opens. Rotating from old to new
// without a failed retry takes three deployments: [old,new], then
// [new,old], then [new] once the longest TTL has passed.
package mrtr
