package mcp_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// TestCallFilesProbe is the probe .ci/callfiles.sh runs twice under
// coverage to count the files of package mcp that one 2026-07-28 route
// tools/call executes (design record 030): the echo server of the budgets
// behind a real HTTP server, with the call (MCPDUAL_PROBE_CALL=1) or
// without it. Run alone it makes the call and checks its answer.
func TestCallFilesProbe(t *testing.T) {
	srv := httptest.NewServer(echoServer())
	defer srv.Close()
	if os.Getenv("MCPDUAL_PROBE_CALL") == "0" {
		return
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello-mcp"},` + meta2026 + `}}`
	req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "echo")
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK || !strings.Contains(string(out), `"text":"hello-mcp"`) {
		t.Fatalf("status %d, body %s", res.StatusCode, out)
	}
}
