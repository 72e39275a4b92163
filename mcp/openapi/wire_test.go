package openapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/mcptest"
	"github.com/mcpdual/mcpdual/mcp/openapi"
)

// What a review of the way documents become calls found, each shown by a
// failing test first (design record 023): a call must reach the route as
// the document describes it, and a document that cannot be read as it
// stands leaves its operation out rather than registering it open.

const oasHead = `{"openapi":"3.0.3","info":{"title":"t","version":"1"},`

// register registers doc over h and returns its report and a 2025-06-18
// client of it.
func register(t *testing.T, doc string, h http.Handler, opts ...mcp.HandlerOption) (*openapi.Report, *mcptest.Client) {
	t.Helper()
	srv := mcp.NewServer(mcp.Implementation{Name: "wire", Version: "1"})
	rep, err := openapi.Register(srv, []byte(doc), h)
	if err != nil {
		t.Fatal(err)
	}
	return rep, mcptest.New(mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, opts...), mcp.Version20250618)
}

func skippedFor(rep *openapi.Report, op string) string {
	for _, s := range rep.Skipped {
		if s.OperationID == op {
			return s.Reason
		}
	}
	return ""
}

// TestSecurity_Malformed: a security member that is not a list of
// requirement objects read as what it resembles would require nothing
// (a mapping's entries and null read as empty requirements) and hide the
// document's own requirement; such an operation is left out with the
// reason, and a token without the scope never sees it.
func TestSecurity_Malformed(t *testing.T) {
	t.Parallel()
	const resource = "http://127.0.0.1/mcp"
	a := auth.New(auth.Config{Resource: resource, Verifier: auth.VerifierFunc(func(ctx context.Context, token string, r *http.Request) (*auth.Principal, error) {
		return &auth.Principal{Issuer: "https://i.test", Subject: "s", Audience: []string{resource}, ExpiresAt: time.Now().Add(time.Hour)}, nil
	})})
	for name, sec := range map[string]string{
		"a mapping":            `{"oauth":["admin"]}`,
		"null":                 `null`,
		"a list of strings":    `["oauth"]`,
		"scopes not a list":    `[{"oauth":"admin"}]`,
		"a scope not a string": `[{"oauth":[["admin"]]}]`,
	} {
		doc := oasHead + `"security":[{"oauth":["admin"]}],
		"components":{"securitySchemes":{"oauth":{"type":"oauth2","flows":{"clientCredentials":{"tokenUrl":"http://127.0.0.1/t","scopes":{"admin":"a"}}}}}},
		"paths":{"/a":{"post":{"operationId":"wellFormed","responses":{"204":{"description":"ok"}}}},
		 "/b":{"post":{"operationId":"malformed","security":` + sec + `,"responses":{"204":{"description":"ok"}}}}}}`
		srv := mcp.NewServer(mcp.Implementation{Name: "wire", Version: "1"})
		rep, err := openapi.Register(srv, []byte(doc), http.NotFoundHandler())
		if err != nil {
			t.Fatal(err)
		}
		if reason := skippedFor(rep, "malformed"); !strings.Contains(reason, "security") {
			t.Errorf("%s: not left out with a reason about security: %+v", name, rep.Skipped)
		}
		c := mcptest.New(mcp.NewHandler(srv, []mcp.Era{era2025.New()}, mcp.WithAuth(a)), mcp.Version20250618,
			mcptest.WithHeader("Authorization", "Bearer noscopes"))
		if got := listed(t, c, "tools/list", "tools"); strings.Contains(got, "malformed") {
			t.Errorf("%s: a token without the admin scope lists %s", name, got)
		}
	}
	// The document's own security malformed: every operation relying on
	// it is left out.
	doc := oasHead + `"security":{"oauth":["admin"]},"paths":{"/a":{"post":{"operationId":"relies","responses":{"204":{"description":"ok"}}}}}}`
	if rep, _ := register(t, doc, http.NotFoundHandler()); len(rep.Tools) != 0 || !strings.Contains(skippedFor(rep, "relies"), "security") {
		t.Errorf("a malformed top-level security: %+v %+v", rep.Tools, rep.Skipped)
	}
}

// TestBody_MediaType: a JSON body the document types otherwise than
// application/json (merge-patch+json, vnd.api+json) reaches the route
// with that Content-Type: an API may refuse another, or read the call
// otherwise by it.
func TestBody_MediaType(t *testing.T) {
	t.Parallel()
	for _, ct := range []string{"application/merge-patch+json", "application/vnd.api+json", "application/json"} {
		doc := oasHead + `"paths":{"/items/{id}":{"patch":{"operationId":"patchItem",
		 "parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],
		 "requestBody":{"required":true,"content":{"` + ct + `":{"schema":{"type":"object","properties":{"name":{"type":"string"}}}}}},
		 "responses":{"204":{"description":"ok"}}}}}}`
		_, c := register(t, doc, http.HandlerFunc(echo))
		text, isErr := call(t, c, "patchItem", `{"id":"1","name":"x"}`)
		var seen map[string]string
		_ = json.Unmarshal([]byte(text), &seen)
		if isErr || seen["type"] != ct || seen["body"] != `{"name":"x"}` {
			t.Errorf("%s: the route saw %q with %q (%s)", ct, seen["type"], seen["body"], text)
		}
	}
}

// TestDeep_StringsStayStrings: a deepObject array of strings sends each
// string as one value, even one that reads as JSON: decoded, it became
// keys the caller chose (tag[0][owner]=root) past a string's schema.
// Objects are still bracketed.
func TestDeep_StringsStayStrings(t *testing.T) {
	t.Parallel()
	doc := oasHead + `"paths":{"/items":{"get":{"operationId":"listItems",
	 "parameters":[{"name":"tag","in":"query","style":"deepObject","schema":{"type":"array","items":{"type":"string","maxLength":40}}},
	  {"name":"f","in":"query","style":"deepObject","schema":{"type":"object","properties":{"owner":{"type":"string"}}}}],
	 "responses":{"204":{"description":"ok"}}}}}}`
	_, c := register(t, doc, http.HandlerFunc(echo))
	text, _ := call(t, c, "listItems", `{"tag":["{\"owner\":\"root\"}","[1]"],"f":{"owner":"me"}}`)
	var seen map[string]string
	_ = json.Unmarshal([]byte(text), &seen)
	if want := "f%5Bowner%5D=me&tag%5B0%5D=%7B%22owner%22%3A%22root%22%7D&tag%5B1%5D=%5B1%5D"; seen["query"] != want {
		t.Errorf("query %q, want %q", seen["query"], want)
	}
}

// TestDelimited_ItemHoldingDelimiter: an array sent with explode false is
// one value joined by its style's delimiter, so an item holding the
// delimiter would reach the API as several (past maxItems): the call is
// refused as the tool's error, and the API is not called.
func TestDelimited_ItemHoldingDelimiter(t *testing.T) {
	t.Parallel()
	for style, delim := range map[string]string{"form": ",", "spaceDelimited": " ", "pipeDelimited": "|"} {
		doc := oasHead + `"paths":{"/items":{"get":{"operationId":"listItems",
		 "parameters":[{"name":"ids","in":"query","style":"` + style + `","explode":false,"schema":{"type":"array","maxItems":2,"items":{"type":"string"}}}],
		 "responses":{"204":{"description":"ok"}}}}}}`
		var called atomic.Int64
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			called.Add(1)
			echo(w, r)
		})
		_, c := register(t, doc, h)
		if text, isErr := call(t, c, "listItems", `{"ids":["1`+delim+`2"]}`); !isErr || !strings.Contains(text, "cannot be sent") {
			t.Errorf("%s: an item holding %q: %q (isError %v)", style, delim, text, isErr)
		}
		if called.Load() != 0 {
			t.Errorf("%s: the API was called", style)
		}
		text, isErr := call(t, c, "listItems", `{"ids":["1","2"]}`)
		var seen map[string]string
		_ = json.Unmarshal([]byte(text), &seen)
		if isErr || called.Load() != 1 || !strings.HasPrefix(seen["query"], "ids=1") {
			t.Errorf("%s: two plain items: %q (isError %v)", style, text, isErr)
		}
	}
}

// TestQuery_ObjectBehindAllOf: an object query parameter whose type is
// behind allOf, anyOf or oneOf is an object all the same: without
// deepObject or content the library cannot send it as the document says
// (form, explode: a=x), so the operation is left out, as one typed
// object directly is.
func TestQuery_ObjectBehindAllOf(t *testing.T) {
	t.Parallel()
	for _, schema := range []string{`{"allOf":[{"$ref":"#/components/schemas/F"}]}`, `{"anyOf":[{"type":"string"},{"$ref":"#/components/schemas/F"}]}`,
		`{"oneOf":[{"properties":{"a":{"type":"string"}}}]}`} {
		doc := `{"openapi":"3.1.0","info":{"title":"t","version":"1"},
		"components":{"schemas":{"F":{"type":"object","properties":{"a":{"type":"string"}}}}},
		"paths":{"/items":{"get":{"operationId":"listItems","parameters":[{"name":"f","in":"query","schema":` + schema + `}],
		 "responses":{"204":{"description":"ok"}}}}}}`
		rep, _ := register(t, doc, http.HandlerFunc(echo))
		if len(rep.Tools) != 0 || !strings.Contains(skippedFor(rep, "listItems"), "object") {
			t.Errorf("%s: %+v %+v", schema, rep.Tools, rep.Skipped)
		}
	}
}

// TestStyle_ArrayBehindAnyOf: an array whose type is behind anyOf, oneOf
// or allOf (3.1 writes an array that may be null as anyOf an array and
// null) is an array for the styles: with explode false its items are
// joined by the style's delimiter, in a query or a form, as they are for
// one typed array directly. They went as repeated keys (ids=1&ids=2, a
// request the API reads otherwise), and spaceDelimited and pipeDelimited
// left the operation out as "for arrays". An array of objects behind a
// $ref is refused in a query without deepObject, as one written in place
// is. Called over HTTP in every revision.
func TestStyle_ArrayBehindAnyOf(t *testing.T) {
	t.Parallel()
	schemas := []string{`{"anyOf":[{"type":"array","items":{"type":"integer"}},{"type":"null"}]}`,
		`{"oneOf":[{"type":"null"},{"$ref":"#/components/schemas/L"}]}`, `{"allOf":[{"$ref":"#/components/schemas/L"}]}`}
	var ops []string
	wantQuery := map[string]string{}
	for i, schema := range schemas {
		for style, delim := range map[string]string{"form": "%2C", "spaceDelimited": "+", "pipeDelimited": "%7C"} {
			id := fmt.Sprintf("list%d%s", i, style)
			ops = append(ops, `"/`+id+`":{"get":{"operationId":"`+id+`","parameters":[{"name":"ids","in":"query","style":"`+style+`","explode":false,"schema":`+schema+`}],
			 "responses":{"204":{"description":"ok"}}}}`)
			wantQuery[id] = "ids=1" + delim + "2"
		}
		id := fmt.Sprintf("form%d", i)
		ops = append(ops, `"/`+id+`":{"post":{"operationId":"`+id+`","requestBody":{"required":true,"content":{"application/x-www-form-urlencoded":{
			 "schema":{"type":"object","properties":{"ids":`+schema+`}},"encoding":{"ids":{"style":"form","explode":false}}}}},
			 "responses":{"204":{"description":"ok"}}}}`)
	}
	ops = append(ops, `"/objects":{"get":{"operationId":"objectsBehindRef","parameters":[{"name":"f","in":"query","schema":{"$ref":"#/components/schemas/Objects"}}],
		"responses":{"204":{"description":"ok"}}}}`)
	doc := `{"openapi":"3.1.0","info":{"title":"t","version":"1"},
	"components":{"schemas":{"L":{"type":"array","items":{"type":"integer"}},"Objects":{"type":"array","items":{"type":"object","properties":{"a":{"type":"string"}}}}}},
	"paths":{` + strings.Join(ops, ",") + `}}`
	srv := mcp.NewServer(mcp.Implementation{Name: "styles", Version: "1"})
	rep, err := openapi.Register(srv, []byte(doc), http.HandlerFunc(echo))
	if err != nil {
		t.Fatal(err)
	}
	if reason := skippedFor(rep, "objectsBehindRef"); !strings.Contains(reason, "arrays of objects") {
		t.Errorf("an array of objects behind a $ref, without deepObject: %q", reason)
	}
	registered := map[string]bool{}
	for _, r := range rep.Tools {
		registered[r.OperationID] = true
	}
	for _, s := range rep.Skipped {
		if s.OperationID != "objectsBehindRef" {
			t.Errorf("left out: %+v", s)
		}
	}
	ts := httptest.NewServer(mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}))
	t.Cleanup(ts.Close)
	for _, v := range []mcp.Version{mcp.Version20260728, mcp.Version20250618, mcp.Version20250326} {
		c := mcptest.Dial(ts.URL, v)
		for id, want := range wantQuery {
			if !registered[id] {
				continue
			}
			text, isErr := call(t, c, id, `{"ids":[1,2]}`)
			var seen map[string]string
			_ = json.Unmarshal([]byte(text), &seen)
			if isErr || seen["query"] != want {
				t.Errorf("%s %s: %q (isError %v), want the query %s", v, id, text, isErr, want)
			}
		}
		for i := range schemas {
			id := fmt.Sprintf("form%d", i)
			if !registered[id] {
				continue
			}
			text, isErr := call(t, c, id, `{"ids":[1,2]}`)
			var seen map[string]string
			_ = json.Unmarshal([]byte(text), &seen)
			if isErr || seen["body"] != "ids=1%2C2" {
				t.Errorf("%s %s: %q (isError %v), want the form ids=1%%2C2", v, id, text, isErr)
			}
		}
	}
}

// TestDeep_QueryBound: what deepObject brackets make of one call is
// bounded at 1 MiB of names and values (maxBracketed), every name counted
// with each value it names. Each value's name repeats every key above
// it, so a key of 32 KiB over 2,000 numbers (37 KB of arguments) made 617
// MB and a 65 MB query for the API. A query at the bound is sent; one
// byte past it, and the long key over many values, are the tool's error
// naming the bound, the API never called, over HTTP in every revision.
// The refusal costs about its arguments, counted in bytes allocated.
func TestDeep_QueryBound(t *testing.T) {
	doc := oasHead + `"paths":{"/items":{"get":{"operationId":"listItems",
	 "parameters":[{"name":"f","in":"query","style":"deepObject","schema":{"type":"object"}}],
	 "responses":{"204":{"description":"ok"}}}}}}`
	var called atomic.Int64
	var query atomic.Value
	mux := http.NewServeMux()
	mux.HandleFunc("/items", func(w http.ResponseWriter, r *http.Request) {
		called.Add(1)
		query.Store(r.URL.Query())
		w.WriteHeader(http.StatusNoContent)
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "deep", Version: "1"})
	if _, err := openapi.Register(srv, []byte(doc), mux); err != nil {
		t.Fatal(err)
	}
	mux.Handle("/mcp", mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, mcp.WithLimits(mcp.Limits{BodyBytes: 2 << 20})))
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)

	const bound = 1 << 20
	const refusal = "The argument f cannot be sent: bracketed as this API's deepObject parameter, it makes a query of more than 1 MiB; send fewer or shorter values."
	// f[k]=value takes "f" and "k" with their brackets (4) to name the
	// value, then the name again with the value (4 + its length).
	at := strings.Repeat("v", bound-8)
	amplified := `{"f":{"` + strings.Repeat("k", 32<<10) + `":[` + strings.Repeat("1,", 2_000) + `1]}}`
	for _, v := range eras {
		c := mcptest.Dial(ts.URL+"/mcp", v)
		before := called.Load()
		text, isErr := call(t, c, "listItems", `{"f":{"k":"`+at+`"}}`)
		got, _ := query.Load().(url.Values)
		if isErr || called.Load() != before+1 || got.Get("f[k]") != at || len(got) != 1 {
			t.Errorf("%s: a query at the bound: isError %v, %.200s; the API saw %d values", v, isErr, text, len(got))
		}
		for name, args := range map[string]string{
			"one byte past":                `{"f":{"k":"` + at + `v"}}`,
			"a long key over many numbers": amplified,
		} {
			before := called.Load()
			var text string
			var isErr bool
			bytes := allocated(func() { text, isErr = call(t, c, "listItems", args) })
			if !isErr || text != refusal || called.Load() != before {
				t.Errorf("%s, %s: isError %v, %.300s; the API called %d times", v, name, isErr, text, called.Load()-before)
			}
			// The call's own copies of its arguments, over HTTP and back.
			if limit := uint64(24*len(args) + 8<<20); bytes > limit {
				t.Errorf("%s, %s: %d bytes allocated for %d bytes of arguments; want at most %d", v, name, bytes, len(args), limit)
			}
		}
	}
}
