package main

// The inbox's tools registered from its OpenAPI document (openapi.yaml)
// instead of one AddTool each: the tools/list output must be the hand
// registration's, byte for byte, in every revision. The golden files hold
// the hand registration's output (go test -run OpenAPI -update rewrites
// them from it); both registrations are held to them.
//
// The document says what it can: names, titles, descriptions, parameter
// schemas, the body, the scopes. The overrides below say what it cannot:
// which POSTs and PUTs are destructive, and how a confirmation reads.

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/mcptest"
	"github.com/mcpdual/mcpdual/mcp/openapi"
)

var update = flag.Bool("update", false, "rewrite testdata/openapi-*.json from the hand registration")

// registerFromDocument is the whole registration of tools and resources
// from openapi.yaml.
func registerFromDocument(t *testing.T, srv *mcp.Server, h http.Handler, st *store) *openapi.Report {
	t.Helper()
	spec, err := os.ReadFile("openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	destructive := func(idempotent bool, confirm ...mcp.ItemOption) openapi.Override {
		return openapi.Override{Annotations: &mcp.Annotations{Destructive: true, Idempotent: idempotent}, Options: confirm}
	}
	complete := func(ids func(ws string) []string) mcp.ItemOption {
		return mcp.WithCompletion("id", func(ctx context.Context, value string, _ map[string]string) ([]string, error) {
			return prefixed(ids(workspaceOf(ctx)), value), nil
		})
	}
	report, err := openapi.Register(srv, spec, h,
		// The hand registration's order, which tools/list keeps.
		openapi.WithOperations("emails_list", "emails_get", "emails_reprocess", "emails_delete",
			"inboxes_list", "inboxes_get", "inboxes_update_senders",
			"webhooks_list", "webhooks_get", "webhooks_send_test", "webhooks_resend", "webhooks_rotate_secret",
			"jobs_get"),
		// DELETE is destructive by its method; these POSTs and this PUT are
		// too, which a document cannot say.
		openapi.WithOverride("emails_reprocess", destructive(false, jobTask("emails_reprocess_status"))),
		openapi.WithOverride("inboxes_update_senders", destructive(true)),
		openapi.WithOverride("webhooks_send_test", destructive(false)),
		openapi.WithOverride("webhooks_resend", destructive(false, jobTask("webhooks_resend_status"))),
		openapi.WithOverride("webhooks_rotate_secret", destructive(false)),
		openapi.WithOverride("emails_delete", openapi.Override{Options: []mcp.ItemOption{
			mcp.ConfirmWith(func(ctx context.Context, call *mcp.Call) (string, error) {
				e, ok := st.email(workspaceOf(ctx), argID(call, "id"))
				if !ok {
					return "", errors.New("there is no such email in this workspace")
				}
				return "Delete email " + mcp.Quote(e.Subject) + " from " + mcp.Quote(e.From) + " (" + e.ID + ")? It disappears from the inbox.", nil
			})}}),
		openapi.WithResource("docs_getting_started", mcp.Resource{URI: "inbox://docs/getting-started", Name: "getting-started"}),
		openapi.WithResourceTemplate("emails_get", mcp.ResourceTemplate{URITemplate: "inbox://emails/{id}", Name: "email", Title: "An email",
			Description: "One email as JSON; its subject and body are third-party data.", MIMEType: "application/json"}, complete(st.emailIDs)),
		openapi.WithResourceTemplate("inboxes_get", mcp.ResourceTemplate{URITemplate: "inbox://inboxes/{id}", Name: "inbox", Title: "An inbox",
			Description: "One inbox as JSON.", MIMEType: "application/json"}, complete(st.inboxIDs)),
	)
	if err != nil {
		t.Fatal(err)
	}
	return report
}

// registerByHand is today's registration, from server.go.
func registerByHand(_ *testing.T, srv *mcp.Server, h http.Handler, st *store) {
	addTools(srv, h, st)
	addResources(srv, h, st)
}

// serve runs the inbox with the tools and resources register adds, on a
// loopback port: the same app as the command's, but for the registration.
func serve(t *testing.T, register func(srv *mcp.Server, h http.Handler, st *store)) string {
	t.Helper()
	return startWith(t, appConfig{queue: 1024, worker: true, perSecond: 50, burst: 100, register: register}).base
}

func TestOpenAPI_SameListsAsByHand(t *testing.T) {
	byHand := serve(t, func(srv *mcp.Server, h http.Handler, st *store) { registerByHand(t, srv, h, st) })
	var report *openapi.Report
	fromDoc := serve(t, func(srv *mcp.Server, h http.Handler, st *store) { report = registerFromDocument(t, srv, h, st) })

	if len(report.Tools) != 13 || len(report.Resources) != 3 || len(report.Skipped) != 1 || report.Skipped[0].OperationID != "docs_getting_started" {
		t.Errorf("report: %+v", report)
	}
	for _, v := range eras {
		list := func(base, method string) []byte {
			c := mcptest.Dial(base+"/mcp", v, mcptest.WithHeader("Authorization", "Bearer dev-writer"))
			r, err := c.Call(context.Background(), method, nil)
			if err != nil || r.Error != nil {
				t.Fatalf("%s %s: %v %s", v, method, err, r.Raw)
			}
			return r.Result
		}
		golden := filepath.Join("testdata", "openapi-tools-list-"+string(v)+".json")
		hand := list(byHand, "tools/list")
		if *update {
			if err := os.WriteFile(golden, append(hand, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		want = []byte(strings.TrimSuffix(string(want), "\n"))
		if string(hand) != string(want) {
			t.Errorf("%s: the hand registration's tools/list differs from %s (run with -update after a deliberate change)", v, golden)
		}
		if got := list(fromDoc, "tools/list"); string(got) != string(want) {
			t.Errorf("%s: tools/list from openapi.yaml differs from %s:\n got %s\nwant %s", v, golden, got, want)
		}
		for _, m := range []string{"resources/list", "resources/templates/list"} {
			if got, want := list(fromDoc, m), list(byHand, m); string(got) != string(want) {
				t.Errorf("%s %s:\n got %s\nwant %s", v, m, got, want)
			}
		}
	}
}

// The tools registered from the document reach the same routes: a read in
// every revision, and a delete that the user confirms (2026-07-28) with
// the override's message, or that a 2025 client cannot run.
func TestOpenAPI_CallsReachTheRoutes(t *testing.T) {
	base := serve(t, func(srv *mcp.Server, h http.Handler, st *store) { registerFromDocument(t, srv, h, st) })
	for _, v := range eras {
		c := mcptest.Dial(base+"/mcp", v, mcptest.WithHeader("Authorization", "Bearer dev-writer"))
		r, err := c.CallTool(context.Background(), "emails_list", map[string]any{"status": "failed", "limit": 5})
		if err != nil || r.Error != nil {
			t.Fatalf("%s: %v %s", v, err, r.Raw)
		}
		var res struct {
			Content []struct{ Text string } `json:"content"`
			IsError bool                    `json:"isError"`
		}
		_ = json.Unmarshal(r.Result, &res)
		if res.IsError || len(res.Content) != 1 || !strings.Contains(res.Content[0].Text, `"id":"eml_globex_0003"`) || strings.Contains(res.Content[0].Text, "eml_globex_0001") {
			t.Errorf("%s emails_list: %s", v, r.Result)
		}
	}

	var asked string
	c := mcptest.Dial(base+"/mcp", mcp.Version20260728, mcptest.WithHeader("Authorization", "Bearer dev-writer"),
		mcptest.WithCapabilities(json.RawMessage(`{"elicitation":{}}`)),
		mcptest.WithAnswers(func(_ string, req mcptest.InputRequest) (json.RawMessage, bool) {
			var p struct{ Message string }
			_ = json.Unmarshal(req.Params, &p)
			asked = p.Message
			return json.RawMessage(`{"action":"accept","content":{"confirm":true}}`), true
		}))
	r, err := c.CallTool(context.Background(), "emails_delete", map[string]any{"id": "eml_globex_0003"})
	if err != nil || r.Error != nil || !strings.Contains(string(r.Result), `\"deleted\":true`) {
		t.Fatalf("delete: %v %s", err, r.Raw)
	}
	if !strings.HasPrefix(asked, `Delete email "You won" from "unknown@spam.test"`) {
		t.Errorf("confirmation message %q", asked)
	}
	old := mcptest.Dial(base+"/mcp", mcp.Version20250618, mcptest.WithHeader("Authorization", "Bearer dev-writer"))
	r, err = old.CallTool(context.Background(), "emails_delete", map[string]any{"id": "eml_globex_0002"})
	if err != nil || !strings.Contains(string(r.Result), "confirmation_required") {
		t.Errorf("2025 delete: %v %s", err, r.Raw)
	}
}
