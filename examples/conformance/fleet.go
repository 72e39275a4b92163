package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/redisstore"
	"github.com/mcpdual/mcpdual/mrtr"
)

// keysEnv holds the key ring every replica loads, in the text form of
// mrtr.ParseKeys (or keysEnv+"_FILE" names a file holding it), as
// examples/inbox's INBOX_STATE_KEYS does.
const keysEnv = "CONFORMANCE_STATE_KEYS"

// redisPrefix starts every key and channel the fixture uses in Redis.
const redisPrefix = "conformance:"

// fleet is what the replicas of one fixture share, so that any of them
// serves any request: the key ring that seals requestState, task ids and
// 2025 session ids, and the Redis that holds the jobs, the used
// confirmations, the rate budgets and the 2025 clients' answers in
// flight. Its zero value keeps all of it in this process, as one process
// (and every test) needs.
type fleet struct {
	ring  *mrtr.Ring    // nil: a key of this process
	rdb   *redis.Client // nil: this process's memory
	hosts []string      // nil: the endpoint admits loopback Host names only
}

// fleetRate is the rate budget of each client address with -redis: wide,
// since behind a balancer every suite request comes from one address, and
// metered, so that the fleet runs the limiter it shares.
const (
	fleetRatePerSecond = 1000
	fleetRateBurst     = 2000
)

// eras are the /mcp endpoint's eras: 2026-07-28 sealing with the ring,
// and the 2025 revisions with sealed sessions (legacy.go).
func (f fleet) eras() []mcp.Era {
	var e2026 []era2026.Option
	ring := f.ring
	if ring != nil {
		e2026 = append(e2026, era2026.WithSealer(mrtr.NewSealer(ring)))
	} else {
		// era2026 makes a key of its own; the 2025 sessions need one too.
		ring = localRing()
	}
	return []mcp.Era{era2026.New(e2026...), era2025.New(era2025.WithSessions(mrtr.NewSealer(ring), 0))}
}

// handlerOptions are the options of both endpoints that depend on the
// fleet. With Redis, the replay guard and the limiter fail closed: when
// Redis does not answer, a metered request is answered 503.
func (f fleet) handlerOptions() []mcp.HandlerOption {
	var opts []mcp.HandlerOption
	if f.rdb != nil {
		opts = append(opts,
			mcp.WithReplayGuard(redisstore.NewReplayGuard(f.rdb, storeOptions()...)),
			mcp.WithRateLimit(redisstore.NewLimiter(f.rdb, fleetRatePerSecond, fleetRateBurst, storeOptions()...)))
	}
	if f.hosts != nil {
		opts = append(opts, mcp.WithAllowedHosts(f.hosts...))
	}
	return opts
}

// storeOptions are every Redis store's options: the fixture's prefix, and
// a call bound of fleetStoreTimeout instead of redisstore's 200 ms. The
// suite judges the protocol, not Redis's latency, and on a loaded CI
// machine one Redis call stalled past 200 ms answered a scenario with
// 503 rate_limiter_unavailable.
func storeOptions() []redisstore.Option {
	return []redisstore.Option{redisstore.WithPrefix(redisPrefix), redisstore.WithTimeout(fleetStoreTimeout)}
}

// fleetStoreTimeout bounds each Redis call of the fixture's stores.
const fleetStoreTimeout = 2 * time.Second

// jobs is the task runner's store (tasks.go).
func (f fleet) jobs() jobStore {
	if f.rdb == nil {
		return newMemJobs()
	}
	return &redisJobs{rdb: f.rdb, prefix: redisPrefix}
}

func (f fleet) close() {
	if f.rdb != nil {
		_ = f.rdb.Close()
	}
}

// setupFleet reads -public-url, the key ring from the environment and
// -redis. Its report says what is used, never a key or a password.
func setupFleet(listen net.Addr, publicURL, redisURL string) (fleet, []string, error) {
	var f fleet
	var report []string
	say := func(format string, args ...any) { report = append(report, fmt.Sprintf(format, args...)) }
	if publicURL == "" {
		say("public URL     http://%s/mcp (the listen address; -public-url sets the balancer's)", listen)
	} else {
		u, err := parsePublicURL(publicURL)
		if err != nil {
			return f, nil, err
		}
		if !loopbackHost(u.Hostname()) {
			// The endpoint refuses Host names it was not told about (DNS
			// rebinding); the replica's own address stays reachable.
			f.hosts = []string{u.Host, listen.String()}
		}
		say("public URL     %s://%s/mcp (-public-url; listening on %s)", u.Scheme, u.Host, listen)
	}

	keys, err := mrtr.LoadKeys(keysEnv)
	if err != nil {
		return f, nil, err
	}
	if keys == nil {
		say("state keys     a random key of this process: set %s (or %s_FILE) to share a ring", keysEnv, keysEnv)
	} else {
		if f.ring, err = mrtr.NewRing(keys...); err != nil {
			return f, nil, err
		}
		ids := make([]string, len(keys))
		for i, k := range keys {
			ids[i] = k.ID
		}
		from := keysEnv
		if _, inline := os.LookupEnv(keysEnv); !inline {
			from = keysEnv + "_FILE"
		}
		say("state keys     %s from %s, sealing requestState, task ids and 2025 session ids with %s", strings.Join(ids, ","), from, ids[0])
	}

	shared := "jobs, used confirmations, rate budgets and 2025 answers in flight"
	if redisURL == "" {
		say("shared state   none: %s in this process; -redis shares them", shared)
		return f, report, nil
	}
	opt, err := redisstore.ParseURL(redisURL)
	if err != nil {
		return f, nil, fmt.Errorf("-redis: %w", err)
	}
	f.rdb = redis.NewClient(opt)
	say("shared state   Redis at %s db %d: %s", opt.Addr, opt.DB, shared)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := f.rdb.Ping(ctx).Err(); err != nil {
		say("               Redis does not answer yet: what needs it is answered 503 until it does")
	}
	return f, report, nil
}

// parsePublicURL accepts the URL clients reach the fixture at: http or
// https, a host, no path (the endpoint is its /mcp), no credentials.
func parsePublicURL(s string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSuffix(s, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return nil, errors.New("-public-url wants the http or https URL clients reach the fixture at, with no path, such as http://127.0.0.1:8080")
	}
	return u, nil
}

func loopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// localRing is a key ring of this process only.
func localRing() *mrtr.Ring {
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		panic(err)
	}
	r, err := mrtr.NewRing(mrtr.Key{ID: "local", Secret: secret})
	if err != nil {
		panic(err)
	}
	return r
}
