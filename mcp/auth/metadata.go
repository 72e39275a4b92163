package auth

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// The well-known path prefixes of RFC 9728 and RFC 8414.
const (
	ProtectedResourcePath   = "/.well-known/oauth-protected-resource"
	AuthorizationServerPath = "/.well-known/oauth-authorization-server"
)

// ResourceMetadata is the RFC 9728 Protected Resource Metadata document.
// bearer_methods_supported is always ["header"]: MCP forbids tokens in the
// query string and never reads them from the body.
type ResourceMetadata struct {
	// Resource is the canonical resource URI, byte for byte the one
	// clients connect to and tokens are issued for. Required.
	Resource string `json:"resource"`
	// AuthorizationServers lists issuer identifiers (not discovery URLs).
	// MCP requires at least one.
	AuthorizationServers []string `json:"authorization_servers"`
	// ScopesSupported should be the minimal set for basic use; MCP asks
	// servers not to list offline_access.
	ScopesSupported       []string `json:"scopes_supported,omitempty"`
	ResourceName          string   `json:"resource_name,omitempty"`
	ResourceDocumentation string   `json:"resource_documentation,omitempty"`
	ResourcePolicyURI     string   `json:"resource_policy_uri,omitempty"`
	ResourceTOSURI        string   `json:"resource_tos_uri,omitempty"`
	JWKSURI               string   `json:"jwks_uri,omitempty"`
}

// MetadataURL returns the path-inserted well-known URL of the metadata of
// resource: https://api.example.com/mcp has its document at
// https://api.example.com/.well-known/oauth-protected-resource/mcp.
func MetadataURL(resource string) string {
	u, err := url.Parse(resource)
	if err != nil {
		return ""
	}
	return u.Scheme + "://" + u.Host + MetadataPaths(resource)[0]
}

// MetadataPaths returns the paths at which the metadata of resource is
// served: the path-inserted one first (clients try it first), then the
// root one, which is right when one resource lives on the host. For a
// resource at the root of its host both are the same and one is returned.
func MetadataPaths(resource string) []string {
	u, err := url.Parse(resource)
	if err != nil {
		return nil
	}
	p := strings.TrimSuffix(u.EscapedPath(), "/")
	if p == "" {
		return []string{ProtectedResourcePath}
	}
	return []string{ProtectedResourcePath + p, ProtectedResourcePath}
}

// NewMetadataHandler returns a handler serving m, to be mounted at each of
// MetadataPaths(m.Resource) outside the MCP endpoint: the document is
// public, so it needs no token and sends Access-Control-Allow-Origin: *.
// The document is rendered once from configuration; nothing in a request
// (Host, X-Forwarded-*) can change it. GET and HEAD are served, OPTIONS
// answers a CORS preflight, anything else is 405.
//
// It panics when m.Resource is not an absolute https URL (http on
// loopback), when AuthorizationServers is empty or holds one that is not,
// or when a scope has characters RFC 6750 does not allow.
func NewMetadataHandler(m ResourceMetadata) http.Handler {
	if err := checkResource(m.Resource); err != nil {
		panic("auth: ResourceMetadata.Resource: " + err.Error())
	}
	if len(m.AuthorizationServers) == 0 {
		panic("auth: ResourceMetadata needs at least one authorization server")
	}
	for _, as := range m.AuthorizationServers {
		if err := checkResource(as); err != nil {
			panic("auth: ResourceMetadata.AuthorizationServers: " + err.Error())
		}
	}
	for _, s := range m.ScopesSupported {
		mustScope(s)
	}
	doc := struct {
		ResourceMetadata
		BearerMethods []string `json:"bearer_methods_supported"`
	}{m, []string{"header"}}
	b, err := json.Marshal(doc)
	if err != nil {
		panic(err) // strings and string slices always marshal
	}
	return staticJSON(b)
}

// NewAuthorizationServerMirror returns a handler serving doc, a copy of the
// authorization server's RFC 8414 metadata, for 2025-03-26 clients: they
// never read Protected Resource Metadata and look for
// /.well-known/oauth-authorization-server on the MCP server's own origin.
// Mount it there only if such clients must log in. RFC 8414 says the
// document's issuer must match the URL it was fetched from, so strict
// clients refuse a mirror whose issuer names another host; an
// authorization server co-hosted on the MCP origin avoids the problem.
//
// It panics unless doc is a JSON object with a string "issuer".
func NewAuthorizationServerMirror(doc []byte) http.Handler {
	var probe struct {
		Issuer *string `json:"issuer"`
	}
	if err := json.Unmarshal(doc, &probe); err != nil || probe.Issuer == nil || *probe.Issuer == "" {
		panic("auth: authorization server metadata must be a JSON object with an issuer")
	}
	return staticJSON(append([]byte(nil), doc...))
}

type staticJSON []byte

func (b staticJSON) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", strconv.Itoa(len(b)))
		h.Set("Cache-Control", "public, max-age=3600")
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			_, _ = w.Write(b)
		}
	case http.MethodOptions:
		h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "MCP-Protocol-Version")
		w.WriteHeader(http.StatusNoContent)
	default:
		h.Set("Allow", "GET, HEAD, OPTIONS")
		w.WriteHeader(http.StatusMethodNotAllowed)
	}
}
