package mcp_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/headers"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mrtr"
)

// TestBatch_MembersEdge: a 2025-03-26 batch of exactly 64 members is
// served, each answered; 65 is batch_too_large (TestBatch_2025_03_26).
func TestBatch_MembersEdge(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	many := make([]string, 64)
	for i := range many {
		many[i] = `{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"ping"}`
	}
	hdr := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
	status, _, body := rawPost(t, f.url, hdr, "["+strings.Join(many, ",")+"]")
	var answers []map[string]json.RawMessage
	if status != 200 || json.Unmarshal(body, &answers) != nil || len(answers) != 64 {
		t.Fatalf("64 members: %d, %d answers: %.300s", status, len(answers), body)
	}
	for _, a := range answers {
		if a["result"] == nil {
			t.Errorf("a member failed: %v", a)
		}
	}
}

// TestList_CursorEdge: a cursor longer than 128 bytes is refused before
// it is decoded, as Invalid params (-32602), not a crash or a 5xx.
func TestList_CursorEdge(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	long := base64.RawURLEncoding.EncodeToString([]byte("tools|1|" + strings.Repeat("f", 100)))
	for _, era := range eras {
		r := f.do(t, call{era: era, id: "1", method: "tools/list", params: `"cursor":"` + long + `"`})
		if r.status != 200 || r.code() != -32602 {
			t.Errorf("%s: a %d-byte cursor: %d %s", era, len(long), r.status, r.raw)
		}
	}
}

// TestLegacyInput_AnswerBytesEdge: an answer of exactly AnswerBytes is
// read (and refused here only because its id is no question's: 400); one
// byte more is 413 before it is read as an answer.
func TestLegacyInput_AnswerBytesEdge(t *testing.T) {
	t.Parallel()
	const max = 300
	f := newLegacyFixture(t, mcp.LegacyInput{AnswerBytes: max})
	body := func(n int) string {
		head := `{"jsonrpc":"2.0","id":"x","result":{"p":"`
		return head + strings.Repeat("p", n-len(head)-3) + `"}}`
	}
	if got := post(t, f.a, http.MethodPost, tokAlice, nil, body(max)).status; got != 400 {
		t.Errorf("an answer of %d bytes: %d, want 400 (unknown id)", max, got)
	}
	if got := post(t, f.a, http.MethodPost, tokAlice, nil, body(max+1)).status; got != 413 {
		t.Errorf("an answer of %d bytes: %d, want 413", max+1, got)
	}
}

// TestSession_CapabilitiesEdge: a 2025 session seals at most 2 KiB of
// the capabilities the server reads (record 025 §0). Kept capabilities of
// exactly 2,048 bytes are sealed whole and a call over the session sees
// them; one byte more and initialize still succeeds with a session (a
// client that declares more is not refused), which carries none of them:
// never a part.
func TestSession_CapabilitiesEdge(t *testing.T) {
	t.Parallel()
	ring := sessionRing(t, 1)
	url := sessionServer(t, []era2025.Option{era2025.WithSessions(mrtr.NewSealer(ring), 0)})
	caps := func(n int) string {
		head, tail := `{"elicitation":{"x":"`, `"}}`
		return head + strings.Repeat("e", n-len(head)-len(tail)) + tail
	}
	for _, v := range []mcp.Version{mcp.Version20251125, mcp.Version20250618, mcp.Version20250326} {
		for n, want := range map[int]string{2048: caps(2048), 2049: "{}"} {
			declared := caps(n)
			if len(declared) != n {
				t.Fatalf("%d bytes of capabilities written as %d", n, len(declared))
			}
			r := initialize(t, url, tokAlice, v, declared)
			id := r.header.Get("Mcp-Session-Id")
			if r.status != 200 || id == "" || !bytes.Contains(r.body, []byte(`"protocolVersion":"`+string(v)+`"`)) {
				t.Fatalf("%s, %d bytes: initialize %d id=%q %.200s", v, n, r.status, id, r.body)
			}
			if got := structured(t, callCaps(t, url, tokAlice, v, id)); got["caps"] != want {
				t.Errorf("%s, %d bytes: the session carries %.80q…, want %.80q…", v, n, got["caps"], want)
			}
		}
	}
}

// TestResources_ReadURIEdge: resources/read takes a URI of up to 2,048
// bytes (record 005). One of exactly 2,048 matching a template is read
// through its route; one byte more is "Resource not found" with the URI
// in its data, in every revision's code (-32002, -32602 on 2026-07-28),
// and no route runs.
func TestResources_ReadURIEdge(t *testing.T) {
	t.Parallel()
	f := newRPFixture(t)
	const prefix = "inbox://emails/"
	for _, era := range eras {
		at := prefix + strings.Repeat("m", 2048-len(prefix))
		id := at[len(prefix):]
		r := f.rpc(t, era, "resources/read", `"uri":`+quoteJSON(at))
		want := `[{"uri":"` + at + `","mimeType":"application/json","text":"{\"id\":\"` + id + `\"}\n"}]`
		if got := r.field(t, "contents"); string(got) != want || f.lastID.Load() != id {
			t.Errorf("%s: a %d-byte URI: %.200s", era, len(at), got)
		}
		hits := f.emailHits.Load()
		past := at + "m"
		r = f.rpc(t, era, "resources/read", `"uri":`+quoteJSON(past))
		notFound := -32002
		if era == mcp.Version20260728 {
			notFound = -32602
		}
		// The data echoes the URI's first 512 bytes
		// (TestResources_NotFoundEchoEdge).
		checkErr(t, r, 200, notFound, `{"uri":"`+past[:512]+`"}`)
		if r.msg.Error.Message != "Resource not found" {
			t.Errorf("%s: a %d-byte URI: message %q", era, len(past), r.msg.Error.Message)
		}
		if f.emailHits.Load() != hits {
			t.Errorf("%s: a %d-byte URI reached the route", era, len(past))
		}
	}
}

// TestResources_NotFoundEchoEdge: "Resource not found" echoes the URI
// asked in its data, at most its first 512 bytes: a URI of 512 whole, of
// 513 its first 512; cut where a character would be split, the echo ends
// before that character, so it stays the start of the URI asked (not a
// replacement character standing for half of one), in every revision.
func TestResources_NotFoundEchoEdge(t *testing.T) {
	t.Parallel()
	f := newRPFixture(t)
	const prefix = "inbox://nothing/"
	fill := func(n int) string { return prefix + strings.Repeat("n", n-len(prefix)) }
	split := fill(511) + "é" + "nn" // é's two bytes are the URI's 512th and 513th
	for _, era := range eras {
		notFound := -32002
		if era == mcp.Version20260728 {
			notFound = -32602
		}
		for uri, echo := range map[string]string{fill(512): fill(512), fill(513): fill(512), split: fill(511)} {
			r := f.rpc(t, era, "resources/read", `"uri":`+quoteJSON(uri))
			if r.status != 200 || r.code() != notFound {
				t.Fatalf("%s: %d %.200s", era, r.status, r.raw)
			}
			var data struct {
				URI string `json:"uri"`
			}
			if err := json.Unmarshal(r.msg.Error.Data, &data); err != nil || data.URI != echo {
				t.Errorf("%s, a %d-byte URI: data %s, want the URI's first %d bytes", era, len(uri), r.msg.Error.Data, len(echo))
			}
		}
	}
}

// TestEchoes_CutWhereACharacterEnds: what a refusal echoes of a client's
// name (an unknown tool's or prompt's, 128 bytes; a method's, 128; a
// revision's, 64; an input key's, 64) is cut where a character ends. A
// cut through one was sent as U+FFFD, so the echo was not the start of
// what was asked (as resources/read's was, TestResources_NotFoundEchoEdge).
func TestEchoes_CutWhereACharacterEnds(t *testing.T) {
	t.Parallel()
	f, rp := newFixture(t), newRPFixture(t)
	// é's two bytes are the name's 128th and 129th (or 64th and 65th).
	long := func(c string, n int) string { return strings.Repeat(c, n-1) + "é" + "zz" }
	data := func(t *testing.T, r *reply, member, want string) {
		t.Helper()
		var d map[string]string
		if err := json.Unmarshal(r.msg.Error.Data, &d); err != nil || d[member] != want {
			t.Errorf("data %s, want %s the first %d bytes", r.msg.Error.Data, member, len(want))
		}
		if strings.ContainsRune(string(r.raw), utf8.RuneError) || strings.Contains(string(r.raw), `\ufffd`) {
			t.Errorf("a replacement character: %s", r.raw)
		}
	}
	for _, era := range eras {
		t.Run(string(era), func(t *testing.T) {
			tool := long("t", 128)
			r := rt{era: era, name: tool, args: "{}", header: map[string]string{"Mcp-Name": headers.Encode(tool)}}.send(t, f.url)
			if r.status != 200 || r.code() != -32602 || r.msg.Error.Message != "Unknown tool: "+tool[:127] {
				t.Fatalf("an unknown tool: %d %s", r.status, r.raw)
			}
			data(t, r, "name", tool[:127])

			prompt := long("p", 128)
			r = rp.rpc(t, era, "prompts/get", `"name":`+quoteJSON(prompt))
			if r.status != 200 || r.code() != -32602 || r.msg.Error.Message != "Unknown prompt: "+prompt[:127] {
				t.Fatalf("an unknown prompt: %d %s", r.status, r.raw)
			}
			data(t, r, "name", prompt[:127])

			method := long("m", 128)
			r = rt{era: era, method: method, header: map[string]string{"Mcp-Method": method}}.send(t, f.url)
			status := 200
			if era == mcp.Version20260728 {
				status = 404
			}
			if r.status != status || r.code() != -32601 {
				t.Fatalf("an unknown method: %d %s", r.status, r.raw)
			}
			data(t, r, "method", method[:127])
		})
	}
	key := long("k", 64)
	r := rt{name: "echo", args: "{}", responses: `{` + quoteJSON(key) + `:1}`}.send(t, f.url)
	if r.status != 200 || r.code() != -32602 || r.msg.Error.Message != "Invalid inputResponses" {
		t.Fatalf("an input key: %d %s", r.status, r.raw)
	}
	data(t, r, "key", key[:63])

	revision := long("v", 64)
	r = f.do(t, call{id: "1", method: "tools/list", header: map[string]string{"MCP-Protocol-Version": revision}})
	if r.status != 400 || r.code() != -32022 {
		t.Fatalf("a revision: %d %s", r.status, r.raw)
	}
	var d struct {
		Requested string `json:"requested"`
	}
	if json.Unmarshal(r.msg.Error.Data, &d); d.Requested != revision[:63] {
		t.Errorf("data %s, want the revision's first 63 bytes", r.msg.Error.Data)
	}
}
