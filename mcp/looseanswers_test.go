package mcp_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
)

// TestInputResponses_LooseReadInPlace: the inputResponses of a call that
// carries no requestState are checked (each an object) and read where
// they lie. They were copied into a map first, an entry a member, which
// cost 22 times the body for 1 MiB of answers no handler asked for; now
// about the body read, counted in bytes and objects allocated, never in
// time. The handler still reads any of them, by InputResponse and
// Elicitation, and a member that is not an object is still refused.
// inputResponses exist in 2026-07-28 only.
func TestInputResponses_LooseReadInPlace(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /answers", func(w http.ResponseWriter, r *http.Request) {
		call := mcp.CallFromContext(r.Context())
		s, _ := call.InputResponse("s")
		_, missing := call.InputResponse("k-none")
		e, _ := call.Elicitation("e")
		io.WriteString(w, string(s)+" "+string(e.Action)+" "+string(e.Content)+" "+strconv.FormatBool(missing))
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "loose", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "answers", InputSchema: json.RawMessage(`{"type":"object"}`)}, "GET /answers", mux)
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()})
	url := newTestServer(t, h)

	var b strings.Builder
	for i := 0; b.Len() < 1<<20-4_000; i++ {
		b.WriteString(`"k` + strconv.Itoa(i) + `":{},`)
	}
	answers := `"s":{"role":"assistant","content":{"type":"text","text":"Paris"},"model":"m"},` +
		`"e":{"action":"accept","content":{"city":"Paris"}}`
	c := call{era: mcp.Version20260728, id: "1", method: "tools/call",
		params: `"name":"answers","arguments":{},"inputResponses":{` + b.String() + answers + `}`}
	body := c.body()
	if len(body) > 1<<20 {
		t.Fatalf("body %d bytes: over the limit", len(body))
	}
	want := `{"role":"assistant","content":{"type":"text","text":"Paris"},"model":"m"} accept {"city":"Paris"} false`
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header = headersFor(c)
	r := send(t, req)
	if r.status != 200 || r.msg.Error != nil || text(r.result(t)) != want {
		t.Fatalf("%d %.300s; want the text %s", r.status, r.raw, want)
	}

	rec, bytes, objects := servedAllocations(h, headersFor(c), body)
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"text":`+quoteJSON(want)) {
		t.Errorf("in process: %d %.300s", rec.Code, rec.Body.String())
	}
	// The body, the scan's names, and what any call costs.
	if bytes > uint64(6*len(body)) || objects > 1_000 {
		t.Errorf("a %d-byte call allocated %d bytes, %d objects; want at most 6 times the body and 1,000 objects", len(body), bytes, objects)
	}

	// A member that is not an object, after 1 MiB of those that are.
	c.params = `"name":"answers","arguments":{},"inputResponses":{` + b.String() + `"bad":[]}`
	req, _ = http.NewRequest(http.MethodPost, url, strings.NewReader(c.body()))
	req.Header = headersFor(c)
	r = send(t, req)
	if r.code() != -32602 || r.msg.Error.Message != "Invalid inputResponses" || string(r.msg.Error.Data) != `{"key":"bad","reason":"invalid_input_responses"}` {
		t.Errorf("a member that is no object: %d %.300s", r.status, r.raw)
	}
}
