package bench

import (
	"log/slog"
	"os"
	"testing"
)

// TestMain silences the library's startup warnings (era2026's sealing
// key of this process only), which would otherwise land in the middle of
// benchmark result lines and break the summary's parsing.
func TestMain(m *testing.M) {
	slog.SetDefault(slog.New(slog.DiscardHandler))
	os.Exit(m.Run())
}
