// Package storetest is the contract every implementation of the endpoint's
// shared stores must keep: mcp.ReplayGuard ([ReplayGuard]), mcp.AnswerBus
// ([AnswerBus]), ratelimit.Limiter ([Limiter]), mcp.EventBus ([EventBus])
// and mcp.SessionStore ([SessionStore]). A store's own tests call
// the suite with a function that opens fresh, empty instances; the
// in-memory defaults of package mcp and every store of mcp/redisstore run
// it, and a host writing a store of its own (a database, another cache)
// runs the same checks.
//
// The suite pins what the interfaces' comments promise, nothing an
// implementation chooses for itself: caps, key names, time-to-live values
// and outages stay in each store's own tests.
//
// # Replicas and time
//
// An open function returns a [Fleet]: one or more handles on one store, as
// replicas hold it (each with its own client, for a networked store), and
// the clock the store reads. The suite spreads its calls over the
// replicas, so that what one replica writes another must see.
//
// A store whose clock the test controls (the in-memory ones take a
// function for time.Now) gives a [Clock] such as [NewManualClock]: time
// then passes at once and exactly. A store that reads the system's clock
// (Redis's expiry, a script reading Redis's TIME) gives none, and the
// suite sleeps: it then uses short intervals only where time must pass
// (a lease that must lapse lapses well before the suite looks again) and
// long ones where time must not (a lease that must hold lasts minutes), so
// that a slow machine cannot turn a check into a flake. A check that needs
// more time than a test can sleep (mcp.LastRunTTL, ten minutes) runs with
// a controlled clock only; a networked store then checks the time-to-live
// it sets in its own tests.
package storetest
