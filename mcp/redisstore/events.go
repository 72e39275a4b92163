package redisstore

import (
	"context"
	"errors"
	"net"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpdual/mcpdual/mcp"
)

// EventBus carries the endpoint's change notifications (mcp.EventBus) to
// every replica over Redis pub/sub: one channel, <prefix>events, on which
// every replica publishes and to which each holds one subscription
// connection, shared by all its subscriptions. On a Redis Cluster it uses
// sharded pub/sub (SPUBLISH and SSUBSCRIBE, Redis 7.0 or later): the
// channel lives on the node that owns its slot, so every event of the
// fleet passes through that one node.
//
// The connection's reader hands each event to every subscription of the
// replica without waiting: a subscription with 64 events unread is ended
// (its reader lost events and must start over). While the connection is
// quiet the reader pings Redis every second; a ping not answered within
// the timeout, a broken connection or (on a cluster) the channel's slot
// moving ends every subscription of the replica with an error, since
// events published meanwhile are lost. The next Subscribe opens a new
// connection, and fails while Redis cannot be reached.
type EventBus struct {
	cfg     config
	rdb     redis.UniversalClient
	cluster *redis.ClusterClient

	mu     sync.Mutex
	conn   *eventConn // nil: none open
	closed bool
}

// eventConn is one subscription connection and the subscriptions it
// feeds. A failed one is never reused.
type eventConn struct {
	ps    *redis.PubSub
	ready chan struct{} // closed once the subscription is confirmed or failed
	err   error         // why it failed, once ready is closed or it ended
	subs  map[*eventSub]struct{}
	dead  bool
}

type eventSub struct {
	events chan []byte
	err    error
	ended  bool
}

var _ mcp.EventBus = (*EventBus)(nil)

// Bounds of mcp.EventBus's contract.
const (
	maxEvent    = 8 << 10
	eventBuffer = 64
	// eventBeat is how long the subscription connection may stay quiet
	// before the reader pings Redis.
	eventBeat = time.Second
)

var (
	errEventSize   = errors.New("redisstore: event bus: an event is 1 to 8192 bytes")
	errEventLagged = errors.New("redisstore: event bus: the subscription fell behind and lost events")
	errEventSlot   = errors.New("redisstore: event bus: the channel's slot moved; events may have been lost")
	errEventClosed = errors.New("redisstore: the event bus is closed")
)

// NewEventBus returns an EventBus on rdb, a single Redis (*redis.Client,
// also Sentinel-managed) or a Redis Cluster (*redis.ClusterClient); give
// every replica one over the same Redis and prefix. Close it when the
// handler is done. It panics on a *redis.Ring, whose shards do not share
// channels, and with FailOpen: events cannot be delivered without Redis.
func NewEventBus(rdb redis.UniversalClient, opts ...Option) *EventBus {
	if rdb == nil {
		panic("redisstore: NewEventBus needs a Redis client")
	}
	if _, ring := rdb.(*redis.Ring); ring {
		panic("redisstore: NewEventBus needs a single Redis, Sentinel or a Cluster, not a Ring")
	}
	b := &EventBus{cfg: newConfig(opts), rdb: rdb}
	if b.cfg.failOpen != nil {
		panic("redisstore: FailOpen applies to a Limiter only; an event bus cannot deliver without Redis")
	}
	b.cluster, _ = rdb.(*redis.ClusterClient)
	return b
}

func (b *EventBus) channel() string { return b.cfg.prefix + "events" }

// Publish implements mcp.EventBus.
func (b *EventBus) Publish(ctx context.Context, event []byte) error {
	if len(event) == 0 || len(event) > maxEvent {
		return errEventSize
	}
	_, err := call(ctx, &b.cfg, func(ctx context.Context) (int64, error) {
		if b.cluster != nil {
			return b.cluster.SPublish(ctx, b.channel(), event).Result()
		}
		return b.rdb.Publish(ctx, b.channel(), event).Result()
	})
	if err != nil {
		return b.cfg.fail("publish", err)
	}
	return nil
}

// Subscribe implements mcp.EventBus. It returns once the replica's
// connection is subscribed, so an event published after it returns
// arrives.
func (b *EventBus) Subscribe(ctx context.Context) (<-chan []byte, func() error, error) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil, nil, errEventClosed
	}
	c := b.conn
	if c == nil {
		c = &eventConn{ready: make(chan struct{}), subs: map[*eventSub]struct{}{}}
		b.conn = c
		go b.open(c)
	}
	b.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, b.cfg.timeout)
	defer cancel()
	select {
	case <-c.ready:
	case <-ctx.Done():
		return nil, nil, b.cfg.fail("subscribe", ctx.Err())
	}
	s := &eventSub{events: make(chan []byte, eventBuffer)}
	b.mu.Lock()
	if c.dead {
		err := c.err
		b.mu.Unlock()
		return nil, nil, err
	}
	c.subs[s] = struct{}{}
	b.mu.Unlock()
	return s.events, func() error {
		b.mu.Lock()
		defer b.mu.Unlock()
		if !s.ended {
			delete(c.subs, s)
			s.end(nil)
		}
		return s.err
	}, nil
}

func (s *eventSub) end(err error) {
	s.ended, s.err = true, err
	close(s.events)
}

// open subscribes c's connection, waits for Redis's confirmation (within
// the timeout) and then reads it until it fails or the bus is closed.
func (b *EventBus) open(c *eventConn) {
	ctx, cancel := context.WithTimeout(context.Background(), b.cfg.timeout)
	if b.cluster != nil {
		c.ps = b.cluster.SSubscribe(ctx, b.channel())
	} else {
		c.ps = b.rdb.Subscribe(ctx, b.channel())
	}
	err := awaitSubscribed(ctx, c.ps, b.channel())
	cancel()
	if err != nil {
		b.fail(c, err)
		close(c.ready)
		return
	}
	b.mu.Lock()
	closed := b.closed
	b.mu.Unlock()
	if closed {
		b.fail(c, errEventClosed)
		close(c.ready)
		return
	}
	close(c.ready)
	b.fail(c, b.read(c))
}

// read hands what c's connection receives to c's subscriptions until the
// connection fails; it returns why.
func (b *EventBus) read(c *eventConn) error {
	pinged := false // a ping waits for its answer
	for {
		wait := eventBeat
		if pinged {
			wait = b.cfg.timeout
		}
		// Not a context's deadline: go-redis counts a cancelled context
		// as a bad connection and reconnects it on its own, losing what
		// was published meanwhile unseen. A read timeout is only a quiet
		// connection.
		m, err := c.ps.ReceiveTimeout(context.Background(), wait)
		if err != nil {
			var ne net.Error
			if !errors.As(err, &ne) || !ne.Timeout() {
				return err
			}
			if pinged {
				return errors.New("no answer from Redis within " + b.cfg.timeout.String())
			}
			if err := c.ps.Ping(context.Background()); err != nil {
				return err
			}
			pinged = true
			continue
		}
		pinged = false
		switch m := m.(type) {
		case *redis.Message:
			if m.Channel != b.channel() || len(m.Payload) == 0 || len(m.Payload) > maxEvent {
				continue
			}
			event := []byte(m.Payload)
			b.mu.Lock()
			for s := range c.subs {
				select {
				case s.events <- event:
				default:
					delete(c.subs, s)
					s.end(errEventLagged)
				}
			}
			b.mu.Unlock()
		case *redis.Subscription:
			if m.Kind == "sunsubscribe" || m.Kind == "unsubscribe" {
				return errEventSlot
			}
		}
	}
}

// fail ends c and every subscription it feeds with err, and closes its
// connection; the next Subscribe opens another.
func (b *EventBus) fail(c *eventConn, err error) {
	b.mu.Lock()
	if b.conn == c {
		b.conn = nil
	}
	if !c.dead {
		switch {
		case b.closed:
			err = errEventClosed
		case err != errEventSlot:
			err = b.cfg.fail("subscription", err)
		}
		c.dead, c.err = true, err
	}
	for s := range c.subs {
		delete(c.subs, s)
		s.end(c.err)
	}
	b.mu.Unlock()
	if c.ps != nil {
		c.ps.Close()
	}
}

// Close ends the bus's subscription connection, and with it every
// subscription (with an error); later calls of Subscribe fail.
func (b *EventBus) Close() error {
	b.mu.Lock()
	b.closed = true
	c := b.conn
	b.mu.Unlock()
	if c == nil {
		return nil
	}
	<-c.ready
	b.fail(c, errEventClosed)
	return nil
}
