package mcp

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp/auth"
)

// TestUpdate_ForgetsSchemasOfRemovedTools: a server whose tools are
// replaced again and again (an enum of the current accounts, a schema a
// deployment regenerates) keeps the compiled schemas of the tools it
// serves, not of every tool it ever served, nor of an Update it refused.
// The schema cache shares one compiled form between tools; it was never
// pruned, so every Update with a new schema grew it for the life of the
// process, with the shared compiler holding each document besides.
func TestUpdate_ForgetsSchemasOfRemovedTools(t *testing.T) {
	route := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})
	schemaN := func(i int, plainDoc bool) json.RawMessage {
		if plainDoc {
			return json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{"account":{"enum":["a%d","b%d"]}}}`, i, i))
		}
		// $schema makes it one the cache compiles at once, in the
		// compiler it shares between documents.
		return json.RawMessage(fmt.Sprintf(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"account":{"const":"a%d"}}}`, i))
	}
	out := func(i int) json.RawMessage {
		return json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{"n":{"type":"integer","maximum":%d}}}`, i))
	}
	srv := NewServer(Implementation{Name: "schemas", Version: "1"})
	srv.AddTool(Tool{Name: "t", Description: "t", InputSchema: schemaN(0, true), OutputSchema: out(0)}, "GET /t", route)
	srv.AddTool(Tool{Name: "fixed", Description: "fixed", InputSchema: json.RawMessage(`{"type":"object"}`)}, "GET /fixed", route)
	h := NewHandler(srv, []Era{era2026.New()})
	defer h.Close()
	const served = 3 // t's input and output, fixed's input
	if n := srv.schemas.Len(); n != served {
		t.Fatalf("%d schemas cached after NewHandler, want %d", n, served)
	}
	for i := 1; i <= 50; i++ {
		err := srv.Update(func(s *Server) {
			s.Remove(auth.KindTool, "t")
			s.AddTool(Tool{Name: "t", Description: "t", InputSchema: schemaN(i, i%2 == 0), OutputSchema: out(i)}, "GET /t", route)
		})
		if err != nil {
			t.Fatalf("update %d: %v", i, err)
		}
		// Refused (fixed is not removed, so the name is taken): nothing
		// changes, and what it compiled is not kept either.
		err = srv.Update(func(s *Server) {
			s.AddTool(Tool{Name: "fixed", Description: "again", InputSchema: schemaN(1000+i, i%2 == 1)}, "GET /fixed", route)
		})
		if err == nil {
			t.Fatalf("update %d: a second tool named fixed was taken", i)
		}
		if n := srv.schemas.Len(); n != served {
			t.Fatalf("after %d updates the cache holds %d schemas; the tools served have %d", i, n, served)
		}
	}
	// The schemas kept are the ones served: a tool added again with one
	// of them shares its compiled form.
	cur := srv.current()
	var again *tool
	if err := srv.Update(func(s *Server) {
		s.AddTool(Tool{Name: "u", Description: "u", InputSchema: schemaN(50, true)}, "GET /u", route)
	}); err != nil {
		t.Fatal(err)
	}
	again = srv.current().byName["u"]
	if again.input != cur.byName["t"].input {
		t.Error("a tool added with the schema of a tool served compiled it again")
	}
}
