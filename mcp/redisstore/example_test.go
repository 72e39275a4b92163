package redisstore_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/redisstore"
	"github.com/mcpdual/mcpdual/mrtr"
)

// Every replica of a service runs the same composition root: one Redis
// client, a Limiter for the rate limit and a ReplayGuard for destructive
// tools, and the key ring every replica shares so that any of them can
// continue a confirmation another one asked for. (Not run: it needs a
// Redis.)
func Example() {
	// REDIS_URL is e.g. rediss://:password@redis.internal:6379/0. The
	// error of ParseURL never quotes it, so it is safe to log.
	opt, err := redisstore.ParseURL(os.Getenv("REDIS_URL"))
	if err != nil {
		slog.Error("configuration", "err", err)
		os.Exit(1)
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()

	secret, err := hex.DecodeString(os.Getenv("MRTR_KEY")) // 32 random bytes, the same on every replica
	if err != nil {
		panic(err)
	}
	ring, err := mrtr.NewRing(mrtr.Key{ID: "2026-07", Secret: secret})
	if err != nil {
		panic(err)
	}

	mux := http.NewServeMux()
	srv := mcp.NewServer(mcp.Implementation{Name: "inbox", Version: "1.0.0"})
	// srv.AddTool(...) for each route, destructive ones included.
	mux.Handle("/mcp", mcp.NewHandler(srv,
		[]mcp.Era{era2026.New(era2026.WithSealer(mrtr.NewSealer(ring))), era2025.New()},
		// Ten requests a second per principal, bursts of 20, fleet-wide.
		mcp.WithRateLimit(redisstore.NewLimiter(rdb, 10, 20)),
		// Each confirmation of a destructive tool runs once, fleet-wide.
		mcp.WithReplayGuard(redisstore.NewReplayGuard(rdb)),
	))
	http.ListenAndServe("127.0.0.1:8080", mux)
}

// A limiter is a ratelimit.Limiter: Take spends units of one key's budget,
// which every Limiter with the same prefix on the same Redis shares. (Not
// run: it needs a Redis.)
func ExampleLimiter_Take() {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379", ContextTimeoutEnabled: true})
	defer rdb.Close()
	lim := redisstore.NewLimiter(rdb, 1, 3) // one unit a second, at most 3

	for range 4 {
		d, err := lim.Take(context.Background(), "principal|alice", 1)
		if err != nil {
			fmt.Println("Redis did not answer:", err) // the endpoint answers 503
			return
		}
		fmt.Println(d.Allowed, d.Remaining, d.RetryAfter.Round(100*time.Millisecond))
	}
	// On an empty Redis this prints:
	// true 2 0s
	// true 1 0s
	// true 0 0s
	// false 0 1s
}

// A limiter in front of authentication meters by client address, and so
// does the principal limiter for callers without a token: give it a prefix
// of its own so that the two budgets stay apart. FailOpen keeps the
// service up through a Redis outage at the price of not metering; report
// says so in the log. (Not run: it needs a Redis.)
func ExampleFailOpen() {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379", ContextTimeoutEnabled: true})
	defer rdb.Close()
	logger := slog.Default()

	perClient := redisstore.NewLimiter(rdb, 50, 100,
		redisstore.WithPrefix("mcpdual:client:"),
		redisstore.WithTimeout(50*time.Millisecond),
		redisstore.FailOpen(func(err error) { logger.Warn("rate limit not enforced", "err", err) }))
	perPrincipal := redisstore.NewLimiter(rdb, 10, 20) // fails closed

	srv := mcp.NewServer(mcp.Implementation{Name: "inbox", Version: "1.0.0"})
	_ = mcp.NewHandler(srv, []mcp.Era{era2026.New()},
		mcp.WithClientRateLimit(perClient, nil),
		mcp.WithRateLimit(perPrincipal))
}
