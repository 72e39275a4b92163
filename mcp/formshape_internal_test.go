package mcp

import (
	"encoding/json"
	"testing"
)

// TestFormShape_SpecSchemas: every requestedSchema shape the
// 2025-06-18, 2025-11-25 and 2026-07-28 schemas define is accepted.
func TestFormShape_SpecSchemas(t *testing.T) {
	props := []string{
		`{"type":"string","title":"T","description":"D","minLength":3,"maxLength":50,"format":"email","default":"a@b.c"}`,
		`{"type":"string","format":"date-time"}`,
		`{"type":"number","minimum":0,"maximum":100,"default":50}`,
		`{"type":"integer","default":5}`,
		`{"type":"boolean","default":false}`,
		`{"type":"boolean","default":true}`,
		`{"type":"string","enum":["Red","Green"],"default":"Red"}`,
		`{"type":"string","enum":["r","g"],"enumNames":["Red","Green"]}`,
		`{"type":"string","oneOf":[{"const":"#f00","title":"Red"},{"const":"#0f0","title":"Green"}],"default":"#f00"}`,
		`{"type":"array","minItems":1,"maxItems":2,"items":{"type":"string","enum":["Red","Green"]},"default":["Red"]}`,
		`{"type":"array","items":{"anyOf":[{"const":"#f00","title":"Red"},{"const":"#0f0","title":"Green"}]},"default":["#f00"]}`,
	}
	for _, p := range props {
		schema := json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"p":` + p + `},"required":["p"]}`)
		if r := ElicitForm("k", "Please", schema); r.err != nil {
			t.Errorf("%s: refused: %v", p, r.err)
		}
	}
}
