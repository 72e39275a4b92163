package mcp_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mrtr"
)

// TestRequireInput_KeyMustBeUTF8: an input request key that is not valid
// UTF-8 cannot travel as JSON (it would be sent with U+FFFD in it, and
// the answer under that key would never be the one the handler asked
// for, so the client would be asked again and again): it is a handler
// bug, logged, and the call ends with the generic isError, asking
// nothing. A valid key of the same length goes round as usual.
func TestRequireInput_KeyMustBeUTF8(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	asks := func(key string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			call := mcp.CallFromContext(r.Context())
			if v, ok := call.InputResponse(key); ok {
				w.Header().Set("Content-Type", "application/json")
				w.Write(v)
				return
			}
			call.RequireInput(nil, mcp.ListRoots(key))
		}
	}
	mux.HandleFunc("GET /bad", asks("a\xffb"))
	mux.HandleFunc("GET /good", asks("a\u00e9"))
	srv := mcp.NewServer(mcp.Implementation{Name: "keys", Version: "1"})
	schema := json.RawMessage(`{"type":"object"}`)
	srv.AddTool(mcp.Tool{Name: "bad_key", InputSchema: schema}, "GET /bad", mux)
	srv.AddTool(mcp.Tool{Name: "good_key", InputSchema: schema}, "GET /good", mux)
	log := &syncBuffer{}
	url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New(era2025.WithSessions(mrtr.NewSealer(sessionRing(t, 3)), 0))},
		mcp.WithLogger(slog.New(slog.NewTextHandler(log, nil))), mcp.WithLegacyInput(mcp.LegacyInput{})))
	caps := `{"roots":{}}`
	res := asResult(t, rt{name: "bad_key", args: `{}`, caps: caps}.send(t, url))
	if !res.IsError || res.Content[0].Text != "The tool failed with an internal error." {
		t.Errorf("a key that is not UTF-8: %+v", res)
	}
	if !strings.Contains(log.String(), "invalid input request") {
		t.Errorf("not logged: %s", log)
	}
	in := asInterim(t, rt{name: "good_key", args: `{}`, caps: caps}.send(t, url))
	if _, ok := in.InputRequests["a\u00e9"]; !ok {
		t.Fatalf("requests %v", in.InputRequests)
	}
	got := asResult(t, rt{id: 2, name: "good_key", args: `{}`, caps: caps, state: quoteJSON(in.RequestState),
		responses: `{"a\u00e9":{"roots":[]}}`}.send(t, url))
	if got.IsError || got.Content[0].Text != `{"roots":[]}` {
		t.Errorf("a UTF-8 key: %+v", got)
	}
	// A 2025 client asked on its stream (WithLegacyInput) is not asked
	// either: the call ends at once.
	for _, v := range []mcp.Version{mcp.Version20250326, mcp.Version20250618, mcp.Version20251125} {
		session := sessionFor(t, url, "", v, caps)
		m := openCall(t, url, "", session, v, "bad_key").next(t)
		if text, isErr := resultText(t, m); !isErr || text != "The tool failed with an internal error." {
			t.Errorf("%s: %v", v, m)
		}
		q := openCall(t, url, "", session, v, "good_key").next(t)
		if q["method"] != "roots/list" {
			t.Errorf("%s: a UTF-8 key was not asked: %v", v, q)
		}
	}
}
