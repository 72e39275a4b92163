package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
)

// TestHandlerCodes_LegacyRangePasses: 2026-07-28 (basic/index, Error Codes)
// forbids emitting only -32002 and -32042 of the legacy range -32000 to
// -32019 ("new implementations SHOULD NOT use" it; receivers assume no
// meaning); the spec-reserved range is -32020 to -32099. A prompt's
// application error in the legacy range keeps its code and message, as on
// the 2025 revisions, rather than becoming "Internal error".
func TestHandlerCodes_LegacyRangePasses(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Implementation{Name: "codes", Version: "1"})
	srv.AddPrompt(mcp.Prompt{Name: "p"}, func(ctx context.Context, args map[string]string) (*mcp.PromptResult, error) {
		return nil, mcp.NewError(-32001, "upstream timed out")
	})
	url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()},
		mcp.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))))
	era := mcp.Version20260728
	_, _, raw := specPost(t, url, era, "prompts/get", "p", specBody(era, 9, "prompts/get", `"name":"p"`, "", ""), nil)
	var m struct {
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	json.Unmarshal(raw, &m)
	if m.Error == nil || m.Error.Code != -32001 || m.Error.Message != "upstream timed out" {
		t.Fatalf("got %s, want the application's -32001 and its message", raw)
	}
}
