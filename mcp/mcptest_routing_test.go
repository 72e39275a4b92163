package mcp_test

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/mcptest"
)

// TestMCPTest_RoutingMembers (review item 11): mcptest, a client, keeps
// its own list of the params member each method routes on (Mcp-Name);
// the core's method table is the other. This pins the two together: for
// every method the table says carries Mcp-Name, the kit sends it with the
// member's value, so a new routed method the kit does not know fails
// here rather than in some later test's refusal.
func TestMCPTest_RoutingMembers(t *testing.T) {
	t.Parallel()
	members := mcp.RoutingMembersForTest()
	if len(members) < 4 {
		t.Fatalf("the method table names %d routed methods: %v", len(members), members)
	}
	srv := mcp.NewServer(mcp.Implementation{Name: "routing", Version: "1"})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "echo"}, func(ctx context.Context, in fnEmpty) (fnEmpty, error) { return in, nil })
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()})
	var mu sync.Mutex
	seen := map[string]string{} // Mcp-Method → the Mcp-Name it came with
	rec := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.Header.Get("Mcp-Method")] = r.Header.Get("Mcp-Name")
		mu.Unlock()
		h.ServeHTTP(w, r)
	})
	c := mcptest.New(rec, mcp.Version20260728)
	for method, member := range members {
		value := "echo"
		if _, err := c.Call(context.Background(), method, map[string]any{member: value}); err != nil {
			t.Errorf("%s: %v", method, err)
			continue
		}
		mu.Lock()
		got, ok := seen[method]
		mu.Unlock()
		if !ok || got != value {
			t.Errorf("%s: the kit sent Mcp-Name %q, want %q (params.%s): mcptest's routingHeaders does not know the method", method, got, value, member)
		}
	}
}
