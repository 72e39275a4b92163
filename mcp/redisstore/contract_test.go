package redisstore_test

import (
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/mcptest/storetest"
	"github.com/mcpdual/mcpdual/mcp/ratelimit"
	"github.com/mcpdual/mcpdual/mcp/redisstore"
)

// Every store keeps the contract of its interface (package storetest, which
// mcp's in-memory defaults run too), on a single Redis and on a Redis
// Cluster. A fleet is two replicas, each with its own client, on one
// prefix; Redis keeps its own time, so the suite sleeps.

// deployment is one kind of Redis the stores run on: a client for the
// test (one per replica) and a prefix whose keys go at the test's end.
type deployment struct {
	name   string
	client func(t testing.TB) redis.UniversalClient
	prefix func(t testing.TB) string
}

var deployments = []deployment{
	{"single", func(t testing.TB) redis.UniversalClient { return newClient(t, sharedAddr) }, testPrefix},
	{"cluster", func(t testing.TB) redis.UniversalClient { return newClusterClient(t) }, clusterPrefix},
}

// openFleet opens two replicas of one store on d.
func openFleet[S any](t *testing.T, d deployment, open func(rdb redis.UniversalClient, opts ...redisstore.Option) S) storetest.Fleet[S] {
	p := d.prefix(t)
	return storetest.Fleet[S]{Replicas: []S{
		open(d.client(t), redisstore.WithPrefix(p), patient),
		open(d.client(t), redisstore.WithPrefix(p), patient),
	}}
}

func TestReplayGuard_Contract(t *testing.T) {
	t.Parallel()
	for _, d := range deployments {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			storetest.ReplayGuard(t, func(t *testing.T) storetest.Fleet[mcp.ReplayGuard] {
				return openFleet(t, d, func(rdb redis.UniversalClient, opts ...redisstore.Option) mcp.ReplayGuard {
					return redisstore.NewReplayGuard(rdb, opts...)
				})
			})
		})
	}
}

func TestAnswerBus_Contract(t *testing.T) {
	t.Parallel()
	for _, d := range deployments {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			storetest.AnswerBus(t, func(t *testing.T) storetest.Fleet[mcp.AnswerBus] {
				return openFleet(t, d, func(rdb redis.UniversalClient, opts ...redisstore.Option) mcp.AnswerBus {
					b := redisstore.NewAnswerBus(rdb, opts...)
					t.Cleanup(func() { b.Close() })
					return b
				})
			})
		})
	}
}

func TestLimiter_Contract(t *testing.T) {
	t.Parallel()
	for _, d := range deployments {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			storetest.Limiter(t, func(t *testing.T, perSecond float64, burst int) storetest.Fleet[ratelimit.Limiter] {
				return openFleet(t, d, func(rdb redis.UniversalClient, opts ...redisstore.Option) ratelimit.Limiter {
					return redisstore.NewLimiter(rdb, perSecond, burst, opts...)
				})
			})
		})
	}
}
