package mcp_test

import (
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
)

// TestServePanic_AnsweredAndLoggedWithoutItsValue: a panic that escapes
// serving (here the host's rate limiter's, which runs outside dispatch's
// recover) is answered 500 with a JSON-RPC internal error echoing the id,
// in every revision, and logged through the endpoint's logger by its type
// and place, never its value; net/http's own log, which printed the value
// and its stack while the client saw its connection cut, hears nothing.
func TestServePanic_AnsweredAndLoggedWithoutItsValue(t *testing.T) {
	t.Parallel()
	endpointLog, serverLog := &syncBuffer{}, &syncBuffer{}
	h := mcp.NewHandler(mcp.NewServer(mcp.Implementation{Name: "p", Version: "1"}), []mcp.Era{era2026.New(), era2025.New()},
		mcp.WithRateLimit(panicLimiter{}), mcp.WithLogger(slog.New(slog.NewTextHandler(endpointLog, nil))))
	ts := httptest.NewUnstartedServer(h)
	ts.Config.ErrorLog = log.New(serverLog, "", 0)
	ts.Start()
	t.Cleanup(ts.Close)
	for _, era := range eras {
		c := call{era: era, id: "7", method: "tools/list"}
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(c.body()))
		req.Header = headersFor(c)
		r := send(t, req)
		if r.status != http.StatusInternalServerError || r.code() != -32603 || r.msg.Error.Message != "Internal error" ||
			string(r.msg.ID) != "7" || r.header.Get("Content-Type") != "application/json" {
			t.Errorf("%s: %d %v %s, want 500 -32603 with the id", era, r.status, r.header, r.raw)
		}
	}
	logs := endpointLog.String()
	if !strings.Contains(logs, "mcp: panic while serving a request") || !strings.Contains(logs, "panic.type=string") ||
		strings.Contains(logs, "limiter bug") {
		t.Errorf("endpoint log:\n%s", logs)
	}
	if s := serverLog.String(); s != "" {
		t.Errorf("net/http's log: %s", s)
	}
}
