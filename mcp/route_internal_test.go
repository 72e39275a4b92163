package mcp

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// TestRouteContext_DerivedContexts: contexts a route derives from its
// request's context hear of the MCP request's end without a goroutine
// each, and still see none of the MCP request's values.
func TestRouteContext_DerivedContexts(t *testing.T) {
	type key struct{}
	outer, cancel := context.WithCancel(context.WithValue(context.Background(), key{}, "outer"))
	rc := &routeContext{Context: outer}
	before := runtime.NumGoroutine()
	var derived []context.Context
	for range 100 {
		ctx, stop := context.WithTimeout(rc, time.Hour)
		defer stop()
		derived = append(derived, ctx)
	}
	if n := runtime.NumGoroutine() - before; n > 5 {
		t.Errorf("100 derived contexts started %d goroutines", n)
	}
	if derived[0].Value(key{}) != nil {
		t.Error("a derived context sees the MCP request's values")
	}
	cancel()
	for i, ctx := range derived {
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
			t.Fatalf("derived context %d not cancelled with the MCP request", i)
		}
	}
}
