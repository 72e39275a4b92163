package mcp_test

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mrtr"
)

// TestPush_SessionWithinSkew: a 2025 session whose id expired a moment
// ago still opens for the sealer's skew (30 s), and is served in that
// time as before it expired: its GET stream stays open and carries list
// changes, and what it subscribes to is kept and reaches it. Both took
// the bare expiry as the session's end: the stream ended as soon as it
// opened (a client that reconnects did so again and again until the
// skew ran out) and the subscription was answered {} and kept nowhere.
// In every 2025 revision.
func TestPush_SessionWithinSkew(t *testing.T) {
	var offset atomic.Int64 // the sealer's clock, behind the real one while sessions are sealed
	sealer := mrtr.NewSealer(ring(t, "k1"), mrtr.WithClock(func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }))
	srv := mcp.NewServer(mcp.Implementation{Name: "skew", Version: "1"})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /a", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "a") })
	srv.AddTool(mcp.Tool{Name: "a", InputSchema: objSchema}, "GET /a", mux)
	srv.AddResource(mcp.Resource{URI: "note://a", Name: "a"}, "GET /a", mux)
	h := mcp.NewHandler(srv, []mcp.Era{era2025.New(era2025.WithSessions(sealer, time.Minute))}, mcp.WithLogger(slog.New(slog.DiscardHandler)),
		mcp.WithChangeNotifications(mcp.ChangeNotifications{}))
	r := &replica{srv: srv, h: h, url: newTestServer(t, h), mux: mux}
	for i, v := range legacyEras {
		// Sealed 70 s ago for a minute: expired 10 s ago, opens for 20 s more.
		offset.Store(int64(-70 * time.Second))
		s := newSessionIn(t, r, v)
		offset.Store(0)
		if _, body := s.post(t, r, "tools/list", ""); !strings.Contains(body, `"tools":[`) {
			t.Fatalf("%s: the session within its skew is not served: %s", v, body)
		}
		stream := s.get(t, r, "", s.id)
		if stream.resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: GET %d", v, stream.resp.StatusCode)
		}
		if _, body := s.post(t, r, "resources/subscribe", `"uri":"note://a"`); body != `{"jsonrpc":"2.0","id":1,"result":{}}` {
			t.Fatalf("%s: subscribe: %s", v, body)
		}
		if err := h.NotifyResourceUpdated(t.Context(), "", "note://a"); err != nil {
			t.Fatal(err)
		}
		if m := stream.within(t, 10*time.Second); method(m) != "notifications/resources/updated" || string(m["params"]) != `{"uri":"note://a"}` {
			t.Fatalf("%s: the update of what the session subscribed to: %s", v, m)
		}
		r.addTool(t, "b"+string(rune('0'+i)))
		if m := stream.within(t, 10*time.Second); method(m) != "notifications/tools/list_changed" {
			t.Errorf("%s: a list change: %s", v, m)
		}
	}
}
