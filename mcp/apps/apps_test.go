package apps_test

import (
	"encoding/json"
	"testing"

	"github.com/mcpdual/mcpdual/mcp/apps"
)

// TestMarshal pins the extension's JSON forms: permissions as empty
// objects, empty parts left out.
func TestMarshal(t *testing.T) {
	no := false
	for _, c := range []struct {
		v    any
		want string
	}{
		{apps.ResourceUI{}, `{}`},
		{apps.ResourceUI{PrefersBorder: &no}, `{"prefersBorder":false}`},
		{apps.Permissions{Camera: true, Microphone: true, Geolocation: true, ClipboardWrite: true}, `{"camera":{},"microphone":{},"geolocation":{},"clipboardWrite":{}}`},
		{apps.ResourceUI{Permissions: apps.Permissions{Microphone: true}, CSP: apps.CSP{BaseURIDomains: []string{"https://a.example"}}},
			`{"csp":{"baseUriDomains":["https://a.example"]},"permissions":{"microphone":{}}}`},
		{apps.ToolUI{ResourceURI: "ui://a/b", Visibility: []apps.Visibility{apps.Model, apps.App}}, `{"resourceUri":"ui://a/b","visibility":["model","app"]}`},
	} {
		b, err := json.Marshal(c.v)
		if err != nil || string(b) != c.want {
			t.Errorf("%#v: %s %v, want %s", c.v, b, err, c.want)
		}
	}
}
