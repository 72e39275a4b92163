package redisstore

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpdual/mcpdual/mcp"
)

// AnswerBus carries a 2025 client's answer to a question
// (mcp.WithLegacyInput) from the replica its POST reaches to the replica
// whose call waits for it, over Redis pub/sub. Each replica holds one
// subscription connection; a waiting call subscribes to the channel of
// its question's id, and an answer is published there. The first answer
// to an id is delivered, once: a second one, or one with nobody
// listening (the call ended, or the id was never asked), is refused.
type AnswerBus struct {
	cfg config
	rdb redis.UniversalClient

	mu     sync.Mutex
	ps     *redis.PubSub
	subs   map[string]chan []byte // channel -> the call waiting on it
	closed bool
}

var _ mcp.AnswerBus = (*AnswerBus)(nil)

// NewAnswerBus returns an AnswerBus on rdb; give every replica one over
// the same Redis (and prefix). Close it when the handler is done. It
// needs one Redis (or a Sentinel-managed one): on a Redis Cluster the
// count of listeners PUBLISH returns is one node's, so a delivered answer
// could be reported as undelivered; NewAnswerBus panics on a
// *redis.ClusterClient.
func NewAnswerBus(rdb redis.UniversalClient, opts ...Option) *AnswerBus {
	if rdb == nil {
		panic("redisstore: NewAnswerBus needs a Redis client")
	}
	if _, cluster := rdb.(*redis.ClusterClient); cluster {
		panic("redisstore: NewAnswerBus needs a single Redis or Sentinel, not a Cluster")
	}
	b := &AnswerBus{cfg: newConfig(opts), rdb: rdb, subs: map[string]chan []byte{}}
	if b.cfg.failOpen != nil {
		panic("redisstore: FailOpen applies to a Limiter only; an answer bus cannot deliver without Redis")
	}
	return b
}

func (b *AnswerBus) channel(id string) string { return b.cfg.prefix + "answer:" + id }

// answeredTTL is how long an id is remembered as answered: longer than
// any call may wait for it.
const answeredTTL = 10 * time.Minute

// publishScript: KEYS[1] marks the id answered, ARGV[1] the channel,
// ARGV[2] the answer, ARGV[3] the mark's life in ms. The first answer is
// published and its count of listeners returned; any later one, 0.
var publishScript = redis.NewScript(`
if redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[3]) then
  return redis.call('PUBLISH', ARGV[1], ARGV[2])
end
return 0
`)

// Subscribe implements mcp.AnswerBus.
func (b *AnswerBus) Subscribe(ctx context.Context, id string) (<-chan []byte, func(), error) {
	name := b.channel(id)
	ch := make(chan []byte, 1)
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil, nil, errors.New("redisstore: the answer bus is closed")
	}
	if b.ps == nil {
		// One connection for every call this replica has waiting; its
		// reader hands each message to the call on its channel.
		b.ps = b.rdb.Subscribe(context.Background()) // the bus's own, not the first request's
		go b.deliver(b.ps.Channel())
	}
	ps := b.ps
	b.subs[name] = ch
	b.mu.Unlock()
	drop := func() {
		b.mu.Lock()
		if b.subs[name] == ch {
			delete(b.subs, name)
		}
		b.mu.Unlock()
	}
	if _, err := call(ctx, &b.cfg, func(ctx context.Context) (struct{}, error) { return struct{}{}, ps.Subscribe(ctx, name) }); err != nil {
		drop()
		return nil, nil, b.cfg.fail("subscribe", err)
	}
	stop := func() {
		drop()
		_, _ = call(context.Background(), &b.cfg, func(ctx context.Context) (struct{}, error) { return struct{}{}, ps.Unsubscribe(ctx, name) })
	}
	return ch, stop, nil
}

func (b *AnswerBus) deliver(msgs <-chan *redis.Message) {
	for m := range msgs {
		b.mu.Lock()
		ch := b.subs[m.Channel]
		b.mu.Unlock()
		if ch != nil {
			select {
			case ch <- []byte(m.Payload):
			default: // answered already
			}
		}
	}
}

// Publish implements mcp.AnswerBus.
func (b *AnswerBus) Publish(ctx context.Context, id string, answer []byte) (bool, error) {
	n, err := call(ctx, &b.cfg, func(ctx context.Context) (int64, error) {
		return publishScript.Run(ctx, b.rdb, []string{b.cfg.prefix + "answered:" + id}, b.channel(id), answer, answeredTTL.Milliseconds()).Int64()
	})
	if err != nil {
		return false, b.cfg.fail("publish", err)
	}
	return n > 0, nil
}

// Close ends the bus's subscription connection: calls still waiting get
// no answer and end when their wait does.
func (b *AnswerBus) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	if b.ps == nil {
		return nil
	}
	return b.ps.Close()
}
