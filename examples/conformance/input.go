package main

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/content"
)

var nameForm = schema(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)

// field returns a string member of an accepted form.
func field(content json.RawMessage, name string) string {
	var m map[string]any
	_ = json.Unmarshal(content, &m)
	s, _ := m[name].(string)
	return s
}

// sampled returns the text of a sampling answer.
func sampled(v json.RawMessage) string {
	var res struct {
		Content json.RawMessage `json:"content"`
	}
	_ = json.Unmarshal(v, &res)
	var block struct{ Text string }
	if json.Unmarshal(res.Content, &block) != nil {
		var blocks []struct{ Text string }
		_ = json.Unmarshal(res.Content, &blocks)
		for _, b := range blocks {
			block.Text += b.Text
		}
	}
	return block.Text
}

func question(key, q string, maxTokens int) mcp.InputRequest {
	return mcp.Sample(key, mcp.SamplingRequest{Messages: []mcp.SamplingMessage{{Role: content.User, Content: content.Text(q)}}, MaxTokens: maxTokens})
}

func arg(r *http.Request, name string) string {
	var m map[string]any
	_ = json.NewDecoder(r.Body).Decode(&m)
	s, _ := m[name].(string)
	return s
}

func addInputTools(srv *mcp.Server, mux *http.ServeMux) {
	tool(srv, mux, "test_missing_capability", "Needs the client's sampling capability.", empty, func(w http.ResponseWriter, r *http.Request) {
		call := mcp.CallFromContext(r.Context())
		if v, ok := call.InputResponse("answer"); ok {
			text(w, "Sampling answered: "+sampled(v))
			return
		}
		call.RequireInput(nil, question("answer", "Say hello.", 20))
	})
	tool(srv, mux, "test_sampling", "Asks the client's model.", schema(`{"type":"object","properties":{"prompt":{"type":"string"}},"required":["prompt"]}`),
		func(w http.ResponseWriter, r *http.Request) {
			call := mcp.CallFromContext(r.Context())
			if v, ok := call.InputResponse("sampling"); ok {
				text(w, "LLM response: "+sampled(v))
				return
			}
			call.RequireInput(nil, question("sampling", arg(r, "prompt"), 100))
		})
	tool(srv, mux, "test_elicitation", "Asks the user.", schema(`{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`),
		func(w http.ResponseWriter, r *http.Request) {
			call := mcp.CallFromContext(r.Context())
			if a, ok := call.Elicitation("elicitation"); ok {
				text(w, "User response: action="+string(a.Action)+", content="+string(a.Content))
				return
			}
			call.RequireInput(nil, mcp.ElicitForm("elicitation", arg(r, "message"),
				schema(`{"type":"object","properties":{"username":{"type":"string","description":"User's name"},"email":{"type":"string","description":"User's email address"}},"required":["username","email"]}`)))
		})
	tool(srv, mux, "test_elicitation_sep1034_defaults", "A form with defaults.", empty, func(w http.ResponseWriter, r *http.Request) {
		call := mcp.CallFromContext(r.Context())
		if a, ok := call.Elicitation("defaults"); ok {
			text(w, "Elicitation completed: action="+string(a.Action)+", content="+string(a.Content))
			return
		}
		call.RequireInput(nil, mcp.ElicitForm("defaults", "Please review and update the form fields with defaults", schema(`{"type":"object","properties":{
			"name":{"type":"string","description":"User name","default":"John Doe"},
			"age":{"type":"integer","description":"User age","default":30},
			"score":{"type":"number","description":"User score","default":95.5},
			"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},
			"verified":{"type":"boolean","description":"Verification status","default":true}},"required":[]}`)))
	})
	tool(srv, mux, "test_elicitation_sep1330_enums", "A form with every enum shape.", empty, func(w http.ResponseWriter, r *http.Request) {
		call := mcp.CallFromContext(r.Context())
		if a, ok := call.Elicitation("enums"); ok {
			text(w, "Elicitation completed: action="+string(a.Action)+", content="+string(a.Content))
			return
		}
		call.RequireInput(nil, mcp.ElicitForm("enums", "Please select options from the enum fields", schema(`{"type":"object","properties":{
			"untitledSingle":{"type":"string","description":"Select one option","enum":["option1","option2","option3"]},
			"titledSingle":{"type":"string","description":"Select one option with titles","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},
			"legacyEnum":{"type":"string","description":"Select one option (legacy)","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},
			"untitledMulti":{"type":"array","description":"Select multiple options","minItems":1,"maxItems":3,"items":{"type":"string","enum":["option1","option2","option3"]}},
			"titledMulti":{"type":"array","description":"Select multiple options with titles","minItems":1,"maxItems":3,"items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}},"required":[]}`)))
	})

	// The MRTR scenarios of revision 2026-07-28.
	tool(srv, mux, "test_input_required_result_elicitation", "Asks for a name, then greets.", empty, func(w http.ResponseWriter, r *http.Request) {
		call := mcp.CallFromContext(r.Context())
		if a, ok := call.Elicitation("user_name"); ok && a.Action == mcp.ElicitAccept && field(a.Content, "name") != "" {
			text(w, "Hello, "+field(a.Content, "name")+"!")
			return
		}
		call.RequireInput(nil, mcp.ElicitForm("user_name", "What is your name?", nameForm))
	})
	tool(srv, mux, "test_input_required_result_sampling", "Asks the client's model a question.", empty, func(w http.ResponseWriter, r *http.Request) {
		call := mcp.CallFromContext(r.Context())
		if v, ok := call.InputResponse("capital_question"); ok {
			text(w, "The model answered: "+sampled(v))
			return
		}
		call.RequireInput(nil, question("capital_question", "What is the capital of France?", 100))
	})
	tool(srv, mux, "test_input_required_result_list_roots", "Asks for the client's roots.", empty, func(w http.ResponseWriter, r *http.Request) {
		call := mcp.CallFromContext(r.Context())
		if v, ok := call.InputResponse("client_roots"); ok {
			text(w, "Client roots: "+string(v))
			return
		}
		call.RequireInput(nil, mcp.ListRoots("client_roots"))
	})
	tool(srv, mux, "test_input_required_result_request_state", "Carries state between rounds.", empty, func(w http.ResponseWriter, r *http.Request) {
		call := mcp.CallFromContext(r.Context())
		if _, ok := call.Elicitation("confirm"); ok && string(call.State()) == "state-ok" {
			text(w, "Request state verified: state-ok")
			return
		}
		call.RequireInput([]byte("state-ok"), mcp.ElicitForm("confirm", "Please confirm to continue",
			schema(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)))
	})
	tool(srv, mux, "test_input_required_result_multiple_inputs", "Asks three questions at once.", empty, func(w http.ResponseWriter, r *http.Request) {
		call := mcp.CallFromContext(r.Context())
		name, nameOK := call.Elicitation("user_name")
		greeting, greetOK := call.InputResponse("greeting")
		roots, rootsOK := call.InputResponse("client_roots")
		if nameOK && greetOK && rootsOK {
			text(w, "Name: "+field(name.Content, "name")+"; greeting: "+sampled(greeting)+"; roots: "+string(roots))
			return
		}
		call.RequireInput([]byte("multi"),
			mcp.ElicitForm("user_name", "What is your name?", nameForm),
			question("greeting", "Write a short greeting.", 50),
			mcp.ListRoots("client_roots"))
	})
	tool(srv, mux, "test_input_required_result_multi_round", "Asks two questions, one round each.", empty, func(w http.ResponseWriter, r *http.Request) {
		call := mcp.CallFromContext(r.Context())
		state := string(call.State())
		if a, ok := call.Elicitation("step2"); ok && strings.HasPrefix(state, "step2:") {
			text(w, "Hello, "+strings.TrimPrefix(state, "step2:")+"! Your favorite color is "+field(a.Content, "color")+".")
			return
		}
		if a, ok := call.Elicitation("step1"); ok && state == "step1" {
			call.RequireInput([]byte("step2:"+field(a.Content, "name")), mcp.ElicitForm("step2", "What is your favorite color?",
				schema(`{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}`)))
			return
		}
		call.RequireInput([]byte("step1"), mcp.ElicitForm("step1", "What is your name?", nameForm))
	})
	tool(srv, mux, "test_input_required_result_tampered_state", "Refuses a state it did not seal.", empty, func(w http.ResponseWriter, r *http.Request) {
		call := mcp.CallFromContext(r.Context())
		if _, ok := call.Elicitation("confirm"); ok && string(call.State()) == "sealed" {
			text(w, "State verified")
			return
		}
		call.RequireInput([]byte("sealed"), mcp.ElicitForm("confirm", "Please confirm",
			schema(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)))
	})
	tool(srv, mux, "test_input_required_result_capabilities", "Asks only for what the client declared.", empty, func(w http.ResponseWriter, r *http.Request) {
		call := mcp.CallFromContext(r.Context())
		if call.State() != nil {
			text(w, "Input received")
			return
		}
		var reqs []mcp.InputRequest
		if call.Supports(mcp.CapElicitationForm) {
			reqs = append(reqs, mcp.ElicitForm("user_name", "What is your name?", nameForm))
		}
		if call.Supports(mcp.CapSampling) {
			reqs = append(reqs, question("greeting", "Write a short greeting.", 50))
		}
		if call.Supports(mcp.CapRoots) {
			reqs = append(reqs, mcp.ListRoots("client_roots"))
		}
		if len(reqs) == 0 {
			text(w, "The client declared no input capability; nothing to ask")
			return
		}
		call.RequireInput([]byte("asked"), reqs...)
	})
}
