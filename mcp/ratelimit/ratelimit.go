package ratelimit

import (
	"cmp"
	"context"
	"errors"
	"math"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Limiter decides whether the request identified by key may spend cost
// units now. An error means the limiter could not decide (its store is
// down); the endpoint then answers 503 rather than let traffic through
// unmetered.
type Limiter interface {
	Take(ctx context.Context, key string, cost int) (Decision, error)
}

// Decision is a Limiter's answer. The endpoint sends Limit, Remaining and
// Reset as X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset
// (epoch seconds) on every response, and RetryAfter as Retry-After when
// the request is refused.
type Decision struct {
	Allowed    bool
	Limit      int
	Remaining  int
	Reset      time.Time     // when the budget is whole again
	RetryAfter time.Duration // when refused: how long until cost units are available
}

// SetHeaders sets what the endpoint tells a caller of its budget:
// X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset (epoch
// seconds, rounded up) and, when the request is refused, Retry-After
// (whole seconds, rounded up). A host's own routes that spend the same
// budget answer the same way.
func (d Decision) SetHeaders(h http.Header) {
	h[limitHeader] = []string{strconv.Itoa(d.Limit)}
	h[remainingHeader] = []string{strconv.Itoa(max(d.Remaining, 0))}
	reset := d.Reset.Unix()
	if d.Reset.Nanosecond() > 0 {
		reset++
	}
	h[resetHeader] = []string{strconv.FormatInt(reset, 10)}
	if !d.Allowed {
		h[retryAfterHeader] = []string{strconv.FormatInt(int64((max(d.RetryAfter, time.Millisecond)+time.Second-1)/time.Second), 10)}
	}
}

var (
	limitHeader      = http.CanonicalHeaderKey("X-RateLimit-Limit")
	remainingHeader  = http.CanonicalHeaderKey("X-RateLimit-Remaining")
	resetHeader      = http.CanonicalHeaderKey("X-RateLimit-Reset")
	retryAfterHeader = http.CanonicalHeaderKey("Retry-After")
)

// PrincipalKey is the key of a verified principal's budget, given
// auth.Authenticator.RateKey. The endpoint spends from it; a host's REST routes
// that spend from it too share one budget with MCP.
func PrincipalKey(principalKey string) string { return "principal|" + principalKey }

// ClientKey is the key of a client's budget (its address, or whatever
// WithClientRateLimit's key function names), before or without
// authentication.
//
// An IPv6 address names its /64, not itself: a host is usually given a
// whole /64 and picks any address in it, so one budget per address would be
// 2^64 budgets per client. The endpoint's default key, ForwardedFor and
// Forwarded return addresses and are grouped here, as is any key function
// that returns a bare IPv6 address. IPv4 addresses and other keys are used
// as given; IPv6Prefix chooses another prefix length.
func ClientKey(client string) string {
	if strings.IndexByte(client, ':') >= 0 && strings.IndexByte(client, '/') < 0 {
		if a, err := netip.ParseAddr(client); err == nil {
			if a.Is4In6() {
				return "client|" + a.Unmap().String()
			}
			p, _ := a.WithZone("").Prefix(defaultIPv6Bits)
			return string(p.AppendTo([]byte("client|")))
		}
	}
	return "client|" + client
}

// defaultIPv6Bits is the prefix ClientKey groups IPv6 addresses by.
const defaultIPv6Bits = 64

// IPv6Prefix returns key with IPv6 addresses grouped by their first bits
// (1 to 128) instead of ClientKey's /64: 128 gives each address its own
// budget, 56 or 48 groups a site's networks. A nil key is the endpoint's
// default, the address of RemoteAddr. The result is a prefix in CIDR form
// ("2001:db8:0:100::/56"), which ClientKey keeps as it is; IPv4 addresses
// (IPv4-mapped ones unmapped) and keys that are not addresses are
// returned unchanged. It panics when bits is out of range.
func IPv6Prefix(bits int, key func(*http.Request) string) func(*http.Request) string {
	if bits < 1 || bits > 128 {
		panic("ratelimit: IPv6Prefix needs 1 to 128 bits")
	}
	if key == nil {
		key = func(r *http.Request) string { return peerKey(r.RemoteAddr) }
	}
	return func(r *http.Request) string {
		k := key(r)
		a, ok := addr(k)
		if !ok {
			return k
		}
		if !a.Is6() {
			return a.String()
		}
		p, _ := a.Prefix(bits)
		return p.String()
	}
}

// Memory is an in-process token bucket per key: each key holds up to burst
// tokens and regains rate tokens per second. It is safe for concurrent
// use. Keys idle long enough to be full again are forgotten, and the
// number of keys is bounded (WithMaxKeys), so a flood of distinct keys
// cannot exhaust memory.
type Memory struct {
	rate    float64
	burst   float64
	now     func() time.Time
	maxKeys int

	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	last   time.Time
}

// Option configures a Memory limiter.
type Option interface{ apply(*Memory) }

type optionFunc func(*Memory)

func (f optionFunc) apply(m *Memory) { f(m) }

// WithClock replaces time.Now, for tests.
func WithClock(now func() time.Time) Option {
	return optionFunc(func(m *Memory) { m.now = now })
}

// WithMaxKeys bounds how many keys are tracked (default 100 000). When the
// bound is reached, every bucket that is full again is dropped (it loses
// nothing) and, if that leaves more than 7/8 of the bound, the fullest of
// the rest, down to 7/8: the callers that spent the most keep their
// debt, and the cost of a scan is spread over an eighth of the bound's
// new keys. It panics on a bound below 1.
func WithMaxKeys(n int) Option {
	if n <= 0 {
		panic("ratelimit: WithMaxKeys needs a positive bound")
	}
	return optionFunc(func(m *Memory) { m.maxKeys = n })
}

// NewMemory returns a token bucket per key holding up to burst tokens and
// refilled at perSecond tokens per second. It panics unless both are
// positive.
func NewMemory(perSecond float64, burst int, opts ...Option) *Memory {
	if !(perSecond > 0) || math.IsInf(perSecond, 0) || burst <= 0 {
		panic("ratelimit: NewMemory needs a positive rate and burst")
	}
	m := &Memory{rate: perSecond, burst: float64(burst), now: time.Now, maxKeys: 100_000, buckets: map[string]*bucket{}}
	for _, o := range opts {
		o.apply(m)
	}
	return m
}

// Take implements Limiter. A cost above the burst can never be paid and is
// refused with the time a full bucket would take; a negative cost, which
// would add tokens, is an error.
func (m *Memory) Take(_ context.Context, key string, cost int) (Decision, error) {
	if cost < 0 {
		return Decision{}, errNegativeCost
	}
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.buckets[key]
	if !ok {
		if len(m.buckets) >= m.maxKeys {
			m.evict(now)
		}
		b = &bucket{tokens: m.burst, last: now}
		m.buckets[key] = b
	}
	if elapsed := now.Sub(b.last); elapsed > 0 {
		b.tokens = min(m.burst, b.tokens+elapsed.Seconds()*m.rate)
		b.last = now
	}
	d := Decision{Limit: int(m.burst)}
	c := float64(cost)
	if b.tokens >= c {
		b.tokens -= c
		d.Allowed = true
	} else {
		need := c - b.tokens
		if c > m.burst {
			need = m.burst - b.tokens // never payable; report a full refill
		}
		d.RetryAfter = max(m.duration(need), time.Nanosecond)
	}
	d.Remaining = int(math.Floor(b.tokens))
	d.Reset = now.Add(m.duration(m.burst - b.tokens))
	return d, nil
}

var errNegativeCost = errors.New("ratelimit: negative cost")

func (m *Memory) duration(tokens float64) time.Duration {
	if tokens <= 0 {
		return 0
	}
	return time.Duration(math.Ceil(tokens / m.rate * float64(time.Second)))
}

// evict makes room: every bucket that is full again, then the fullest of
// the rest until 7/8 of the bound is left.
func (m *Memory) evict(now time.Time) {
	type level struct {
		key    string
		tokens float64
	}
	rest := make([]level, 0, len(m.buckets))
	for k, b := range m.buckets {
		tokens := b.tokens + now.Sub(b.last).Seconds()*m.rate
		if tokens >= m.burst {
			delete(m.buckets, k)
			continue
		}
		rest = append(rest, level{k, tokens})
	}
	extra := len(rest) - (m.maxKeys - m.maxKeys/8 - 1)
	if extra <= 0 {
		return
	}
	slices.SortFunc(rest, func(a, b level) int { return cmp.Compare(b.tokens, a.tokens) })
	for _, l := range rest[:extra] {
		delete(m.buckets, l.key)
	}
}

// Len returns how many keys are tracked.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.buckets)
}
