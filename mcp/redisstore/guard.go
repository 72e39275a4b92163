package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpdual/mcpdual/mcp"
)

// replayMargin is how long an outcome outlives its confirmation. A replica
// accepts a state until its expiry plus the skew it tolerates (up to five
// minutes, mrtr.WithSkew), by its own clock, and the clocks of the replica
// that wrote the entry and of the one reading a replay may differ by as
// much again; entries are a few dozen bytes, so keeping them ten minutes
// longer costs nothing.
const replayMargin = 10 * time.Minute

// ReplayGuard is an mcp.ReplayGuard that keeps claims and outcomes of
// confirmations in Redis, so that the whole fleet runs each once. One key
// per confirmation holds either a lease ("L" and the holder's token, with
// the lease as its TTL) or an outcome ("D" and the summary, kept until the
// confirmation expires plus ten minutes). Each phase is one Lua script, so
// reading and changing the key is atomic, and a renewal, a completion or a
// release compares the token first: a replica whose lease lapsed and was
// taken over changes nothing. The outcome of a call that ran is also kept
// under what was confirmed (a key "ran:" and the endpoint's digest of the
// call) for mcp.LastRunTTL, so a confirmation question on any replica
// says that the same call ran.
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

// claimScript: KEYS[1] the confirmation, ARGV[1] a new token, ARGV[2] the
// lease in ms. Returns {1} when the caller now holds the lease, {2,
// outcome} when the confirmation ran, {0} while another holds a lease.
var claimScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if not v then
  redis.call('SET', KEYS[1], 'L' .. ARGV[1], 'PX', ARGV[2])
  return {1}
end
if string.sub(v, 1, 1) == 'D' then
  return {2, string.sub(v, 2)}
end
return {0}
`)

// renewScript: KEYS[1], ARGV[1] the token, ARGV[2] the lease in ms.
var renewScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == 'L' .. ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
`)

// completeScript: KEYS[1], ARGV[1] the token, ARGV[2] the outcome, ARGV[3]
// how long to keep it in ms. The outcome replaces the caller's lease, or a
// lease that lapsed with nobody taking it over; never another's lease. An
// empty outcome releases the caller's lease (an interrupted call): the key
// goes, and the next claim takes the confirmation as new.
var completeScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if ARGV[2] == '' then
  if v == 'L' .. ARGV[1] then
    redis.call('DEL', KEYS[1])
    return 1
  end
  return 0
end
if v == false or v == 'L' .. ARGV[1] then
  redis.call('SET', KEYS[1], 'D' .. ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0
`)

func (g *ReplayGuard) key(nonce []byte) string {
	return g.cfg.prefix + "confirm:" + base64.RawURLEncoding.EncodeToString(nonce)
}

// runKey is where the last run of call is kept. call is the endpoint's
// digest (43 URL-safe characters); a longer one is refused, so that no
// caller of the exported method makes keys of any size.
func (g *ReplayGuard) runKey(call string) (string, error) {
	if call == "" || len(call) > maxCall {
		return "", errCall
	}
	return g.cfg.prefix + "ran:" + call, nil
}

// maxCall bounds a call's name: the endpoint's are 43 bytes.
const maxCall = 128

var errCall = errors.New("redisstore: replay guard: a call is named by 1 to 128 bytes")

var errEmptyNonce = errors.New("redisstore: replay guard: empty nonce")

// Claim implements mcp.ReplayGuard. When Redis does not answer it returns
// an error and the endpoint runs nothing. Should Redis store the claim but
// its answer come too late, the lease lapses unrenewed and a retry runs
// the confirmation then: it is delayed by at most the lease, never lost.
// The caller is not used: a confirmation's key is its nonce, and what one
// caller holds is bounded by its rate budget and the lease.
func (g *ReplayGuard) Claim(ctx context.Context, _ string, nonce []byte, until time.Time, lease time.Duration) (string, []byte, error) {
	if len(nonce) == 0 {
		return "", nil, errEmptyNonce
	}
	token := rand.Text()
	key := g.key(nonce)
	res, err := call(ctx, &g.cfg, func(ctx context.Context) ([]any, error) {
		return claimScript.Run(ctx, g.rdb, []string{key}, token, leaseMillis(lease)).Slice()
	})
	if err != nil {
		return "", nil, g.cfg.fail("replay guard", err)
	}
	claimed, outcome, err := claimAnswer(res)
	if err != nil || !claimed {
		return "", outcome, err
	}
	return token, nil, nil
}

// claimAnswer reads claimScript's answer: claimed when the caller now
// holds the lease, the outcome recorded when the confirmation ran, neither
// while another holds a lease. Only the script's three answers are taken
// ({1}, {0}, {2, outcome} with an outcome Complete wrote, never empty):
// any other is an error, so the call fails closed rather than be read as
// a claim or an outcome.
func claimAnswer(res []any) (claimed bool, outcome []byte, err error) {
	if len(res) == 0 {
		return false, nil, errors.New("redisstore: replay guard: empty answer")
	}
	switch state, _ := res[0].(int64); {
	case state == 1 && len(res) == 1:
		return true, nil, nil
	case state == 2 && len(res) == 2:
		if outcome, _ := res[1].(string); outcome != "" {
			return false, []byte(outcome), nil
		}
	case state == 0 && len(res) == 1:
		return false, nil, nil
	}
	return false, nil, errors.New("redisstore: replay guard: unexpected answer")
}

// leaseMillis is a lease in the whole milliseconds PX and PEXPIRE take,
// rounded up and at least one: truncated, a lease under a millisecond
// was 0, which SET refuses (the Claim failed) and PEXPIRE takes as "delete
// now" (a Renew said held and freed the lease for the next Claim). A lease
// of zero or less lapses a millisecond later, as good as at once.
func leaseMillis(lease time.Duration) int64 {
	return max(ceilMillis(lease), 1)
}

// ceilMillis is d in whole milliseconds, rounded up.
func ceilMillis(d time.Duration) int64 {
	ms := d / time.Millisecond
	if d%time.Millisecond > 0 {
		ms++
	}
	return int64(ms)
}

// Renew implements mcp.ReplayGuard.
func (g *ReplayGuard) Renew(ctx context.Context, nonce []byte, token string, lease time.Duration) (bool, error) {
	key := g.key(nonce)
	n, err := call(ctx, &g.cfg, func(ctx context.Context) (int64, error) {
		return renewScript.Run(ctx, g.rdb, []string{key}, token, leaseMillis(lease)).Int64()
	})
	if err != nil {
		return false, g.cfg.fail("replay guard", err)
	}
	return n == 1, nil
}

// Complete implements mcp.ReplayGuard: the outcome is kept until until plus
// ten minutes, measured from this replica's clock (the one that judged the
// state) rather than from Redis's; a nil outcome releases the lease. A run
// (call not "") is then kept under call, in a second command: the two keys
// need not live on one node of a cluster.
func (g *ReplayGuard) Complete(ctx context.Context, nonce []byte, token string, outcome []byte, until time.Time, run string) error {
	key := g.key(nonce)
	keep := max(time.Until(until), 0) + replayMargin
	if outcome == nil {
		outcome = []byte{} // sent as "", which the script reads as a release
	}
	_, err := call(ctx, &g.cfg, func(ctx context.Context) (int64, error) {
		return completeScript.Run(ctx, g.rdb, []string{key}, token, outcome, keep.Milliseconds()).Int64()
	})
	if err != nil {
		return g.cfg.fail("replay guard", err)
	}
	if run == "" || len(outcome) == 0 {
		return nil
	}
	rk, err := g.runKey(run)
	if err != nil {
		return err
	}
	_, err = call(ctx, &g.cfg, func(ctx context.Context) (string, error) {
		return g.rdb.Set(ctx, rk, outcome, mcp.LastRunTTL).Result()
	})
	if err != nil {
		return g.cfg.fail("replay guard: keeping the run", err)
	}
	return nil
}

// lastRunScript: KEYS[1] the run. A read, but a script, so that it runs on
// the master even for a cluster client that reads from replicas: a replica
// may not have received the run another replica's Complete has just kept,
// and a confirmation question would then not say that the call ran.
var lastRunScript = redis.NewScript(`return redis.call('GET', KEYS[1])`)

// LastRun implements mcp.ReplayGuard.
func (g *ReplayGuard) LastRun(ctx context.Context, run string) ([]byte, error) {
	if run == "" {
		return nil, nil
	}
	rk, err := g.runKey(run)
	if err != nil {
		return nil, err
	}
	v, err := call(ctx, &g.cfg, func(ctx context.Context) ([]byte, error) {
		s, err := lastRunScript.Run(ctx, g.rdb, []string{rk}).Text()
		if errors.Is(err, redis.Nil) {
			return nil, nil
		}
		return []byte(s), err
	})
	if err != nil {
		return nil, g.cfg.fail("replay guard", err)
	}
	return v, nil
}
