// Package redisstore keeps the state that an MCP endpoint's replicas must
// share in Redis: rate-limit budgets ([Limiter], for mcp.WithRateLimit and
// mcp.WithClientRateLimit) and single-use confirmations of destructive tools
// ([ReplayGuard], for mcp.WithReplayGuard). With them, any number of
// replicas enforce one budget per caller and run a confirmed tool once,
// whichever replica each request lands on.
//
// It is a module of its own, so that a host that does not use Redis does
// not download a Redis client with the library.
//
// # Clients
//
// Both types take a go-redis client the host builds and closes (a
// *redis.Client, *redis.ClusterClient or *redis.Ring) and are safe for
// concurrent use. Build it with ContextTimeoutEnabled set, as [ParseURL]
// does: this package bounds every call by its own timeout either way, but
// only a client that honours contexts also frees the connection at that
// moment instead of after its socket timeout.
//
// # Fail closed
//
// When Redis does not answer within the timeout (200 ms unless
// [WithTimeout] says otherwise), or answers with an error, both types
// return an error. The endpoint then answers 503 with Retry-After: no
// request passes unmetered and no destructive tool runs on an unverified
// confirmation. A limiter may instead admit requests during an outage
// ([FailOpen]), trading the limit for availability; a replay guard never
// does. Errors name the operation and the cause, never a key, an identity
// or a password: go-redis's errors on a connection name the address at
// most, and [ParseURL], unlike redis.ParseURL, never quotes the URL.
//
// # Keys
//
// Every key starts with the prefix (default "mcpdual:", [WithPrefix]) and
// expires on its own:
//
//	<prefix>rate:<digest>     one limiter budget: the GCRA "theoretical arrival
//	                          time" in seconds, written by redis_rate; it
//	                          expires when the budget is whole again
//	<prefix>confirm:<nonce>   one confirmation: "L" and the running call's token
//	                          while it holds the lease (expiring with it),
//	                          then "D" and the outcome summary, which expires
//	                          ten minutes after the confirmation does; an
//	                          interrupted call deletes it (its lease released)
//	<prefix>ran:<call>        the outcome of the last run of one call (caller,
//	                          workspace, tool, arguments), for ten minutes
//	                          (mcp.LastRunTTL): a confirmation question for
//	                          the same call says it ran
//
// <digest> is the base64url SHA-256 of the endpoint's limiter key, so that
// issuers, subjects and client addresses never appear in the keyspace and
// every key has the same length; <nonce> is the base64url of the
// confirmation's random nonce; <call> is the endpoint's base64url SHA-256
// of what was confirmed. Limiters share a budget exactly when they
// share a prefix and a key: every replica's limiter for one purpose must
// have the same prefix and parameters, and a second limiter in the same
// process (mcp.WithClientRateLimit beside mcp.WithRateLimit) needs a prefix
// of its own, since both may use the client address as the key.
//
// # Algorithm
//
// The limiter is the generic cell rate algorithm of
// github.com/go-redis/redis_rate, a Lua script that reads Redis's clock,
// so replicas whose clocks differ still agree. It behaves like the
// in-memory token bucket of package ratelimit: burst units at most,
// regained at a steady rate.
package redisstore
