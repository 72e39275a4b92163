package main

import (
	"context"
	"log"
	"net/http"
	"sync/atomic"

	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/content"
	"github.com/mcpdual/mcpdual/mcp/redisstore"
)

// Change notifications (mcp.WithChangeNotifications): the suite's trigger
// tools really change the registry, on every replica. A trigger publishes
// a fleet event naming the state it asks for ("on": the dynamic tool or
// prompt is there, "off": it is not); every replica's OnFleet applies that
// state with Server.Update, and each Update tells the listening clients,
// whichever replica they listen on (the epochs make N copies of one change
// one notification). With -redis the event bus and the 2025 sessions'
// subscriptions and log levels live in Redis.

// Names of the fleet events and of what they add or remove.
const (
	toolEvent   = "tool-change"
	promptEvent = "prompt-change"
	dynamicTool = "test_dynamic_tool"
	dynamicName = "test_dynamic_prompt"
)

// changes is the fixture's side of the triggers: the registry it changes
// and what it changed it to.
type changes struct {
	srv     *mcp.Server
	mux     *http.ServeMux
	h       atomic.Pointer[mcp.Handler] // set once the endpoint is built
	tool    atomic.Bool                 // the dynamic tool is registered
	prompt  atomic.Bool                 // the dynamic prompt is registered
	updates atomic.Int64                // Updates applied (tests)
}

// notifications is the option of the /mcp endpoint.
func (f fleet) notifications(c *changes) mcp.HandlerOption {
	n := mcp.ChangeNotifications{OnFleet: c.apply}
	if f.rdb != nil {
		n.Bus = redisstore.NewEventBus(f.rdb, storeOptions()...)
		n.Sessions = redisstore.NewSessionStore(f.rdb, storeOptions()...)
	}
	return mcp.WithChangeNotifications(n)
}

// addTriggers registers the two trigger tools and
// test_notify_resource_updated.
func (c *changes) addTriggers() {
	trigger := func(event string, on *atomic.Bool) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			next := "on"
			if on.Load() {
				next = "off"
			}
			h := c.h.Load()
			if h == nil {
				result(w, true, content.Text("the endpoint is not built yet"))
				return
			}
			if err := h.PublishFleet(r.Context(), event, []byte(next)); err != nil {
				log.Printf("conformance: %s: %v", event, err)
				result(w, true, content.Text("the change could not be published: try again"))
				return
			}
			text(w, "Asked every replica to turn "+event+" "+next)
		}
	}
	tool(c.srv, c.mux, "test_trigger_tool_change", "Adds or removes "+dynamicTool+" on every replica; listening clients are told.", empty,
		trigger(toolEvent, &c.tool))
	tool(c.srv, c.mux, "test_trigger_prompt_change", "Adds or removes "+dynamicName+" on every replica; listening clients are told.", empty,
		trigger(promptEvent, &c.prompt))
	c.mux.HandleFunc("POST /tools/"+dynamicTool, func(w http.ResponseWriter, r *http.Request) { text(w, "dynamic") })
	tool(c.srv, c.mux, "test_notify_resource_updated", "Announces that a resource changed (Handler.NotifyResourceUpdated on the replica the call reaches); its subscribers, on every replica, are told.",
		schema(`{"type":"object","properties":{"uri":{"type":"string","minLength":1}},"required":["uri"]}`), c.notifyUpdated)
}

// notifyUpdated serves test_notify_resource_updated: the replica the call
// reaches publishes the update itself (no fleet event, no registry
// change), so a subscriber on another replica hears it through the bus
// alone.
func (c *changes) notifyUpdated(w http.ResponseWriter, r *http.Request) {
	uri := arg(r, "uri")
	h := c.h.Load()
	switch {
	case uri == "":
		result(w, true, content.Text("uri: a resource URI is required"))
		return
	case h == nil:
		result(w, true, content.Text("the endpoint is not built yet"))
		return
	}
	if err := h.NotifyResourceUpdated(r.Context(), "", uri); err != nil {
		log.Printf("conformance: notify %s: %v", uri, err)
		result(w, true, content.Text("the update could not be published: try again"))
		return
	}
	text(w, "Told the subscribers of "+uri)
}

// apply is OnFleet: it brings this replica's registry to the state the
// event names. Applying a state twice changes nothing, so replicas that
// hear one event in different orders end alike.
func (c *changes) apply(ctx context.Context, name string, payload []byte) {
	on := string(payload) == "on"
	var state *atomic.Bool
	var change func(*mcp.Server)
	switch name {
	case toolEvent:
		state = &c.tool
		change = func(s *mcp.Server) {
			if on {
				s.AddTool(mcp.Tool{Name: dynamicTool, Description: "Registered by test_trigger_tool_change.", InputSchema: empty}, "POST /tools/"+dynamicTool, c.mux)
			} else {
				s.Remove(auth.KindTool, dynamicTool)
			}
		}
	case promptEvent:
		state = &c.prompt
		change = func(s *mcp.Server) {
			if on {
				s.AddPrompt(mcp.Prompt{Name: dynamicName, Description: "Registered by test_trigger_prompt_change."}, dynamicPrompt)
			} else {
				s.Remove(auth.KindPrompt, dynamicName)
			}
		}
	default:
		return
	}
	if state.Load() == on {
		return
	}
	if err := c.srv.Update(change); err != nil {
		log.Printf("conformance: %s %s: %v", name, payload, err)
		return
	}
	state.Store(on)
	c.updates.Add(1)
}

func dynamicPrompt(ctx context.Context, args map[string]string) (*mcp.PromptResult, error) {
	return &mcp.PromptResult{Description: "dynamic"}, nil
}
