package mcp_test

import (
	"testing"

	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/mcptest/storetest"
)

// The in-process event bus and the in-memory session store keep the
// contracts mcp/redisstore's stores keep: one instance is the whole fleet
// of one process.

func TestMemoryEventBus_Contract(t *testing.T) {
	storetest.EventBus(t, func(t *testing.T) storetest.Fleet[mcp.EventBus] {
		return storetest.Fleet[mcp.EventBus]{Replicas: []mcp.EventBus{mcp.NewMemoryEventBusForTest()}}
	})
}

func TestMemorySessionStore_Contract(t *testing.T) {
	storetest.SessionStore(t, func(t *testing.T) storetest.Fleet[mcp.SessionStore] {
		clock := storetest.NewManualClock()
		return storetest.Fleet[mcp.SessionStore]{Replicas: []mcp.SessionStore{mcp.NewMemorySessionStoreForTest(100, clock.Now)}, Clock: clock}
	})
}
