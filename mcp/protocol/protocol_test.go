package protocol_test

import (
	"testing"

	"github.com/mcpdual/mcpdual/mcp/protocol"
)

func TestCompare(t *testing.T) {
	for _, tc := range []struct {
		v, w protocol.Version
		want int
	}{
		{protocol.Version20260728, protocol.Version20251125, 1},
		{protocol.Version20250326, protocol.Version20250618, -1},
		{protocol.Version20250618, protocol.Version20250618, 0},
	} {
		if got := tc.v.Compare(tc.w); got != tc.want {
			t.Errorf("%s.Compare(%s) = %d, want %d", tc.v, tc.w, got, tc.want)
		}
	}
}
