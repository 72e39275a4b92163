package mcp_test

import (
	"testing"

	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/mcptest/storetest"
	"github.com/mcpdual/mcpdual/mcp/ratelimit"
)

// The in-memory defaults keep the store contract every shared store keeps
// (mcp/redisstore runs the same suite): one instance is the whole fleet of
// one process, on a clock of the suite's.

func TestMemoryGuard_Contract(t *testing.T) {
	storetest.ReplayGuard(t, func(t *testing.T) storetest.Fleet[mcp.ReplayGuard] {
		clock := storetest.NewManualClock()
		return storetest.Fleet[mcp.ReplayGuard]{Replicas: []mcp.ReplayGuard{mcp.NewMemoryGuardAtForTest(1000, clock.Now)}, Clock: clock}
	})
}

func TestMemoryBus_Contract(t *testing.T) {
	storetest.AnswerBus(t, func(t *testing.T) storetest.Fleet[mcp.AnswerBus] {
		return storetest.Fleet[mcp.AnswerBus]{Replicas: []mcp.AnswerBus{mcp.NewMemoryBusForTest()}}
	})
}

func TestMemoryLimiter_Contract(t *testing.T) {
	storetest.Limiter(t, func(t *testing.T, perSecond float64, burst int) storetest.Fleet[ratelimit.Limiter] {
		clock := storetest.NewManualClock()
		return storetest.Fleet[ratelimit.Limiter]{Replicas: []ratelimit.Limiter{ratelimit.NewMemory(perSecond, burst, ratelimit.WithClock(clock.Now))}, Clock: clock}
	})
}
