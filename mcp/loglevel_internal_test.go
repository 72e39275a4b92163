package mcp

import (
	"log/slog"
	"testing"

	"github.com/mcpdual/mcpdual/internal/seam"
)

// TestWireLogLevel: the rank wireLogLevel gives each name is the one
// seam.LogLevels orders the client's requested level by, and the mapping
// allocates nothing.
func TestWireLogLevel(t *testing.T) {
	for l := slog.Level(-10); l <= 30; l++ {
		name, rank := wireLogLevel(l)
		if r, ok := seam.LogLevels[name]; !ok || r != rank {
			t.Errorf("level %d: %q rank %d, seam.LogLevels has %d (%v)", l, name, rank, r, ok)
		}
	}
	var total int
	allocs := testing.AllocsPerRun(100, func() {
		for l := slog.Level(-10); l <= 30; l++ {
			name, rank := wireLogLevel(l)
			total += len(name) + rank
		}
	})
	if total == 0 {
		t.Fatal("no level was mapped")
	}
	if allocs != 0 {
		t.Errorf("wireLogLevel allocates %v times", allocs)
	}
}
