package mcp

import (
	"encoding/json"
	"testing"
)

// TestElicitFormObjects checks that a form whose requestedSchema holds a
// boolean property schema is refused with where, as a tool's schema is
// at registration; booleans that are values (a default) are fine.
func TestElicitFormObjects(t *testing.T) {
	r := ElicitForm("k", "Pick", json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean","default":false},"x":true}}`))
	if want := "requestedSchema.properties.x: a property schema must be an object"; r.err == nil || r.err.Error() != want {
		t.Errorf("%v, want %s", r.err, want)
	}
	if r := ElicitForm("k", "Pick", confirmSchema); r.err != nil {
		t.Errorf("the confirmation form: %v", r.err)
	}
}
