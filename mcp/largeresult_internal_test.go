package mcp

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpdual/mcpdual/internal/seam"
)

// TestWriteLargeText: a text result written in quoted pieces is byte for
// byte the one built in a buffer, with an exact Content-Length, whatever
// the text holds and wherever the pieces are cut.
func TestWriteLargeText(t *testing.T) {
	unit := "plain ascii, \"quotes\" \\ and\ttabs\n, é ü 日本語 😀, \u2028 \x01 \xff\xfe end. "
	texts := map[string][]byte{
		"ascii":                     bytes.Repeat([]byte("abcdefghij"), 20_000),
		"mixed":                     []byte(strings.Repeat(unit, 4_000)),
		"cut in a 4-byte character": append(bytes.Repeat([]byte("a"), textPiece-1), []byte(strings.Repeat("😀", 30_000))...),
		"escapes at the cut":        bytes.Repeat([]byte{'"'}, 3*textPiece+5),
		"invalid at the cut":        append(bytes.Repeat([]byte("a"), textPiece-2), bytes.Repeat([]byte{0x80}, 80_000)...),
	}
	for name, text := range texts {
		for _, r := range []*toolResult{
			{text: text, isText: true},
			{text: text, isText: true, isError: true, stamp: seam.Stamp{ResultType: "complete"}},
			{text: text, isText: true, structured: []byte(`{"n":1,"s":"x"}`)},
		} {
			t.Run(name, func(t *testing.T) {
				rec := httptest.NewRecorder()
				(&Handler{}).writeLarge(rec, []byte(`"id-1"`), Version20260728, r, nil)
				want := append([]byte(`{"jsonrpc":"2.0","id":"id-1","result":`), r.AppendJSON(nil)...)
				want = append(want, '}')
				got := rec.Body.Bytes()
				if !bytes.Equal(got, want) {
					t.Fatalf("streamed %d bytes differ from the buffered %d", len(got), len(want))
				}
				if cl := rec.Header().Get("Content-Length"); cl != strconv.Itoa(len(got)) {
					t.Errorf("Content-Length %s, body %d", cl, len(got))
				}
				if rec.Header().Get("MCP-Protocol-Version") != "2026-07-28" || rec.Code != 200 {
					t.Errorf("%d %v", rec.Code, rec.Header())
				}
				var msg struct {
					Result struct {
						Content []struct{ Text string } `json:"content"`
						IsError bool                    `json:"isError"`
					} `json:"result"`
				}
				if err := json.Unmarshal(got, &msg); err != nil || len(msg.Result.Content) != 1 || msg.Result.IsError != r.isError {
					t.Fatalf("not a valid result: %v", err)
				}
				if utf8.Valid(text) && msg.Result.Content[0].Text != string(text) {
					t.Errorf("text changed on the way")
				}
			})
		}
	}
}

// TestWriteLarge_Blocks: a result kept as its blocks' JSON is written byte
// for byte as the same result with its content in one array, in a
// buffer, with an exact Content-Length.
func TestWriteLarge_Blocks(t *testing.T) {
	text := []byte(`{"type":"text","text":"` + strings.Repeat("abcdefghij", 8_000) + `"}`)
	image := []byte(`{"type":"image","data":"` + strings.Repeat("QUJD", 5_000) + `","mimeType":"image/png"}`)
	link := []byte(`{"type":"resource_link","uri":"x://1","name":"one"}`)
	for name, blocks := range map[string][][]byte{
		"one":   {text},
		"three": {text, image, link},
		"none":  {},
	} {
		joined := []byte{'['}
		for i, b := range blocks {
			if i > 0 {
				joined = append(joined, ',')
			}
			joined = append(joined, b...)
		}
		joined = append(joined, ']')
		for _, tc := range []struct{ kept, flat *toolResult }{
			{&toolResult{blocks: &blocks}, &toolResult{content: joined}},
			{&toolResult{blocks: &blocks, isError: true, stamp: seam.Stamp{ResultType: "complete", Meta: []byte(`{"k":1}`)}},
				&toolResult{content: joined, isError: true, stamp: seam.Stamp{ResultType: "complete", Meta: []byte(`{"k":1}`)}}},
			{&toolResult{blocks: &blocks, structured: []byte(`{"n":1}`)}, &toolResult{content: joined, structured: []byte(`{"n":1}`)}},
		} {
			t.Run(name, func(t *testing.T) {
				if got, want := tc.kept.AppendJSON(nil), tc.flat.AppendJSON(nil); !bytes.Equal(got, want) {
					t.Fatalf("AppendJSON of the blocks:\n%.300s\nof the array:\n%.300s", got, want)
				}
				if tc.kept.sizeHint() < len(tc.flat.AppendJSON(nil)) {
					t.Errorf("sizeHint %d under the result's %d bytes", tc.kept.sizeHint(), len(tc.flat.AppendJSON(nil)))
				}
				rec := httptest.NewRecorder()
				(&Handler{}).writeLarge(rec, []byte(`7`), Version20250618, tc.kept, nil)
				want := append([]byte(`{"jsonrpc":"2.0","id":7,"result":`), tc.flat.AppendJSON(nil)...)
				want = append(want, '}')
				got := rec.Body.Bytes()
				if !bytes.Equal(got, want) {
					t.Fatalf("written in pieces:\n%.300s\nbuffered:\n%.300s", got, want)
				}
				if cl := rec.Header().Get("Content-Length"); cl != strconv.Itoa(len(got)) {
					t.Errorf("Content-Length %s, body %d", cl, len(got))
				}
				if !json.Valid(got) || rec.Code != 200 || rec.Header().Get("MCP-Protocol-Version") != "2025-06-18" {
					t.Errorf("%d %v valid %v", rec.Code, rec.Header(), json.Valid(got))
				}
			})
		}
	}
}
