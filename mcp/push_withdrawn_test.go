package mcp_test

import (
	"bufio"
	"net/http"
	"testing"
	"time"
)

// TestPush_ListChangeAfterWorkspaceWithdrawn: a 2025 session's GET
// stream, opened in w1, ends once its caller is withdrawn from w1: it is
// told no list change after that (record 033 claims this for the GET
// stream; TestNotify_ListChangeAfterWorkspaceWithdrawn covers listen only).
func TestPush_ListChangeAfterWorkspaceWithdrawn(t *testing.T) {
	f := newFleet(t, 1)
	r := f.replicas[0]
	s := newSession(t, r)
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, r.url, nil)
	req.Header = http.Header{"Accept": {"text/event-stream"}, "Authorization": {"Bearer " + tokAlice}, "X-Workspace-Id": {"w1"},
		"Mcp-Protocol-Version": {"2025-06-18"}, "Mcp-Session-Id": {s.id}}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, want 200", resp.StatusCode)
	}
	stream := &listenStream{resp: resp, rd: bufio.NewReader(resp.Body)}
	f.members.set(func() { f.members.members["alice"] = map[string]bool{} })
	r.addTool(t, "b")
	if m := stream.within(t, 2*time.Second); m != nil {
		t.Fatalf("alice, withdrawn from w1, was told %s (want the stream's end)", m)
	}
}
