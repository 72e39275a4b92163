package mcp_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
)

// allocated returns the bytes and objects allocated by one run of f.
func allocated(f func()) (bytes, objects uint64) { return allocatedAfter(func() {}, f) }

// servedAllocations serves body with hdr to h in process once, to warm
// the pools, and again: it returns the second answer and what it
// allocated.
func servedAllocations(h http.Handler, hdr http.Header, body string) (rec *httptest.ResponseRecorder, bytes, objects uint64) {
	run := func() {
		req := httptest.NewRequest(http.MethodPost, "http://localhost/mcp", strings.NewReader(body))
		req.Header = hdr.Clone()
		rec = httptest.NewRecorder()
		h.ServeHTTP(rec, req)
	}
	run()
	bytes, objects = allocated(run)
	return rec, bytes, objects
}

// allocatedAfter runs warm, then returns what one run of f allocates. No
// collection runs between them, and the goroutine keeps one P: a
// collection empties the pools, and a goroutine moved to another P finds
// that P's pool empty, so what refilling them costs would be counted, or
// not, by chance.
func allocatedAfter(warm, f func()) (bytes, objects uint64) {
	runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	warm()
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc, b.Mallocs - a.Mallocs
}

// TestValidationCost: a tools/call of about 1 MiB built to be as expensive
// to validate as possible costs at most 12 times its size in memory,
// whatever the number of violations (the arguments' value count is
// bounded, and only the violations shown are rendered), in every era, and
// the error the model reads stays small. It was 198 MB for 800 KB.
func TestValidationCost(t *testing.T) {
	mux := http.NewServeMux()
	ran := 0
	mux.HandleFunc("PUT /senders", func(w http.ResponseWriter, r *http.Request) { ran++ })
	srv := mcp.NewServer(mcp.Implementation{Name: "cost", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "set_senders", InputSchema: json.RawMessage(`{"type":"object","properties":{
		"senders":{"type":"array","items":{"type":"string","pattern":"^[a-z]+@[a-z]+\\.test$"}}},
		"required":["senders"],"additionalProperties":false}`)}, "PUT /senders", mux, mcp.WithoutConfirmation())
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()})

	long := `"` + strings.Repeat("X", 98) + `"` // 100 bytes, fails the pattern
	bodies := map[string]string{
		// 500,000 wrong-typed items: far more values than a call may hold.
		"wrong types": `{"senders":[` + strings.Repeat("1,", 500_000) + `1]}`,
		// 9,900 items just under the value bound, each failing the pattern.
		"violations under the bound": `{"senders":[` + strings.Repeat(long+",", 9_899) + long + `]}`,
		// 60,000 extra members refused by additionalProperties.
		"extra keys": `{"senders":[],` + extraKeys(60_000) + `}`,
	}
	for _, era := range eras {
		for name, args := range bodies {
			t.Run(string(era)+"/"+name, func(t *testing.T) {
				c := call{era: era, id: "1", method: "tools/call", params: `"name":"set_senders","arguments":` + args}
				body := c.body()
				if len(body) > 1<<20 {
					t.Fatalf("body %d bytes: over the limit", len(body))
				}
				rec, bytes, objects := servedAllocations(h, headersFor(c), body)
				res, _ := io.ReadAll(rec.Body)
				if rec.Code != 200 || !strings.Contains(string(res), `"isError":true`) || len(res) > 4096 {
					t.Errorf("answer %d, %d bytes: %.300s", rec.Code, len(res), res)
				}
				if limit := uint64(12 * len(body)); bytes > limit {
					t.Errorf("allocated %d bytes (%d objects) for a %d-byte body; bound %d", bytes, objects, len(body), limit)
				}
				t.Logf("%d-byte body: %d bytes, %d objects allocated; answer %d bytes", len(body), bytes, objects, len(res))
			})
		}
	}
	if ran != 0 {
		t.Errorf("the route ran %d times", ran)
	}
}

func extraKeys(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"k` + strconv.Itoa(i) + `":1`)
	}
	return b.String()
}

// TestArgumentValues: the bound on the values of one call's arguments, at
// and past the edge, default and configured, in every era.
func TestArgumentValues(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /items", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	srv := mcp.NewServer(mcp.Implementation{Name: "values", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "items", InputSchema: json.RawMessage(`{"type":"object","properties":{"items":{"type":"array"}}}`)}, "POST /items", mux)
	items := func(n int) string { // n values in all: the object, the array, n-2 items
		return `{"items":[` + strings.TrimSuffix(strings.Repeat("1,", n-2), ",") + `]}`
	}
	for _, tc := range []struct {
		limits mcp.Limits
		max    int
	}{{mcp.Limits{}, 10_000}, {mcp.Limits{ArgumentValues: 5}, 5}} {
		f := &fixture{url: newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, mcp.WithLimits(tc.limits)))}
		for _, era := range eras {
			_, res := callTool(t, f, era, "items", items(tc.max))
			if res["isError"] != nil || text(res) != "ok" {
				t.Errorf("%s, %d values at the bound: %v", era, tc.max, res)
			}
			_, res = callTool(t, f, era, "items", items(tc.max+1))
			if res["isError"] != true || !strings.Contains(text(res), "more than "+strconv.Itoa(tc.max)+" values") {
				t.Errorf("%s, %d values past the bound: %v", era, tc.max+1, res)
			}
		}
	}
}
