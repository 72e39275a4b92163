package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/mcptest"
)

// TestLegacyInput_WaitsDoNotStarve: with the inbox's defaults (256
// concurrency slots, 4 waits per principal, 256 in all), 64 principals
// each leaving 4 destructive 2025 calls unanswered hold every wait, and
// other callers are still served: at least 99% of their requests are
// answered normally (every one, here), none 503.
func TestLegacyInput_WaitsDoNotStarve(t *testing.T) {
	p := startIDP(t)
	s := startWith(t, appConfig{queue: 1024, worker: true, perSecond: 50, burst: 100, oidcIssuer: p.url, legacyInput: true})
	resource := s.base + "/mcp"
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel) // before the server closes: the waiting calls end
	const principals, each = 64, 4

	post := func(token string, hdr map[string]string, body string) (*http.Response, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, resource, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		return http.DefaultClient.Do(req)
	}
	// Each principal initializes once (a sealed session declaring
	// elicitation) and opens its calls; a call counts once its question
	// is on its stream. The streams stay open, unanswered.
	var asked atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, principals*each)
	for i := range principals {
		token := p.token(t, resource, func(c map[string]any) { c["sub"] = fmt.Sprintf("attacker-%d@example.test", i) })
		wg.Add(1)
		go func() {
			defer wg.Done()
			init, err := post(token, nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`)
			if err != nil {
				errs <- err
				return
			}
			init.Body.Close()
			hdr := map[string]string{"MCP-Protocol-Version": "2025-06-18", "Mcp-Session-Id": init.Header.Get("Mcp-Session-Id")}
			for j := range each {
				resp, err := post(token, hdr, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"emails_delete","arguments":{"id":"eml_globex_0002"}}}`, j+2))
				if err != nil {
					errs <- err
					return
				}
				sc := bufio.NewScanner(resp.Body)
				sc.Buffer(nil, 1<<20)
				for range 100 {
					if !sc.Scan() {
						break
					}
					if strings.HasPrefix(sc.Text(), "data: ") {
						if strings.Contains(sc.Text(), `"elicitation/create"`) {
							asked.Add(1)
						} else {
							errs <- fmt.Errorf("principal %d, call %d: %s", i, j, sc.Text())
						}
						break
					}
				}
				// The body stays open: the call waits for its answer until
				// the test ends (cancel).
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := asked.Load(); n != principals*each {
		t.Fatalf("%d calls waiting, want %d", n, principals*each)
	}

	// Three other callers, 20 requests each, with the waits held.
	var answered, refused atomic.Int64
	for i := range 3 {
		token := p.token(t, resource, func(c map[string]any) { c["sub"] = fmt.Sprintf("user-%d@example.test", i) })
		c := s.client(mcp.Version20260728, who{token: token}, "")
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 20 {
				var r *mcptest.Response
				var err error
				if j%2 == 0 {
					r, err = c.Call(ctx, "tools/list", nil)
				} else {
					r, err = c.CallTool(ctx, "emails_list", map[string]any{})
				}
				switch {
				case err == nil && r.Status == 200 && r.Error == nil:
					answered.Add(1)
				default:
					refused.Add(1)
					if err == nil && refused.Load() <= 3 {
						t.Logf("refused: %d %s", r.Status, r.Raw)
					}
				}
			}
		}()
	}
	wg.Wait()
	total := answered.Load() + refused.Load()
	if answered.Load()*100 < total*99 {
		t.Errorf("%d of %d requests of other callers answered normally while %d calls waited, want at least 99%%", answered.Load(), total, principals*each)
	}
}
