// Package redisstore keeps the state that an MCP endpoint's replicas must
// share in Redis: rate-limit budgets ([Limiter], for mcp.WithRateLimit and
// mcp.WithClientRateLimit), single-use confirmations of destructive tools
// ([ReplayGuard], for mcp.WithReplayGuard) and the answers 2025 clients
// give to questions asked on another replica ([AnswerBus], for
// mcp.WithLegacyInput), and, for change notifications across a fleet,
// the events every replica must see ([EventBus], an mcp.EventBus) and what
// a 2025 session changed after initialize ([SessionStore], an
// mcp.SessionStore). With them, any number of replicas enforce one
// budget per caller, run a confirmed tool once and hand an answer to the
// call that waits for it, whichever replica each request lands on. Each
// keeps the contract its interface states, checked by the suite of package
// mcp/mcptest/storetest on a single Redis and on a Redis Cluster.
//
// It is a module of its own, so that a host that does not use Redis does
// not download a Redis client with the library.
//
// # Clients
//
// Every type takes a go-redis client the host builds and closes and is
// safe for concurrent use. A *redis.Client (also Sentinel-managed, from
// redis.NewFailoverClient) and a *redis.ClusterClient serve all five; a
// *redis.Ring serves the Limiter, the ReplayGuard and the SessionStore,
// whose scripts touch one key each, but not the AnswerBus nor the
// EventBus (their constructors panic), since a Ring's shards do not share
// channels. Nor does a cluster client that reads from replicas (ReadOnly,
// RouteByLatency, RouteRandomly) serve the AnswerBus, which counts the
// listeners on masters only (NewAnswerBus panics); give the bus a client
// of its own. Build each client with ContextTimeoutEnabled set, as [ParseURL]
// does: this package bounds every call by its own timeout either way, but
// only a client that honours contexts also frees the connection at that
// moment instead of after its socket timeout.
//
// # Fail closed
//
// When Redis does not answer within the timeout (200 ms unless
// [WithTimeout] says otherwise), or answers with an error, every type
// returns an error. The endpoint then answers 503 with Retry-After: no
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
//	<prefix>answered:{<id>}   a question whose answer was delivered, for ten
//	                          minutes: a second answer is refused
//
//	<prefix>session:{<key>}   what a 2025 session changed after initialize: a hash
//	                          of "l" (its logging level) and "u:<uri>" (each
//	                          resource it subscribed to), expiring when the
//	                          session does; <key> is the endpoint's digest of
//	                          the session id, never the id
//
// and the answer bus publishes on the channel <prefix>answer:{<id>}, the
// event bus on <prefix>events.
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
// # Redis Cluster
//
// Every script touches one slot. The limiter's and the guard's scripts
// touch one key each (the guard keeps a run under ran:<call> in a command
// of its own). The answer bus's script checks an id's answered mark and
// publishes its answer in one step, so the mark and the channel carry the
// id as their hash tag ("{<id>}") and sit in one slot; on a cluster the
// bus uses sharded pub/sub (SSUBSCRIBE and SPUBLISH, Redis 7.0 or later),
// whose channel lives on the node that owns that slot, so the count of
// listeners the script reads — whether an answer was delivered — is the
// whole cluster's, not one node's as with PUBLISH. A prefix may hold a
// hash tag of its own ("svc{mcp}:"): every name then shares its slot.
// NewAnswerBus panics on a prefix whose first "{" is not closed around at
// least one character, which would take the tag from part of a name.
// A session's state is one key, tagged with its digest, so a script that
// checks a session's bound and adds to it runs on one node. The event bus
// has a single channel and no script; on a cluster it is sharded as well
// (SPUBLISH reaches the subscribers of the channel's node, where every
// replica subscribes), so all events pass through the node that owns it.
//
// # Rolling upgrade from names without braces
//
// The event bus and the session store are new, with no earlier names.
// Only the answer bus's names changed: earlier versions used answer:<id>
// and answered:<id>, without the braces; rate: and confirm: keys are as they
// were, and budgets and confirmations carry over a rolling upgrade. While
// replicas of both versions run, an answer that reaches a replica of the
// other version than the one its call waits on is not delivered: the
// client is told 400 (not waited for), and the call ends declined when its
// wait does, running nothing; the client asks again. Calls whose answer
// reaches a replica of their own version are unaffected. An upgrade in a
// quiet moment, or a wait (mcp.LegacyInput.Wait) long enough for both
// halves of a call to reach new replicas, avoids even that.
//
// # Algorithm
//
// The limiter is the generic cell rate algorithm of
// github.com/go-redis/redis_rate, a Lua script that reads Redis's clock,
// so replicas whose clocks differ still agree. It behaves like the
// in-memory token bucket of package ratelimit: burst units at most,
// regained at a steady rate.
package redisstore
