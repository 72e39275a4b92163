package redisstore

import (
	"context"
	"errors"
	"sort"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpdual/mcpdual/mcp"
)

// SessionStore keeps what a sealed 2025 session changed after initialize
// (mcp.SessionStore) in Redis: one hash per session,
// <prefix>session:{<key>}, with the field "l" for its logging level and
// "u:<uri>" for each resource it subscribed to, expiring when the session
// does. The key is the endpoint's digest of the session id, and the hash
// tag: whatever the session's state grows to stays in one slot of a
// cluster. Every change is one script on that key, so the bound on a
// session's URIs holds under concurrent calls on any replica.
type SessionStore struct {
	cfg config
	rdb redis.UniversalClient
	now func() time.Time // this replica's clock
}

var _ mcp.SessionStore = (*SessionStore)(nil)

// NewSessionStore returns a SessionStore on rdb: a single Redis, Sentinel,
// a Cluster or a Ring (a script touches one key). It panics with FailOpen
// (a session's state cannot be kept without Redis) and on a prefix with an
// unclosed or empty "{".
func NewSessionStore(rdb redis.UniversalClient, opts ...Option) *SessionStore {
	if rdb == nil {
		panic("redisstore: NewSessionStore needs a Redis client")
	}
	s := &SessionStore{cfg: newConfig(opts), rdb: rdb, now: time.Now}
	if s.cfg.failOpen != nil {
		panic("redisstore: FailOpen applies to a Limiter only; a session store cannot keep state without Redis")
	}
	if !tagSafe(s.cfg.prefix) {
		panic("redisstore: NewSessionStore needs a prefix whose first \"{\", if any, closes with a \"}\" around at least one character")
	}
	return s
}

func (s *SessionStore) key(session string) string { return s.cfg.prefix + "session:{" + session + "}" }

// Bounds of mcp.SessionStore's contract.
const (
	sessionKeyLength = 43
	maxSessionURI    = 2048
	maxSessionLevel  = 16
)

var (
	errSessionKey   = errors.New("redisstore: session store: the session key is not 43 URL-safe characters")
	errSessionURI   = errors.New("redisstore: session store: a URI is 1 to 2048 bytes")
	errSessionLevel = errors.New("redisstore: session store: a level is 1 to 16 bytes")
)

func checkKey(session string) error {
	if len(session) != sessionKeyLength {
		return errSessionKey
	}
	for i := 0; i < len(session); i++ {
		c := session[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return errSessionKey
		}
	}
	return nil
}

// expireTail sets the key's expiry to ARGV[1] ms from now unless it
// already expires later; ARGV[1] not positive deletes a key that has no
// later expiry (PEXPIRE's own rule). Redis counts the milliseconds from
// its own now: no absolute time crosses between clocks.
const expireTail = `
local cur = redis.call('PTTL', KEYS[1])
if cur < 0 or cur < tonumber(ARGV[1]) then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
`

// remaining is how long until until, by this replica's clock, in the
// whole milliseconds expireTail takes (rounded up: a session is kept at
// least until until). The replica judges a session's expiry by its own
// clock, as the replay guard does a confirmation's; an absolute time
// handed to Redis would be read by Redis's clock, and a Redis whose clock
// runs ahead of the replicas' would forget a live session's state early.
func (s *SessionStore) remaining(until time.Time) int64 {
	return ceilMillis(until.Sub(s.now()))
}

// subscribeScript: KEYS[1] the session, ARGV[1] ms until until, ARGV[2] the
// field, ARGV[3] max. 0: the session holds max others, nothing changed.
var subscribeScript = redis.NewScript(`
if redis.call('HEXISTS', KEYS[1], ARGV[2]) == 0 then
  local n = redis.call('HLEN', KEYS[1]) - redis.call('HEXISTS', KEYS[1], 'l')
  if n >= tonumber(ARGV[3]) then
    return 0
  end
  redis.call('HSET', KEYS[1], ARGV[2], '1')
end
` + expireTail + `
return 1
`)

// levelScript: KEYS[1] the session, ARGV[1] ms until until, ARGV[2] the level.
var levelScript = redis.NewScript(`
redis.call('HSET', KEYS[1], 'l', ARGV[2])
` + expireTail + `
return 1
`)

// loadScript: KEYS[1] the session; its fields and values, in turn. A
// read, but a script: a cluster client that reads from replicas (ReadOnly,
// RouteByLatency, RouteRandomly) sends HGETALL to one, which may not have
// received a write another replica's Subscribe has returned from, and the
// contract has every write seen by a later Load. EVALSHA is not a
// read-only command, so it runs on the master.
var loadScript = redis.NewScript(`return redis.call('HGETALL', KEYS[1])`)

// Subscribe implements mcp.SessionStore.
func (s *SessionStore) Subscribe(ctx context.Context, session, uri string, max int, until time.Time) (bool, error) {
	if err := checkKey(session); err != nil {
		return false, err
	}
	if uri == "" || len(uri) > maxSessionURI {
		return false, errSessionURI
	}
	n, err := call(ctx, &s.cfg, func(ctx context.Context) (int64, error) {
		return subscribeScript.Run(ctx, s.rdb, []string{s.key(session)}, s.remaining(until), "u:"+uri, max).Int64()
	})
	if err != nil {
		return false, s.cfg.fail("session subscribe", err)
	}
	return n == 1, nil
}

// Unsubscribe implements mcp.SessionStore.
func (s *SessionStore) Unsubscribe(ctx context.Context, session, uri string) error {
	if err := checkKey(session); err != nil {
		return err
	}
	if uri == "" || len(uri) > maxSessionURI {
		return errSessionURI
	}
	_, err := call(ctx, &s.cfg, func(ctx context.Context) (int64, error) {
		return s.rdb.HDel(ctx, s.key(session), "u:"+uri).Result()
	})
	if err != nil {
		return s.cfg.fail("session unsubscribe", err)
	}
	return nil
}

// SetLevel implements mcp.SessionStore.
func (s *SessionStore) SetLevel(ctx context.Context, session, level string, until time.Time) error {
	if err := checkKey(session); err != nil {
		return err
	}
	if level == "" || len(level) > maxSessionLevel {
		return errSessionLevel
	}
	_, err := call(ctx, &s.cfg, func(ctx context.Context) (int64, error) {
		return levelScript.Run(ctx, s.rdb, []string{s.key(session)}, s.remaining(until), level).Int64()
	})
	if err != nil {
		return s.cfg.fail("session level", err)
	}
	return nil
}

// Load implements mcp.SessionStore.
func (s *SessionStore) Load(ctx context.Context, session string) ([]string, string, error) {
	if err := checkKey(session); err != nil {
		return nil, "", err
	}
	pairs, err := call(ctx, &s.cfg, func(ctx context.Context) ([]string, error) {
		return loadScript.Run(ctx, s.rdb, []string{s.key(session)}).StringSlice()
	})
	if err != nil {
		return nil, "", s.cfg.fail("session load", err)
	}
	fields := make(map[string]string, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		fields[pairs[i]] = pairs[i+1]
	}
	uris, level := loadFields(fields)
	return uris, level, nil
}

// loadFields reads a session's hash as Subscribe and SetLevel write it:
// the URIs of its "u:" fields, sorted, and the value of "l". What they
// never write — a URI or a level out of the contract's bounds — is left
// out: Redis takes any client's writes, and Load returns only what the
// contract lets a store hold.
func loadFields(fields map[string]string) (uris []string, level string) {
	for f, v := range fields {
		if f == "l" {
			if v != "" && len(v) <= maxSessionLevel {
				level = v
			}
		} else if u, ok := strings.CutPrefix(f, "u:"); ok && u != "" && len(u) <= maxSessionURI {
			uris = append(uris, u)
		}
	}
	sort.Strings(uris)
	return uris, level
}
