package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/mcp/apps"
)

// uiScheme starts the URI of every MCP Apps view.
const uiScheme = "ui://"

// itemMeta checks an item's _meta (Meta, with ui, the typed _meta.ui,
// already marshalled or nil) and renders the object definitions and
// contents carry, nil when there is none.
func itemMeta(meta json.RawMessage, ui []byte) ([]byte, error) {
	var b []byte
	if meta != nil {
		if !isObject(bytes.TrimSpace(meta)) || jsonrpc.Validate(meta, jsonrpc.DefaultMaxDepth) != nil {
			return nil, errors.New("field Meta must be a JSON object")
		}
		b = compact(meta)
		if _, has := jsonrpc.Lookup(b, "ui"); has {
			return nil, errors.New(`field Meta: set "ui" with the UI field, which is checked`)
		}
		if _, has := jsonrpc.Lookup(b, "ui/resourceUri"); has {
			return nil, errors.New(`field Meta: "ui/resourceUri" is the extension's withdrawn form; set UI.ResourceURI`)
		}
	}
	if ui == nil {
		return b, nil
	}
	if len(b) <= 2 {
		return append(append([]byte(`{"ui":`), ui...), '}'), nil
	}
	out := append([]byte(`{"ui":`), ui...)
	out = append(out, ',')
	return append(out, b[1:]...), nil
}

// toolUI checks a tool's UI and marshals it (nil without one). appOnly
// reports a visibility without Model.
func toolUI(u *apps.ToolUI) (b []byte, appOnly bool, err error) {
	if u == nil {
		return nil, false, nil
	}
	if u.ResourceURI == "" && len(u.Visibility) == 0 {
		return nil, false, errors.New("UI names neither a ResourceURI nor a Visibility")
	}
	if u.ResourceURI != "" {
		if !strings.HasPrefix(u.ResourceURI, uiScheme) {
			return nil, false, fmt.Errorf("UI.ResourceURI %q must be a %s URI", u.ResourceURI, uiScheme)
		}
		if err := checkURI(u.ResourceURI); err != nil {
			return nil, false, fmt.Errorf("UI.ResourceURI %q: %v", u.ResourceURI, err)
		}
	}
	var model, app bool
	for _, v := range u.Visibility {
		switch {
		case v == apps.Model && !model:
			model = true
		case v == apps.App && !app:
			app = true
		default:
			return nil, false, fmt.Errorf("UI.Visibility: %q is unknown or repeated (use apps.Model, apps.App)", v)
		}
	}
	b, _ = json.Marshal(u)
	return b, app && !model, nil
}

// resourceUI checks a view's URI, MIME type and UI, and marshals the UI.
// A "ui://" resource is a view: its MIME type is apps.MIMEType (the
// default); UI applies to views only.
func resourceUI(uri string, mimeType *string, u *apps.ResourceUI) ([]byte, bool, error) {
	view := strings.HasPrefix(uri, uiScheme)
	switch {
	case !view && u != nil:
		return nil, false, fmt.Errorf("UI describes an MCP Apps view, whose URI starts with %s", uiScheme)
	case !view:
		return nil, false, nil
	case *mimeType == "":
		*mimeType = apps.MIMEType
	case *mimeType != apps.MIMEType:
		return nil, false, fmt.Errorf("a %s resource is an MCP Apps view of MIME type %s, not %s", uiScheme, apps.MIMEType, *mimeType)
	}
	if u == nil {
		return nil, true, nil
	}
	c := u.CSP
	for _, list := range [][]string{c.ConnectDomains, c.ResourceDomains, c.FrameDomains, c.BaseURIDomains} {
		for _, d := range list {
			if !cspOrigin(d) {
				return nil, false, fmt.Errorf("UI.CSP: %q is not an origin such as https://api.example.com or https://*.example.com", d)
			}
		}
	}
	if strings.ContainsAny(u.Domain, " \t\r\n;,'\"") {
		return nil, false, fmt.Errorf("UI.Domain %q has a space, quote, comma or semicolon", u.Domain)
	}
	b, _ := json.Marshal(u)
	if string(b) == "{}" {
		return nil, true, nil
	}
	return b, true, nil
}

// cspOrigin reports whether d is an origin a Content-Security-Policy
// source list can hold as one token: scheme://host[:port], the host's
// leftmost label possibly "*". Anything else could smuggle a directive
// into the host's policy.
func cspOrigin(d string) bool {
	scheme, host, ok := strings.Cut(d, "://")
	if !ok || scheme == "" || host == "" || len(d) > 253+32 {
		return false
	}
	for i, r := range scheme {
		if !(r >= 'a' && r <= 'z' || i > 0 && (r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.')) {
			return false
		}
	}
	host = strings.TrimSuffix(host, "/")
	host = strings.TrimPrefix(host, "*.")
	for _, r := range host {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == ':' || r == '[' || r == ']') {
			return false
		}
	}
	return host != ""
}

// viewContent checks what a view's route answered: HTML, whatever its
// parameters (charset). Anything else is the host's mistake, logged once
// per view (a client may read it again and again), and read as an
// internal error.
func viewContent(req *request, uri string, mt string, logged *atomic.Bool) error {
	if mt == "text/html" {
		return nil
	}
	if logged.CompareAndSwap(false, true) {
		req.logError("mcp: an MCP Apps view's route answered something other than HTML", "uri", uri, "mediaType", mt)
	}
	return errInternal()
}

// compact returns doc without insignificant space (already validated).
func compact(doc []byte) []byte {
	if doc == nil {
		return nil
	}
	if jsonrpc.IsCompact(doc) {
		return bytes.Clone(doc) // a copy all the same, without json.Compact's scan
	}
	var buf bytes.Buffer
	buf.Grow(len(doc))
	if err := json.Compact(&buf, doc); err != nil {
		panic(err) // validated before
	}
	return buf.Bytes()
}
