package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/mcp"
)

// getWithVersion sends a session's GET (none for a session without an
// id) naming version in MCP-Protocol-Version (absent for "absent") and
// returns the refusal's
// status, headers and body, or fails when a stream opened.
func getWithVersion(t *testing.T, r *replica, s *session, version string) (int, http.Header, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second) // an opened stream would not end
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, r.url, nil)
	req.Header = http.Header{"Accept": {"text/event-stream"}, "Authorization": {"Bearer " + tokAlice}, "X-Workspace-Id": {"w1"}}
	if s.id != "" {
		req.Header["Mcp-Session-Id"] = []string{s.id}
	}
	if version != "absent" {
		req.Header["Mcp-Protocol-Version"] = []string{version}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		t.Fatalf("MCP-Protocol-Version %q: a stream opened (%s)", version, resp.Header.Get("Content-Type"))
	}
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

// TestPush_StreamOfAnUnservedRevision: a session's GET naming a revision
// the endpoint does not serve (or a value that names none) is 400 with
// -32022 and the revisions served, as a POST of the session naming it is
// and as the 2025 transports require of any request; it was 405, which
// says the endpoint opens no stream at all.
func TestPush_StreamOfAnUnservedRevision(t *testing.T) {
	f := newFleet(t, 1)
	r := f.replicas[0]
	s := newSession(t, r)
	for _, v := range []string{"1999-01-01", "2099-12-31", "junk", ""} {
		status, hdr, body := getWithVersion(t, r, s, v)
		var got struct {
			ID    json.RawMessage `json:"id"`
			Error struct {
				Code int `json:"code"`
				Data struct {
					Supported []string `json:"supported"`
					Requested *string  `json:"requested"`
				} `json:"data"`
			} `json:"error"`
		}
		json.Unmarshal(body, &got)
		if status != http.StatusBadRequest || got.Error.Code != -32022 || got.Error.Data.Requested == nil || *got.Error.Data.Requested != v ||
			strings.Join(got.Error.Data.Supported, " ") != "2026-07-28 2025-11-25 2025-06-18 2025-03-26" || got.ID != nil ||
			!strings.HasPrefix(hdr.Get("Content-Type"), "application/json") {
			t.Errorf("GET naming %q: %d %s %s", v, status, hdr.Get("Content-Type"), body)
		}
		// The session's POST naming the same value is refused alike
		// (session.post names the session's revision when it has none).
		if v != "" {
			post := &session{id: s.id, token: s.token, version: mcp.Version(v)}
			if resp, pb := post.post(t, r, "tools/list", ""); resp.StatusCode != http.StatusBadRequest || !strings.Contains(pb, `"code":-32022`) {
				t.Errorf("POST naming %q: %d %s", v, resp.StatusCode, pb)
			}
		}
	}
}

// TestPush_RefusedStreamNamesAllow: a GET refused with 405 because the
// revision it names has no GET stream (2026-07-28) carries Allow, as HTTP
// requires of every 405 and as the endpoint's other 405 for a GET (no
// session) does.
func TestPush_RefusedStreamNamesAllow(t *testing.T) {
	f := newFleet(t, 1)
	r := f.replicas[0]
	s := newSession(t, r)
	for _, c := range []struct {
		name string
		s    *session
	}{{"a session's GET naming 2026-07-28", s}, {"a GET without a session", &session{}}} {
		status, hdr, body := getWithVersion(t, r, c.s, "2026-07-28")
		if status != http.StatusMethodNotAllowed || hdr.Get("Allow") != "POST" || !strings.Contains(string(body), `"code":-32600`) {
			t.Errorf("%s: %d Allow=%q %s", c.name, status, hdr.Get("Allow"), body)
		}
	}
}
