package mcp_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
)

// TestFunc_ConfirmedReplay: a confirmed destructive function tool that ran
// is recorded as having run, whatever it did (returned, returned an error,
// panicked): the same confirmation sent again, twice, runs nothing and is
// answered confirmation_already_used with executed:true and what happened.
// Before the fix only route tools recorded their outcome, and a function
// tool that had deleted something was replayed as "the tool did not run".
func TestFunc_ConfirmedReplay(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Implementation{Name: "replay", Version: "1"})
	var runs atomic.Int64
	ask := mcp.ConfirmWithInput(func(ctx context.Context, in fnID) (string, error) { return "Delete " + mcp.Quote(in.ID) + "?", nil })
	destructive := mcp.Annotations{Destructive: true}
	mcp.AddToolFunc(srv, mcp.Tool{Name: "returns", Annotations: destructive}, func(ctx context.Context, in fnID) (fnEmpty, error) {
		runs.Add(1)
		return fnEmpty{}, nil
	}, ask)
	mcp.AddToolFunc(srv, mcp.Tool{Name: "fails", Annotations: destructive}, func(ctx context.Context, in fnID) (fnEmpty, error) {
		runs.Add(1)
		return fnEmpty{}, errors.New("half done")
	}, ask)
	mcp.AddToolFunc(srv, mcp.Tool{Name: "panics", Annotations: destructive}, func(ctx context.Context, in fnID) (fnEmpty, error) {
		runs.Add(1)
		panic("mid-delete")
	}, ask)
	ts := httptest.NewServer(mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, mcp.WithLogger(slog.New(slog.DiscardHandler))))
	t.Cleanup(ts.Close)
	for _, tc := range []struct {
		tool, field, text string // field: the outcome's extra member in structuredContent
	}{
		{"returns", "", "the tool ran at "},
		{"fails", "failed", "the tool ran and reported an error at "},
		{"panics", "panicked", "the tool ran and failed with an internal error at "},
	} {
		runs.Store(0)
		in := confirmRound1(t, ts.URL, tc.tool, "x")
		round2 := confirmRound2("", tc.tool, "x", in.RequestState, accept)
		asResult(t, round2.send(t, ts.URL)) // runs the function
		for i := range 2 {
			round2.id = 3 + i
			r := round2.send(t, ts.URL)
			res := asResult(t, r)
			sc := res.StructuredContent
			if !res.IsError || sc["outcome"] != "confirmation_already_used" || sc["executed"] != true ||
				(tc.field != "" && sc[tc.field] != true) || !strings.Contains(res.Content[0].Text, tc.text) {
				t.Errorf("%s retry %d: %s", tc.tool, i+1, r.raw)
			}
		}
		if n := runs.Load(); n != 1 {
			t.Errorf("%s ran %d times, want 1", tc.tool, n)
		}
	}
}
