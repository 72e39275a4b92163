// Package ratelimit defines the rate-limiter interface the MCP endpoint
// calls and an in-memory token bucket implementing it.
//
// The endpoint decides the keys (a principal, or a client address before
// authentication) and turns a Decision into X-RateLimit-* headers and 429
// answers; a Limiter only counts. A fleet of replicas plugs in a shared
// store (Redis, a database) by implementing Limiter; Memory counts per
// process, so behind N replicas its effective limit is N times larger.
// Behind reverse proxies, ForwardedFor and Forwarded name a client by the
// address the proxies vouch for, for mcp.WithClientRateLimit.
package ratelimit
