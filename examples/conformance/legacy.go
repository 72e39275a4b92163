package main

import (
	"crypto/rand"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mrtr"
)

// legacyInput makes the 2025 handshake revisions able to ask the client
// mid-call: initialize answers a sealed Mcp-Session-Id carrying the
// client's capabilities (era2025.WithSessions), and a tool that asks for
// input sends elicitation/create or sampling/createMessage on the call's
// stream (mcp.WithLegacyInput). One process: a key of its own.
func legacyInput() (era2025.Option, mcp.HandlerOption) {
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		panic(err)
	}
	ring, err := mrtr.NewRing(mrtr.Key{ID: "conf", Secret: secret})
	if err != nil {
		panic(err)
	}
	return era2025.WithSessions(mrtr.NewSealer(ring), 0), mcp.WithLegacyInput(mcp.LegacyInput{})
}
