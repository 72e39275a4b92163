package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/ratelimit"
	"github.com/mcpdual/mcpdual/mcp/redisstore"
	"github.com/mcpdual/mcpdual/mrtr"
)

// keysEnv holds the requestState key ring every replica loads, in the
// text form of mrtr.ParseKeys (or keysEnv+"_FILE" names a file holding it).
const keysEnv = "INBOX_STATE_KEYS"

// shared is what the replicas of one inbox must agree on, so that any of
// them can serve any request: the key ring that seals requestState, and
// the store of rate budgets and used confirmations. Its zero value keeps
// all of it in this process, as one replica (and every test) needs.
type shared struct {
	ring  *mrtr.Ring    // nil: era2026 seals with a key of this process
	rdb   *redis.Client // nil: budgets and used confirmations in memory
	hosts []string      // nil: the endpoint admits loopback Host names only
	// timeout bounds each Redis call of every store; zero keeps each
	// store's own (redisstore.DefaultTimeout, 200 ms, for rate budgets and
	// confirmations; 500 ms for Idempotency-Keys and jobs), which a
	// replica keeps. Tests lengthen it (startFleet): they assert what a
	// request is answered, and under the race detector on a loaded
	// machine a round trip to Redis has taken longer than 200 ms.
	timeout time.Duration
}

// Redis key prefixes: the per-client limiter needs one apart from the
// per-principal one, since an unauthenticated caller's principal key is
// its client address too.
const (
	redisPrefix       = "inbox:"
	redisClientPrefix = "inbox:client:"
)

func (s shared) eraOptions() []era2026.Option {
	if s.ring == nil {
		return nil
	}
	return []era2026.Option{era2026.WithSealer(mrtr.NewSealer(s.ring))}
}

// principalLimiter is the one budget per principal that the MCP endpoint
// and the REST API both draw from.
func (s shared) principalLimiter(perSecond float64, burst int) ratelimit.Limiter {
	if s.rdb == nil {
		return ratelimit.NewMemory(perSecond, burst)
	}
	return redisstore.NewLimiter(s.rdb, perSecond, burst, s.storeOptions(redisPrefix)...)
}

// clientLimiter meters MCP requests per client address before their
// token is verified.
func (s shared) clientLimiter() ratelimit.Limiter {
	if s.rdb == nil {
		return ratelimit.NewMemory(200, 400)
	}
	return redisstore.NewLimiter(s.rdb, 200, 400, s.storeOptions(redisClientPrefix)...)
}

// storeOptions are a redisstore store's options: its key prefix, and the
// fleet's timeout when one is set.
func (s shared) storeOptions(prefix string) []redisstore.Option {
	opts := []redisstore.Option{redisstore.WithPrefix(prefix)}
	if s.timeout > 0 {
		opts = append(opts, redisstore.WithTimeout(s.timeout))
	}
	return opts
}

// handlerOptions are the endpoint's options that depend on the fleet.
// Both Redis stores fail closed: when Redis does not answer, a metered
// request is answered 503 and a confirmed destructive call 503 with
// Retry-After, and it does not run.
func (s shared) handlerOptions() []mcp.HandlerOption {
	var opts []mcp.HandlerOption
	if s.rdb != nil {
		opts = append(opts, mcp.WithReplayGuard(redisstore.NewReplayGuard(s.rdb, s.storeOptions(redisPrefix)...)))
	}
	if s.hosts != nil {
		opts = append(opts, mcp.WithAllowedHosts(s.hosts...))
	}
	return opts
}

func (s shared) close() {
	if s.rdb != nil {
		_ = s.rdb.Close()
	}
}

// fleetFlags are the command line's say in what replicas share.
type fleetFlags struct {
	publicURL string
	redisURL  string
	rate      string
}

// fleet is the configuration setup read.
type fleet struct {
	shared    shared
	base      string // the URL clients reach the service at
	perSecond float64
	burst     int
	report    []string // what is used, for the start-up banner
}

// setup reads the fleet's configuration: the public base URL (from
// -public-url, or from the address the server listens on), the key ring
// from the environment, the rate budget and the Redis client. Its report
// names what is used but never a key or a password.
func (f fleetFlags) setup(listen net.Addr) (*fleet, error) {
	fl := &fleet{base: "http://" + listen.String()}
	var err error
	if fl.perSecond, fl.burst, err = parseRate(f.rate); err != nil {
		return nil, err
	}
	if f.publicURL == "" {
		// The resource URI is then http on the listen address, which the
		// authenticator takes on a loopback host only (http elsewhere
		// would send tokens in clear): said as a usage error, not left to
		// its panic.
		if host, _, err := net.SplitHostPort(listen.String()); err != nil || !loopbackHost(host) {
			return nil, fmt.Errorf("-addr %s is not a loopback address: give -public-url, the https URL clients reach the service at", listen)
		}
		fl.say("resource URI   %s/mcp (from the listen address; -public-url sets it)", fl.base)
	} else {
		u, err := parsePublicURL(f.publicURL)
		if err != nil {
			return nil, err
		}
		fl.base = u.Scheme + "://" + u.Host
		if !loopbackHost(u.Hostname()) {
			// The endpoint refuses Host names it was not told about
			// (DNS rebinding); the replica's own address stays reachable
			// for health checks.
			fl.shared.hosts = []string{u.Host, listen.String()}
		}
		fl.say("resource URI   %s/mcp (-public-url; listening on %s)", fl.base, listen)
	}

	keys, err := mrtr.LoadKeys(keysEnv)
	if err != nil {
		return nil, err
	}
	if keys == nil {
		fl.say("state keys     a random key of this process: set %s (or %s_FILE) to share a ring", keysEnv, keysEnv)
	} else {
		if fl.shared.ring, err = mrtr.NewRing(keys...); err != nil {
			return nil, err
		}
		ids := make([]string, len(keys))
		for i, k := range keys {
			ids[i] = k.ID
		}
		from := keysEnv
		if _, inline := os.LookupEnv(keysEnv); !inline {
			from = keysEnv + "_FILE"
		}
		fl.say("state keys     %s from %s, sealing with %s", strings.Join(ids, ","), from, ids[0])
	}

	budget := fmt.Sprintf("rate budgets (%s/s, burst %d per principal), used confirmations, Idempotency-Keys and jobs",
		strconv.FormatFloat(fl.perSecond, 'f', -1, 64), fl.burst)
	if f.redisURL == "" {
		fl.say("shared state   none: %s in this process; -redis shares them", budget)
		if keys != nil {
			// The ring survives a restart; the in-memory guard does not, so
			// the library binds each confirmation to this process.
			fl.say("               a confirmation is answered where it was asked: after a restart, or on another replica, it is asked again")
		}
		return fl, nil
	}
	opt, err := redisstore.ParseURL(f.redisURL)
	if err != nil {
		return nil, fmt.Errorf("-redis: %w", err)
	}
	fl.shared.rdb = redis.NewClient(opt)
	fl.say("shared state   Redis at %s db %d: %s", opt.Addr, opt.DB, budget)
	// A replica starts even when Redis does not answer yet, and serves
	// as it will during any outage: 503 for what needs Redis.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := fl.shared.rdb.Ping(ctx).Err(); err != nil {
		fl.say("               Redis does not answer yet: metered requests are answered 503 until it does")
	}
	return fl, nil
}

func (fl *fleet) say(format string, args ...any) {
	fl.report = append(fl.report, fmt.Sprintf(format, args...))
}

// parseRate reads -rate: "perSecond,burst".
func parseRate(s string) (float64, int, error) {
	r, b, ok := strings.Cut(s, ",")
	perSecond, err1 := strconv.ParseFloat(strings.TrimSpace(r), 64)
	burst, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || !(perSecond > 0) || perSecond > 1e6 || burst <= 0 {
		return 0, 0, errors.New("-rate wants requests per second and burst, both positive, such as 50,100")
	}
	return perSecond, burst, nil
}

// parsePublicURL accepts the URL clients reach the service at: http or
// https, a host, no path (the MCP endpoint is its /mcp), no credentials.
func parsePublicURL(s string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSuffix(s, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return nil, errors.New("-public-url wants the http or https URL clients reach the service at, with no path, such as https://inbox.example.com")
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
