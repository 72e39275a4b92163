package main

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"log"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/redisstore"
)

var notificationsFlag = flag.Bool("notifications", false, "tell clients when an inbox or an email changes: 2026-07-28 subscriptions/listen "+
	"(resourceSubscriptions for inbox:// URIs) and the 2025 push (a sealed Mcp-Session-Id, its GET stream, resources/subscribe); "+
	"with -redis the events and the 2025 sessions' subscriptions go through Redis, for every replica. Off by default: the contract pushes nothing")

// Change notifications (-notifications, mcp.WithChangeNotifications).
// The REST API says what changed — an email arriving (POST
// /api/v1/inboxes/{id}/emails), deleted, or an inbox's senders replaced —
// and the endpoint tells the callers of that workspace that subscribed to
// the resource's URI (inbox://inboxes/{id}, inbox://emails/{id}), on
// whichever replica they listen. Without the flag nothing is announced or
// pushed: the seed's contract.

// notifier announces resource updates once the endpoint exists; its zero
// value (no endpoint) announces nothing.
type notifier struct {
	h atomic.Pointer[mcp.Handler]
}

// updated announces that uri of workspace ws changed. It never holds up
// the REST answer for long, and a failure only costs the notification.
func (n *notifier) updated(ws string, uris ...string) {
	h := n.h.Load()
	if h == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for _, uri := range uris {
		if err := h.NotifyResourceUpdated(ctx, ws, uri); err != nil {
			log.Printf("inbox: %s not announced: %v", uri, err)
		}
	}
}

// notificationsOption is -notifications' handler option.
func (s shared) notificationsOption() mcp.HandlerOption {
	var n mcp.ChangeNotifications
	if s.rdb != nil {
		n.Bus = redisstore.NewEventBus(s.rdb, s.storeOptions(redisPrefix)...)
		n.Sessions = redisstore.NewSessionStore(s.rdb, s.storeOptions(redisPrefix)...)
	}
	return mcp.WithChangeNotifications(n)
}

func inboxURI(id string) string { return "inbox://inboxes/" + id }
func emailURI(id string) string { return "inbox://emails/" + id }

// receive takes an email arriving at an inbox of the caller's workspace
// (a mail provider's hook): 201 with the email, status "received".
func (a *api) receive(w http.ResponseWriter, r *http.Request) {
	id, ok := allowed(w, r, scopeWrite)
	if !ok {
		return
	}
	var in struct {
		From    string `json:"from"`
		Subject string `json:"subject"`
		Body    string `json:"body"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 256<<10)).Decode(&in); err != nil || !address.MatchString(strings.TrimSpace(in.From)) ||
		in.Subject == "" || len(in.Subject) > 998 {
		writeError(w, http.StatusUnprocessableEntity, "invalid_body", `send {"from": "name@domain", "subject": "...", "body": "..."}`)
		return
	}
	e, found := a.store.receive(id.workspace, r.PathValue("id"), strings.TrimSpace(in.From), in.Subject, in.Body)
	if !found {
		notFound(w, "inbox")
		return
	}
	a.notes.updated(id.workspace, inboxURI(e.InboxID))
	writeJSON(w, http.StatusCreated, envelope{Data: e})
}
