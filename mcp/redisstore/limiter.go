package redisstore

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"math"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"

	"github.com/mcpdual/mcpdual/mcp/ratelimit"
)

// Limiter is a ratelimit.Limiter whose budgets live in Redis, shared by
// every Limiter with the same prefix on the same Redis: one per replica.
// Each key holds up to burst units and regains perSecond units per second.
type Limiter struct {
	cfg       config
	gcra      *redis_rate.Limiter
	limit     redis_rate.Limit
	perSecond float64
	burst     int
}

var _ ratelimit.Limiter = (*Limiter)(nil)

// NewLimiter returns a Limiter on rdb whose keys hold up to burst units
// and regain perSecond units per second, the parameters of
// ratelimit.NewMemory. It panics unless both are positive and the rate is
// at most one unit per nanosecond.
func NewLimiter(rdb redis.UniversalClient, perSecond float64, burst int, opts ...Option) *Limiter {
	if rdb == nil {
		panic("redisstore: NewLimiter needs a Redis client")
	}
	if !(perSecond > 0) || math.IsInf(perSecond, 0) || burst <= 0 {
		panic("redisstore: NewLimiter needs a positive rate and burst")
	}
	// redis_rate counts Rate units per Period with an integer Rate; one
	// unit per 1/perSecond keeps a fractional rate exact to the nanosecond.
	interval := time.Duration(float64(time.Second) / perSecond)
	if interval <= 0 {
		panic("redisstore: NewLimiter needs a rate of at most one unit per nanosecond")
	}
	l := &Limiter{
		cfg:       newConfig(opts),
		limit:     redis_rate.Limit{Rate: 1, Period: interval, Burst: burst},
		perSecond: perSecond,
		burst:     burst,
	}
	l.gcra = redis_rate.NewLimiter(prefixed{rdb: rdb, prefix: l.cfg.prefix})
	return l
}

// Take implements ratelimit.Limiter: it spends cost units of key's budget
// if they are there, in one atomic script. A cost above the burst can never
// be paid and is refused with the time a full budget takes, as
// ratelimit.Memory does. When Redis does not answer, Take returns an error,
// or, with FailOpen, admits the request as if the budget were whole
// (Remaining burst-cost, Reset now).
func (l *Limiter) Take(ctx context.Context, key string, cost int) (ratelimit.Decision, error) {
	if cost < 0 {
		return ratelimit.Decision{}, errors.New("redisstore: rate limiter: negative cost")
	}
	res, err := call(ctx, &l.cfg, func(ctx context.Context) (*redis_rate.Result, error) {
		return l.gcra.AllowN(ctx, digest(key), l.limit, cost)
	})
	now := time.Now()
	if err != nil {
		err = l.cfg.fail("rate limiter", err)
		// A request whose own context ended has no one left to admit, and
		// its error says nothing about Redis: not an outage to report.
		if l.cfg.failOpen == nil || ctx.Err() != nil {
			return ratelimit.Decision{}, err
		}
		l.cfg.failOpen(err)
		return ratelimit.Decision{Allowed: true, Limit: l.burst, Remaining: max(l.burst-cost, 0), Reset: now}, nil
	}
	d := ratelimit.Decision{
		Allowed:   res.Allowed == cost, // redis_rate reports the units it spent
		Limit:     l.burst,
		Remaining: l.remaining(res.ResetAfter),
		Reset:     now.Add(max(res.ResetAfter, 0)),
	}
	if !d.Allowed {
		d.RetryAfter = res.RetryAfter
		if cost > l.burst {
			d.RetryAfter = res.ResetAfter // never payable: report a full refill
		}
		d.RetryAfter = max(d.RetryAfter, time.Nanosecond)
	}
	return d, nil
}

// remaining derives the whole units left from the time until the budget
// is whole again, rather than taking redis_rate's Remaining: the script
// computes it around a clock of some 10^8 seconds and truncates, so an
// emission interval that is not exact in binary (a tenth of a second) can
// lose a unit, and a refusal always reports 0. The small allowance absorbs
// that rounding; it can overstate the budget by a thousandth of a unit.
func (l *Limiter) remaining(resetAfter time.Duration) int {
	units := float64(l.burst) - resetAfter.Seconds()*l.perSecond
	return min(max(int(math.Floor(units+1e-3)), 0), l.burst)
}

// digest names key's budget: fixed length, and no identity in the keyspace.
func digest(key string) string {
	sum := sha256.Sum256([]byte(key))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// prefixed is the client as redis_rate sees it, with the store's prefix in
// front of every key: redis_rate names its keys "rate:"+key and has no
// option for a prefix of its own. It has the methods of redis_rate's
// (unexported) client interface.
type prefixed struct {
	rdb    redis.UniversalClient
	prefix string
}

func (p prefixed) keys(keys []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = p.prefix + k
	}
	return out
}

func (p prefixed) Eval(ctx context.Context, script string, keys []string, args ...any) *redis.Cmd {
	return p.rdb.Eval(ctx, script, p.keys(keys), args...)
}

func (p prefixed) EvalSha(ctx context.Context, sha1 string, keys []string, args ...any) *redis.Cmd {
	return p.rdb.EvalSha(ctx, sha1, p.keys(keys), args...)
}

func (p prefixed) EvalRO(ctx context.Context, script string, keys []string, args ...any) *redis.Cmd {
	return p.rdb.EvalRO(ctx, script, p.keys(keys), args...)
}

func (p prefixed) EvalShaRO(ctx context.Context, sha1 string, keys []string, args ...any) *redis.Cmd {
	return p.rdb.EvalShaRO(ctx, sha1, p.keys(keys), args...)
}

func (p prefixed) ScriptExists(ctx context.Context, hashes ...string) *redis.BoolSliceCmd {
	return p.rdb.ScriptExists(ctx, hashes...)
}

func (p prefixed) ScriptLoad(ctx context.Context, script string) *redis.StringCmd {
	return p.rdb.ScriptLoad(ctx, script)
}

func (p prefixed) Del(ctx context.Context, keys ...string) *redis.IntCmd {
	return p.rdb.Del(ctx, p.keys(keys)...)
}
