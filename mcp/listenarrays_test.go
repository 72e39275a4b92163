package mcp_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/mcp"
)

// TestListen_ArraysReadInPlace: a listen's resourceSubscriptions and
// taskIds are read in place, one string copied only when it is new. Both
// were decoded into a json.RawMessage an element first, so a 1 MiB array
// of one URI repeated (then one more than the bound allows) allocated 35
// times its size, one object an element, and an array of numbers 66 times,
// before the bound or the element's type was seen. The refusals are
// unchanged, answered over HTTP in 2026-07-28 (the only revision with
// listen); each costs about the body it read, counted in bytes and
// objects allocated, never in time. Duplicates are still told by their
// text: an escaped spelling of a URI is the URI.
func TestListen_ArraysReadInPlace(t *testing.T) {
	f := newFixture(t, mcp.WithChangeNotifications(mcp.ChangeNotifications{}))
	distinct := func(format string, n int) string {
		s := make([]string, n)
		for i := range s {
			s[i] = fmt.Sprintf(format, i)
		}
		return strings.Join(s, ",")
	}
	// repeated fills the array to about 1 MiB with one element.
	repeated := func(elem string) string { return strings.Repeat(elem+",", (1<<20-2_000)/(len(elem)+1)) }
	const (
		badURIs = `{"code":-32602,"message":"Invalid params: notifications.resourceSubscriptions must be an array of resource URIs of at most 2048 bytes"}`
		badIDs  = `{"code":-32602,"message":"Invalid params: notifications.taskIds must be an array of task ids"}`
	)
	cases := []struct {
		name, notes string
		status      int
		want        string // the answer's error member
	}{
		{"one URI repeated, then 33", `"resourceSubscriptions":[` + repeated(`"v://r/0"`) + distinct(`"v://r/%d"`, 33) + `]`,
			200, `{"code":-32602,"message":"Invalid params: at most 32 resourceSubscriptions on one stream"}`},
		{"numbers", `"resourceSubscriptions":[` + repeated(`1`) + `"v://r/0"]`, 200, badURIs},
		{"one URI repeated, then an empty one", `"resourceSubscriptions":[` + repeated(`"v://r/0"`) + `""]`, 200, badURIs},
		{"one id repeated, then 17", `"taskIds":[` + repeated(`"t0"`) + distinct(`"t%d"`, 17) + `]`,
			200, `{"code":-32602,"message":"Invalid params: at most 16 taskIds on one stream"}`},
		{"ids and numbers", `"taskIds":[` + repeated(`"t0"`) + `1]`, 200, badIDs},
		// 32 URIs, each also escaped: 32 distinct, within the bound, so
		// the listen goes on to find the client accepts no stream.
		{"escaped spellings are the same URI", `"resourceSubscriptions":[` + distinct(`"v://r/%d"`, 32) + `,` + distinct(`"\u0076://r/%d"`, 32) + `]`,
			406, `{"code":-32600,"message":"subscriptions/listen answers with an event stream: accept text/event-stream"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{` + metaTasks + `,"notifications":{` + tc.notes + `}}}`
			if len(body) > 1<<20 {
				t.Fatalf("body %d bytes: over the limit", len(body))
			}
			hdr := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json"},
				"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"subscriptions/listen"}}
			want := `{"jsonrpc":"2.0","id":7,"error":` + tc.want + `}`
			status, _, got := rawPost(t, f.url, hdr, body)
			if status != tc.status || strings.TrimSpace(string(got)) != want {
				t.Fatalf("got %d %.300s\nwant %d %s", status, got, tc.status, want)
			}
			rec, bytes, objects := servedAllocations(f.h, hdr, body)
			if rec.Code != tc.status || strings.TrimSpace(rec.Body.String()) != want {
				t.Errorf("in process: %d %.300s", rec.Code, rec.Body.String())
			}
			// Twice the body, and what serving any request costs besides.
			if bytes > uint64(2*len(body)+64<<10) || objects > 1_000 {
				t.Errorf("a %d-byte listen allocated %d bytes, %d objects; want at most twice the body (and 64 KiB) and 1,000 objects", len(body), bytes, objects)
			}
		})
	}
}
