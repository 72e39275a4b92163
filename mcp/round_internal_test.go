package mcp

import (
	"encoding/json"
	"testing"
)

// TestParseRoundState: what an earlier round minted reads back, and
// anything else is refused, though the plaintext is authenticated.
func TestParseRoundState(t *testing.T) {
	minted, err := json.Marshal(roundState{V: 1, Purpose: purposeTool,
		Keys: map[string]string{"who": "elicitation", "llm": "sampling", `odd"key`: "roots"}, Payload: []byte("page=2"),
		Forms: map[string]json.RawMessage{"who": json.RawMessage(`{"type":"object","properties":{"t":{"type":"array","items":{"anyOf":[{"const":"a"}]}}}}`)}})
	if err != nil {
		t.Fatal(err)
	}
	st, ok := parseRoundState(minted)
	// A form's keywords nest below the plaintext as deep as the form does.
	if !ok || st.purpose != purposeTool || string(st.payload) != "page=2" ||
		string(st.forms) != `{"who":{"type":"object","properties":{"t":{"type":"array","items":{"anyOf":[{"const":"a"}]}}}}}` {
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
		`{"v":1,"u":"tool","k":{},"f":[]}`, `{"v":1,"u":"tool","k":{},"f":{"a":"x"}}`, `{"v":1,"u":"tool","k":{},"f":{"a":[]}}`,
	} {
		if st, ok := parseRoundState([]byte(bad)); ok {
			t.Errorf("parseRoundState(%s) = %+v, want refused", bad, st)
		}
	}
	if st, ok := parseRoundState([]byte(`{"v":1,"u":"confirm","k":{"confirm":"elicitation"},"p":null}`)); !ok || st.purpose != purposeConfirm || st.payload != nil {
		t.Errorf("confirm state: %+v, %v", st, ok)
	}
}

// TestRoundAnswer_FormThatDoesNotCompile: a state whose form does not
// compile (none this library seals: ElicitForm's schemas are compiled
// when asked) leaves the answer unread, an invalid state rather than an
// answer let through unchecked or one refused as the client's fault.
func TestRoundAnswer_FormThatDoesNotCompile(t *testing.T) {
	st, ok := parseRoundState([]byte(`{"v":1,"u":"tool","k":{"f":"elicitation"},"f":{"f":{"type":"object","properties":{"n":{"type":"string","minLength":"x"}}}}}`))
	if !ok {
		t.Fatal("the state was refused")
	}
	rd := &round{state: st, responses: []byte(`{"f":{"action":"accept","content":{"n":"a"}}}`)}
	if _, ok, err := rd.answer("f", &Handler{}); ok || err != errFormKeywords {
		t.Errorf("answer: %v, %v", ok, err)
	}
	// A decline submits nothing to check.
	rd.responses = []byte(`{"f":{"action":"decline"}}`)
	if v, ok, err := rd.answer("f", &Handler{}); !ok || err != nil || string(v) != `{"action":"decline"}` {
		t.Errorf("decline: %s, %v, %v", v, ok, err)
	}
}
