package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mcpdual/mcpdual/mcp/auth"
)

// TestIdempotency_HeadersOwnedPerResponse: a keyed write's stored answer
// is shared by every replay, so a response's header slices are its own:
// whatever wraps the handler and edits a header in place (here, the
// first response's and a replay's) changes neither the stored answer nor
// the next replay.
func TestIdempotency_HeadersOwnedPerResponse(t *testing.T) {
	m := &idempotency{store: newMemoryIdem()}
	runs := 0
	h := m.wrap(func(w http.ResponseWriter, r *http.Request) {
		runs++
		w.Header()["X-Version"] = []string{"v1"}
		w.WriteHeader(http.StatusOK)
	})
	ctx := auth.NewContext(context.Background(), &auth.Principal{Subject: "alice", Scopes: []string{scopeWrite}})
	ctx = auth.NewWorkspaceContext(ctx, "ws1")
	for i := range 3 {
		r := httptest.NewRequest("POST", "http://localhost/api/v1/things", nil).WithContext(ctx)
		r.Header.Set("Idempotency-Key", "k1")
		w := httptest.NewRecorder()
		h(w, r)
		if got := w.Header()["X-Version"]; len(got) != 1 || got[0] != "v1" {
			t.Fatalf("response %d: X-Version %q, want v1 (an earlier response's edit leaked)", i, got)
		}
		w.Header()["X-Version"][0] = "edited" // a wrapping middleware rewrites it in place
	}
	if runs != 1 {
		t.Errorf("the write ran %d times, want 1", runs)
	}
}
