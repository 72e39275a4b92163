package mcp_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
)

type streamFixture struct {
	url       string
	cancelled chan struct{}
	kept      chan *mcp.Call
}

func newStreamFixture(t testing.TB, opts ...mcp.HandlerOption) *streamFixture {
	t.Helper()
	f := &streamFixture{cancelled: make(chan struct{}, 1), kept: make(chan *mcp.Call, 1)}
	srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "work"}, "GET /work", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		call := mcp.CallFromContext(r.Context())
		sent := 0
		for i := 0; i <= 2; i++ {
			if call.Progress(float64(i*50), 100, fmt.Sprintf("step %d", i)) {
				sent++
			}
		}
		logged := []string{}
		for _, lv := range []slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError} {
			if call.Log(lv, map[string]string{"msg": lv.String()}) {
				logged = append(logged, lv.String())
			}
		}
		fmt.Fprintf(w, `{"progressSent":%d,"logged":%q}`, sent, strings.Join(logged, ","))
	}))
	srv.AddTool(mcp.Tool{Name: "levels"}, "GET /levels", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		call := mcp.CallFromContext(r.Context())
		sent := []int{}
		for _, c := range logLevelCases {
			if call.Log(c.level, int(c.level)) {
				sent = append(sent, int(c.level))
			}
		}
		json.NewEncoder(w).Encode(map[string][]int{"sent": sent})
	}))
	srv.AddTool(mcp.Tool{Name: "wait"}, "GET /wait", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mcp.CallFromContext(r.Context()).Progress(1, 0, "started")
		select {
		case <-r.Context().Done():
			f.cancelled <- struct{}{}
		case <-time.After(10 * time.Second):
		}
	}))
	srv.AddTool(mcp.Tool{Name: "keep"}, "GET /keep", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		call := mcp.CallFromContext(r.Context())
		call.Progress(1, 2, "half")
		f.kept <- call // a goroutine of the handler's may outlive the response
		fmt.Fprint(w, `"done"`)
	}))
	f.url = newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, opts...))
	return f
}

type streamed struct {
	status int
	header http.Header
	events []map[string]any
	body   string
}

func (f *streamFixture) post(t testing.TB, era mcp.Version, tool, metaExtra, accept string) streamed {
	t.Helper()
	meta := `"_meta":{` + metaExtra + `}`
	if era == mcp.Version20260728 {
		meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}`
		if metaExtra != "" {
			meta += "," + metaExtra
		}
		meta += "}"
	}
	body := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"` + tool + `",` + meta + `}}`
	req, _ := http.NewRequest(http.MethodPost, f.url, strings.NewReader(body))
	req.Header = http.Header{"Content-Type": {"application/json"}, "Accept": {accept}, "Mcp-Protocol-Version": {string(era)}}
	if era == mcp.Version20260728 {
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", tool)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := streamed{status: resp.StatusCode, header: resp.Header}
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		b, _ := io.ReadAll(resp.Body)
		out.body = string(b)
		return out
	}
	sc := bufio.NewScanner(resp.Body)
	event := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if event != "message" {
				t.Errorf("event type %q", event)
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &m); err != nil {
				t.Fatalf("event data %q: %v", line, err)
			}
			out.events = append(out.events, m)
		case line == "":
			event = ""
		default:
			t.Errorf("unexpected line %q", line)
		}
	}
	return out
}

const bothAccept = "application/json, text/event-stream"

// TestStreaming_OffUnlessOptedIn: without WithStreaming, without a
// progressToken or log level, or without text/event-stream in Accept, the
// answer is one JSON object and the handler is told nothing was sent.
func TestStreaming_OffUnlessOptedIn(t *testing.T) {
	t.Parallel()
	off := newStreamFixture(t)
	on := newStreamFixture(t, mcp.WithStreaming())
	for _, era := range eras {
		cases := []struct {
			name   string
			f      *streamFixture
			meta   string
			accept string
		}{
			{"endpoint without streaming", off, `"progressToken":"p1"`, bothAccept},
			{"no opt-in", on, ``, bothAccept},
			{"JSON-only Accept", on, `"progressToken":"p1"`, "application/json"},
			{"invalid token", on, `"progressToken":{"x":1}`, bothAccept},
		}
		for _, c := range cases {
			r := c.f.post(t, era, "work", c.meta, c.accept)
			if r.status != 200 || r.header.Get("Content-Type") != "application/json" || !strings.Contains(r.body, `progressSent\":0`) {
				t.Errorf("%s %s: %d %s %s", era, c.name, r.status, r.header.Get("Content-Type"), r.body)
			}
		}
	}
}

func TestStreaming_Progress(t *testing.T) {
	t.Parallel()
	f := newStreamFixture(t, mcp.WithStreaming())
	for _, era := range eras {
		for _, token := range []string{`"tok-1"`, `42`} {
			r := f.post(t, era, "work", `"progressToken":`+token, bothAccept)
			if r.status != 200 || r.header.Get("Cache-Control") != "no-store" || r.header.Get("Mcp-Protocol-Version") != string(era) {
				t.Fatalf("%s: %d %v", era, r.status, r.header)
			}
			if len(r.events) != 4 {
				t.Fatalf("%s: %d events: %v", era, len(r.events), r.events)
			}
			for i, ev := range r.events[:3] {
				p := ev["params"].(map[string]any)
				tok, _ := json.Marshal(p["progressToken"])
				if ev["method"] != "notifications/progress" || ev["id"] != nil || string(tok) != token || p["progress"] != float64(i*50) || p["total"] != float64(100) {
					t.Errorf("%s event %d: %v", era, i, ev)
				}
			}
			last := r.events[3]
			if last["id"] != float64(9) || last["result"] == nil || last["method"] != nil {
				t.Errorf("%s final event %v", era, last)
			}
			text := last["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"]
			if text != `{"progressSent":3,"logged":""}` {
				t.Errorf("%s: %v", era, text)
			}
		}
	}
}

// TestStreaming_NotBufferedByProxies: every event stream the endpoint
// opens asks proxies not to buffer it (X-Accel-Buffering: no, which nginx
// honours while buffering other responses by default): a progress stream
// in every revision and a 2026-07-28 log stream, as a listen does;
// buffered, their events would reach the client only at the call's end.
func TestStreaming_NotBufferedByProxies(t *testing.T) {
	t.Parallel()
	f := newStreamFixture(t, mcp.WithStreaming())
	check := func(what string, r streamed) {
		t.Helper()
		if r.header.Get("Content-Type") != "text/event-stream" || len(r.events) < 2 || r.header.Get("X-Accel-Buffering") != "no" {
			t.Errorf("%s: %d events, %v", what, len(r.events), r.header)
		}
	}
	for _, era := range eras {
		check(string(era)+" progress", f.post(t, era, "work", `"progressToken":"p1"`, bothAccept))
	}
	check("2026-07-28 logs", f.post(t, mcp.Version20260728, "work", `"io.modelcontextprotocol/logLevel":"warning"`, bothAccept))
	ts := newTaskServer(t)
	id := ts.start(t, ts.urls[0], tokAlice, "")
	l := openListen(t, t.Context(), ts.urls[0], tokAlice, metaTasks, taskIDs(id), bothAccept)
	if l.resp.Header.Get("Content-Type") != "text/event-stream" || l.resp.Header.Get("X-Accel-Buffering") != "no" {
		t.Errorf("task listen: %v", l.resp.Header)
	}
}

func TestStreaming_Logs(t *testing.T) {
	t.Parallel()
	f := newStreamFixture(t, mcp.WithStreaming())
	r := f.post(t, mcp.Version20260728, "work", `"io.modelcontextprotocol/logLevel":"warning"`, bothAccept)
	if len(r.events) != 3 {
		t.Fatalf("%d events: %v", len(r.events), r.events)
	}
	for i, lv := range []string{"warning", "error"} {
		p := r.events[i]["params"].(map[string]any)
		if r.events[i]["method"] != "notifications/message" || p["level"] != lv {
			t.Errorf("event %d: %v", i, r.events[i])
		}
	}
	// 2025 requests cannot name a log level: nothing is logged to them.
	for _, era := range []mcp.Version{mcp.Version20250618, mcp.Version20250326} {
		r := f.post(t, era, "work", `"io.modelcontextprotocol/logLevel":"debug"`, bothAccept)
		if r.header.Get("Content-Type") != "application/json" || !strings.Contains(r.body, `logged\":\"\"`) {
			t.Errorf("%s: %s", era, r.body)
		}
	}
}

// logLevelCases are slog levels at every boundary of Call.Log's mapping
// onto MCP's level names.
var logLevelCases = []struct {
	level slog.Level
	want  string
}{
	{-8, "debug"}, {slog.LevelDebug, "debug"}, {-1, "debug"},
	{slog.LevelInfo, "info"}, {1, "info"},
	{2, "notice"}, {3, "notice"},
	{slog.LevelWarn, "warning"}, {7, "warning"},
	{slog.LevelError, "error"}, {11, "error"},
	{12, "critical"}, {15, "critical"},
	{16, "alert"}, {19, "alert"},
	{20, "emergency"}, {100, "emergency"},
}

// TestStreaming_LogLevelMapping: Call.Log names an slog.Level by MCP's
// syslog level at every boundary, and sends it only when it is at or
// above the level the request named; Log reports what it sent.
func TestStreaming_LogLevelMapping(t *testing.T) {
	t.Parallel()
	f := newStreamFixture(t, mcp.WithStreaming())
	names := []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}
	rank := map[string]int{}
	for i, n := range names {
		rank[n] = i
	}
	for _, requested := range names {
		r := f.post(t, mcp.Version20260728, "levels", `"io.modelcontextprotocol/logLevel":"`+requested+`"`, bothAccept)
		if len(r.events) == 0 {
			t.Fatalf("at %s: no events: %d %s", requested, r.status, r.body)
		}
		got := map[slog.Level]string{}
		for _, ev := range r.events[:len(r.events)-1] {
			p, _ := ev["params"].(map[string]any)
			data, _ := p["data"].(float64)
			name, _ := p["level"].(string)
			if ev["method"] != "notifications/message" || len(p) != 2 {
				t.Errorf("at %s: event %v", requested, ev)
			}
			got[slog.Level(data)] = name
		}
		var reported struct{ Sent []int }
		last := r.events[len(r.events)-1]["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"].(string)
		if err := json.Unmarshal([]byte(last), &reported); err != nil {
			t.Fatalf("at %s: result %q: %v", requested, last, err)
		}
		if len(reported.Sent) != len(got) {
			t.Errorf("at %s: Log reported %v sent, the client got %v", requested, reported.Sent, got)
		}
		for _, c := range logLevelCases {
			name, sent := got[c.level]
			if want := rank[c.want] >= rank[requested]; sent != want {
				t.Errorf("at %s: level %d (%s) sent %v, want %v", requested, c.level, c.want, sent, want)
			}
			if sent && name != c.want {
				t.Errorf("at %s: level %d named %q, want %q", requested, c.level, name, c.want)
			}
		}
	}
}

// TestStreaming_DisconnectCancels: a client that goes away cancels the
// handler's context.
func TestStreaming_DisconnectCancels(t *testing.T) {
	t.Parallel()
	f := newStreamFixture(t, mcp.WithStreaming())
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait","_meta":{"progressToken":"w"}}}`
	req, _ := http.NewRequest(http.MethodPost, f.url, strings.NewReader(body))
	req.Header = http.Header{"Content-Type": {"application/json"}, "Accept": {bothAccept}}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(resp.Body).ReadString('\n')
	if line != "event: message\n" {
		t.Fatalf("first line %q", line)
	}
	resp.Body.Close()
	select {
	case <-f.cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the handler's context was not cancelled within 5 s of the disconnect")
	}
}

// TestStreaming_AfterTheResponse: a notification sent after the response
// was written is dropped, and says so.
func TestStreaming_AfterTheResponse(t *testing.T) {
	t.Parallel()
	f := newStreamFixture(t, mcp.WithStreaming())
	r := f.post(t, mcp.Version20250618, "keep", `"progressToken":"k"`, bothAccept)
	if len(r.events) != 2 {
		t.Fatalf("%d events", len(r.events))
	}
	call := <-f.kept
	if call.Progress(2, 2, "late") || call.Log(slog.LevelError, "late") {
		t.Error("a notification after the response was reported sent")
	}
}
