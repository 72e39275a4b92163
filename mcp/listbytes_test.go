package mcp_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
)

// TestListPageBytes checks that a tools/list page ends before 1 MiB of
// definitions, whatever the page size: 40 tools of about 100 KB each take
// several pages, each under the bound, and together they list every tool
// once, in order. A tool larger than the bound still gets a page of its
// own rather than being skipped.
func TestListPageBytes(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Implementation{Name: "big", Version: "1"}) // 100 items a page by default
	const n = 40
	for i := range n {
		size := 100 << 10
		if i == 7 {
			size = 1100 << 10 // alone over the bound
		}
		srv.AddTool(mcp.Tool{Name: "t" + strconv.Itoa(i), Description: strings.Repeat("x", size)}, "GET /t", http.NotFoundHandler())
	}
	url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}))
	f := &fixture{url: url}
	for _, era := range []mcp.Version{mcp.Version20260728, mcp.Version20250618} {
		var names []string
		cursor := ""
		pages := 0
		for pages = 0; pages < n; pages++ {
			params := ""
			if cursor != "" {
				params = `"cursor":` + quoteJSON(cursor)
			}
			r := f.do(t, call{era: era, id: "1", method: "tools/list", params: params})
			if r.code() != 0 {
				t.Fatalf("%s: %s", era, r.raw)
			}
			var page struct {
				Tools      []struct{ Name string } `json:"tools"`
				NextCursor string                  `json:"nextCursor"`
			}
			if err := json.Unmarshal(r.msg.Result, &page); err != nil {
				t.Fatal(err)
			}
			if len(r.msg.Result) > 1<<20 && len(page.Tools) != 1 {
				t.Errorf("%s: page %d is %d bytes with %d tools", era, pages, len(r.msg.Result), len(page.Tools))
			}
			if len(page.Tools) == 0 {
				t.Fatalf("%s: an empty page", era)
			}
			for _, tl := range page.Tools {
				names = append(names, tl.Name)
			}
			if cursor = page.NextCursor; cursor == "" {
				break
			}
		}
		if len(names) != n {
			t.Fatalf("%s: listed %d tools, want %d", era, len(names), n)
		}
		for i, name := range names {
			if name != "t"+strconv.Itoa(i) {
				t.Fatalf("%s: tool %d is %s", era, i, name)
			}
		}
		// 39 tools of 100 KB at 10 a page, and the large one alone: at
		// least 5 pages; without the byte bound there would be one.
		if pages+1 < 5 {
			t.Errorf("%s: %d pages", era, pages+1)
		}
	}
}
