package mcp_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mrtr"
)

// TestTransport_RepeatedHeadersRefused: a header the transport reads as
// one value, sent on two lines, is refused — even with the same value on
// both, so that no reader (the endpoint, a proxy, the route) has to pick
// one — in every revision it applies to: MCP-Protocol-Version,
// Mcp-Session-Id, Mcp-Method and Mcp-Name 400 -32020 (duplicate),
// Authorization 400 -31401, Origin 403, Content-Type 415. Accept is a
// list and may repeat.
func TestTransport_RepeatedHeadersRefused(t *testing.T) {
	t.Parallel()
	url := sessionServer(t, []era2025.Option{era2025.WithSessions(mrtr.NewSealer(sessionRing(t, 3)), time.Hour)})
	type outcome struct {
		status, code int
		reason       string
	}
	for _, era := range eras {
		c := call{era: era, id: "1", method: "tools/call", params: `"name":"caps","arguments":{}`}
		base := headersFor(c)
		base.Set("Authorization", "Bearer "+tokAlice)
		base.Set("MCP-Protocol-Version", string(era)) // 2025-03-26 clients may send it too
		if era != mcp.Version20260728 {
			r := initialize(t, url, tokAlice, era, `{}`)
			if r.header.Get("Mcp-Session-Id") == "" {
				t.Fatalf("%s: no session: %s", era, r.body)
			}
			base.Set("Mcp-Session-Id", r.header.Get("Mcp-Session-Id"))
		}
		cases := map[string]outcome{
			"Mcp-Protocol-Version": {400, -32020, "duplicate"},
			"Authorization":        {400, -31401, "invalid_request"},
			"Origin":               {403, -31403, "origin_not_allowed"},
			"Content-Type":         {415, -32600, ""},
			"Accept":               {200, 0, ""},
		}
		if era == mcp.Version20260728 {
			cases["Mcp-Method"] = outcome{400, -32020, "duplicate"}
			cases["Mcp-Name"] = outcome{400, -32020, "duplicate"}
		} else {
			cases["Mcp-Session-Id"] = outcome{400, -32020, "duplicate"}
		}
		for name, want := range cases {
			req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(c.body()))
			req.Header = base.Clone()
			if name == "Origin" {
				req.Header.Set("Origin", "http://localhost")
			}
			req.Header.Add(name, req.Header.Get(name))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var m struct {
				Error *struct {
					Code int
					Data struct{ Reason string }
				}
			}
			json.Unmarshal(b, &m)
			got := outcome{status: resp.StatusCode}
			if m.Error != nil {
				got.code, got.reason = m.Error.Code, m.Error.Data.Reason
			}
			if got != want || resp.Header.Get("Content-Type") != "application/json" {
				t.Errorf("%s, two %s: %d %s, want %+v", era, name, resp.StatusCode, b, want)
			}
		}
	}
}
