// Package apps describes MCP Apps (the io.modelcontextprotocol/ui
// extension, stable 2026-01-26): a tool may name an interactive HTML view,
// a "ui://" resource that the client renders in a sandboxed frame and
// that may call the server's tools back.
//
// The types here are plain data. A tool carries a ToolUI in mcp.Tool.UI
// and a view carries a ResourceUI in mcp.Resource.UI; package mcp checks
// them at registration, renders them as the definitions' _meta.ui,
// announces the extension in server/discover, and hides tools whose
// visibility is App alone from every request whose client did not declare
// the extension.
package apps

// Extension is the extension's name in capabilities.extensions.
const Extension = "io.modelcontextprotocol/ui"

// MIMEType is the media type of a view's resource: a complete HTML
// document. A "ui://" resource registered without a MIME type gets it.
const MIMEType = "text/html;profile=mcp-app"

// Visibility says who may use a tool.
type Visibility string

const (
	// Model: the tool is listed to the model and the model may call it.
	Model Visibility = "model"
	// App: a view of this server may call the tool.
	App Visibility = "app"
)

// ToolUI is a tool's _meta.ui.
type ToolUI struct {
	// ResourceURI names the "ui://" resource that renders the tool's
	// results. It must be registered on the same server by the time the
	// handler is built.
	ResourceURI string `json:"resourceUri,omitempty"`
	// Visibility defaults to both Model and App. []Visibility{App} makes
	// the tool app-only: a client that did not declare the extension
	// neither sees it listed nor may call it.
	Visibility []Visibility `json:"visibility,omitempty"`
}

// ResourceUI is a view's _meta.ui: what the host's sandbox must allow.
// The zero value asks for nothing external, which hosts answer with their
// most restrictive policy.
type ResourceUI struct {
	CSP         CSP         `json:"csp,omitzero"`
	Permissions Permissions `json:"permissions,omitzero"`
	// Domain asks for a dedicated sandbox origin; its format is the
	// host's.
	Domain string `json:"domain,omitempty"`
	// PrefersBorder asks the host for a visible border and background
	// (true) or none (false); nil leaves it to the host.
	PrefersBorder *bool `json:"prefersBorder,omitempty"`
}

// CSP lists the origins a view may reach, such as "https://api.example.com"
// or "https://*.example.com". Empty lists allow none.
type CSP struct {
	ConnectDomains  []string `json:"connectDomains,omitempty"`  // fetch, XHR, WebSocket (connect-src)
	ResourceDomains []string `json:"resourceDomains,omitempty"` // scripts, styles, images, fonts, media
	FrameDomains    []string `json:"frameDomains,omitempty"`    // nested frames (frame-src)
	BaseURIDomains  []string `json:"baseUriDomains,omitempty"`  // base-uri
}

// Permissions are the browser features a view asks for; hosts may grant
// them or not.
type Permissions struct {
	Camera         bool
	Microphone     bool
	Geolocation    bool
	ClipboardWrite bool
}

// MarshalJSON renders each requested permission as an empty object, the
// extension's form ({"camera": {}}).
func (p Permissions) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for _, f := range []struct {
		on   bool
		name string
	}{{p.Camera, "camera"}, {p.Microphone, "microphone"}, {p.Geolocation, "geolocation"}, {p.ClipboardWrite, "clipboardWrite"}} {
		if f.on {
			if len(b) > 1 {
				b = append(b, ',')
			}
			b = append(b, `"`+f.name+`":{}`...)
		}
	}
	return append(b, '}'), nil
}
