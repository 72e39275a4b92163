package mcptest

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// asEventStream answers every JSON body h writes to a POST as one event
// of an event stream, with the Content-Type ctype, the event's data
// written by frame.
func asEventStream(h http.Handler, ctype string, frame func(data []byte) string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		body := bytes.TrimSpace(rec.Body.Bytes())
		if r.Method == http.MethodPost && mediaType(rec.Header()) == "application/json" && len(body) > 0 && body[0] == '{' {
			w.Header().Set("Content-Type", ctype)
			w.Header().Del("Content-Length")
			w.WriteHeader(rec.Code)
			w.Write([]byte(frame(body)))
			return
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	})
}

// mustFailures returns "check: detail" for each MUST failure of a run.
func mustFailures(results []Result) []string {
	var out []string
	for _, r := range results {
		if r.Status == Failed && r.Level == Must {
			out = append(out, r.Check+": "+strings.Join(r.Details, " | "))
		}
	}
	return out
}

// TestCheck_EventStreamMediaTypeAnyCase: media types are case-insensitive
// (RFC 9110 §8.3.1), so answers sent as Text/Event-Stream are an event
// stream. The kit read them as JSON and failed the whole run with
// "answers neither server/discover nor initialize".
func TestCheck_EventStreamMediaTypeAnyCase(t *testing.T) {
	t.Parallel()
	for _, ctype := range []string{"text/event-stream", "Text/Event-Stream", "TEXT/EVENT-STREAM; charset=utf-8"} {
		srv := httptest.NewServer(asEventStream(goodServer(), ctype, func(data []byte) string { return "event: message\ndata: " + string(data) + "\n\n" }))
		results := CheckURL(srv.URL)
		srv.Close()
		if f := mustFailures(results); len(f) != 0 {
			t.Errorf("answers as %q: MUST failures %q", ctype, f)
		}
		got := map[string]Status{}
		for _, r := range results {
			got[r.Check] = r.Status
		}
		for _, name := range []string{"2026-07-28/discover", "2025-06-18/initialize", "2026-07-28/header-mismatch", "wire/jsonrpc"} {
			if got[name] != Passed {
				t.Errorf("answers as %q: %s %s, want passed", ctype, name, got[name])
			}
		}
	}
}

// TestCheck_EventStreamEndsInsideEvent: an event ends with a blank line,
// and a client discards the event a stream ends inside. A server whose
// stream stops right after the response's data line (or its line end)
// is never heard by such a client: wire/jsonrpc fails, naming the
// revision, the method and the data. Ended by a blank line, in any of
// the SSE line ends, it passes.
func TestCheck_EventStreamEndsInsideEvent(t *testing.T) {
	t.Parallel()
	for name, frame := range map[string]func([]byte) string{
		"no line end":            func(d []byte) string { return "data: " + string(d) },
		"no blank line":          func(d []byte) string { return "data: " + string(d) + "\n" },
		"no blank line (CRLF)":   func(d []byte) string { return "data: " + string(d) + "\r\n" },
		"comment, no blank line": func(d []byte) string { return "data: " + string(d) + "\n: bye" },
	} {
		srv := httptest.NewServer(asEventStream(goodServer(), "text/event-stream", frame))
		results := CheckURL(srv.URL)
		srv.Close()
		var row Result
		for _, r := range results {
			if r.Check == rowJSONRPC {
				row = r
			}
		}
		details := strings.Join(row.Details, "\n")
		if row.Status != Failed || row.Level != Must {
			t.Errorf("%s: %s %s at level %s, want a MUST failure: %q", name, rowJSONRPC, row.Status, row.Level, row.Details)
			continue
		}
		for _, want := range []string{
			`2026-07-28 server/discover: HTTP 200, the event stream ends inside its last event (no blank line after its data), which a client discards unread: {"jsonrpc":"2.0","id":1,`,
			`2025-06-18 initialize: HTTP 200, the event stream ends inside its last event`,
		} {
			if !strings.Contains(details, want) {
				t.Errorf("%s: %s does not say %q: %s", name, rowJSONRPC, want, details)
			}
		}
		if f := mustFailures(results); len(f) != 1 {
			t.Errorf("%s: MUST failures %q, want only %s", name, f, rowJSONRPC)
		}
	}
	for name, frame := range map[string]func([]byte) string{
		"LF":   func(d []byte) string { return "data: " + string(d) + "\n\n" },
		"CRLF": func(d []byte) string { return ": hi\r\nid: 1\r\ndata: " + string(d) + "\r\n\r\n" },
		"CR":   func(d []byte) string { return "data: " + string(d) + "\r\r" },
	} {
		srv := httptest.NewServer(asEventStream(goodServer(), "text/event-stream", frame))
		results := CheckURL(srv.URL)
		srv.Close()
		if f := mustFailures(results); len(f) != 0 {
			t.Errorf("events ended with %s: MUST failures %q", name, f)
		}
	}
}
