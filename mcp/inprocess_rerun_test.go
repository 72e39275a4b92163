package mcp_test

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mrtr"
)

// TestInProcess_RetryOwnsItsRequestAndResponse: a 2025 client's retry
// (WithLegacyInput) runs the route a second time within one MCP request.
// A goroutine the first run left behind, still holding that run's request
// and ResponseWriter, reaches neither the second run's body (it would
// read the retry's arguments away from the route) nor its response (its
// late write would be the retry's answer, its late header a concurrent
// write of the map the retry's route writes).
func TestInProcess_RetryOwnsItsRequestAndResponse(t *testing.T) {
	t.Parallel()
	// Each revision's call has a late goroutine of its own.
	type late struct {
		release chan struct{}
		done    chan error
	}
	lates := map[mcp.Version]late{}
	for _, v := range []mcp.Version{mcp.Version20251125, mcp.Version20250618} {
		lates[v] = late{make(chan struct{}), make(chan error, 1)}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /notes", func(w http.ResponseWriter, r *http.Request) {
		c := mcp.CallFromContext(r.Context())
		release, lateDone := lates[c.ProtocolVersion()].release, lates[c.ProtocolVersion()].done
		if _, ok := c.Elicitation("name"); !ok {
			// The first run asks, and leaves a goroutine behind that
			// uses its request and response once the retry runs.
			go func() {
				<-release
				_, _ = io.ReadAll(r.Body)
				w.Header().Set("X-Late", "1")
				_, err := io.WriteString(w, "late ")
				lateDone <- err
			}()
			c.RequireInput([]byte("s"), mcp.ElicitForm("name", "Your name?", json.RawMessage(`{"type":"object","properties":{"n":{"type":"string"}}}`)))
			return
		}
		close(release)
		lateErr := <-lateDone
		body, _ := io.ReadAll(r.Body)
		if lateErr == nil {
			t.Error("the first run's late write succeeded")
		}
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "body="+string(body))
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "rerun", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "note", InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)}, "POST /notes", mux)
	ring := sessionRing(t, 9)
	a := auth.New(auth.Config{Resource: resourceURI, Verifier: auth.VerifierFunc(testVerifier)})
	url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(era2026.WithSealer(mrtr.NewSealer(ring))),
		era2025.New(era2025.WithSessions(mrtr.NewSealer(ring), 0))}, mcp.WithAuth(a), mcp.WithLegacyInput(mcp.LegacyInput{})))

	for _, v := range []mcp.Version{mcp.Version20251125, mcp.Version20250618} {
		session := sessionFor(t, url, tokAlice, v, `{"elicitation":{"form":{}}}`)
		s := openCallArgs(t, url, tokAlice, session, v, "note", `{"text":"hello"}`)
		q := s.next(t)
		if q["method"] != "elicitation/create" {
			t.Fatalf("%s: question %v", v, q)
		}
		if got := answer(t, url, tokAlice, q["id"], `{"action":"accept","content":{"n":"Ann"}}`); got != http.StatusAccepted {
			t.Fatalf("%s: answer %d", v, got)
		}
		text, isErr := resultText(t, s.next(t))
		if want := `body={"text":"hello"}`; text != want || isErr {
			t.Errorf("%s: the retry answered %q (isError %v), want %q", v, text, isErr, want)
		}
	}
}
