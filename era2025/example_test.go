package era2025_test

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mrtr"
)

// initialize answers the revision the client asked for when it is served.
func ExampleNew() {
	srv := mcp.NewServer(mcp.Implementation{Name: "demo", Title: "Demo", Version: "1.0.0"})
	h := mcp.NewHandler(srv, []mcp.Era{era2025.New()})

	req := httptest.NewRequest("POST", "http://localhost/mcp", strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	fmt.Println(rec.Header().Get("MCP-Protocol-Version"), rec.Body.String())
	// Output:
	// 2025-03-26 {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-03-26","capabilities":{},"serverInfo":{"name":"demo","version":"1.0.0"}}}
}

// With sessions, initialize answers an Mcp-Session-Id that carries what
// the client declared; with mcp.WithLegacyInput a tool can then ask it
// mid-call. Give WithSessions the ring era2026.WithSealer seals with.
func ExampleWithSessions() {
	ring, _ := mrtr.NewRing(mrtr.Key{ID: "k1", Secret: make([]byte, 32)}) // load it: mrtr.LoadKeys
	srv := mcp.NewServer(mcp.Implementation{Name: "demo", Version: "1.0.0"})
	era25 := era2025.New(era2025.WithSessions(mrtr.NewSealer(ring), 0)) // the ring of era2026.WithSealer
	h := mcp.NewHandler(srv, []mcp.Era{era25},
		mcp.WithLegacyInput(mcp.LegacyInput{Wait: 45 * time.Second})) // Bus: redisstore.NewAnswerBus(rdb) on a fleet

	req := httptest.NewRequest("POST", "http://localhost/mcp", strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	fmt.Println(rec.Code, len(rec.Header().Get("Mcp-Session-Id")) > 0)
	// Output:
	// 200 true
}
