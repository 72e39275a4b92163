package mcp_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mrtr"
)

// ended reports whether s's server ends it within d (its body reaches its
// end), reading and dropping what comes before.
func (s *listenStream) ended(d time.Duration) bool {
	done := make(chan struct{})
	go func() {
		io.Copy(io.Discard, s.resp.Body)
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-time.After(d):
		s.resp.Body.Close() // ends the reader
		<-done
		return false
	}
}

// TestPush_OneStreamPerSession: the 2025 transports forbid a server to
// send one message on more than one of a session's streams, and every
// GET stream of a session hears every list change. A session's newer GET
// stream, on this replica or another, ends its older one: a client that
// reconnected before the server saw its old connection drop hears each
// message once, on the stream it reads. Another session's stream is not
// touched. Before, both streams carried every message. In every 2025
// revision.
func TestPush_OneStreamPerSession(t *testing.T) {
	for i, v := range legacyEras {
		f := newFleet(t, 2) // a fleet each: a caller's streams are bounded
		s := newSessionIn(t, f.replicas[0], v)
		other := newSessionIn(t, f.replicas[0], v)
		otherStream := other.get(t, f.replicas[1], tokAlice, other.id)
		older := s.get(t, f.replicas[0], tokAlice, s.id)
		newer := s.get(t, f.replicas[1], tokAlice, s.id)
		for _, st := range []*listenStream{otherStream, older, newer} {
			if st.resp.StatusCode != 200 {
				t.Fatalf("%s: GET %d", v, st.resp.StatusCode)
			}
		}
		if !older.ended(5 * time.Second) {
			t.Fatalf("%s: the session's older stream still open beside its newer one", v)
		}
		for _, r := range f.replicas {
			r.addTool(t, "one"+string(rune('a'+i)))
		}
		for name, st := range map[string]*listenStream{"newer": newer, "another session's": otherStream} {
			if m := st.within(t, 10*time.Second); method(m) != "notifications/tools/list_changed" {
				t.Fatalf("%s: the %s stream: %s", v, name, m)
			}
		}
		// The newest again, back on the first replica: it ends the one
		// that was newer.
		newest := s.get(t, f.replicas[0], tokAlice, s.id)
		if newest.resp.StatusCode != 200 || !newer.ended(5*time.Second) {
			t.Fatalf("%s: a third stream (%d) did not end the second", v, newest.resp.StatusCode)
		}
		for _, r := range f.replicas {
			r.addTool(t, "two"+string(rune('a'+i)))
		}
		if m := newest.within(t, 10*time.Second); method(m) != "notifications/tools/list_changed" {
			t.Fatalf("%s: the newest stream: %s", v, m)
		}
	}
}

// publishDownBus subscribes but cannot publish.
type publishDownBus struct{ mcp.EventBus }

func (publishDownBus) Publish(context.Context, []byte) error { return errBusDown }

// TestPush_StreamCannotAnnounceItself: a GET stream that cannot announce
// itself on the bus (so that an older stream of its session ends) is
// refused as one that cannot subscribe is, with events_lost (the client
// opens it again), before any byte of a stream: opened anyway it would carry
// the session's messages beside its older stream.
func TestPush_StreamCannotAnnounceItself(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "announce", Version: "1"})
	h := mcp.NewHandler(srv, []mcp.Era{era2025.New(era2025.WithSessions(mrtr.NewSealer(ring(t, "k1")), time.Minute))},
		mcp.WithLogger(slog.New(slog.DiscardHandler)),
		mcp.WithChangeNotifications(mcp.ChangeNotifications{Bus: publishDownBus{mcp.NewMemoryEventBusForTest()}}))
	r := &replica{srv: srv, h: h, url: newTestServer(t, h)}
	for _, v := range legacyEras {
		s := newSessionIn(t, r, v)
		st := s.get(t, r, "", s.id)
		b, _ := io.ReadAll(st.resp.Body)
		// As a GET whose subscription fails is answered: a JSON-RPC error,
		// not a stream.
		if st.resp.StatusCode != http.StatusOK || st.resp.Header.Get("Content-Type") != "application/json" ||
			!strings.Contains(string(b), `"code":-32603`) || !strings.Contains(string(b), `"reason":"events_lost"`) {
			t.Errorf("%s: GET with a bus that cannot publish: %d %q %s", v, st.resp.StatusCode, st.resp.Header.Get("Content-Type"), b)
		}
	}
}
