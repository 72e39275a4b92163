package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mrtr"
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

// TestPush_StreamOfASessionInAnUnservedRevision: a session negotiated in
// a revision this endpoint does not serve (a replica of the fleet that
// serves fewer 2025 revisions, sharing the ring) opens no GET stream when
// the GET names no revision: 404 -32001, as the session's POSTs that name
// none are, so the client initializes again. It opened a stream in the
// endpoint's default revision, for a session every POST of which was 404.
// The same session's stream still opens where its revision is served.
func TestPush_StreamOfASessionInAnUnservedRevision(t *testing.T) {
	t.Parallel()
	sealer := mrtr.NewSealer(sessionRing(t, 1))
	endpoint := func(versions ...mcp.Version) string {
		srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"})
		mcp.AddToolFunc(srv, mcp.Tool{Name: "t", Description: "d"}, func(ctx context.Context, in struct{}) (sessionOut, error) { return sessionOut{N: 1}, nil })
		opts := []era2025.Option{era2025.WithSessions(sealer, 0)}
		if len(versions) > 0 {
			opts = append(opts, era2025.WithVersions(versions...))
		}
		return newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(era2026.WithSealer(sealer)), era2025.New(opts...)},
			mcp.WithChangeNotifications(mcp.ChangeNotifications{Bus: mcp.NewMemoryEventBusForTest(), KeepAlive: time.Hour})))
	}
	all, fewer := endpoint(), endpoint(mcp.Version20250618)
	get := func(url, id string) (int, http.Header, []byte) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel() // ends a stream that opened
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		req.Header = http.Header{"Accept": {"text/event-stream"}, "Mcp-Session-Id": {id}}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return resp.StatusCode, resp.Header, nil // a stream: nothing to read before it ends
		}
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, b
	}
	for _, v := range []mcp.Version{mcp.Version20251125, mcp.Version20250618, mcp.Version20250326} {
		t.Run(string(v), func(t *testing.T) {
			id := initialize(t, all, "", v, `{}`).header.Get("Mcp-Session-Id")
			if id == "" {
				t.Fatal("no session id")
			}
			for _, url := range []string{all, fewer} {
				served := url == all || v == mcp.Version20250618
				// The POST that names no revision is refused where the
				// session's revision is not served...
				p := post(t, url, http.MethodPost, "", map[string]string{"Mcp-Session-Id": id}, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
				if served != (p.status == 200) || !served && (p.status != 404 || !bytes.Contains(p.body, []byte(`"code":-32001`))) {
					t.Fatalf("POST (revision served: %v): %d %s", served, p.status, p.body)
				}
				// ...and so is the GET; where it is served, the stream
				// opens in it.
				status, hdr, body := get(url, id)
				if served {
					if status != 200 || hdr.Get("Content-Type") != "text/event-stream" || hdr.Get("MCP-Protocol-Version") != string(v) {
						t.Errorf("GET where the revision is served: %d %q %q %s", status, hdr.Get("Content-Type"), hdr.Get("MCP-Protocol-Version"), body)
					}
					continue
				}
				var got struct {
					ID    json.RawMessage `json:"id"`
					Error struct {
						Code int `json:"code"`
					} `json:"error"`
				}
				json.Unmarshal(body, &got)
				if status != 404 || got.Error.Code != -32001 || got.ID != nil || hdr.Get("Content-Type") != "application/json" {
					t.Errorf("GET: %d %q %s, want 404 -32001", status, hdr.Get("Content-Type"), body)
				}
			}
		})
	}
}

// TestPush_AllowNamesGET: with change notifications the endpoint serves
// GET (a 2025 session's stream) as well as POST, so a 405 for another
// method names both; without them it names POST alone.
func TestPush_AllowNamesGET(t *testing.T) {
	f := newFleet(t, 1)
	plain := newTestServer(t, mcp.NewHandler(mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"}), []mcp.Era{era2026.New(), era2025.New()}))
	for url, want := range map[string]string{f.replicas[0].url: "GET, POST", plain: "POST"} {
		for _, method := range []string{http.MethodDelete, http.MethodPut, http.MethodPatch} {
			req, _ := http.NewRequest(method, url, strings.NewReader(`{}`))
			req.Header.Set("Content-Type", "application/json")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusMethodNotAllowed || res.Header.Get("Allow") != want || !strings.Contains(string(body), `"code":-32600`) {
				t.Errorf("%s %s: %d Allow=%q %s, want 405 Allow=%q", method, url, res.StatusCode, res.Header.Get("Allow"), body, want)
			}
		}
	}
}

// TestPush_NoSessionsNoGET: with change notifications but no revision
// whose era issues sessions (2026-07-28 alone, or era2025 without
// WithSessions) no GET can open a stream, so GET is not a method the
// endpoint serves: every 405 says Allow: POST, and a GET, with a session
// id and accepting a stream or not, is 405 -32600 as without the option,
// whatever revision it names.
func TestPush_NoSessionsNoGET(t *testing.T) {
	notes := mcp.WithChangeNotifications(mcp.ChangeNotifications{Bus: mcp.NewMemoryEventBusForTest()})
	srv := func() *mcp.Server { return mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"}) }
	for name, url := range map[string]string{
		"2026-07-28 alone":         newTestServer(t, mcp.NewHandler(srv(), []mcp.Era{era2026.New()}, notes)),
		"era2025 without sessions": newTestServer(t, mcp.NewHandler(srv(), []mcp.Era{era2026.New(), era2025.New()}, notes)),
	} {
		for _, era := range eras {
			for _, method := range []string{http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodDelete, http.MethodPut, http.MethodPatch} {
				req, _ := http.NewRequestWithContext(t.Context(), method, url, nil)
				req.Header = http.Header{"Accept": {"text/event-stream"}, "Mcp-Session-Id": {"s-1"}, "Mcp-Protocol-Version": {string(era)}}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				if resp.Header.Get("Content-Type") == "text/event-stream" {
					resp.Body.Close() // an open stream is not read to its end
					t.Errorf("%s, %s %s: a stream opened", name, era, method)
					continue
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" ||
					resp.Header.Get("Content-Type") != "application/json" || method != http.MethodHead && !strings.Contains(string(body), `"code":-32600`) {
					t.Errorf("%s, %s %s: %d Allow=%q %s, want 405 Allow=POST", name, era, method, resp.StatusCode, resp.Header.Get("Allow"), body)
				}
			}
		}
	}
}

// TestPush_RefusedStreamAllowIn2025: the GET refusals of a 2025 session's
// stream (no Mcp-Session-Id, or not accepting text/event-stream) name
// POST alone in Allow, in every 2025 revision, though the endpoint serves
// a GET that has both: a 405 to a GET says this GET opens no stream (the
// transports' meaning of it), and an Allow naming GET beside it would
// contradict the status it comes with (RFC 9110 §15.5.6: the method is
// not supported by the target resource). Record 033.
func TestPush_RefusedStreamAllowIn2025(t *testing.T) {
	f := newFleet(t, 1)
	r := f.replicas[0]
	for _, v := range []mcp.Version{mcp.Version20251125, mcp.Version20250618, mcp.Version20250326} {
		status, hdr, body := getWithVersion(t, r, &session{}, string(v))
		if status != http.StatusMethodNotAllowed || hdr.Get("Allow") != "POST" || !strings.Contains(string(body), `"code":-32600`) {
			t.Errorf("%s, no session: %d Allow=%q %s", v, status, hdr.Get("Allow"), body)
		}
		s := newSessionIn(t, r, v)
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, r.url, nil)
		req.Header = http.Header{"Accept": {"application/json"}, "Authorization": {"Bearer " + tokAlice}, "X-Workspace-Id": {"w1"},
			"Mcp-Session-Id": {s.id}, "Mcp-Protocol-Version": {string(v)}}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" || !strings.Contains(string(b), `"code":-32600`) {
			t.Errorf("%s, a session's GET accepting no event stream: %d Allow=%q %s", v, resp.StatusCode, resp.Header.Get("Allow"), b)
		}
	}
}
