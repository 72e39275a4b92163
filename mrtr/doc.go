// Package mrtr seals and opens the requestState of MCP multi round-trip
// requests (revision 2026-07-28).
//
// A server that answers "input required" hands the client an opaque
// requestState and gets it back, unchanged, on the retry. The client is not
// trusted with it: a [Sealer] encrypts the state with XChaCha20-Poly1305
// ([NewRing]; AES-256-GCM with [NewAESRing]) and
// binds it to the request it belongs to (principal, workspace, audience,
// protocol version, method, target and a digest of the canonical
// arguments), with an issue time, an expiry and a random nonce. Any replica
// holding the same [Ring] can open it, so the retry may land anywhere.
//
// Every failure, whatever its cause, is the one error [ErrInvalid]; the
// cause is available to the server's log through [Reason] and never goes to
// the client.
//
// # One ring for the whole fleet
//
// Every replica must hold the same ring: a state sealed on one and
// retried on another is refused otherwise ("unknown_key" or "bad_tag" in
// the log). Keep the ring in the fleet's configuration in the text form
// [ParseKeys] reads, comma-separated id:secret entries with the sealing
// key first, each secret 32 random bytes in base64:
//
//	k2:4Jq...base64...=,k1:Zr8...base64...=
//
// [LoadKeys] reads it from an environment variable, or from the file a
// second variable names, and says so precisely when it is malformed,
// without quoting a secret. A new secret comes from
//
//	head -c 32 /dev/urandom | base64
//
// # Key rotation
//
// The first key of a ring seals; every key opens. A rotation from k1 to k2
// refuses no retry when it takes three steps, each rolled out to every
// replica before the next begins:
//
//  1. add the new key second everywhere: k1:...,k2:... (every replica
//     can now open what k2 will seal, while all still seal with k1);
//  2. make it first everywhere: k2:...,k1:... (replicas seal with k2 and
//     still open the states k1 sealed);
//  3. retire the old key: k2:... once no state k1 sealed can still open,
//     the sealer's TTL plus its skew after the last replica finished
//     step 2 (5 minutes 30 seconds by default).
//
// During each rollout replicas of two adjacent steps serve side by side,
// and each opens what the other seals. Skipping step 1, or starting step
// 3 early, refuses the states in flight: the client starts its request
// over.
package mrtr
