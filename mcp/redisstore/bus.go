package redisstore

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpdual/mcpdual/mcp"
)

// AnswerBus carries a 2025 client's answer to a question
// (mcp.WithLegacyInput) from the replica its POST reaches to the replica
// whose call waits for it, over Redis pub/sub. A waiting call subscribes
// to the channel of its question's id, and an answer is published there by
// a script that also marks the id answered: the first answer that reaches
// a listener is delivered, once; a second one is refused, and so is one
// nobody listens to (the call ended, or the id was never asked), which
// leaves the id unanswered.
//
// On a single Redis (or a Sentinel-managed one) each replica holds one
// subscription connection for all its waiting calls. On a Redis Cluster
// the bus uses sharded pub/sub (SSUBSCRIBE and SPUBLISH, Redis 7.0 or
// later): a channel lives on the node that owns its slot, the one the
// script runs on, so the count of listeners the script reads is the whole
// cluster's, and a delivered answer is never reported undelivered. There
// each waiting call holds a subscription connection of its own to that
// node (at most mcp.LegacyInput's Total per replica); should its slot move
// while it waits (a resharding), the node ends the subscription and the
// call ends as declined when its wait does — nothing runs.
type AnswerBus struct {
	cfg     config
	rdb     redis.UniversalClient
	cluster *redis.ClusterClient // non-nil: sharded pub/sub, a subscription per call

	mu     sync.Mutex
	ps     *redis.PubSub      // a single Redis: the one subscription connection
	subs   map[string]*waiter // channel -> the call waiting on it
	calls  map[*redis.PubSub]struct{}
	turn   chan struct{} // held by the call handing go-redis its SUBSCRIBE
	closed bool
}

// waiter is one call waiting on a channel.
type waiter struct {
	answers chan []byte
	ready   chan struct{} // closed when Redis confirmed the subscription
	once    sync.Once
}

func (w *waiter) subscribed() { w.once.Do(func() { close(w.ready) }) }

func (w *waiter) deliver(answer []byte) {
	select {
	case w.answers <- answer:
	default: // answered already
	}
}

var _ mcp.AnswerBus = (*AnswerBus)(nil)

// NewAnswerBus returns an AnswerBus on rdb, a single Redis (*redis.Client,
// also Sentinel-managed) or a Redis Cluster (*redis.ClusterClient); give
// every replica one over the same Redis (and prefix). Close it when the
// handler is done. It panics on a *redis.Ring, whose shards do not share
// channels, and on a prefix with an unclosed or empty "{", which would
// become the hash tag of part of a name and split a channel from its mark
// across a cluster's slots. It panics, too, on a cluster client with
// ReadOnly set (RouteByLatency and RouteRandomly set it): go-redis then
// subscribes on a replica, whose listeners the script publishing on the
// master does not count, so an answer the call received would be
// reported undelivered, and its id left unanswered. Give the bus a client
// of its own without them.
func NewAnswerBus(rdb redis.UniversalClient, opts ...Option) *AnswerBus {
	if rdb == nil {
		panic("redisstore: NewAnswerBus needs a Redis client")
	}
	if _, ring := rdb.(*redis.Ring); ring {
		panic("redisstore: NewAnswerBus needs a single Redis, Sentinel or a Cluster, not a Ring")
	}
	b := &AnswerBus{cfg: newConfig(opts), rdb: rdb, subs: map[string]*waiter{}, calls: map[*redis.PubSub]struct{}{},
		turn: make(chan struct{}, 1)}
	if b.cfg.failOpen != nil {
		panic("redisstore: FailOpen applies to a Limiter only; an answer bus cannot deliver without Redis")
	}
	if !tagSafe(b.cfg.prefix) {
		panic("redisstore: NewAnswerBus needs a prefix whose first \"{\", if any, closes with a \"}\" around at least one character")
	}
	b.cluster, _ = rdb.(*redis.ClusterClient)
	if b.cluster != nil && b.cluster.Options().ReadOnly {
		panic("redisstore: NewAnswerBus needs a cluster client that subscribes on masters, without ReadOnly, RouteByLatency or RouteRandomly")
	}
	return b
}

// tagSafe reports whether prefix leaves the hash tag of a name to what
// follows it, or holds a whole tag of its own (then every name shares it):
// Redis hashes the text between a name's first "{" and the first "}"
// after it, when there is some.
func tagSafe(prefix string) bool {
	open := strings.IndexByte(prefix, '{')
	if open < 0 {
		return true
	}
	end := strings.IndexByte(prefix[open+1:], '}')
	return end > 0
}

// channel and mark name id's channel and its answered mark. The id is
// their hash tag: both sit in one slot of a cluster, so the script that
// checks the mark and publishes runs on the node that holds the channel.
func (b *AnswerBus) channel(id string) string { return b.cfg.prefix + "answer:{" + id + "}" }
func (b *AnswerBus) mark(id string) string    { return b.cfg.prefix + "answered:{" + id + "}" }

// answeredTTL is how long an id is remembered as answered: longer than
// any call may wait for it.
const answeredTTL = 10 * time.Minute

// publishScript: KEYS[1] the answered mark, ARGV[1] the channel, ARGV[2]
// the answer, ARGV[3] the mark's life in ms, ARGV[4] PUBLISH or SPUBLISH.
// An id already answered gets 0; otherwise the answer is published, and
// the id marked answered only when someone received it, so an answer that
// found nobody (it came before the call listened, or after) spends
// nothing.
var publishScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
local n = redis.call(ARGV[4], ARGV[1], ARGV[2])
if n > 0 then
  redis.call('SET', KEYS[1], '1', 'PX', ARGV[3])
end
return n
`)

var errClosed = errors.New("redisstore: the answer bus is closed")

// Subscribe implements mcp.AnswerBus. It returns once Redis has confirmed
// the subscription, so an answer published after it returns arrives.
func (b *AnswerBus) Subscribe(ctx context.Context, id string) (<-chan []byte, func(), error) {
	if b.cluster != nil {
		return b.subscribeSharded(ctx, id)
	}
	name := b.channel(id)
	w := &waiter{answers: make(chan []byte, 1), ready: make(chan struct{})}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil, nil, errClosed
	}
	if b.ps == nil {
		// One connection for every call this replica has waiting; its
		// reader hands each message to the call on its channel, and each
		// confirmation to the call subscribing.
		b.ps = b.rdb.Subscribe(context.Background()) // the bus's own, not the first request's
		go b.read(b.ps.ChannelWithSubscriptions())
	}
	ps := b.ps
	b.subs[name] = w
	b.mu.Unlock()
	drop := func() {
		b.mu.Lock()
		if b.subs[name] == w {
			delete(b.subs, name)
		}
		b.mu.Unlock()
	}
	// The shared connection's commands are given no deadline: go-redis
	// takes a command whose context ended as a broken connection and
	// re-dials it, and what Redis had already sent it for every other
	// waiting call (answers PUBLISH counted as delivered, their ids then
	// marked answered) is lost with the old socket. A write is bounded by
	// the client's WriteTimeout instead (a dial, when the connection is
	// down, by its DialTimeout), and this call still returns within the
	// store's timeout. One call at a time hands go-redis its SUBSCRIBE; a
	// call that gave up before its turn sends nothing, so while Redis
	// cannot be reached, calls that fail leave no goroutine queued behind
	// a dial.
	wrote := make(chan struct{})
	sent := false // go-redis was handed the SUBSCRIBE, and holds the channel
	unsubscribe := func() {
		// Only once the SUBSCRIBE is written: an UNSUBSCRIBE that overtook
		// it would leave the channel subscribed for as long as the bus
		// lives, and an answer to the id counted as delivered to nobody.
		go func() {
			<-wrote
			if sent {
				_ = ps.Unsubscribe(context.Background(), name)
			}
		}()
	}
	_, err := call(ctx, &b.cfg, func(ctx context.Context) (struct{}, error) {
		err := func() error {
			defer close(wrote)
			select {
			case b.turn <- struct{}{}:
				defer func() { <-b.turn }()
			case <-ctx.Done():
				return ctx.Err()
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			sent = true
			return ps.Subscribe(context.WithoutCancel(ctx), name)
		}()
		if err != nil {
			return struct{}{}, err
		}
		// SUBSCRIBE is only written: wait for Redis to confirm it.
		select {
		case <-w.ready:
			return struct{}{}, nil
		case <-ctx.Done():
			return struct{}{}, ctx.Err()
		}
	})
	if err != nil {
		drop()
		unsubscribe()
		return nil, nil, b.cfg.fail("subscribe", err)
	}
	var once sync.Once
	return w.answers, func() { once.Do(func() { drop(); unsubscribe() }) }, nil
}

// read hands what the shared connection receives to the waiting calls.
func (b *AnswerBus) read(msgs <-chan any) {
	for m := range msgs {
		var name string
		switch m := m.(type) {
		case *redis.Subscription:
			name = m.Channel
		case *redis.Message:
			name = m.Channel
		default:
			continue
		}
		b.mu.Lock()
		w := b.subs[name]
		b.mu.Unlock()
		if w == nil {
			continue
		}
		switch m := m.(type) {
		case *redis.Subscription:
			if m.Kind == "subscribe" {
				w.subscribed()
			}
		case *redis.Message:
			w.deliver([]byte(m.Payload))
		}
	}
}

// subscribeSharded subscribes one call on a cluster, on a connection of
// its own to the node that owns the channel's slot.
func (b *AnswerBus) subscribeSharded(ctx context.Context, id string) (<-chan []byte, func(), error) {
	name := b.channel(id)
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil, nil, errClosed
	}
	b.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, b.cfg.timeout)
	defer cancel()
	ps := b.cluster.SSubscribe(ctx, name)
	if err := awaitSubscribed(ctx, ps, name); err != nil {
		ps.Close()
		return nil, nil, b.cfg.fail("subscribe", err)
	}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		ps.Close()
		return nil, nil, errClosed
	}
	b.calls[ps] = struct{}{}
	b.mu.Unlock()
	w := &waiter{answers: make(chan []byte, 1)}
	go func() {
		for m := range ps.Channel() {
			w.deliver([]byte(m.Payload))
		}
	}()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			b.mu.Lock()
			delete(b.calls, ps)
			b.mu.Unlock()
			ps.Close()
		})
	}
	return w.answers, stop, nil
}

// Publish implements mcp.AnswerBus.
func (b *AnswerBus) Publish(ctx context.Context, id string, answer []byte) (bool, error) {
	publish := "PUBLISH"
	if b.cluster != nil {
		publish = "SPUBLISH"
	}
	n, err := call(ctx, &b.cfg, func(ctx context.Context) (int64, error) {
		return publishScript.Run(ctx, b.rdb, []string{b.mark(id)}, b.channel(id), answer, answeredTTL.Milliseconds(), publish).Int64()
	})
	if err != nil {
		return false, b.cfg.fail("publish", err)
	}
	return n > 0, nil
}

// Close ends the bus's subscription connections: calls still waiting get
// no answer and end when their wait does.
func (b *AnswerBus) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	for ps := range b.calls {
		ps.Close()
	}
	clear(b.calls)
	if b.ps == nil {
		return nil
	}
	return b.ps.Close()
}

// awaitSubscribed waits, until ctx is done, for Redis to confirm that ps
// subscribed to channel: (S)SUBSCRIBE is only written, and its
// confirmation is the first message on the connection. When ctx ends
// first, ps is closed, which ends the read.
func awaitSubscribed(ctx context.Context, ps *redis.PubSub, channel string) error {
	confirmed := make(chan error, 1)
	go func() {
		m, err := ps.Receive(ctx)
		if s, ok := m.(*redis.Subscription); err == nil && (!ok || s.Channel != channel || s.Kind != "subscribe" && s.Kind != "ssubscribe") {
			err = errors.New("unexpected answer to SUBSCRIBE")
		}
		confirmed <- err
	}()
	select {
	case err := <-confirmed:
		return err
	case <-ctx.Done():
		ps.Close() // ends the Receive
		<-confirmed
		return ctx.Err()
	}
}
