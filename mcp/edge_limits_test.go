package mcp_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/mcp"
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
