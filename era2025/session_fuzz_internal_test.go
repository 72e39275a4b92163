package era2025

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/mrtr"
)

// sessionCore is the core's side of a session's request: who is calling.
// Nothing else of seam.Core is asked of a session (the embedded nil
// interface makes any other call fail the test loudly).
type sessionCore struct {
	seam.Core
	principal string
}

func (c sessionCore) SessionBinding() seam.Binding {
	return seam.Binding{Principal: c.principal, Audience: "https://mcp.example.com"}
}

func (sessionCore) Log(slog.Level, string, ...any) {}

// FuzzSessionCaps declares capabilities on initialize and opens the
// session id issued for them on a later request. What a session keeps is
// what the server reads of them — elicitation, sampling, roots and
// extensions, each an object, as declared — and at most 2 KiB; the id is
// always issued, and opens, for its caller only, to exactly what was
// kept ("{}" for nothing, or for what is nested deeper than a session
// reads back); an id changed in any way opens to nothing.
func FuzzSessionCaps(f *testing.F) {
	for _, caps := range []string{
		`{}`,
		`{"elicitation":{},"sampling":{},"roots":{"listChanged":true}}`,
		`{"elicitation":{"form":{},"url":{}},"experimental":{"x":1}}`,
		`{"extensions":{"io.modelcontextprotocol/tasks":{},"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}`,
		`{"sampling":{"tools":{}},"roots":[],"elicitation":null}`,
		`{"elicitation":{"a":{"b":{"c":{"d":{"e":{"f":{}}}}}}}}`,
		`{"elicitation":{"x":"` + string(bytes.Repeat([]byte("e"), 2024)) + `"}}`,
		`{"elicitation":{"x":"` + string(bytes.Repeat([]byte("e"), 2025)) + `"}}`,
		`{ "roots" : { } , "sampling":{"\u0041":"\n"} }`,
		`[]`, `"caps"`, `null`,
	} {
		f.Add([]byte(caps), uint16(0), byte(0))
	}
	ring, err := mrtr.NewRing(mrtr.Key{ID: "k1", Secret: bytes.Repeat([]byte{9}, 32)})
	if err != nil {
		f.Fatal(err)
	}
	e := New(WithSessions(mrtr.NewSealer(ring), time.Hour))
	f.Fuzz(func(t *testing.T, caps []byte, at uint16, flip byte) {
		if !json.Valid(caps) {
			return // the core refuses the request before an era reads it
		}
		kept := sessionCaps(caps)
		if kept != nil {
			checkKept(t, caps, kept)
		}
		// Written by hand: encoding/json would compact the capabilities
		// and escape what HTML reads.
		params := append(append([]byte(`{"capabilities":`), caps...), '}')
		init := &seam.Request{Name: "initialize", Params: params, Core: sessionCore{principal: "alice"}}
		id := e.issueSession(init, "2025-06-18")
		if id == "" {
			t.Fatalf("no session issued for %.200s", caps)
		}
		want := []byte("{}")
		if kept != nil && jsonrpc.Validate(kept, sessionDepth-1) == nil {
			want = kept
		}
		open := func(principal, id string) (seam.Declared, error) {
			hr, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", nil)
			hr.Header.Set("Mcp-Session-Id", id)
			hr.Header.Set("MCP-Protocol-Version", "2025-06-18")
			return e.openSession(&seam.Request{Name: "tools/list", HTTP: hr, Version: "2025-06-18", Core: sessionCore{principal: principal}})
		}
		d, err := open("alice", id)
		if err != nil || !bytes.Equal(d.ClientCapabilities, want) || d.Session != id {
			t.Fatalf("the session of %.200s opens to %.200s (%v), want %.200s", caps, d.ClientCapabilities, err, want)
		}
		if _, err := open("bob", id); !notFound(err) {
			t.Errorf("another caller opened the session: %v", err)
		}
		changed := []byte(id)
		changed[int(at)%len(changed)] ^= flip | 1
		if d, err := open("alice", string(changed)); !notFound(err) {
			t.Errorf("a changed id %q opened: %.200s %v", changed, d.ClientCapabilities, err)
		}
	})
}

// checkKept asserts what sessionCaps keeps of caps: one JSON object of at
// most maxSessionCaps bytes, each member one the server reads, an object,
// exactly as caps declares it.
func checkKept(t *testing.T, caps, kept []byte) {
	t.Helper()
	if len(kept) > maxSessionCaps || jsonrpc.Validate(kept, 64) != nil || kept[0] != '{' {
		t.Fatalf("kept %d bytes, not one JSON object within %d: %.200s", len(kept), maxSessionCaps, kept)
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(kept, &members); err != nil {
		t.Fatalf("kept %.200s: %v", kept, err)
	}
	for k, v := range members {
		declared, _ := jsonrpc.Lookup(caps, k)
		switch {
		case k != "elicitation" && k != "sampling" && k != "roots" && k != "extensions":
			t.Errorf("kept %q, which the server does not read", k)
		case len(v) == 0 || v[0] != '{':
			t.Errorf("kept %q as %.100s, not an object", k, v)
		case !bytes.Equal(declared, v):
			t.Errorf("kept %q as %.100s, declared %.100s", k, v, declared)
		}
	}
}

func notFound(err error) bool {
	var f *seam.Failure
	return errors.As(err, &f) && f.Status == http.StatusNotFound
}
