package main

// The triage view (MCP Apps, io.modelcontextprotocol/ui): emails_triage
// lists the workspace's emails, and a client that renders MCP Apps shows
// the result in the page served by GET /api/v1/views/triage, from which
// the user marks an email processed through emails_mark_processed. That
// tool is for the view only (visibility "app"): a client that did not
// declare the extension neither sees nor calls it. It is a write like any
// other: the same token scopes, workspace and routes as every call.

import (
	_ "embed"
	"net/http"

	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/apps"
)

// triageURI is the view's resource.
const triageURI = "ui://inbox/triage"

//go:embed triage.html
var triageHTML []byte

// triageRoutes adds the REST routes the view needs: the page itself and
// marking an email processed.
func (a *api) triageRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/v1/views/triage", func(w http.ResponseWriter, r *http.Request) {
		if _, ok := allowed(w, r, scopeRead); !ok {
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(triageHTML)
	})
	mux.HandleFunc("POST /api/v1/emails/{id}/mark-processed", a.idem.wrap(a.markProcessed))
}

// markProcessed sets an email of the caller's workspace to processed; it
// answers the email, and marking it again changes nothing.
func (a *api) markProcessed(w http.ResponseWriter, r *http.Request) {
	one(w, r, scopeWrite, "email", a.store.markProcessed)
}

func (s *store) markProcessed(ws, id string) (email, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.emails[id]
	if !ok || e.Workspace != ws || e.DeletedAt != nil {
		return email{}, false
	}
	e.Status = "processed"
	return *e, true
}

// addTriage registers the view, the tool that opens it and the tool the
// view calls.
func addTriage(srv *mcp.Server, h http.Handler) {
	border := true
	srv.AddResource(mcp.Resource{URI: triageURI, Name: "inbox_triage", Title: "Inbox triage",
		Description: "The triage view of emails_triage: the listed emails, each of which can be marked processed.",
		// No csp: the page loads nothing from anywhere, so hosts apply
		// their most restrictive policy.
		UI: &apps.ResourceUI{PrefersBorder: &border}},
		"GET /api/v1/views/triage", h)
	srv.AddTool(mcp.Tool{Name: "emails_triage", Title: "Triage emails",
		Description: "Lists the workspace's emails for triage; clients that render MCP Apps show them in a view where the user marks them processed.",
		InputSchema: schema(`{"type":"object","properties":{
			"status":{"type":"string","enum":["received","processed","failed"],"description":"Only emails in this state"},
			"inbox_id":{"type":"string","description":"Only emails of this inbox"},
			"limit":{"type":"integer","minimum":1,"maximum":100,"description":"Page size (default 20)"}},"additionalProperties":false}`),
		Annotations: mcp.Annotations{ReadOnly: true, Idempotent: true},
		UI:          &apps.ToolUI{ResourceURI: triageURI},
	}, "GET /api/v1/emails", h)
	srv.AddTool(mcp.Tool{Name: "emails_mark_processed", Title: "Mark an email processed",
		Description: "Marks an email processed (from the triage view).",
		InputSchema: idOnly,
		Annotations: mcp.Annotations{Idempotent: true},
		UI:          &apps.ToolUI{ResourceURI: triageURI, Visibility: []apps.Visibility{apps.App}},
	}, "POST /api/v1/emails/{id}/mark-processed", h, mcp.RequireScopes(scopeWrite))
}
