package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The 2025 push across replicas (examples/conformance run as a fleet, one
// Redis behind every replica): a go-sdk client at 2025-06-18 holds a
// session (the fixture's sealed Mcp-Session-Id), whose standalone GET
// stream the SDK opens after initialize, subscribes to
// test://watched-resource with ClientSession.Subscribe, and its
// ResourceUpdatedHandler must fire when another replica announces the
// update (test_notify_resource_updated: Handler.NotifyResourceUpdated on
// the replica the call reaches).
//
//	go run . -notify http://127.0.0.1:A/mcp http://127.0.0.1:B/mcp [http://127.0.0.1:BALANCER/mcp]
//
// First with replica URLs: the SDK knows A's URL only, so its initialize,
// GET stream, resources/subscribe and resources/unsubscribe all reach A;
// the triggers are plain 2026-07-28 POSTs to B's URL, so the stream and
// the trigger are on different replicas by construction. Tool list
// changes made through B reach the same stream (ToolListChangedHandler),
// and after Unsubscribe an update of the URI no longer does.
//
// Then, with the balancer's URL, everything goes through nginx's round
// robin, the trigger too (the SDK's own CallTool): which replica served
// the GET stream and which the trigger is read from each response's
// X-Upstream, and the trigger is repeated until it reaches another replica
// than the stream's (round robin: the next request does).

const watchedURI = "test://watched-resource"

// notifySessions runs both checks.
func notifySessions(ctx context.Context, streamURL, triggerURL, balancerURL string) error {
	if streamURL == triggerURL {
		return errors.New("the stream's replica and the trigger's must differ")
	}
	if err := notifyAcross(ctx, streamURL, triggerURL); err != nil {
		return fmt.Errorf("replica URLs: %w", err)
	}
	if balancerURL != "" {
		if err := notifyBalanced(ctx, balancerURL); err != nil {
			return fmt.Errorf("balancer: %w", err)
		}
	}
	return nil
}

// heard collects what a client's notification handlers received.
type heard struct {
	updated chan string   // URIs of notifications/resources/updated
	tools   chan struct{} // notifications/tools/list_changed
}

func newHeard() *heard {
	return &heard{updated: make(chan string, 16), tools: make(chan struct{}, 16)}
}

func (h *heard) options() *mcp.ClientOptions {
	return &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			h.updated <- req.Params.URI
		},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { h.tools <- struct{}{} },
	}
}

// streamWatch wraps a client's transport: opened is closed once the
// session's GET stream answered 200 (the server subscribes the stream to
// its event bus before it answers), and upstreams records which replica
// (nginx's X-Upstream) served the GET and each POST, by JSON-RPC method.
type streamWatch struct {
	once   sync.Once
	opened chan struct{}
	mu     sync.Mutex
	ups    map[string]string
}

func newStreamWatch() *streamWatch {
	return &streamWatch{opened: make(chan struct{}), ups: map[string]string{}}
}

func (s *streamWatch) wrap(next http.RoundTripper) http.RoundTripper {
	methods := &routing{}
	inner := methods.wrap(next)
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		resp, err := inner.RoundTrip(req)
		if err != nil {
			return resp, err
		}
		if req.Method == http.MethodGet && resp.StatusCode == http.StatusOK &&
			strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			s.mu.Lock()
			s.ups["GET"] = lastUpstream(resp.Header.Get("X-Upstream"))
			s.mu.Unlock()
			s.once.Do(func() { close(s.opened) })
		}
		s.mu.Lock()
		for _, k := range []string{"initialize", "resources/subscribe", "tools/call"} {
			if u := methods.upstream(k); u != "" {
				s.ups[k] = u
			}
		}
		s.mu.Unlock()
		return resp, nil
	})
}

func (s *streamWatch) upstream(kind string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ups[kind]
}

func lastUpstream(h string) string {
	if i := strings.LastIndex(h, ","); i >= 0 {
		h = h[i+1:]
	}
	return strings.TrimSpace(h)
}

// connect25 opens a 2025-06-18 session through the go-sdk's streamable
// transport and waits for its GET stream.
func connect25(ctx context.Context, url string, h *heard, w *streamWatch) (*mcp.ClientSession, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpdual-interop-go-notify", Version: "1.0.0"}, h.options())
	transport := &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: w.wrap(http.DefaultTransport)}}
	cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	if v := cs.InitializeResult().ProtocolVersion; v != "2025-06-18" || cs.ID() == "" {
		cs.Close()
		return nil, fmt.Errorf("negotiated %q with session %q: want 2025-06-18 with a session", v, cs.ID())
	}
	caps := cs.InitializeResult().Capabilities
	if caps.Resources == nil || !caps.Resources.Subscribe || caps.Tools == nil || !caps.Tools.ListChanged {
		cs.Close()
		return nil, fmt.Errorf("initialize announced no resources.subscribe or tools.listChanged: %+v %+v", caps.Resources, caps.Tools)
	}
	select {
	case <-w.opened:
	case <-time.After(10 * time.Second):
		cs.Close()
		return nil, errors.New("the SDK's GET stream did not open within 10 s")
	case <-ctx.Done():
		cs.Close()
		return nil, ctx.Err()
	}
	return cs, nil
}

// notifyAcross: the session and its stream on replica A (streamURL), the
// triggers posted to replica B (triggerURL).
func notifyAcross(ctx context.Context, streamURL, triggerURL string) error {
	h, w := newHeard(), newStreamWatch()
	cs, err := connect25(ctx, streamURL, h, w)
	if err != nil {
		return err
	}
	defer cs.Close()
	a, b := portOf(streamURL), portOf(triggerURL)
	fmt.Printf("[go-sdk notify 2025-06-18] session %s… on replica :%s, its GET stream open there\n", cs.ID()[:min(12, len(cs.ID()))], a)
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: watchedURI}); err != nil {
		return fmt.Errorf("resources/subscribe: %w", err)
	}
	fmt.Printf("[go-sdk notify 2025-06-18] resources/subscribe %s through replica :%s\n", watchedURI, a)

	// A URI the session did not subscribe to first: it must not come, and
	// the stream passes events in publication order.
	for _, uri := range []string{"test://static-text", watchedURI} {
		if err := postTool(ctx, triggerURL, "test_notify_resource_updated", map[string]any{"uri": uri}); err != nil {
			return err
		}
	}
	if err := expectUpdate(ctx, h, watchedURI); err != nil {
		return err
	}
	fmt.Printf("[go-sdk notify 2025-06-18] test_notify_resource_updated via replica :%s -> ResourceUpdatedHandler(%s) on :%s's stream; test://static-text not passed on\n", b, watchedURI, a)

	// Tool list changes made through B, on and off (the fleet ends as it
	// began): the stream passes every list change of the fleet. Late copies
	// of a change from a slower replica may come twice: drained.
	for i := range 2 {
		if err := postTool(ctx, triggerURL, "test_trigger_tool_change", map[string]any{}); err != nil {
			return err
		}
		select {
		case <-h.tools:
		case <-time.After(10 * time.Second):
			return fmt.Errorf("change %d: no notifications/tools/list_changed within 10 s", i+1)
		}
		fmt.Printf("[go-sdk notify 2025-06-18] test_trigger_tool_change via replica :%s -> ToolListChangedHandler on :%s's stream\n", b, a)
		time.Sleep(500 * time.Millisecond)
		drain(h.tools)
	}

	if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: watchedURI}); err != nil {
		return fmt.Errorf("resources/unsubscribe: %w", err)
	}
	if err := postTool(ctx, triggerURL, "test_notify_resource_updated", map[string]any{"uri": watchedURI}); err != nil {
		return err
	}
	select {
	case uri := <-h.updated:
		return fmt.Errorf("after resources/unsubscribe the stream still passed an update of %s", uri)
	case <-time.After(time.Second):
	}
	fmt.Printf("[go-sdk notify 2025-06-18] resources/unsubscribe: a later update through :%s is not passed on\n", b)
	return nil
}

// notifyBalanced: everything through the balancer; the trigger is the
// SDK's own tools/call, repeated until round robin sends it to another
// replica than the GET stream's.
func notifyBalanced(ctx context.Context, url string) error {
	h, w := newHeard(), newStreamWatch()
	cs, err := connect25(ctx, url, h, w)
	if err != nil {
		return err
	}
	defer cs.Close()
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: watchedURI}); err != nil {
		return fmt.Errorf("resources/subscribe: %w", err)
	}
	stream := w.upstream("GET")
	if stream == "" {
		return errors.New("the GET stream's response named no X-Upstream: is the URL nginx's?")
	}
	var trigger string
	for i := 0; ; i++ {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_notify_resource_updated", Arguments: map[string]any{"uri": watchedURI}})
		if err != nil {
			return fmt.Errorf("test_notify_resource_updated: %w", err)
		}
		if res.IsError {
			return fmt.Errorf("test_notify_resource_updated: %q", text(res))
		}
		if trigger = w.upstream("tools/call"); trigger != stream {
			break
		}
		// It reached the stream's own replica: it still must be heard, and
		// the next call goes elsewhere.
		if err := expectUpdate(ctx, h, watchedURI); err != nil {
			return err
		}
		if i == 3 {
			return fmt.Errorf("four calls all reached the stream's replica %s: is the balancer round robin?", stream)
		}
	}
	if err := expectUpdate(ctx, h, watchedURI); err != nil {
		return err
	}
	fmt.Printf("[go-sdk notify 2025-06-18, balancer] initialize served by %s, GET stream by %s, resources/subscribe by %s, test_notify_resource_updated by %s -> ResourceUpdatedHandler(%s)\n",
		w.upstream("initialize"), stream, w.upstream("resources/subscribe"), trigger, watchedURI)
	return nil
}

func expectUpdate(ctx context.Context, h *heard, want string) error {
	select {
	case uri := <-h.updated:
		if uri != want {
			return fmt.Errorf("notifications/resources/updated of %s, want %s", uri, want)
		}
		return nil
	case <-time.After(10 * time.Second):
		return fmt.Errorf("no notifications/resources/updated of %s within 10 s", want)
	case <-ctx.Done():
		return ctx.Err()
	}
}

func drain[T any](c chan T) {
	for {
		select {
		case <-c:
		default:
			return
		}
	}
}

func portOf(url string) string {
	rest := strings.TrimPrefix(url, "http://127.0.0.1:")
	port, _, _ := strings.Cut(rest, "/")
	return port
}

// postTool calls a tool with one plain 2026-07-28 POST (no session, no
// SDK), and fails unless the result is a success.
func postTool(ctx context.Context, url, name string, args map[string]any) error {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{
		"name": name, "arguments": args,
		"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": map[string]any{}},
	}})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(string(body)))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", name)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer resp.Body.Close()
	// The answer is JSON, or an event stream whose last message is it.
	var last string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	sse := strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
	var whole strings.Builder
	for sc.Scan() {
		if !sse {
			whole.WriteString(sc.Text())
			continue
		}
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			last = d
		}
	}
	if !sse {
		last = whole.String()
	}
	var out struct {
		Result *struct {
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal([]byte(last), &out) != nil || out.Result == nil || out.Result.IsError {
		return fmt.Errorf("%s via %s: %d %s", name, url, resp.StatusCode, last)
	}
	return nil
}
