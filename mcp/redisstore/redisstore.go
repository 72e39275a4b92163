package redisstore

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// DefaultTimeout bounds each Redis call unless WithTimeout says otherwise.
// A rate-limit check sits in front of every request, so an answer that has
// not come in 200 ms is treated as no answer.
const DefaultTimeout = 200 * time.Millisecond

// DefaultPrefix starts every key unless WithPrefix says otherwise.
const DefaultPrefix = "mcpdual:"

type config struct {
	prefix   string
	timeout  time.Duration
	failOpen func(error) // non-nil: the limiter admits when Redis fails
}

func newConfig(opts []Option) config {
	c := config{prefix: DefaultPrefix, timeout: DefaultTimeout}
	for _, o := range opts {
		o.apply(&c)
	}
	return c
}

// Option configures a Limiter or a ReplayGuard.
type Option interface{ apply(*config) }

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// WithPrefix sets the string every key starts with (default "mcpdual:"),
// to keep several services or environments apart on one Redis or to match
// an ACL key pattern. It panics on an empty prefix.
func WithPrefix(prefix string) Option {
	if prefix == "" {
		panic("redisstore: WithPrefix needs a non-empty prefix")
	}
	return optionFunc(func(c *config) { c.prefix = prefix })
}

// WithTimeout bounds each Redis call (default 200 ms), including the
// go-redis client's own retries. It panics unless d is positive.
func WithTimeout(d time.Duration) Option {
	if d <= 0 {
		panic("redisstore: WithTimeout needs a positive duration")
	}
	return optionFunc(func(c *config) { c.timeout = d })
}

// FailOpen makes a Limiter admit every request while Redis cannot answer,
// instead of returning an error (which the endpoint answers with 503).
// Choose it only where an outage of the limit is better than an outage of
// the service: while Redis is down nothing is metered. report, when not
// nil, receives each error that was swallowed, so the outage is still
// seen; it runs on the request's path and must be quick. NewReplayGuard
// panics when given FailOpen: a confirmation must never be accepted twice
// because Redis was down.
func FailOpen(report func(error)) Option {
	if report == nil {
		report = func(error) {}
	}
	return optionFunc(func(c *config) { c.failOpen = report })
}

// call runs f under c's timeout and returns when the timeout passes even
// if f has not: go-redis ignores a context's deadline on its sockets
// unless the client was built with ContextTimeoutEnabled, and the endpoint
// must answer promptly either way. An f left behind finishes in the
// background, bounded by the client's own socket timeouts, and its result
// is dropped; it reaches the caller only through the channel, so nothing
// is shared with a call that has already returned.
func call[T any](ctx context.Context, c *config, f func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := f(ctx)
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		// An answer that came with the deadline still counts: a replay
		// guard whose nonce was recorded must say so.
		select {
		case r := <-done:
			return r.v, r.err
		default:
			var zero T
			return zero, ctx.Err()
		}
	}
}

// fail wraps the error of op for the endpoint's log. go-redis errors carry
// the address at most, never the password; keys are left out since they
// derive from identities.
func (c *config) fail(op string, err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("redisstore: %s: no answer from Redis within %v: %w", op, c.timeout, err)
	}
	return fmt.Errorf("redisstore: %s: %w", op, err)
}
