package main

import (
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/redisstore"
)

// legacyInput makes the 2025 handshake revisions able to ask the client
// mid-call: initialize answers a sealed Mcp-Session-Id carrying the
// client's capabilities (era2025.WithSessions, in fleet.eras), and a tool
// that asks for input sends elicitation/create or sampling/createMessage
// on the call's stream (mcp.WithLegacyInput). The client's answer is its
// next POST, which a balancer may send to another replica: with Redis,
// the answer bus carries it to the replica holding the call's stream.
func (f fleet) legacyInput() mcp.HandlerOption {
	var cfg mcp.LegacyInput
	if f.rdb != nil {
		cfg.Bus = redisstore.NewAnswerBus(f.rdb, storeOptions()...)
	}
	return mcp.WithLegacyInput(cfg)
}
