package redisstore

import (
	"context"
	"encoding/base64"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpdual/mcpdual/mcp"
)

// replayMargin is how long an entry outlives its confirmation. A replica
// accepts a state until its expiry plus the skew it tolerates (up to five
// minutes, mrtr.WithSkew), by its own clock, and the clocks of the replica
// that wrote the entry and of the one reading a replay may differ by as
// much again; entries are a few dozen bytes, so keeping them ten minutes
// longer costs nothing.
const replayMargin = 10 * time.Minute

// ReplayGuard is an mcp.ReplayGuard that records used confirmations in
// Redis with SET NX, so that each is accepted once by the whole fleet.
type ReplayGuard struct {
	cfg config
	rdb redis.UniversalClient
}

var _ mcp.ReplayGuard = (*ReplayGuard)(nil)

// NewReplayGuard returns a ReplayGuard on rdb. It panics when given
// FailOpen.
func NewReplayGuard(rdb redis.UniversalClient, opts ...Option) *ReplayGuard {
	if rdb == nil {
		panic("redisstore: NewReplayGuard needs a Redis client")
	}
	g := &ReplayGuard{cfg: newConfig(opts), rdb: rdb}
	if g.cfg.failOpen != nil {
		panic("redisstore: FailOpen applies to a Limiter only; a replay guard always fails closed")
	}
	return g
}

// Consume implements mcp.ReplayGuard: first is true for the one call that
// records nonce, false for every later one until the entry expires (ten
// minutes after until). When Redis does not answer it returns an error and
// the endpoint runs nothing. Should Redis record the nonce but its answer
// come too late, the confirmation is spent without running: the user
// confirms again, and the tool still never runs twice.
func (g *ReplayGuard) Consume(ctx context.Context, nonce []byte, until time.Time) (first bool, err error) {
	if len(nonce) == 0 {
		return false, errors.New("redisstore: replay guard: empty nonce")
	}
	// A relative expiry is measured from this replica's clock, the one
	// that judged the state, rather than from Redis's.
	ttl := max(time.Until(until), 0) + replayMargin
	key := g.cfg.prefix + "confirm:" + base64.RawURLEncoding.EncodeToString(nonce)
	first, err = call(ctx, &g.cfg, func(ctx context.Context) (bool, error) {
		return g.rdb.SetNX(ctx, key, 1, ttl).Result()
	})
	if err != nil {
		return false, g.cfg.fail("replay guard", err)
	}
	return first, nil
}
