package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/headers"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/content"
)

// Resource reads against the host's access rules, however a client spells
// the URI or fills a template (design record 005). A review found each of
// these reads reaching what it should not.

// accessDo sends one request as tokAlice (scope mcp:read only) with the
// headers its revision wants, params being the members of params.
func accessDo(t *testing.T, url string, era mcp.Version, method, params string) *reply {
	t.Helper()
	c := rt{era: era, method: method, id: 5}
	body := strings.TrimSuffix(c.body(), "}}")
	if era == mcp.Version20260728 {
		body += ","
	}
	body += params + "}}"
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+tokAlice)
	req.Header.Set("MCP-Protocol-Version", string(era))
	if era == mcp.Version20260728 {
		req.Header.Set("Mcp-Method", method)
		var p struct{ URI, Name string }
		json.Unmarshal([]byte("{"+params+"}"), &p)
		if p.URI+p.Name != "" {
			req.Header.Set("Mcp-Name", p.URI+p.Name)
		}
	}
	return send(t, req)
}

// TestResourceAccess_PercentEncoding: a URI is compared in one spelling
// (percent-encoding normalized): a Permit rule hiding v://docs/secret
// hides v://docs/%73ecret, which the route would have read as "secret".
func TestResourceAccess_PercentEncoding(t *testing.T) {
	mux := http.NewServeMux()
	var reached []string
	mux.HandleFunc("GET /docs/{x}", func(w http.ResponseWriter, r *http.Request) {
		reached = append(reached, r.PathValue("x"))
		io.WriteString(w, "doc "+r.PathValue("x"))
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "v", Version: "1"})
	srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "v://docs/{x}", Name: "doc"}, "GET /docs/{x}", mux)
	a := auth.New(auth.Config{Resource: resourceURI, Verifier: auth.VerifierFunc(testVerifier),
		Permit: func(ctx context.Context, acc auth.Access) bool {
			return !(acc.Kind == auth.KindResource && acc.Name == "v://docs/secret")
		}})
	url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, mcp.WithAuth(a)))
	for _, era := range eras {
		reached = nil
		if r := accessDo(t, url, era, "resources/read", `"uri":"v://docs/secret"`); r.code() == 0 {
			t.Fatalf("%s: plain hidden URI was readable: %s", era, r.raw)
		}
		r := accessDo(t, url, era, "resources/read", `"uri":"v://docs/%73ecret"`)
		if r.code() == 0 {
			t.Errorf("%s: hidden resource v://docs/secret read as v://docs/%%73ecret: route saw %q, reply %s", era, reached, r.raw)
		}
	}
}

// TestResourceAccess_FixedThroughTemplate: a fixed resource's scopes
// hold however its URI is spelled: v://docs/p%61yroll matched the
// template beside it, whose route path the host's mux sent to the fixed
// resource's own route.
func TestResourceAccess_FixedThroughTemplate(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /docs/{x}", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "public doc") })
	mux.HandleFunc("GET /docs/payroll", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "PAYROLL") })
	srv := mcp.NewServer(mcp.Implementation{Name: "v", Version: "1"})
	srv.AddResource(mcp.Resource{URI: "v://docs/payroll", Name: "payroll"}, "GET /docs/payroll", mux, mcp.RequireScopes("hr:admin"))
	srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "v://docs/{x}", Name: "doc"}, "GET /docs/{x}", mux)
	a := auth.New(auth.Config{Resource: resourceURI, Verifier: auth.VerifierFunc(testVerifier)})
	url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, mcp.WithAuth(a)))
	era := mcp.Version20260728
	if r := accessDo(t, url, era, "resources/read", `"uri":"v://docs/payroll"`); r.status != 403 {
		t.Fatalf("plain read should need hr:admin: %d %s", r.status, r.raw)
	}
	r := accessDo(t, url, era, "resources/read", `"uri":"v://docs/p%61yroll"`)
	if strings.Contains(string(r.raw), "UEFZUk9MTA") || strings.Contains(string(r.raw), "PAYROLL") {
		t.Errorf("scoped resource read without hr:admin: %s", r.raw)
	}
}

// TestResourceAccess_SiblingRoute: a template whose filled path is
// another item's own route is not read: ServeMux prefers "GET
// /docs/payroll" to the template's "GET /docs/{x}", and the scoped
// resource's route would run for a caller without its scope. A tool
// filling its wildcard into another item's route is refused the same way.
func TestResourceAccess_SiblingRoute(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /docs/{x}", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "public doc") })
	mux.HandleFunc("GET /docs/payroll", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "PAYROLL") })
	srv := mcp.NewServer(mcp.Implementation{Name: "v", Version: "1"})
	srv.AddResource(mcp.Resource{URI: "v://hr/payroll", Name: "payroll"}, "GET /docs/payroll", mux, mcp.RequireScopes("hr:admin"))
	srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "v://files/{x}", Name: "doc"}, "GET /docs/{x}", mux)
	a := auth.New(auth.Config{Resource: resourceURI, Verifier: auth.VerifierFunc(testVerifier)})
	url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, mcp.WithAuth(a)))
	for _, era := range eras {
		r := accessDo(t, url, era, "resources/read", `"uri":"v://files/payroll"`)
		if strings.Contains(string(r.raw), "UEFZUk9MTA") || strings.Contains(string(r.raw), "PAYROLL") || r.code() == 0 {
			t.Errorf("%s: template read reached the scoped sibling route: %s", era, r.raw)
		}
		if r := accessDo(t, url, era, "resources/read", `"uri":"v://files/other"`); r.code() != 0 {
			t.Errorf("%s: another value: %s", era, r.raw)
		}
	}
	// A tool on the same wildcard route.
	srv2 := mcp.NewServer(mcp.Implementation{Name: "v", Version: "1"})
	srv2.AddTool(mcp.Tool{Name: "payroll", InputSchema: json.RawMessage(`{"type":"object"}`)}, "GET /docs/payroll", mux, mcp.RequireScopes("hr:admin"))
	srv2.AddTool(mcp.Tool{Name: "doc", InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}`)}, "GET /docs/{x}", mux)
	url2 := newTestServer(t, mcp.NewHandler(srv2, []mcp.Era{era2026.New(), era2025.New()}, mcp.WithAuth(a)))
	for _, era := range eras {
		r := accessDo(t, url2, era, "tools/call", `"name":"doc","arguments":{"x":"payroll"}`)
		if strings.Contains(string(r.raw), "PAYROLL") || !strings.Contains(string(r.raw), "name the route of another tool") {
			t.Errorf("%s: a tool's wildcard filled into a scoped tool's route: %s", era, r.raw)
		}
	}
}

// TestResourceAccess_HiddenFixedNotThroughTemplate: a fixed resource the
// permission rule hides is not found, not read through a template that
// also matches its URI (whose route the mux may send to the fixed one's).
// The rule may name the resource as it was registered, in a spelling the
// client does not use: the client's spelling is the same resource, still
// hidden, though the rule asked of that spelling alone would permit it.
func TestResourceAccess_HiddenFixedNotThroughTemplate(t *testing.T) {
	for _, registered := range []string{"v://docs/secret", "v://docs/%73ecret"} {
		mux := http.NewServeMux()
		mux.HandleFunc("GET /docs/{x}", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "public doc") })
		mux.HandleFunc("GET /secret", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "SECRET") })
		srv := mcp.NewServer(mcp.Implementation{Name: "v", Version: "1"})
		srv.AddResource(mcp.Resource{URI: registered, Name: "secret"}, "GET /secret", mux)
		srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "v://docs/{x}", Name: "doc"}, "GET /docs/{x}", mux)
		a := auth.New(auth.Config{Resource: resourceURI, Verifier: auth.VerifierFunc(testVerifier),
			Permit: func(ctx context.Context, acc auth.Access) bool { return acc.Name != registered }})
		url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, mcp.WithAuth(a)))
		for _, era := range eras {
			if r := accessDo(t, url, era, "resources/read", `"uri":"v://docs/secret"`); r.code() == 0 {
				t.Errorf("%s: %s hidden, v://docs/secret was read: %s", era, registered, r.raw)
			}
		}
	}
}

// TestResourceAccess_UnencodedCharacters: a URI spelled with bytes a URI
// holds only escaped (a space, a non-ASCII character, a control) is the
// same resource as its escaped spelling: a Permit rule hiding
// v://docs/a%20b hides v://docs/a b, whose template value the route reads
// as the same "a b", and a fixed resource registered escaped is found by
// its unescaped spelling, with its scopes, not read through the template
// beside it.
func TestResourceAccess_UnencodedCharacters(t *testing.T) {
	mux := http.NewServeMux()
	var reached []string
	mux.HandleFunc("GET /docs/{x}", func(w http.ResponseWriter, r *http.Request) {
		reached = append(reached, r.PathValue("x"))
		io.WriteString(w, "doc "+r.PathValue("x"))
	})
	mux.HandleFunc("GET /hr/pay", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "PAYROLL") })
	srv := mcp.NewServer(mcp.Implementation{Name: "v", Version: "1"})
	srv.AddResource(mcp.Resource{URI: "v://docs/caf%C3%A9-pay", Name: "pay"}, "GET /hr/pay", mux, mcp.RequireScopes("hr:admin"))
	srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "v://docs/{x}", Name: "doc"}, "GET /docs/{x}", mux)
	hidden := map[string]bool{"v://docs/a%20b": true, "v://docs/%C3%A9t%C3%A9": true, "v://docs/x%7Cy": true, "v://docs/n%00l": true}
	a := auth.New(auth.Config{Resource: resourceURI, Verifier: auth.VerifierFunc(testVerifier),
		Permit: func(ctx context.Context, acc auth.Access) bool {
			return !(acc.Kind == auth.KindResource && hidden[acc.Name])
		}})
	url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, mcp.WithAuth(a)))
	read := func(era mcp.Version, uri string) *reply {
		t.Helper()
		q, _ := json.Marshal(uri)
		c := rt{era: era, method: "resources/read", id: 5}
		body := strings.TrimSuffix(c.body(), "}}")
		if era == mcp.Version20260728 {
			body += ","
		}
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body+`"uri":`+string(q)+"}}"))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+tokAlice)
		req.Header.Set("MCP-Protocol-Version", string(era))
		if era == mcp.Version20260728 {
			req.Header.Set("Mcp-Method", "resources/read")
			req.Header.Set("Mcp-Name", headers.Encode(uri))
		}
		return send(t, req)
	}
	for _, era := range eras {
		notFound := -32002
		if era == mcp.Version20260728 {
			notFound = -32602
		}
		for _, uri := range []string{"v://docs/a b", "v://docs/été", "v://docs/x|y", "v://docs/n\x00l", "v://docs/a%20b", "v://docs/%c3%a9t%c3%a9"} {
			reached = nil
			r := read(era, uri)
			if r.status != http.StatusOK || r.code() != notFound || reached != nil {
				t.Errorf("%s: hidden resource read as %q: route saw %q, reply %d %s", era, uri, reached, r.status, r.raw)
			}
		}
		// Not hidden: the template still reads unescaped spellings.
		reached = nil
		if r := read(era, "v://docs/a+b"); r.code() != 0 || len(reached) != 1 || reached[0] != "a+b" {
			t.Errorf("%s: visible read: route saw %q, reply %s", era, reached, r.raw)
		}
		// The fixed resource, by its unescaped spelling, needs its scope.
		reached = nil
		r := read(era, "v://docs/café-pay")
		if r.status != http.StatusForbidden || reached != nil || strings.Contains(string(r.raw), "doc caf") {
			t.Errorf("%s: scoped fixed resource read through the template: route saw %q, reply %d %s", era, reached, r.status, r.raw)
		}
	}
}

// TestResourceAccess_ReservedCharacters: a template's route reads a
// variable's decoded value, so v://docs/alice@corp and
// v://docs/alice%40corp read the same resource, though RFC 3986 keeps a
// reserved character and its escape apart: a Permit rule hiding either
// spelling hides both (the rule is asked of the value spelled escaped
// only where it must be and escaped as RFC 6570 escapes it, beside the
// client's spelling). A rule naming an IRI (v://docs/café) holds for the
// URI's escapes too.
func TestResourceAccess_ReservedCharacters(t *testing.T) {
	mux := http.NewServeMux()
	var reached []string
	mux.HandleFunc("GET /docs/{x}", func(w http.ResponseWriter, r *http.Request) {
		reached = append(reached, r.PathValue("x"))
		io.WriteString(w, "doc "+r.PathValue("x"))
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "v", Version: "1"})
	srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "v://docs/{x}", Name: "doc"}, "GET /docs/{x}", mux)
	hidden := map[string]bool{"v://docs/alice@corp": true, "v://docs/a%3Ab": true, "v://docs/x%2Fy": true, "v://docs/café": true}
	a := auth.New(auth.Config{Resource: resourceURI, Verifier: auth.VerifierFunc(testVerifier),
		Permit: func(ctx context.Context, acc auth.Access) bool {
			return !(acc.Kind == auth.KindResource && hidden[acc.Name])
		}})
	url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, mcp.WithAuth(a)))
	for _, era := range eras {
		notFound := -32002
		if era == mcp.Version20260728 {
			notFound = -32602
		}
		for _, uri := range []string{"v://docs/alice@corp", "v://docs/alice%40corp", "v://docs/%61lice%40corp",
			"v://docs/a%3Ab", "v://docs/a%3ab", "v://docs/a:b", "v://docs/x%2fy", "v://docs/caf%C3%A9", "v://docs/caf%c3%a9"} {
			reached = nil
			r := accessDo(t, url, era, "resources/read", `"uri":`+quoteJSON(uri))
			if r.status != http.StatusOK || r.code() != notFound || reached != nil {
				t.Errorf("%s: hidden resource read as %q: route saw %q, reply %d %s", era, uri, reached, r.status, r.raw)
			}
		}
		reached = nil
		if r := accessDo(t, url, era, "resources/read", `"uri":"v://docs/bob%40corp"`); r.code() != 0 || len(reached) != 1 || reached[0] != "bob@corp" {
			t.Errorf("%s: visible read: route saw %q, reply %s", era, reached, r.raw)
		}
	}
}

// TestResourceAccess_CanonicalURI: percent-encoding normalized, an
// encoded unreserved character decoded, other escapes upper case.
func TestResourceAccess_CanonicalURI(t *testing.T) {
	for in, want := range map[string]string{
		"v://docs/secret": "v://docs/secret", "v://docs/%73ecret": "v://docs/secret", "v://a/%7e%2d%2E%5F": "v://a/~-._",
		"v://a/%2f%3a": "v://a/%2F%3A", "v://a/%": "v://a/%", "v://a/%7": "v://a/%7", "v://a/%zz%41": "v://a/%zzA", "%41": "A",
		"v://x?%2%41": "v://x?%2%41", "v://x/%%4141": "v://x/%%4141", "v://x/%%7e": "v://x/%~", "v://x/%4%7E": "v://x/%4~",
		"v://a/a b": "v://a/a%20b", "v://a/é": "v://a/%C3%A9", "v://a/x|y{}": "v://a/x%7Cy%7B%7D", "v://[::1]/?q=1&r=$": "v://[::1]/?q=1&r=$",
	} {
		if got := mcp.CanonicalURI(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

// TestResourceAccess_StrayPercentReadsNoOtherURI: a "%" that starts no
// escape is not completed into one by the escape after it: "v://x?%2%41"
// is a malformed URI, not another spelling of "v://x?%2A", so it reads
// nothing registered under that URI (it did, through its canonical
// spelling; found by FuzzCanonicalURI).
func TestResourceAccess_StrayPercentReadsNoOtherURI(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /r", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "R") })
	srv := mcp.NewServer(mcp.Implementation{Name: "v", Version: "1"})
	srv.AddResource(mcp.Resource{URI: "v://x?%2A", Name: "star"}, "GET /r", mux)
	srv.AddResource(mcp.Resource{URI: "v://x/%A41", Name: "a4"}, "GET /r", mux)
	url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}))
	for _, era := range eras {
		notFound := -32002
		if era == mcp.Version20260728 {
			notFound = -32602
		}
		for _, u := range []string{"v://x?%2A", "v://x/%A41"} {
			if r := accessDo(t, url, era, "resources/read", `"uri":"`+u+`"`); r.code() != 0 {
				t.Errorf("%s: %s as registered: %s", era, u, r.raw)
			}
		}
		for _, u := range []string{"v://x?%2%41", "v://x/%%4141"} {
			r := accessDo(t, url, era, "resources/read", `"uri":"`+u+`"`)
			checkErr(t, r, 200, notFound, `{"uri":"`+u+`"}`)
		}
	}
}

// TestRouteContent_Checked: what a prompt route or a resource route
// answering ResourceContentsMediaType writes reaches the client only when
// it is what the revision defines: each prompt block of a known type with
// what that type requires (base64 data and a MIME type for an image), a
// resource's mimeType a string and its _meta an object. Anything else is
// the server's fault (-32603), not passed on.
func TestRouteContent_Checked(t *testing.T) {
	mux := http.NewServeMux()
	var prompt, contents atomic.Value
	mux.HandleFunc("GET /p", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"messages":[{"role":"user","content":`+prompt.Load().(string)+`}]}`)
	})
	mux.HandleFunc("GET /r", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", mcp.ResourceContentsMediaType)
		io.WriteString(w, `{"contents":[`+contents.Load().(string)+`]}`)
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "v", Version: "1"})
	srv.AddPromptRoute(mcp.Prompt{Name: "p"}, "GET /p", mux)
	srv.AddResource(mcp.Resource{URI: "v://r", Name: "r"}, "GET /r", mux)
	a := auth.New(auth.Config{Resource: resourceURI, Verifier: auth.VerifierFunc(testVerifier)})
	url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, mcp.WithAuth(a)))
	for block, ok := range map[string]bool{
		`{"type":"text","text":"hi"}`:                                             true,
		`{"type":"image","data":"aGk=","mimeType":"image/png"}`:                   true,
		`{"type":"resource_link","uri":"v://r","name":"r"}`:                       true,
		`{"type":"resource","resource":{"uri":"v://r","text":"x"}}`:               true,
		`{"type":"image","data":"%%% not base64","mimeType":"image/png"}`:         false,
		`{"type":"image","data":"aGk=","mimeType":7}`:                             false,
		`{"type":"audio","data":"aGk="}`:                                          false,
		`{"type":"bogus"}`:                                                        false,
		`{"type":"text"}`:                                                         false,
		`{"type":"resource","resource":{"uri":"v://r","text":"x","blob":"aGk="}}`: false,
		`{"type":"resource_link","uri":"v://r"}`:                                  false,
	} {
		prompt.Store(block)
		if r := accessDo(t, url, mcp.Version20260728, "prompts/get", `"name":"p"`); (r.code() == 0) != ok {
			t.Errorf("prompt block %s: %s", block, r.raw)
		}
	}
	for item, ok := range map[string]bool{
		`{"uri":"v://r","mimeType":"text/plain","text":"x","_meta":{"a":1}}`: true,
		`{"uri":"v://r","blob":"aGk="}`:                                      true,
		`{"uri":"v://r","mimeType":42,"text":"x"}`:                           false,
		`{"uri":"v://r","text":"x","_meta":"nope"}`:                          false,
		`{"uri":"v://r","blob":"not base64!"}`:                               false,
	} {
		contents.Store(item)
		if r := accessDo(t, url, mcp.Version20260728, "resources/read", `"uri":"v://r"`); (r.code() == 0) != ok {
			t.Errorf("contents %s: %s", item, r.raw)
		}
	}
}

// TestResourceAccess_RegisteredSpelling: a resource registered with
// escapes (a lower-case one, or an encoded unreserved character) is read
// by the URI it lists, and by any other spelling of it.
func TestResourceAccess_RegisteredSpelling(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /r", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "R") })
	for _, c := range []struct{ registered, other string }{
		{"file:///home/%7Ebob/notes", "file:///home/~bob/notes"},
		{"v://x/%41", "v://x/A"},
		{"s3://b/a%2fb", "s3://b/a%2Fb"},
	} {
		srv := mcp.NewServer(mcp.Implementation{Name: "v", Version: "1"})
		srv.AddResource(mcp.Resource{URI: c.registered, Name: "r"}, "GET /r", mux)
		a := auth.New(auth.Config{Resource: resourceURI, Verifier: auth.VerifierFunc(testVerifier)})
		url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, mcp.WithAuth(a)))
		for _, era := range eras {
			for _, u := range []string{c.registered, c.other} {
				if r := accessDo(t, url, era, "resources/read", `"uri":"`+u+`"`); r.code() != 0 {
					t.Errorf("%s: %s registered as %s: %s", era, u, c.registered, r.raw)
				}
			}
		}
	}
}

// TestToolRoute_SiblingLiteral: a literal route is compared with the
// filled path as ServeMux matches it, unescaped ("pay:roll" reached the
// scoped "GET /docs/pay:roll" though it was sent as pay%3Aroll); and a
// wildcard route on another ServeMux, which cannot reach it, is not
// refused for it.
func TestToolRoute_SiblingLiteral(t *testing.T) {
	a := auth.New(auth.Config{Resource: resourceURI, Verifier: auth.VerifierFunc(testVerifier)})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /docs/{x}", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "public "+r.PathValue("x")) })
	other := http.NewServeMux()
	other.HandleFunc("GET /items/{id}", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "item "+r.PathValue("id")) })
	special := http.NewServeMux()
	special.HandleFunc("GET /items/special", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "SPECIAL") })
	srv := mcp.NewServer(mcp.Implementation{Name: "v", Version: "1"})
	wild := json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}`)
	for _, lit := range []string{"pay:roll", "hr@payroll", "café"} {
		lit := lit
		mux.HandleFunc("GET /docs/"+lit, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "PAYROLL") })
		srv.AddTool(mcp.Tool{Name: "scoped_" + strconv.Itoa(len(lit)), InputSchema: json.RawMessage(`{"type":"object"}`)}, "GET /docs/"+lit, mux, mcp.RequireScopes("hr:admin"))
	}
	srv.AddTool(mcp.Tool{Name: "doc", InputSchema: wild}, "GET /docs/{x}", mux)
	srv.AddTool(mcp.Tool{Name: "special", InputSchema: json.RawMessage(`{"type":"object"}`)}, "GET /items/special", special)
	srv.AddTool(mcp.Tool{Name: "item", InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`)}, "GET /items/{id}", other)
	url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, mcp.WithAuth(a)))
	for _, era := range eras {
		for _, v := range []string{"pay:roll", "hr@payroll", "café"} {
			r := accessDo(t, url, era, "tools/call", `"name":"doc","arguments":{"x":"`+v+`"}`)
			if strings.Contains(string(r.raw), "PAYROLL") || !strings.Contains(string(r.raw), "name the route of another tool") {
				t.Errorf("%s: doc with %q: %s", era, v, r.raw)
			}
		}
		if r := accessDo(t, url, era, "tools/call", `"name":"item","arguments":{"id":"special"}`); !strings.Contains(string(r.raw), "item special") {
			t.Errorf("%s: item on another mux refused: %s", era, r.raw)
		}
	}
}

// TestResourceContents_MetaByRevision: the _meta of a route's own
// contents (ResourceContentsMediaType) reaches 2025-06-18 and later, and
// is left out for 2025-03-26, which has no _meta on resource contents —
// also when the route spells the name with an escape. What else the
// contents hold is sent as written.
func TestResourceContents_MetaByRevision(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /m", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", mcp.ResourceContentsMediaType)
		io.WriteString(w, `{"contents":[{"uri":"v://m#a","_meta":{"k":1},"mimeType":"text/plain","text":"a"},{"\u005fmeta":{"k":2},"uri":"v://m#b","blob":"AAE="},{"uri":"v://m#c","text":"c"}]}`)
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "v", Version: "1"})
	srv.AddResource(mcp.Resource{URI: "v://m", Name: "m"}, "GET /m", mux)
	url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}))
	for _, era := range eras {
		c := rt{era: era, method: "resources/read", id: 5, uri: "v://m"}
		r := c.send(t, url)
		want := `[{"uri":"v://m#a","_meta":{"k":1},"mimeType":"text/plain","text":"a"},{"\u005fmeta":{"k":2},"uri":"v://m#b","blob":"AAE="},{"uri":"v://m#c","text":"c"}]`
		if era == mcp.Version20250326 {
			want = `[{"uri":"v://m#a","mimeType":"text/plain","text":"a"},{"uri":"v://m#b","blob":"AAE="},{"uri":"v://m#c","text":"c"}]`
		}
		if r.status != http.StatusOK || r.code() != 0 {
			t.Fatalf("%s: %d %s", era, r.status, r.raw)
		}
		if got := string(r.field(t, "contents")); got != want {
			t.Errorf("%s: contents %s, want %s", era, got, want)
		}
	}
}

// TestPromptRoute_BlocksByRevision: a prompt route writes its blocks once
// for every revision; each revision gets only the members it has. _meta
// (on the block and on its embedded resource) and annotations'
// lastModified are 2025-06-18's, a resource link's icons 2025-11-25's;
// 2025-03-26 gets the link as a text block naming its URI.
func TestPromptRoute_BlocksByRevision(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /p", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"messages":[`+
			`{"role":"user","content":{"type":"text","text":"t","annotations":{"priority":1,"lastModified":"2026-01-01T00:00:00Z"},"_meta":{"k":1}}},`+
			`{"role":"user","content":{"type":"resource","resource":{"uri":"v://r","text":"r","\u005fmeta":{"k":2}}}},`+
			`{"role":"assistant","content":{"type":"resource_link","uri":"v://l","name":"l","icons":[{"src":"https://x/i.png"}]}}]}`)
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "v", Version: "1"})
	srv.AddPromptRoute(mcp.Prompt{Name: "p"}, "GET /p", mux)
	url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}))
	want := map[mcp.Version]string{
		mcp.Version20260728: `[{"role":"user","content":{"type":"text","text":"t","annotations":{"priority":1,"lastModified":"2026-01-01T00:00:00Z"},"_meta":{"k":1}}},` +
			`{"role":"user","content":{"type":"resource","resource":{"uri":"v://r","text":"r","\u005fmeta":{"k":2}}}},` +
			`{"role":"assistant","content":{"type":"resource_link","uri":"v://l","name":"l","icons":[{"src":"https://x/i.png"}]}}]`,
		mcp.Version20250618: `[{"role":"user","content":{"type":"text","text":"t","annotations":{"priority":1,"lastModified":"2026-01-01T00:00:00Z"},"_meta":{"k":1}}},` +
			`{"role":"user","content":{"type":"resource","resource":{"uri":"v://r","text":"r","\u005fmeta":{"k":2}}}},` +
			`{"role":"assistant","content":{"type":"resource_link","uri":"v://l","name":"l"}}]`,
		mcp.Version20250326: `[{"role":"user","content":{"type":"text","text":"t","annotations":{"priority":1}}},` +
			`{"role":"user","content":{"type":"resource","resource":{"uri":"v://r","text":"r"}}},`,
	}
	want[mcp.Version20251125] = want[mcp.Version20260728]
	for _, era := range eras {
		r := rt{era: era, method: "prompts/get", id: 5, name: "p"}.send(t, url)
		if r.status != http.StatusOK || r.code() != 0 {
			t.Fatalf("%s: %d %s", era, r.status, r.raw)
		}
		got := string(r.field(t, "messages"))
		if era == mcp.Version20250326 {
			// The link is a text block naming its URI (its wording is
			// content.ResourceLink's).
			if !strings.HasPrefix(got, want[era]) || !strings.Contains(got[len(want[era]):], `"type":"text"`) || !strings.Contains(got[len(want[era]):], "v://l") || strings.Contains(got, "icons") {
				t.Errorf("%s: messages %s", era, got)
			}
			continue
		}
		if got != want[era] {
			t.Errorf("%s: messages\n%s, want\n%s", era, got, want[era])
		}
	}
}

// TestPrompts_FunctionOverResponseLimit: what a prompt function returns
// is bounded by Limits.ResponseBytes as a prompt route's answer and a
// tool function's result are: over it, the answer is -32603 (logged), in
// every revision, not a response of any size.
func TestPrompts_FunctionOverResponseLimit(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "v", Version: "1"})
	srv.AddPrompt(mcp.Prompt{Name: "sized", Arguments: []mcp.PromptArgument{{Name: "text"}, {Name: "description"}}},
		func(ctx context.Context, args map[string]string) (*mcp.PromptResult, error) {
			n, _ := strconv.Atoi(args["text"])
			d, _ := strconv.Atoi(args["description"])
			return &mcp.PromptResult{Description: strings.Repeat("d", d),
				Messages: []mcp.PromptMessage{{Role: content.User, Content: content.Text(strings.Repeat("x", n))}}}, nil
		})
	url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()},
		mcp.WithLimits(mcp.Limits{ResponseBytes: 1024}), mcp.WithLogger(slog.New(slog.DiscardHandler))))
	for _, era := range eras {
		for args, want := range map[string]int{
			`{"text":"500"}`: 0, `{"text":"2000"}`: -32603, `{"text":"10","description":"2000"}`: -32603,
		} {
			r := rt{era: era, method: "prompts/get", id: 5, name: "sized", args: args}.send(t, url)
			if r.status != http.StatusOK || r.code() != want {
				t.Errorf("%s %s: %d %s", era, args, r.status, r.raw)
			}
			if want != 0 && len(r.raw) > 1024 {
				t.Errorf("%s %s: %d bytes answered", era, args, len(r.raw))
			}
		}
	}
}

// TestCompletion_OverResponseLimit: the values a completion function
// returns (the 100 sent) are bounded by Limits.ResponseBytes like any
// function's result: over it, -32603 in every revision.
func TestCompletion_OverResponseLimit(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "v", Version: "1"})
	render := func(ctx context.Context, args map[string]string) (*mcp.PromptResult, error) { return nil, nil }
	srv.AddPrompt(mcp.Prompt{Name: "p", Arguments: []mcp.PromptArgument{{Name: "a"}}}, render,
		mcp.WithCompletion("a", func(ctx context.Context, value string, args map[string]string) ([]string, error) {
			n, _ := strconv.Atoi(value)
			out := make([]string, 150) // 50 past the 100 sent, which do not count
			for i := range out {
				out[i] = strings.Repeat("v", n)
			}
			return out, nil
		}))
	url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()},
		mcp.WithLimits(mcp.Limits{ResponseBytes: 1000}), mcp.WithLogger(slog.New(slog.DiscardHandler))))
	for _, era := range eras {
		for value, want := range map[string]int{"10": 0, "11": -32603} {
			c := call{era: era, id: "5", method: "completion/complete",
				params: `"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":"` + value + `"}`}
			req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(c.body()))
			req.Header = headersFor(c)
			r := send(t, req)
			if r.status != http.StatusOK || r.code() != want {
				t.Errorf("%s: values of %s bytes: %d %.300s", era, value, r.status, r.raw)
			}
		}
	}
}

// TestToolRoute_OwnBlocksByRevision: a tool route's own result
// (ToolResultMediaType) is written once for every revision, as a prompt
// route's blocks are; each revision is sent the members it has: no _meta
// on blocks, nor lastModified, before 2025-06-18, no icons before
// 2025-11-25, and a resource link as a text block for 2025-03-26, which
// has none. A block that is not an object is left as written.
func TestToolRoute_OwnBlocksByRevision(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /own", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", mcp.ToolResultMediaType)
		io.WriteString(w, `{"content":[`+
			`{"type":"text","text":"t","annotations":{"priority":1,"lastModified":"2026-01-01T00:00:00Z"},"_meta":{"k":1}},`+
			`{"type":"resource","resource":{"uri":"v://r","text":"r","\u005fmeta":{"k":2}}},`+
			`{"type":"resource_link","uri":"v://l","name":"l","icons":[{"src":"https://x/i.png"}]}]}`)
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "v", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "own", InputSchema: json.RawMessage(`{"type":"object"}`)}, "GET /own", mux)
	url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}))
	want := map[mcp.Version]string{
		mcp.Version20260728: `[{"type":"text","text":"t","annotations":{"priority":1,"lastModified":"2026-01-01T00:00:00Z"},"_meta":{"k":1}},` +
			`{"type":"resource","resource":{"uri":"v://r","text":"r","\u005fmeta":{"k":2}}},` +
			`{"type":"resource_link","uri":"v://l","name":"l","icons":[{"src":"https://x/i.png"}]}]`,
		mcp.Version20250618: `[{"type":"text","text":"t","annotations":{"priority":1,"lastModified":"2026-01-01T00:00:00Z"},"_meta":{"k":1}},` +
			`{"type":"resource","resource":{"uri":"v://r","text":"r","\u005fmeta":{"k":2}}},` +
			`{"type":"resource_link","uri":"v://l","name":"l"}]`,
		mcp.Version20250326: `[{"type":"text","text":"t","annotations":{"priority":1}},` +
			`{"type":"resource","resource":{"uri":"v://r","text":"r"}},`,
	}
	want[mcp.Version20251125] = want[mcp.Version20260728]
	for _, era := range eras {
		r := rt{era: era, id: 5, name: "own", args: `{}`}.send(t, url)
		if r.status != http.StatusOK || r.code() != 0 {
			t.Fatalf("%s: %d %s", era, r.status, r.raw)
		}
		got := string(r.field(t, "content"))
		if era == mcp.Version20250326 {
			rest := strings.TrimPrefix(got, want[era])
			if rest == got || !strings.Contains(rest, `"type":"text"`) || !strings.Contains(rest, "v://l") || strings.Contains(got, "icons") || strings.Contains(got, "resource_link") {
				t.Errorf("%s: content %s", era, got)
			}
			continue
		}
		if got != want[era] {
			t.Errorf("%s: content\n%s, want\n%s", era, got, want[era])
		}
	}
}
