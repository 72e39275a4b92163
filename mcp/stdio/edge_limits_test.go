package stdio_test

import (
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/mcp/stdio"
)

// TestLineEdge: with a bound larger than the reader's buffer, a line of
// exactly the bound is served and one of a byte more is answered
// message_too_large with its id, and the next line is served either way.
// The same at a bound inside one buffer.
func TestLineEdge(t *testing.T) {
	t.Parallel()
	for _, max := range []int{300, 64 << 10, 100_000} {
		line := func(n int) string {
			head := `{"jsonrpc":"2.0","id":1,"method":"ping","x":"`
			return head + strings.Repeat("x", n-len(head)-2) + `"}`
		}
		f := newFixture(t)
		s := start(t, f.h, stdio.WithPrincipal(alice), stdio.WithMaxMessageBytes(max))
		if m := s.call(1, line(max)); m.Error != nil {
			t.Errorf("max %d: a line at the bound: %s", max, m.raw)
		}
		m := s.call(1, line(max+1))
		if m.Error == nil || m.code() != -32600 || !strings.Contains(string(m.Error.Data), "message_too_large") {
			t.Errorf("max %d: a line past the bound: %.200s", max, m.raw)
		}
		if m := s.call(2, `{"jsonrpc":"2.0","id":2,"method":"ping"}`); m.Error != nil {
			t.Errorf("max %d: the next line: %s", max, m.raw)
		}
		s.finish()
	}
}
