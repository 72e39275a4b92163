package mcp_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
)

type countIn struct {
	N int64 `json:"n"`
}

// TestConfirm_FuncDecodeFailureIsNotARun: a confirmed destructive function
// tool whose arguments pass the input schema but do not decode into its Go
// type (a number past int64 is an integer to JSON Schema, not to an
// int64; 1.0 now decodes as 1)
// never runs its function. The retry of that confirmation, the audit line
// and the next question must not say that the tool ran.
func TestConfirm_FuncDecodeFailureIsNotARun(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Implementation{Name: "decode", Version: "1"})
	var runs atomic.Int64
	mcp.AddToolFunc(srv, mcp.Tool{Name: "purge_n", Annotations: mcp.Annotations{Destructive: true}},
		func(ctx context.Context, in countIn) (fnEmpty, error) {
			runs.Add(1)
			return fnEmpty{}, nil
		})
	log := &syncBuffer{}
	ts := httptest.NewServer(mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()},
		mcp.WithLogger(slog.New(slog.NewTextHandler(log, nil)))))
	t.Cleanup(ts.Close)
	args := `{"n":100000000000000000000}`
	in := asInterim(t, rt{name: "purge_n", args: args, caps: formCaps}.send(t, ts.URL))
	round2 := rt{id: 2, name: "purge_n", args: args, caps: formCaps, state: quoteJSON(in.RequestState), responses: `{"confirm":` + accept + `}`}
	first := asResult(t, round2.send(t, ts.URL))
	if runs.Load() != 0 {
		t.Fatalf("the function ran %d times with arguments it cannot decode", runs.Load())
	}
	if !first.IsError {
		t.Fatalf("round 2: %+v", first)
	}
	round2.id = 3
	r := round2.send(t, ts.URL)
	res := asResult(t, r)
	if res.StructuredContent["executed"] == true || strings.Contains(res.Content[0].Text, "the tool ran") {
		t.Errorf("the retry is told the tool ran, but it never did: %s", r.raw)
	}
	if l := log.String(); strings.Contains(l, "outcome=\"executed") {
		t.Errorf("audit says executed, but the function never ran:\n%s", l)
	}
	// A new confirmation of the same call: its question must not say it ran.
	again := asInterim(t, rt{id: 4, name: "purge_n", args: args, caps: formCaps}.send(t, ts.URL))
	if q := string(again.InputRequests["confirm"]); strings.Contains(q, "already ran") {
		t.Errorf("the next question says the call already ran: %s", q)
	}
}

// TestConfirm_UncheckedBoxIsAudited: the confirmation form's box left
// unchecked (accept with confirm:false, what the schema tells the user to
// do to cancel) is a decline, and every outcome of a confirmed destructive
// call gets its audit line; a decline by action gets one, this one none.
func TestConfirm_UncheckedBoxIsAudited(t *testing.T) {
	t.Parallel()
	s := newMRTRServer(t, mrtrConfig{})
	in := confirmRound1(t, s.url, "delete_item", "x")
	res := asResult(t, confirmRound2("", "delete_item", "x", in.RequestState, `{"action":"accept","content":{"confirm":false}}`).send(t, s.url))
	if res.StructuredContent["outcome"] != "confirmation_declined" || s.executed.Load() != 0 {
		t.Fatalf("unchecked: %+v", res)
	}
	if l := s.log.String(); !strings.Contains(l, "mcp: destructive tool") || !strings.Contains(l, "outcome=declined") {
		t.Errorf("no audit line for a declined confirmation:\n%s", l)
	}
}

// TestConfirm_RouteRequestPanicIsNotARun: the host's WithRouteRequest
// function panics before the route is reached. Nothing ran; the retry
// must not be told that the tool ran.
func TestConfirm_RouteRequestPanicIsNotARun(t *testing.T) {
	t.Parallel()
	var ran atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("DELETE /items/{id}", func(w http.ResponseWriter, r *http.Request) { ran.Add(1) })
	srv := mcp.NewServer(mcp.Implementation{Name: "rr", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "delete_item", InputSchema: []byte(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`),
		Annotations: mcp.Annotations{Destructive: true}}, "DELETE /items/{id}", mux)
	ts := httptest.NewServer(mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, mcp.WithLogger(slog.New(slog.DiscardHandler)),
		mcp.WithRouteRequest(func(outer, inner *http.Request) *http.Request {
			if inner != nil {
				panic("a host bug") // as a write to a nil map would
			}
			return inner
		})))
	t.Cleanup(ts.Close)
	in := confirmRound1(t, ts.URL, "delete_item", "x")
	round2 := confirmRound2("", "delete_item", "x", in.RequestState, accept)
	asResult(t, round2.send(t, ts.URL))
	round2.id = 3
	r := round2.send(t, ts.URL)
	res := asResult(t, r)
	if ran.Load() != 0 {
		t.Fatalf("route ran")
	}
	if res.StructuredContent["executed"] == true {
		t.Errorf("the retry is told the tool ran, but the route was never reached: %s", r.raw)
	}
}
