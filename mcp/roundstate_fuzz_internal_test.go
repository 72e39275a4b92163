package mcp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
)

// FuzzValidResponse: a client's answer to an elicitation, a sampling or a
// roots question is read on its raw bytes (validResponse walks them with
// jsonrpc's iterator), where the route it reaches decodes it with
// encoding/json. Whatever answer a validated body carries, validResponse
// takes it exactly when the answer, decoded by encoding/json, is what the
// question's kind defines: so no answer the checks pass decodes to
// something else, and none that decodes soundly is refused.
func FuzzValidResponse(f *testing.F) {
	for _, s := range []struct{ kind, v string }{
		{"elicitation", `{"action":"accept","content":{"name":"a","n":1,"ok":true,"tags":["x","y"]}}`},
		{"elicitation", `{"action":"decline"}`},
		{"elicitation", `{"action":"cancel","content":null}`},
		{"elicitation", `{"action":"acc\u0065pt","content":{"x":{"y":1}}}`},
		{"elicitation", `{"action":"accept","content":{"t":[1]}}`},
		{"elicitation", `{"action":"accept","content":{"t":null}}`},
		{"elicitation", `{"action":"accept","content":[]}`},
		{"sampling", `{"role":"assistant","model":"m","content":{"type":"text","text":"hi"}}`},
		{"sampling", `{"role":"user","model":"m","content":[{"type":"text","text":"hi"}]}`},
		{"sampling", `{"role":"system","model":"m","content":{}}`},
		{"sampling", `{"role":"user","model":null,"content":{}}`},
		{"roots", `{"roots":[{"uri":"file:///home"},{"uri":"FILE://x","name":"n"}]}`},
		{"roots", `{"roots":[{"uri":"https://x"}]}`},
		{"roots", `{"roots":[]}`},
		{"roots", `{"roots":[1]}`},
		{"other", `{}`},
	} {
		f.Add(s.kind, []byte(s.v))
	}
	f.Fuzz(func(t *testing.T, kind string, v []byte) {
		if len(v) > 4096 || jsonrpc.Validate(v, jsonrpc.DefaultMaxDepth) != nil {
			return // answers reach validResponse from a validated body
		}
		// A member's value, as jsonrpc.Lookup hands it over, has no white
		// space around it.
		v = bytes.TrimSpace(v)
		got, want := validResponse(kind, v), referenceResponse(kind, v)
		if got != want {
			t.Fatalf("validResponse(%q, %s) = %v; decoded by encoding/json it is %v", kind, v, got, want)
		}
	})
}

// referenceResponse is validResponse written over encoding/json's decoding.
func referenceResponse(kind string, v []byte) bool {
	var obj map[string]json.RawMessage
	if json.Unmarshal(v, &obj) != nil || obj == nil {
		return false
	}
	str := func(raw json.RawMessage) (string, bool) {
		var s *string
		if raw == nil || json.Unmarshal(raw, &s) != nil || s == nil {
			return "", false
		}
		return *s, true
	}
	switch kind {
	case "elicitation":
		switch a, _ := str(obj["action"]); a {
		case "accept", "decline", "cancel":
		default:
			return false
		}
		c, ok := obj["content"]
		if !ok || string(c) == "null" {
			return true
		}
		var form map[string]any
		if json.Unmarshal(c, &form) != nil || form == nil {
			return false
		}
		for _, fv := range form {
			switch fv := fv.(type) {
			case string, float64, bool:
			case []any:
				for _, e := range fv {
					if _, ok := e.(string); !ok {
						return false
					}
				}
			default:
				return false
			}
		}
		return true
	case "sampling":
		role, _ := str(obj["role"])
		_, named := str(obj["model"])
		var content any
		if obj["content"] == nil || json.Unmarshal(obj["content"], &content) != nil {
			return false
		}
		switch content.(type) {
		case map[string]any, []any:
		default:
			return false
		}
		return (role == "user" || role == "assistant") && named
	case "roots":
		var roots []json.RawMessage
		if obj["roots"] == nil || json.Unmarshal(obj["roots"], &roots) != nil || roots == nil {
			return false
		}
		for _, r := range roots {
			var root map[string]json.RawMessage
			if json.Unmarshal(r, &root) != nil || root == nil {
				return false
			}
			u, ok := str(root["uri"])
			if !ok || len(u) < len("file://") || !strings.EqualFold(u[:len("file://")], "file://") {
				return false
			}
		}
		return true
	}
	return false
}
