package main

import (
	"flag"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/redisstore"
	"github.com/mcpdual/mcpdual/mrtr"
)

var legacyInputFlag = flag.Bool("legacy-input", false, "ask 2025 clients that declared elicitation or sampling on initialize, over their tools/call stream "+
	"(HTTP: sealed Mcp-Session-Id, mcp.WithLegacyInput) or as lines (-stdio): they can then confirm destructive tools; without it they get confirmation_required")

// legacyWait bounds how long a call waits for a 2025 client's answer:
// below the server's WriteTimeout (60 s), so the call can still end.
const legacyWait = 45 * time.Second

// legacyOptions are what -legacy-input adds: sealed sessions on the 2025
// era (sealed with the fleet's ring, so any replica opens them) and the
// input requests, with the answers carried by Redis when the replicas
// share one. -notifications needs the sessions alone (for the 2025 push),
// not the input requests; -legacy-input does not turn the push on.
func (s shared) legacyOptions(on, sessions bool) ([]era2025.Option, []mcp.HandlerOption) {
	if !on && !sessions {
		return nil, nil
	}
	ring := s.ring
	if ring == nil {
		ring = localRing() // one process: a key of its own, as era2026 does without a ring
	}
	eras := []era2025.Option{era2025.WithSessions(mrtr.NewSealer(ring), 0)}
	if !on {
		return eras, nil
	}
	cfg := mcp.LegacyInput{Wait: legacyWait}
	if s.rdb != nil {
		cfg.Bus = redisstore.NewAnswerBus(s.rdb, s.storeOptions(redisPrefix)...)
	}
	return eras, []mcp.HandlerOption{mcp.WithLegacyInput(cfg)}
}
