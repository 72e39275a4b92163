package era2026_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/internal/syncbuf"

	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/mcptest"
	"github.com/mcpdual/mcpdual/mrtr"
)

// An era that draws its own key says so to the handler, which logs it;
// one given a sealer has nothing to say.
func TestWarnings_EphemeralKey(t *testing.T) {
	t.Parallel()
	w := era2026.New().Seam().Warnings()
	if len(w) != 1 || !strings.Contains(w[0], "random key of this process") || !strings.Contains(w[0], "mrtr.LoadKeys") {
		t.Errorf("without WithSealer: %q", w)
	}
	ring, err := mrtr.NewRing(mrtr.Key{ID: "k1", Secret: key(t)})
	if err != nil {
		t.Fatal(err)
	}
	if w := era2026.New(era2026.WithSealer(mrtr.NewSealer(ring))).Seam().Warnings(); len(w) != 0 {
		t.Errorf("with WithSealer: %q", w)
	}
}

func key(t *testing.T) []byte {
	t.Helper()
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

// logBuffer collects a handler's log while it serves.
type logBuffer = syncbuf.Buffer

// replica serves a destructive tool over real HTTP with era e. Without
// authentication, states are bound to the server's name.
func replica(t *testing.T, name string, e *era2026.Era) (url string, log *logBuffer) {
	t.Helper()
	log = &logBuffer{}
	srv := mcp.NewServer(mcp.Implementation{Name: name, Version: "1.0.0"})
	srv.AddTool(mcp.Tool{Name: "delete_item", Annotations: mcp.Annotations{Destructive: true},
		InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`)},
		"DELETE /items/{id}", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"deleted":true}`)
		}))
	ts := httptest.NewServer(mcp.NewHandler(srv, []mcp.Era{e}, mcp.WithLogger(slog.New(slog.NewTextHandler(log, nil)))))
	t.Cleanup(ts.Close)
	return ts.URL, log
}

// crossReplicas asks for confirmation on one replica and answers it on the
// other, and returns what the second logged.
func crossReplicas(t *testing.T, first, second *era2026.Era, names ...string) string {
	t.Helper()
	names = append(names, "fleet", "fleet")
	url1, _ := replica(t, names[0], first)
	url2, log2 := replica(t, names[1], second)
	ctx := context.Background()
	caps := mcptest.WithCapabilities(json.RawMessage(`{"elicitation":{}}`))
	params := map[string]any{"name": "delete_item", "arguments": map[string]any{"id": "i1"}}
	res, err := mcptest.Dial(url1, mcp.Version20260728, caps).Call(ctx, "tools/call", params)
	if err != nil || res.ResultType() != "input_required" {
		t.Fatalf("round 1: %v %s", err, res.Raw)
	}
	var r1 struct {
		RequestState string `json:"requestState"`
	}
	json.Unmarshal(res.Result, &r1)
	params["requestState"] = r1.RequestState
	params["inputResponses"] = map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}}
	res, err = mcptest.Dial(url2, mcp.Version20260728, caps).Call(ctx, "tools/call", params)
	if err != nil || res.Error == nil || !strings.Contains(res.Error.Message, "Invalid or expired requestState") {
		t.Fatalf("round 2 on the other replica: %v %s", err, res.Raw)
	}
	return log2.String()
}

// The log of a refused state says what to fix, in the terms of the
// configuration that caused it.
func TestRefusalHints(t *testing.T) {
	t.Parallel()
	k1, k2, other := key(t), key(t), key(t)
	sealer := func(keys ...mrtr.Key) *era2026.Era {
		ring, err := mrtr.NewRing(keys...)
		if err != nil {
			t.Fatal(err)
		}
		return era2026.New(era2026.WithSealer(mrtr.NewSealer(ring)))
	}
	shared := sealer(mrtr.Key{ID: "k1", Secret: k1})
	for _, tc := range []struct {
		name          string
		first, second *era2026.Era
		reason, hint  string
		servers       []string
	}{
		{"two processes, keys of their own", era2026.New(), era2026.New(),
			"bad_tag", "this process seals with a random key of its own", nil},
		{"a rotation promoted too early", sealer(mrtr.Key{ID: "k2", Secret: k2}, mrtr.Key{ID: "k1", Secret: k1}), sealer(mrtr.Key{ID: "k1", Secret: k1}),
			"unknown_key", "add the new key second on every replica before any makes it first", nil},
		{"one id, two secrets", sealer(mrtr.Key{ID: "k1", Secret: k1}), sealer(mrtr.Key{ID: "k1", Secret: other}),
			"bad_tag", "the secret differs from the sealing replica's", nil},
		{"two resource identities", shared, shared,
			"binding_mismatch", "the replicas name different resource URIs", []string{"fleet-a", "fleet-b"}},
	} {
		log := crossReplicas(t, tc.first, tc.second, tc.servers...)
		if !strings.Contains(log, "reason="+tc.reason) || !strings.Contains(log, tc.hint) {
			t.Errorf("%s: the log says\n%s\nwant reason %s and hint %q", tc.name, log, tc.reason, tc.hint)
		}
	}
}
