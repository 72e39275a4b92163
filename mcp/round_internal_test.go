package mcp

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
)

// TestParseRoundState: what an earlier round minted reads back, and
// anything else is refused, though the plaintext is authenticated.
func TestParseRoundState(t *testing.T) {
	minted, err := json.Marshal(roundState{V: 1, Purpose: purposeTool,
		Keys: map[string]string{"who": "elicitation", "llm": "sampling", `odd"key`: "roots"}, Payload: []byte("page=2"),
		Forms: map[string]string{"who": `{"type":"object","properties":{"t":{"type":"array","items":{"anyOf":[{"const":"a"}]}}}}`}})
	if err != nil {
		t.Fatal(err)
	}
	st, ok := parseRoundState(minted)
	// A form's keywords are text in a string: however deep the form, the
	// plaintext is not.
	if !ok || st.purpose != purposeTool || string(st.payload) != "page=2" ||
		string(st.forms) != `{"who":"{\"type\":\"object\",\"properties\":{\"t\":{\"type\":\"array\",\"items\":{\"anyOf\":[{\"const\":\"a\"}]}}}}"}` {
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
		`{"v":1,"u":"tool","k":{},"f":[]}`, `{"v":1,"u":"tool","k":{},"f":{"a":{}}}`, `{"v":1,"u":"tool","k":{},"f":{"a":[]}}`,
		`{"v":1,"u":"tool","k":{},"f":{"a":1}}`, `{"v":1,"u":"tool","k":{"a":{"b":{"c":{}}}}}`,
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
	for _, form := range []string{
		`"{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"string\",\"minLength\":\"x\"}}}"`,
		`"x"`, `"[]"`, `"{"`, `""`,
	} {
		st, ok := parseRoundState([]byte(`{"v":1,"u":"tool","k":{"f":"elicitation"},"f":{"f":` + form + `}}`))
		if !ok {
			t.Fatalf("%s: the state was refused", form)
		}
		rd := &round{state: st, responses: []byte(`{"f":{"action":"accept","content":{"n":"a"}}}`)}
		if _, ok, err := rd.answer("f", &Handler{}); ok || err != errFormKeywords {
			t.Errorf("%s: answer: %v, %v", form, ok, err)
		}
	}
	st, _ := parseRoundState([]byte(`{"v":1,"u":"tool","k":{"f":"elicitation"},"f":{"f":"x"}}`))
	rd := &round{state: st}
	// A decline submits nothing to check.
	rd.responses = []byte(`{"f":{"action":"decline"}}`)
	if v, ok, err := rd.answer("f", &Handler{}); !ok || err != nil || string(v) != `{"action":"decline"}` {
		t.Errorf("decline: %s, %v, %v", v, ok, err)
	}
}

// TestRoundState_FormReadByEarlierReplicas: a handler's round that asked
// a form mints a plaintext that a replica of the version before the form
// check still opens during a rollout. Such a replica refuses a plaintext
// nested deeper than 4 levels (its parseRoundState) and ignores members it
// does not know, so the form's keywords travel as a string, however deep
// the form: that replica answers unchecked, as record 004 says, rather
// than refusing the retry as an invalid state. This version reads the
// keywords back and checks the answer against them.
func TestRoundState_FormReadByEarlierReplicas(t *testing.T) {
	const earlierDepth = 4 // parseRoundState's bound before "f"
	h := &Handler{}
	req := &request{envelope: envelope{handler: h}}
	req.capBits = CapElicitationForm | capMultiSelect
	form := `{"type":"object","properties":{"tags":{"type":"array","items":{"anyOf":[{"const":"a","title":"A"}]}},` +
		`"n":{"type":"integer","maximum":9,"description":"<&>"}},"required":["n"]}`
	ir, err := req.inputRequired(purposeTool, []byte("page=2"), []InputRequest{ElicitForm("who", "Tell us", json.RawMessage(form))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := jsonrpc.Validate(ir.State, earlierDepth); err != nil {
		t.Fatalf("an earlier replica refuses %s: %v", ir.State, err)
	}
	st, ok := parseRoundState(ir.State)
	if !ok || st.purpose != purposeTool || string(st.payload) != "page=2" {
		t.Fatalf("parseRoundState(%s) = %+v, %v", ir.State, st, ok)
	}
	for answer, violation := range map[string]string{
		`{"action":"accept","content":{"n":9,"tags":["a"]}}`: "",
		`{"action":"accept","content":{"n":10}}`:             "/n: maximum: want 9",
		`{"action":"accept","content":{"tags":["b"]}}`:       "/: missing property 'n'",
	} {
		rd := &round{state: st, responses: []byte(`{"who":` + answer + `}`)}
		_, ok, err := rd.answer("who", h)
		var e *Error
		switch {
		case violation == "" && (!ok || err != nil):
			t.Errorf("%s: %v, %v", answer, ok, err)
		case violation != "" && (!errors.As(err, &e) || e.data.(map[string]string)["violation"] != violation):
			t.Errorf("%s: %v, want the violation %q", answer, err, violation)
		}
	}
}
