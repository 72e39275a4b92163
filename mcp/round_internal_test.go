package mcp

import (
	"encoding/json"
	"testing"
)

// TestParseRoundState: what an earlier round minted reads back, and
// anything else is refused, though the plaintext is authenticated.
func TestParseRoundState(t *testing.T) {
	minted, err := json.Marshal(roundState{V: 1, Purpose: purposeTool,
		Keys: map[string]string{"who": "elicitation", "llm": "sampling", `odd"key`: "roots"}, Payload: []byte("page=2")})
	if err != nil {
		t.Fatal(err)
	}
	st, ok := parseRoundState(minted)
	if !ok || st.purpose != purposeTool || string(st.payload) != "page=2" {
		t.Fatalf("parseRoundState(%s) = %+v, %v", minted, st, ok)
	}
	for key, want := range map[string]string{"who": "elicitation", "llm": "sampling", `odd"key`: "roots"} {
		if got, ok := st.kind(key); !ok || got != want {
			t.Errorf("kind(%q) = %q, %v; want %q", key, got, ok, want)
		}
	}
	if _, ok := st.kind("other"); ok {
		t.Error("kind of a key the state did not ask for")
	}
	for _, bad := range []string{
		``, `[]`, `{}`, `{"v":2,"u":"tool","k":{}}`, `{"v":1,"u":"other","k":{}}`, `{"v":1,"k":{}}`,
		`{"v":1,"u":"tool","k":[]}`, `{"v":1,"u":"tool","k":{"a":1}}`, `{"v":1,"u":"tool","p":"%%%"}`,
		`{"v":1,"u":"tool","p":3}`, `{"v":1,"u":"tool","u":"confirm"}`, `{"v":1,"u":"tool"`,
	} {
		if st, ok := parseRoundState([]byte(bad)); ok {
			t.Errorf("parseRoundState(%s) = %+v, want refused", bad, st)
		}
	}
	if st, ok := parseRoundState([]byte(`{"v":1,"u":"confirm","k":{"confirm":"elicitation"},"p":null}`)); !ok || st.purpose != purposeConfirm || st.payload != nil {
		t.Errorf("confirm state: %+v, %v", st, ok)
	}
}
