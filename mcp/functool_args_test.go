package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math/big"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/content"
	"github.com/mcpdual/mcpdual/mcp/mcptest"
)

var argEras = []mcp.Version{mcp.Version20260728, mcp.Version20251125, mcp.Version20250618, mcp.Version20250326}

func argServer(t *testing.T, srv *mcp.Server, log io.Writer) string {
	t.Helper()
	if log == nil {
		log = io.Discard
	}
	ts := httptest.NewServer(mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, mcp.WithLogger(slog.New(slog.NewTextHandler(log, nil)))))
	t.Cleanup(ts.Close)
	return ts.URL
}

type argPath struct {
	Path string `json:"path"`
}

// TestFunc_CaseFoldedMemberBypassesGivenSchema: a given input schema
// that does not close additionalProperties declares "path" with a pattern;
// a member "PATH" (or "pAth", or "ſ"/Kelvin variants) is an additional
// property to the validator, but encoding/json decodes it into the field:
// the function must never see a value the declared constraint refuses.
func TestFunc_CaseFoldedMemberBypassesGivenSchema(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "fold", Version: "1"})
	var ran atomic.Int64
	var got atomic.Value
	mcp.AddToolFunc(srv, mcp.Tool{Name: "read", Description: "d",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","pattern":"^docs/[a-z]+$"}}}`)},
		func(_ context.Context, in argPath) (argPath, error) {
			ran.Add(1)
			got.Store(in.Path)
			return in, nil
		})
	url := argServer(t, srv, nil)
	for _, v := range argEras {
		c := mcptest.Dial(url, v)
		// The declared member is checked.
		if res := decodeTool(t)(c.CallTool(context.Background(), "read", json.RawMessage(`{"path":"../etc/passwd"}`))); !res.IsError {
			t.Fatalf("%s: the declared member is not checked: %+v", v, res)
		}
		for _, args := range []string{`{"PATH":"../etc/passwd"}`, `{"path":"docs/a","Path":"../etc/passwd"}`} {
			before := ran.Load()
			res := decodeTool(t)(c.CallTool(context.Background(), "read", json.RawMessage(args)))
			if ran.Load() != before {
				t.Errorf("%s %s: the function ran with path %q, which the schema's pattern refuses (result %+v)", v, args, got.Load(), res)
			} else if !res.IsError {
				t.Errorf("%s %s: not an error: %+v", v, args, res)
			}
		}
		// Undeclared members that are no field stay the host's choice.
		if res := decodeTool(t)(c.CallTool(context.Background(), "read", json.RawMessage(`{"path":"docs/a","other":1}`))); res.IsError {
			t.Errorf("%s: an extra member is refused: %+v", v, res)
		}
	}
}

// TestFunc_ToolResultWithoutStructuredContent: a function tool that
// declares an outputSchema sends structuredContent on every revision that
// has output schemas (clients such as the TypeScript SDK fail the call
// otherwise): a *ToolResult without StructuredContent is the server's
// fault, not a success. (A route's own CallToolResult is passed on as it
// wrote it: mcp/openapi's lenient mode sends one without structured
// content on purpose, with a note.)
func TestFunc_ToolResultWithoutStructuredContent(t *testing.T) {
	out := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)
	srv := mcp.NewServer(mcp.Implementation{Name: "full", Version: "1"})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "func_missing", Description: "d", OutputSchema: out},
		func(context.Context, struct{}) (*mcp.ToolResult, error) {
			return &mcp.ToolResult{Content: []content.Block{content.Text("seven")}}, nil
		})
	log := &syncBuffer{}
	url := argServer(t, srv, log)
	for _, v := range argEras {
		c := mcptest.Dial(url, v)
		res := decodeTool(t)(c.CallTool(context.Background(), "func_missing", nil))
		switch {
		case v == mcp.Version20250326 && res.IsError:
			t.Errorf("%s: no output schemas on this revision, yet %+v", v, res)
		case v != mcp.Version20250326 && !res.IsError:
			t.Errorf("%s: a success without the structuredContent its outputSchema promises: %+v", v, res)
		}
	}
	if !strings.Contains(log.String(), "has no StructuredContent") {
		t.Errorf("log:\n%s", log)
	}
}

type priceOut struct {
	Amount big.Float `json:"amount"`
}

// TestFunc_PointerMarshalerInValueResult: big.Float writes itself as
// text through a pointer-receiver MarshalText; the derived output schema
// says "string", but an Out returned by value is not addressable, so
// encoding/json writes {} and the structuredContent does not conform.
func TestFunc_PointerMarshalerInValueResult(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "price", Version: "1"})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "price", Description: "d"}, func(context.Context, struct{}) (priceOut, error) {
		var p priceOut
		p.Amount.SetFloat64(1.5)
		return p, nil
	})
	url := argServer(t, srv, nil)
	for _, v := range argEras {
		res := decodeTool(t)(mcptest.Dial(url, v).CallTool(context.Background(), "price", nil))
		if res.IsError || len(res.Content) != 1 || res.Content[0].Text != `{"amount":"1.5"}` {
			t.Errorf("%s: %+v, want the text {\"amount\":\"1.5\"}, which the advertised schema (amount: string) admits", v, res)
		}
	}
	if s := string(mustListSchema(t, url, "price")); !strings.Contains(s, `"amount":{"type":"string"}`) {
		t.Errorf("schema %s", s)
	}
}

func mustListSchema(t *testing.T, url, tool string) json.RawMessage {
	t.Helper()
	r, err := mcptest.Dial(url, mcp.Version20250618).Call(context.Background(), "tools/list", map[string]any{})
	if err != nil || r.Error != nil {
		t.Fatalf("%v %s", err, r.Raw)
	}
	var lr struct {
		Tools []struct {
			Name         string          `json:"name"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		} `json:"tools"`
	}
	json.Unmarshal(r.Result, &lr)
	for _, tl := range lr.Tools {
		if tl.Name == tool {
			return tl.OutputSchema
		}
	}
	t.Fatalf("no tool %s", tool)
	return nil
}

// TestFunc_Concurrent: one function called concurrently over HTTP
// on every revision, each call answered with its own arguments (run with
// -race).
func TestFunc_Concurrent(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "conc", Version: "1"})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "echo", Description: "d"}, func(ctx context.Context, in fnID) (fnNote, error) {
		return fnNote{ID: in.ID, Tags: nil}, ctx.Err()
	})
	url := argServer(t, srv, nil)
	done := make(chan string, 64)
	for i := range 32 {
		v := argEras[i%len(argEras)]
		go func() {
			id := string(v) + "-" + strings.Repeat("x", i+1)
			r, err := mcptest.Dial(url, v).CallTool(context.Background(), "echo", map[string]string{"id": id})
			if err != nil || r.Error != nil {
				done <- "error"
				return
			}
			var res toolReply
			json.Unmarshal(r.Result, &res)
			if res.IsError || len(res.Content) != 1 || !strings.Contains(res.Content[0].Text, `"id":"`+id+`"`) {
				done <- id + ": " + string(r.Raw)
				return
			}
			done <- ""
		}()
	}
	for range 32 {
		if msg := <-done; msg != "" {
			t.Error(msg)
		}
	}
}

type nameTree map[string]nameTree

type treeArgs struct {
	Tree nameTree `json:"tree"`
}

// TestFunc_SelfContainingMapType: a tool whose arguments hold a map type
// that holds itself (a tree of names) registers (deriving its schema never
// ended) and is called over HTTP in every era with a nested tree.
func TestFunc_SelfContainingMapType(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "tree", Version: "1"})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "count", Description: "d"}, func(_ context.Context, in treeArgs) (map[string]int, error) {
		var count func(nameTree) int
		count = func(t nameTree) int {
			n := len(t)
			for _, k := range t {
				n += count(k)
			}
			return n
		}
		return map[string]int{"names": count(in.Tree)}, nil
	})
	url := argServer(t, srv, nil)
	for _, v := range argEras {
		c := mcptest.Dial(url, v)
		res := decodeTool(t)(c.CallTool(context.Background(), "count", json.RawMessage(`{"tree":{"a":{"b":{},"c":{"d":{}}}}}`)))
		if res.IsError || len(res.Content) != 1 || res.Content[0].Text != `{"names":4}` {
			t.Errorf("%s: %+v, want the text {\"names\":4}", v, res)
		}
		if res := decodeTool(t)(c.CallTool(context.Background(), "count", json.RawMessage(`{"tree":{"a":{"b":1}}}`))); !res.IsError ||
			!strings.HasPrefix(res.Content[0].Text, "Invalid arguments") {
			t.Errorf("%s: a number deep in the tree: %+v", v, res)
		}
	}
}

type hiddenPart struct {
	X int `json:"x"`
}

type embedsHiddenPointer struct {
	*hiddenPart `json:"part,omitempty"`
	Y           int `json:"y"`
}

// TestFunc_UnexportedEmbeddedPointerArgument: encoding/json cannot
// allocate an embedded pointer to a struct of an unexported type; decoding
// a member its tag names panicked in reflect, so a call the input schema
// admitted was answered as the function's panic (and a confirmed one
// audited "executed, panicked") though the function never ran. The input
// schema leaves the member out: the call is refused as invalid arguments
// before anything runs.
func TestFunc_UnexportedEmbeddedPointerArgument(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "hidden", Version: "1"})
	var ran atomic.Int64
	mcp.AddToolFunc(srv, mcp.Tool{Name: "put", Description: "d"}, func(_ context.Context, in embedsHiddenPointer) (struct{}, error) {
		ran.Add(1)
		return struct{}{}, nil
	})
	log := &syncBuffer{}
	url := argServer(t, srv, log)
	for _, v := range argEras {
		c := mcptest.Dial(url, v)
		res := decodeTool(t)(c.CallTool(context.Background(), "put", json.RawMessage(`{"part":{"x":1},"y":2}`)))
		if !res.IsError || len(res.Content) != 1 || !strings.Contains(res.Content[0].Text, "Invalid arguments for tool put") {
			t.Errorf("%s: %+v, want invalid arguments", v, res)
		}
		if res := decodeTool(t)(c.CallTool(context.Background(), "put", json.RawMessage(`{"y":2}`))); res.IsError {
			t.Errorf("%s: %+v", v, res)
		}
	}
	if n := ran.Load(); n != int64(len(argEras)) {
		t.Errorf("the function ran %d times, want %d", n, len(argEras))
	}
	if strings.Contains(log.String(), "panicked") {
		t.Errorf("log:\n%s", log)
	}
}
