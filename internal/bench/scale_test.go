package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
)

// How mcpdual's cost grows with the work, in process on 2026-07-28: the
// number of registered tools (a call of one, and the first tools/list
// page), the size of the one string argument (beside the floor), and the
// second round of an MRTR call (the sealed requestState opened and the
// client's answer read). Like BenchmarkToolsCall these are read by
// cmd/summarize, never checked against a time.

// echoServer is newMCPDual's server with n tools: echo and n-1 others on
// the same route, as a generated API's tools share a handler.
func echoServer(n int) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /echo", echoRoute)
	srv := mcp.NewServer(mcp.Implementation{Name: "bench-mcpdual", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "echo", InputSchema: json.RawMessage(EchoSchema)}, "POST /echo", mux)
	for i := 1; i < n; i++ {
		srv.AddTool(mcp.Tool{Name: fmt.Sprintf("echo_%05d", i), Description: "Echoes its text.",
			InputSchema: json.RawMessage(EchoSchema)}, "POST /echo", mux)
	}
	return mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()})
}

func echoRoute(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Text string `json:"text"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, "invalid JSON body", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.WriteString(w, in.Text)
}

// serveLoop is BenchmarkToolsCall's loop for any request: body built once,
// writer reset per iteration, the last answer checked by check.
func serveLoop(b *testing.B, h http.Handler, hdr http.Header, body []byte, check func(status int, h http.Header, out []byte) error) {
	rd := bytes.NewReader(body)
	rc := io.NopCloser(rd)
	req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header = hdr
	w := &sink{h: http.Header{}}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		rd.Reset(body)
		req.Body, req.ContentLength = rc, int64(len(body))
		clear(w.h)
		w.status = 0
		w.body.Reset()
		h.ServeHTTP(w, req)
	}
	b.StopTimer()
	if err := check(w.status, w.h, w.body.Bytes()); err != nil {
		b.Fatal(err)
	}
}

func envelope2026(method, params string) []byte {
	return []byte(`{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + params +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}}}`)
}

func BenchmarkScale(b *testing.B) {
	for _, n := range []int{1, 100, 10_000} {
		h := echoServer(n)
		b.Run(fmt.Sprintf("Tools/%d/call", n), func(b *testing.B) {
			serveLoop(b, h, Headers(Proto2026), AppendToolsCall(nil, Proto2026, 1, "hello-mcp"),
				func(status int, hdr http.Header, out []byte) error { return QuickCheck(status, hdr, out, "hello-mcp") })
		})
		b.Run(fmt.Sprintf("Tools/%d/list", n), func(b *testing.B) {
			hdr := Headers(Proto2026)
			hdr.Set("Mcp-Method", "tools/list")
			hdr.Del("Mcp-Name")
			serveLoop(b, h, hdr, envelope2026("tools/list", ""), func(status int, _ http.Header, out []byte) error {
				var resp struct {
					Result struct {
						Tools []struct{ Name string } `json:"tools"`
					} `json:"result"`
				}
				if err := json.Unmarshal(out, &resp); status != http.StatusOK || err != nil || len(resp.Result.Tools) == 0 {
					return fmt.Errorf("tools/list: %d %v %.200s", status, err, out)
				}
				return nil
			})
		})
	}
	// One string argument; 10⁶ bytes with the envelope stays inside the
	// 1 MiB body limit of both.
	for _, size := range []struct {
		name string
		n    int
	}{{"1KB", 1_000}, {"100KB", 100_000}, {"1e6B", 1_000_000}} {
		text := strings.Repeat("a", size.n)
		for _, v := range []string{MCPDual, MCPDualFunc, Floor} {
			b.Run("Args/"+size.name+"/"+v, func(b *testing.B) {
				serveLoop(b, newVariant(b, v), Headers(Proto2026), AppendToolsCall(nil, Proto2026, 1, text),
					func(status int, hdr http.Header, out []byte) error { return QuickCheck(status, hdr, out, text) })
			})
		}
	}
	b.Run("MRTR/round2", func(b *testing.B) {
		h := mrtrServer()
		hdr := Headers(Proto2026)
		hdr.Set("Mcp-Name", "confirm_echo")
		call := `"name":"confirm_echo","arguments":{"text":"hello-mcp"},`
		var first struct {
			Result struct {
				ResultType   string `json:"resultType"`
				RequestState string `json:"requestState"`
			} `json:"result"`
		}
		rec := call1(b, h, hdr, envelope2026("tools/call", call))
		if err := json.Unmarshal(rec, &first); err != nil || first.Result.ResultType != "input_required" || first.Result.RequestState == "" {
			b.Fatalf("round one: %v %.300s", err, rec)
		}
		round2 := envelope2026("tools/call", call+`"requestState":"`+first.Result.RequestState+
			`","inputResponses":{"ok":{"action":"accept","content":{"ok":true}}},`)
		serveLoop(b, h, hdr, round2, func(status int, hdr http.Header, out []byte) error {
			return QuickCheck(status, hdr, out, "hello-mcp")
		})
	})
}

// mrtrServer has one route tool that asks the client to confirm before it
// echoes: round one answers input_required, round two the echo.
func mrtrServer() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /echo", func(w http.ResponseWriter, r *http.Request) {
		call := mcp.CallFromContext(r.Context())
		if ans, ok := call.Elicitation("ok"); !ok || ans.Action != mcp.ElicitAccept {
			call.RequireInput([]byte("asked"), mcp.ElicitForm("ok", "Echo it?",
				json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)))
			return
		}
		echoRoute(w, r)
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "bench-mcpdual", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "confirm_echo", InputSchema: json.RawMessage(EchoSchema)}, "POST /echo", mux)
	return mcp.NewHandler(srv, []mcp.Era{era2026.New()})
}

func call1(b *testing.B, h http.Handler, hdr http.Header, body []byte) []byte {
	req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", bytes.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	req.Header = hdr
	w := &sink{h: http.Header{}}
	h.ServeHTTP(w, req)
	return w.body.Bytes()
}
