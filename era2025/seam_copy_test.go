package era2025_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mrtr"
)

// TestSeam_OptionsFixedAtHandler: whoever holds the *Era a handler was
// built over may overwrite it, but the handler keeps the options it was
// built with (here, sealed sessions).
func TestSeam_OptionsFixedAtHandler(t *testing.T) {
	ring, err := mrtr.NewRing(mrtr.Key{ID: "k1", Secret: bytes.Repeat([]byte{7}, 32)})
	if err != nil {
		t.Fatal(err)
	}
	sealer := mrtr.NewSealer(ring)
	e := era2025.New(era2025.WithSessions(sealer, time.Hour))
	srv := httptest.NewServer(mcp.NewHandler(mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"}), []mcp.Era{e}))
	defer srv.Close()
	session := func() string {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Fatalf("initialize: %d", res.StatusCode)
		}
		return res.Header.Get("Mcp-Session-Id")
	}
	if session() == "" {
		t.Fatal("no session id with WithSessions")
	}
	*e = *era2025.New()
	if session() == "" {
		t.Fatal("overwriting the Era after NewHandler turned sessions off")
	}
}
