package auth

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
)

func TestMetadataPaths(t *testing.T) {
	cases := []struct {
		resource string
		paths    []string
		url      string
	}{
		{"https://mcp.example.com/mcp", []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"},
			"https://mcp.example.com/.well-known/oauth-protected-resource/mcp"},
		{"https://mcp.example.com/tenant/a/mcp", []string{"/.well-known/oauth-protected-resource/tenant/a/mcp", "/.well-known/oauth-protected-resource"},
			"https://mcp.example.com/.well-known/oauth-protected-resource/tenant/a/mcp"},
		{"https://mcp.example.com", []string{"/.well-known/oauth-protected-resource"}, "https://mcp.example.com/.well-known/oauth-protected-resource"},
		{"https://mcp.example.com/", []string{"/.well-known/oauth-protected-resource"}, "https://mcp.example.com/.well-known/oauth-protected-resource"},
		{"http://127.0.0.1:8080/mcp", []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"},
			"http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp"},
	}
	for _, c := range cases {
		if got := MetadataPaths(c.resource); !reflect.DeepEqual(got, c.paths) {
			t.Errorf("MetadataPaths(%s) = %v, want %v", c.resource, got, c.paths)
		}
		if got := MetadataURL(c.resource); got != c.url {
			t.Errorf("MetadataURL(%s) = %s, want %s", c.resource, got, c.url)
		}
	}
}

func get(t *testing.T, h http.Handler, method, host string) (*http.Response, []byte) {
	t.Helper()
	r := httptest.NewRequest(method, "http://127.0.0.1/.well-known/oauth-protected-resource/mcp", nil)
	r.Host = host
	r.Header.Set("X-Forwarded-Host", "evil.example.com")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	body, _ := io.ReadAll(w.Result().Body)
	return w.Result(), body
}

// TestMetadataHandler validates the document field by field, and that
// nothing in the request can change it.
func TestMetadataHandler(t *testing.T) {
	h := NewMetadataHandler(ResourceMetadata{
		Resource:              resource,
		AuthorizationServers:  []string{"https://as.example.com"},
		ScopesSupported:       []string{"mcp:read"},
		ResourceName:          "Example MCP",
		ResourceDocumentation: "https://docs.example.com/mcp",
	})
	resp, body := get(t, h, http.MethodGet, "mcp.example.com")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("status %d, headers %v", resp.StatusCode, resp.Header)
	}
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"resource":                 resource,
		"authorization_servers":    []any{"https://as.example.com"},
		"scopes_supported":         []any{"mcp:read"},
		"bearer_methods_supported": []any{"header"},
		"resource_name":            "Example MCP",
		"resource_documentation":   "https://docs.example.com/mcp",
	}
	if len(doc) != len(want) {
		t.Errorf("document has %d fields, want %d: %s", len(doc), len(want), body)
	}
	for k, v := range want {
		if !reflect.DeepEqual(doc[k], v) {
			t.Errorf("%s = %v, want %v", k, doc[k], v)
		}
	}
	// Another Host (or a forged X-Forwarded-Host) gets the same bytes.
	_, other := get(t, h, http.MethodGet, "evil.example.com")
	if string(other) != string(body) {
		t.Errorf("document depends on Host:\n%s\n%s", body, other)
	}
	if resp, b := get(t, h, http.MethodHead, "mcp.example.com"); resp.StatusCode != 200 || len(b) != 0 {
		t.Errorf("HEAD: %d, %d bytes", resp.StatusCode, len(b))
	}
	if resp, _ := get(t, h, http.MethodOptions, "mcp.example.com"); resp.StatusCode != 204 || resp.Header.Get("Access-Control-Allow-Methods") == "" {
		t.Errorf("OPTIONS: %d %v", resp.StatusCode, resp.Header)
	}
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete} {
		if resp, _ := get(t, h, m, "mcp.example.com"); resp.StatusCode != 405 || resp.Header.Get("Allow") != "GET, HEAD, OPTIONS" {
			t.Errorf("%s: %d %v", m, resp.StatusCode, resp.Header)
		}
	}
}

func TestMetadataHandler_Misuse(t *testing.T) {
	cases := map[string]ResourceMetadata{
		"no resource":          {AuthorizationServers: []string{"https://as.example.com"}},
		"no servers":           {Resource: resource},
		"server not https":     {Resource: resource, AuthorizationServers: []string{"http://as.example.com"}},
		"resource with query":  {Resource: resource + "?a=1", AuthorizationServers: []string{"https://as.example.com"}},
		"scope with a space":   {Resource: resource, AuthorizationServers: []string{"https://as.example.com"}, ScopesSupported: []string{"a b"}},
		"relative server":      {Resource: resource, AuthorizationServers: []string{"as.example.com"}},
		"uppercase resource":   {Resource: "https://MCP.example.com/mcp", AuthorizationServers: []string{"https://as.example.com"}},
		"resource is fragment": {Resource: resource + "#f", AuthorizationServers: []string{"https://as.example.com"}},
	}
	for name, m := range cases {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			NewMetadataHandler(m)
		}()
	}
}

func TestAuthorizationServerMirror(t *testing.T) {
	doc := []byte(`{"issuer":"https://as.example.com","authorization_endpoint":"https://as.example.com/authorize"}`)
	h := NewAuthorizationServerMirror(doc)
	doc[2] = 'X' // the handler keeps its own copy
	resp, body := get(t, h, http.MethodGet, "mcp.example.com")
	if resp.StatusCode != 200 || string(body) != `{"issuer":"https://as.example.com","authorization_endpoint":"https://as.example.com/authorize"}` {
		t.Errorf("%d %s", resp.StatusCode, body)
	}
	for _, bad := range []string{`[]`, `{}`, `{"issuer":""}`, `{"issuer":1}`, `not json`} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", bad)
				}
			}()
			NewAuthorizationServerMirror([]byte(bad))
		}()
	}
}
