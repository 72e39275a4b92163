package openapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/mcptest"
	"github.com/mcpdual/mcpdual/mcp/openapi"
)

// booleanSubschemas lists where schema s holds a boolean where MCP
// clients expect a schema object: a property's (or pattern property's)
// schema, items, a member of allOf, anyOf, oneOf or prefixItems, a $defs
// entry. It walks every subschema, and nothing else (a default may hold
// anything).
func booleanSubschemas(s any, at string) []string {
	m, ok := s.(map[string]any)
	if !ok {
		return nil
	}
	var found []string
	check := func(v any, here string, mustObject bool) {
		if _, isBool := v.(bool); isBool && mustObject {
			found = append(found, here)
		}
		found = append(found, booleanSubschemas(v, here)...)
	}
	for _, k := range []string{"items", "not", "additionalProperties", "contains", "propertyNames", "if", "then", "else", "unevaluatedItems", "unevaluatedProperties"} {
		if v, ok := m[k]; ok {
			check(v, at+"/"+k, k == "items")
		}
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf", "prefixItems"} {
		list, _ := m[k].([]any)
		for i, v := range list {
			check(v, at+"/"+k+"/"+strconv.Itoa(i), true)
		}
	}
	for _, k := range []string{"properties", "patternProperties", "dependentSchemas", "$defs"} {
		sub, _ := m[k].(map[string]any)
		for name, v := range sub {
			check(v, at+"/"+k+"/"+name, k != "dependentSchemas")
		}
	}
	slices.Sort(found)
	return found
}

// TestHuma registers the document huma generates with its defaults
// (testdata/huma-3.1.json, from internal/humagen), in which every body
// has a readOnly "$schema" property: every tool is listed, in every
// revision, with schemas that hold no boolean where clients expect an
// object (the TypeScript SDK refused the whole list over
// "properties":{"$schema":false}); calls reach the routes with the
// arguments as the body, and a readOnly property a client sends is
// refused before the route.
func TestHuma(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/", echo)
	srv := mcp.NewServer(mcp.Implementation{Name: "shop", Version: "1"})
	report, err := openapi.Register(srv, readSpec(t, "testdata/huma-3.1.json"), mux)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range report.Tools {
		names = append(names, r.Name)
	}
	if want := []string{"get-greeting", "list-items", "create-item", "delete-item", "update-item"}; !slices.Equal(names, want) || len(report.Skipped) != 0 {
		t.Fatalf("tools %v, skipped %+v; want %v", names, report.Skipped, want)
	}
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()})
	for _, v := range []mcp.Version{mcp.Version20260728, mcp.Version20250618, mcp.Version20250326} {
		c := mcptest.New(h, v)
		r, err := c.Call(context.Background(), "tools/list", nil)
		if err != nil || r.Error != nil {
			t.Fatalf("%s: %v %s", v, err, r.Raw)
		}
		var list struct {
			Tools []struct {
				Name         string `json:"name"`
				InputSchema  any    `json:"inputSchema"`
				OutputSchema any    `json:"outputSchema"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(r.Result, &list); err != nil {
			t.Fatal(err)
		}
		if len(list.Tools) != len(names) {
			t.Errorf("%s: %d tools listed, want %d", v, len(list.Tools), len(names))
		}
		for _, tool := range list.Tools {
			for what, s := range map[string]any{"inputSchema": tool.InputSchema, "outputSchema": tool.OutputSchema} {
				if found := booleanSubschemas(s, what); len(found) > 0 {
					t.Errorf("%s %s: boolean subschemas at %v", v, tool.Name, found)
				}
			}
			if props, _ := tool.InputSchema.(map[string]any)["properties"].(map[string]any); props["$schema"] != nil || props["id"] != nil && tool.Name == "create-item" {
				t.Errorf("%s %s: a readOnly property is an argument: %v", v, tool.Name, props)
			}
		}

		got, isErr := call(t, c, "create-item", `{"name":"lamp","price":12.5,"tags":["x"]}`)
		if want := `{"body":"{\"name\":\"lamp\",\"price\":12.5,\"tags\":[\"x\"]}","method":"POST","path":"/items","query":"","type":"application/json"}`; isErr || got != want {
			t.Errorf("%s create-item: %s, want %s", v, got, want)
		}
		got, isErr = call(t, c, "update-item", `{"id":"i1","name":"lamp","price":3}`)
		if want := `{"body":"{\"name\":\"lamp\",\"price\":3}","method":"PUT","path":"/items/i1","query":"","type":"application/json"}`; isErr || got != want {
			t.Errorf("%s update-item: %s, want %s", v, got, want)
		}
		for _, args := range []string{
			`{"$schema":"https://example.com/schemas/Item.json","name":"lamp","price":1}`,
			`{"id":"mine","name":"lamp","price":1}`,
		} {
			got, isErr = call(t, c, "create-item", args)
			if !isErr || !strings.Contains(got, "Invalid arguments for tool create-item") || !strings.Contains(got, "'not' failed") {
				t.Errorf("%s create-item %s: not refused: %s", v, args, got)
			}
		}
	}
}
