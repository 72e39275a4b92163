package stdio_test

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/stdio"
)

// TestMalformedResponsesUnanswered: a line shaped as a JSON-RPC response
// that the strict parser refuses — the error with a null id a client
// sends for a line it could not read, a malformed id, a wrong or missing
// "jsonrpc", a member twice, invalid UTF-8 — is logged and dropped like
// any response, with or without WithLegacyInput, before a handshake and
// after one in each 2025 revision. It was answered -32600: with no id,
// which invites the client's null-id error back, and for a wrong
// "jsonrpc" with the client's own id, which reads as the answer to the
// client's request 1. A request carrying a result is still answered.
func TestMalformedResponsesUnanswered(t *testing.T) {
	t.Parallel()
	responses := []string{
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
		`{"jsonrpc":"2.0","id":1.5,"result":{}}`,
		`{"jsonrpc":"2.0","id":true,"error":{"code":1,"message":"m"}}`,
		`{"jsonrpc":"2.0","id":{},"result":{}}`,
		`{"jsonrpc":"1.0","id":1,"result":{}}`,
		`{"id":1,"error":{"code":1,"message":"m"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{},"result":{}}`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"text\":\"\xff\"}}",
	}
	for _, legacy := range []bool{false, true} {
		for _, v := range []mcp.Version{"", mcp.Version20250618, mcp.Version20250326} {
			name := "before a handshake"
			if v != "" {
				name = "after " + string(v)
			}
			if legacy {
				name += ", legacy input"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				var opts []mcp.HandlerOption
				if legacy {
					opts = append(opts, mcp.WithLegacyInput(mcp.LegacyInput{}))
				}
				f := newFixture(t, opts...)
				log := &syncBuffer{}
				s := start(t, f.h, stdio.WithPrincipal(alice), stdio.WithWorkspace("ws_a"),
					stdio.WithLogger(slog.New(slog.NewTextHandler(log, nil))))
				ping := `{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{` + meta(`{}`) + `}}`
				if v != "" {
					initialize2025(s, v, `{}`)
					ping = `{"jsonrpc":"2.0","id":9,"method":"ping"}`
				}
				s.send(responses...)
				// A request that carries a result is no response: answered.
				if m := s.call(2, `{"jsonrpc":"2.0","id":2,"method":"ping","result":{}}`); m.code() != -32600 {
					t.Errorf("a request with a result: %s", m.raw)
				}
				if m := s.call(9, ping); m.Error != nil {
					t.Errorf("ping: %s", m.raw)
				}
				if rest := s.finish(); len(rest) != 0 {
					t.Errorf("a response was answered: %s", rest[0].raw)
				}
				if n := strings.Count(log.String(), "stdio: a JSON-RPC response from the client was ignored"); n != len(responses) {
					t.Errorf("%d responses logged, want %d: %s", n, len(responses), log)
				}
			})
		}
	}
}
