package mcp_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/internal/local"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
)

// TestLocal: a message a local transport (stdio) hands over carries no
// HTTP headers, no token and no peer: 2026-07-28 needs no header beside
// its _meta, the host's principal stands for the token, and Host and
// Origin are not asked. Without the mark, the same request is refused.
func TestLocal(t *testing.T) {
	t.Parallel()
	o := newObserved(t)
	h := o.handler
	p := &auth.Principal{Issuer: "https://as.example.com", Subject: "alice", ClientID: "client-1", Scopes: []string{"mcp:read"}}
	body, _ := toolsCall(mcp.Version20260728, "1", "echo", `{"text":"hi"}`, "")
	serve := func(ctx context.Context) *httptest.ResponseRecorder {
		r := httptest.NewRequestWithContext(ctx, http.MethodPost, "http://stdio/mcp", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Origin", "https://elsewhere.example")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	w := serve(local.NewContext(context.Background(), &local.Exchange{Transport: "stdio", Principal: p}))
	if w.Code != 200 || !strings.Contains(w.Body.String(), `\"text\":\"hi\"`) {
		t.Fatalf("local: %d %s", w.Code, w.Body)
	}
	events, routes, _ := o.obs.take()
	if len(events) != 1 || events[0].Transport != "stdio" || events[0].Principal != alice || events[0].ClientAddr != "" || len(routes) != 1 {
		t.Errorf("local events: %+v %+v", events, routes)
	}
	// Over HTTP the Host check refuses it first (403), before the Origin
	// and the missing token would.
	if w := serve(context.Background()); w.Code != 403 || !strings.Contains(w.Body.String(), `"code":-31403`) {
		b, _ := io.ReadAll(w.Body)
		t.Errorf("the same request over HTTP: %d %s", w.Code, b)
	}
	// A local transport without a principal, on an endpoint with auth: the
	// refusal of a request without a token, with the message's id.
	w = serve(local.NewContext(context.Background(), &local.Exchange{Transport: "stdio"}))
	if w.Code != 401 || !strings.Contains(w.Body.String(), `"id":1,`) || !strings.Contains(w.Body.String(), `"code":-31401`) {
		t.Errorf("local without a principal: %d %s", w.Code, w.Body)
	}
}

// TestNewHandler_LogsEraWarnings: an era's warnings about its own
// configuration (era2026 sealing with a process-random key) reach the
// handler's log once, at Warn.
func TestNewHandler_LogsEraWarnings(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Implementation{Name: "w", Version: "1"})
	var buf syncBuffer
	mcp.NewHandler(srv, []mcp.Era{era2026.New()}, mcp.WithLogger(slog.New(slog.NewTextHandler(&buf, nil))))
	if got := buf.String(); strings.Count(got, "level=WARN") != 1 || !strings.Contains(got, "random") {
		t.Errorf("log: %q", got)
	}
}
