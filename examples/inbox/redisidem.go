package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisIdem keeps Idempotency-Keys in Redis, for every replica: a retry
// that reaches another replica, or this one after a restart, gets the
// first answer. Each key is a string holding its record, with a TTL; each
// caller (owner) has a sorted set of its keys by time, which begin trims
// to idemPerOwner, so what one caller stores is bounded whatever it sends,
// and no caller's keys are dropped for another's.
//
// A run holds its key with a lease (idemLease, the record's TTL while it
// runs) that the wrapper renews while the route runs, until it records the
// answer: should the replica die mid-run, the lease lapses that long after
// its last renewal and a waiting request (or a retry) takes the key over
// and runs (the routes' effects are the inbox's in-memory records, lost
// with the replica anyway).
type redisIdem struct {
	rdb     redis.UniversalClient
	prefix  string
	ttl     time.Duration
	lease   time.Duration
	maxWait time.Duration
	poll    time.Duration
	timeout time.Duration // of each Redis call
	cap     int
}

func newRedisIdem(rdb redis.UniversalClient, prefix string) *redisIdem {
	return &redisIdem{rdb: rdb, prefix: prefix, ttl: idemTTL, lease: idemLease, maxWait: idemMaxWait, poll: 50 * time.Millisecond,
		timeout: 500 * time.Millisecond, cap: idemPerOwner}
}

// idemRecord is a key's value: the request's fingerprint, the run's claim
// while it runs, the answer once it is known.
type idemRecord struct {
	Fingerprint string      `json:"f"`
	Claim       string      `json:"c,omitempty"`
	Answer      *idemAnswer `json:"a,omitempty"`
}

// idemBegin: KEYS[1] the record, KEYS[2] the owner's set; ARGV the new
// record, the lease (ms), now (ms), the TTL (ms), the owner's cap. It
// returns the record already there, or false after claiming the key
// (trimming the owner's set first: its expired keys, then its oldest).
var idemBegin = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v then return v end
local now, ttl, cap = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - ttl)
local n = redis.call('ZCARD', KEYS[2])
if n >= cap then
  for _, k in ipairs(redis.call('ZRANGE', KEYS[2], 0, n - cap)) do
    redis.call('DEL', k)
  end
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, n - cap)
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', KEYS[2], now, KEYS[1])
redis.call('PEXPIRE', KEYS[2], ttl)
return false
`)

// idemRenew: KEYS[1] the record; ARGV the claim, the lease (ms). Only the
// run that holds the claim extends it; it returns 1 when it did.
var idemRenew = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if not v or cjson.decode(v)['c'] ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`)

// idemFinish: KEYS[1] the record, KEYS[2] the owner's set; ARGV the claim,
// the answered record ("" to forget the key), the TTL (ms). Only the run
// that holds the claim writes; it returns 1 when it did.
var idemFinish = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if not v or cjson.decode(v)['c'] ~= ARGV[1] then return 0 end
if ARGV[2] == '' then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[2], KEYS[1])
else
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
end
return 1
`)

func (s *redisIdem) keys(owner, key string) []string {
	o, k := sha256.Sum256([]byte(owner)), sha256.Sum256([]byte(key))
	return []string{s.prefix + "idem:" + hex.EncodeToString(k[:]), s.prefix + "idem-owner:" + hex.EncodeToString(o[:])}
}

func (s *redisIdem) begin(ctx context.Context, owner, key string, fp [32]byte) (claim, error) {
	keys := s.keys(owner, key)
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	mine := idemRecord{Fingerprint: hex.EncodeToString(fp[:]), Claim: base64.RawURLEncoding.EncodeToString(b)}
	v, err := json.Marshal(mine)
	if err != nil {
		return claim{}, err
	}
	waitUntil := time.Now().Add(s.maxWait)
	for {
		cctx, cancel := context.WithTimeout(ctx, s.timeout)
		res, err := idemBegin.Run(cctx, s.rdb, keys, v, s.lease.Milliseconds(), time.Now().UnixMilli(), s.ttl.Milliseconds(), s.cap).Text()
		cancel()
		switch {
		case errors.Is(err, redis.Nil):
			return claim{run: true, token: mine.Claim, fingerprint: mine.Fingerprint}, nil
		case err != nil:
			if ctx.Err() != nil {
				return claim{}, ctx.Err()
			}
			return claim{}, fmt.Errorf("begin: %w", err)
		}
		var rec idemRecord
		if err := json.Unmarshal([]byte(res), &rec); err != nil {
			return claim{}, fmt.Errorf("begin: a record that does not parse: %w", err)
		}
		switch {
		case rec.Fingerprint != mine.Fingerprint:
			return claim{mismatch: true}, nil
		case rec.Answer != nil:
			return claim{answer: rec.Answer}, nil
		}
		// Another request runs it, here or on another replica: wait for
		// its answer, or for its claim to lapse (the record then goes, and
		// the next round claims it), for as long as it is renewed.
		if time.Now().After(waitUntil) {
			return claim{}, errors.New("begin: the first request with this key is still running")
		}
		select {
		case <-ctx.Done():
			return claim{}, ctx.Err()
		case <-time.After(s.poll):
		}
	}
}

func (s *redisIdem) leaseLength() time.Duration { return s.lease }

func (s *redisIdem) renew(ctx context.Context, owner, key string, c claim) (bool, error) {
	cctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	n, err := idemRenew.Run(cctx, s.rdb, s.keys(owner, key)[:1], c.token, s.lease.Milliseconds()).Int()
	if err != nil {
		return false, fmt.Errorf("renew: %w", err)
	}
	return n == 1, nil
}

func (s *redisIdem) finish(ctx context.Context, owner, key string, c claim, a *idemAnswer, keep bool) error {
	keys := s.keys(owner, key)
	answered := ""
	if keep {
		b, err := json.Marshal(idemRecord{Fingerprint: c.fingerprint, Answer: a})
		if err != nil {
			return err
		}
		answered = string(b)
	}
	cctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	if err := idemFinish.Run(cctx, s.rdb, keys, c.token, answered, s.ttl.Milliseconds()).Err(); err != nil {
		return fmt.Errorf("finish: %w", err)
	}
	return nil
}
