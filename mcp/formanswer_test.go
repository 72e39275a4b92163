package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mrtr"
)

// The forms the fixture's tools ask. profileForm holds only what every
// revision's forms can (primitives: a 2025-06-18 or 2025-03-26 client can
// be asked it), with annotations a state need not carry; tagsForm a
// multi-select of each spelling (2025-11-25 on) and no
// additionalProperties, so a property it does not declare is allowed.
const (
	profileForm = `{"type":"object","properties":{` +
		`"name":{"type":"string","title":"Name","description":"What we call you.","minLength":1,"maxLength":12},` +
		`"age":{"type":"integer","title":"Age","minimum":0,"maximum":130,"default":30},` +
		`"size":{"type":"string","enum":["s","m","l"],"enumNames":["Small","Medium","Large"]},` +
		`"colour":{"type":"string","oneOf":[{"const":"red","title":"Red"},{"const":"blue","title":"Blue"}]},` +
		`"score":{"type":"number","exclusiveMaximum":1},` +
		`"news":{"type":"boolean","default":false}},` +
		`"required":["name","age"],"additionalProperties":false}`
	tagsForm = `{"type":"object","properties":{` +
		`"tags":{"type":"array","minItems":1,"maxItems":2,"items":{"type":"string","enum":["a","b","c"]}},` +
		`"langs":{"type":"array","items":{"anyOf":[{"const":"go","title":"Go"},{"const":"c","title":"C"}]}}},` +
		`"required":["tags"]}`
	// brokenForm passes ElicitForm's shape check but is no schema
	// (minLength is a count): no answer could be checked against it.
	brokenForm         = `{"type":"object","properties":{"n":{"type":"string","minLength":"3"}}}`
	unknownDialectForm = `{"$schema":"https://example.com/no-such-dialect","type":"object","properties":{"n":{"type":"string"}}}`
)

// longForm is a form whose titles and descriptions alone would not fit a
// sealed state (mrtr.MaxMintBytes, 4 KiB): eight properties described at
// length, as a real form may be.
var longForm = func() string {
	var props []string
	for i := range 8 {
		props = append(props, fmt.Sprintf(`"f%d":{"type":"integer","minimum":0,"maximum":9,"title":"Field %d","description":%q}`,
			i, i, strings.Repeat("A long explanation of what this field is for. ", 10)))
	}
	return `{"type":"object","properties":{` + strings.Join(props, ",") + `},"required":["f0"]}`
}()

// formFixture is an endpoint whose tools ask a form and report what they
// were handed: every revision that carries elicitation, 2025 ones over
// their stream (WithLegacyInput, sealed sessions).
type formFixture struct {
	url  string
	seen chan string // "tool action content" per run with an answer
	log  syncBuffer
}

func newFormFixture(t *testing.T, opts ...mcp.HandlerOption) *formFixture {
	t.Helper()
	f := &formFixture{seen: make(chan string, 16)}
	srv := mcp.NewServer(mcp.Implementation{Name: "forms", Version: "1"})
	forms := map[string]string{"profile": profileForm, "tags": tagsForm, "long": longForm, "broken": brokenForm, "unknown_dialect": unknownDialectForm}
	for tool, form := range forms {
		mcp.AddToolFunc(srv, mcp.Tool{Name: tool, Description: "Asks a form."},
			func(ctx context.Context, in struct{}) (map[string]any, error) {
				c := mcp.CallFromContext(ctx)
				if e, ok := c.Elicitation("form"); ok {
					f.seen <- tool + " " + string(e.Action) + " " + string(e.Content)
					return map[string]any{"action": e.Action}, nil
				}
				c.RequireInput([]byte("asked"), mcp.ElicitForm("form", "Tell us", json.RawMessage(form)))
				return nil, nil
			})
	}
	ring := sessionRing(t, 11)
	a := auth.New(auth.Config{Resource: resourceURI, Verifier: auth.VerifierFunc(testVerifier)})
	opts = append([]mcp.HandlerOption{mcp.WithAuth(a), mcp.WithLogger(slog.New(slog.NewTextHandler(&f.log, nil))),
		mcp.WithLegacyInput(mcp.LegacyInput{Bus: &sharedBus{subs: map[string]chan []byte{}}})}, opts...)
	f.url = newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(era2026.WithSealer(mrtr.NewSealer(ring))),
		era2025.New(era2025.WithSessions(mrtr.NewSealer(ring), 0))}, opts...))
	return f
}

// refusal is what an answer the form does not allow gets: -32602, the
// key, and the first violation, never the value.
type refusal struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    struct {
		Reason    string `json:"reason"`
		Key       string `json:"key"`
		Violation string `json:"violation"`
	} `json:"data"`
}

// answerForm asks tool's form in revision v and answers it with answer
// (an ElicitResult): over a 2026-07-28 retry, or on a 2025 call's stream.
// It returns the JSON-RPC error the call ended with, nil when it ran.
func (f *formFixture) answerForm(t *testing.T, v mcp.Version, tool, result string) *refusal {
	t.Helper()
	alice := map[string]string{"Authorization": "Bearer " + tokAlice}
	if v == mcp.Version20260728 {
		in := asInterim(t, rt{name: tool, args: `{}`, caps: formCaps, header: alice}.send(t, f.url))
		r := rt{id: 2, name: tool, args: `{}`, caps: formCaps, header: alice, state: quoteJSON(in.RequestState),
			responses: `{"form":` + result + `}`}.send(t, f.url)
		if r.status != 200 {
			t.Fatalf("%s: HTTP %d %s", result, r.status, r.raw)
		}
		if r.code() == 0 {
			asResult(t, r)
			return nil
		}
		var env struct{ Error refusal }
		if err := json.Unmarshal(r.raw, &env); err != nil {
			t.Fatalf("%s: %s", result, r.raw)
		}
		return &env.Error
	}
	session := sessionFor(t, f.url, tokAlice, v, formCaps)
	s := openCall(t, f.url, tokAlice, session, v, tool)
	q := s.next(t)
	if q["method"] != "elicitation/create" {
		t.Fatalf("%s: question %v", v, q)
	}
	if got := answer(t, f.url, tokAlice, q["id"], result); got != 202 {
		t.Fatalf("%s: the answer got %d", v, got)
	}
	m := s.next(t)
	raw, ok := m["error"]
	if !ok {
		if _, isErr := resultText(t, m); isErr {
			t.Fatalf("%s: %v", v, m)
		}
		return nil
	}
	b, _ := json.Marshal(raw)
	var e refusal
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatalf("%s: %v", v, m)
	}
	return &e
}

// TestElicitForm_AcceptedContentMatchesTheForm: an accepted form's
// content is checked against the requestedSchema that was asked before
// the tool reads it, in every revision that carries elicitation. Content
// the form does not allow (a wrong type, a required property missing, a
// value outside an enum, a titled choice or a range, a multi-select item
// outside its choices, a property the form forbids) is -32602 "Invalid
// inputResponses" naming the key and the first violation, and the tool
// does not run; conforming content reaches it as sent. A 2025 client's
// answer is delivered (202) and the call it answers ends with the error,
// on its stream.
func TestElicitForm_AcceptedContentMatchesTheForm(t *testing.T) {
	t.Parallel()
	f := newFormFixture(t)
	cases := []struct {
		name, tool, content string
		multi               bool   // a multi-select: 2025-11-25 on
		violation           string // "" when the content conforms
	}{
		{name: "conforming", tool: "profile", content: `{"name":"Ada","age":36,"size":"m","colour":"blue","score":0.5,"news":true}`},
		{name: "conforming, optional left out", tool: "profile", content: `{"name":"Ada","age":0}`},
		{name: "conforming multi-select", tool: "tags", multi: true, content: `{"tags":["a","c"],"langs":["go"]}`},
		{name: "undeclared property allowed", tool: "tags", multi: true, content: `{"tags":["b"],"note":"hi"}`},
		{name: "wrong type", tool: "profile", content: `{"name":"Ada","age":"36"}`,
			violation: "/age: got string, want integer"},
		{name: "integer written as a fraction", tool: "profile", content: `{"name":"Ada","age":36.5}`,
			violation: "/age: got number, want integer"},
		{name: "required missing", tool: "profile", content: `{"name":"Ada"}`,
			violation: "/: missing property 'age'"},
		{name: "enum", tool: "profile", content: `{"name":"Ada","age":36,"size":"xl"}`,
			violation: "/size: value must be one of 's', 'm', 'l'"},
		{name: "titled choice", tool: "profile", content: `{"name":"Ada","age":36,"colour":"green"}`,
			violation: "/colour: value must be one of 'red', 'blue'"},
		{name: "above maximum", tool: "profile", content: `{"name":"Ada","age":131}`,
			violation: "/age: maximum: want 130"},
		{name: "below minimum", tool: "profile", content: `{"name":"Ada","age":-1}`,
			violation: "/age: minimum: want 0"},
		{name: "exclusive maximum", tool: "profile", content: `{"name":"Ada","age":1,"score":1}`,
			violation: "/score: exclusiveMaximum: want below 1"},
		{name: "too long", tool: "profile", content: `{"name":"Ada Lovelace-Byron","age":36}`,
			violation: "/name: maxLength: got 18, want 12"},
		{name: "undeclared property forbidden", tool: "profile", content: `{"name":"Ada","age":36,"admin":true}`,
			violation: "/: additional properties 'admin' not allowed"},
		{name: "multi-select item outside its enum", tool: "tags", multi: true, content: `{"tags":["a","z"]}`,
			violation: "/tags/1: value must be one of 'a', 'b', 'c'"},
		{name: "multi-select item outside its titled choices", tool: "tags", multi: true, content: `{"tags":["a"],"langs":["rust"]}`,
			violation: "/langs/0: value must be one of 'go', 'c'"},
		{name: "multi-select over maxItems", tool: "tags", multi: true, content: `{"tags":["a","b","c"]}`,
			violation: "/tags: maxItems: got 3, want 2"},
		{name: "multi-select empty", tool: "tags", multi: true, content: `{"tags":[]}`,
			violation: "/tags: minItems: got 0, want 1"},
		{name: "accepted without content", tool: "profile", content: "",
			violation: "/: missing properties 'name', 'age'"},
		{name: "accepted with null content", tool: "profile", content: "null",
			violation: "/: missing properties 'name', 'age'"},
	}
	for _, v := range []mcp.Version{mcp.Version20260728, mcp.Version20251125, mcp.Version20250618, mcp.Version20250326} {
		for _, c := range cases {
			if c.multi && (v == mcp.Version20250618 || v == mcp.Version20250326) {
				continue // a multi-select is not asked of these revisions
			}
			result := `{"action":"accept","content":` + c.content + `}`
			if c.content == "" {
				result = `{"action":"accept"}`
			}
			got := f.answerForm(t, v, c.tool, result)
			if c.violation == "" {
				if got != nil {
					t.Errorf("%s %s: refused: %+v", v, c.name, got)
				} else if seen := <-f.seen; seen != c.tool+" accept "+c.content {
					t.Errorf("%s %s: the tool saw %q", v, c.name, seen)
				}
				continue
			}
			if got == nil {
				t.Errorf("%s %s: the tool ran with %q", v, c.name, <-f.seen)
				continue
			}
			if got.Code != -32602 || got.Message != "Invalid inputResponses" || got.Data.Reason != "invalid_input_responses" ||
				got.Data.Key != "form" || got.Data.Violation != c.violation {
				t.Errorf("%s %s: %+v, want the violation %q", v, c.name, *got, c.violation)
			}
		}
	}
	select {
	case seen := <-f.seen:
		t.Errorf("a refused answer reached the tool: %q", seen)
	default:
	}
}

// TestElicitForm_DeclineAndCancelUnchecked: a decline or a cancel submits
// nothing, so whatever content it carries is not checked against the form
// (the tool is handed none): the tool runs and learns what the user did,
// in every revision that carries elicitation.
func TestElicitForm_DeclineAndCancelUnchecked(t *testing.T) {
	t.Parallel()
	f := newFormFixture(t)
	for _, v := range []mcp.Version{mcp.Version20260728, mcp.Version20251125, mcp.Version20250618, mcp.Version20250326} {
		for _, action := range []string{"decline", "cancel"} {
			for _, result := range []string{`{"action":"` + action + `"}`, `{"action":"` + action + `","content":{"age":"old","admin":true}}`} {
				if got := f.answerForm(t, v, "profile", result); got != nil {
					t.Errorf("%s %s: refused: %+v", v, result, *got)
					continue
				}
				if seen := <-f.seen; seen != "profile "+action+" " {
					t.Errorf("%s %s: the tool saw %q", v, result, seen)
				}
			}
		}
	}
}

// TestElicitForm_AlteredStateStillRefused: the form travels in the sealed
// state, so a state altered by a byte, or one sealed for another tool's
// form (one that would allow the answer), is refused as before: the
// invalid-state error, not a check against a form the client chose.
func TestElicitForm_AlteredStateStillRefused(t *testing.T) {
	t.Parallel()
	f := newFormFixture(t)
	alice := map[string]string{"Authorization": "Bearer " + tokAlice}
	profile := asInterim(t, rt{name: "profile", args: `{}`, caps: formCaps, header: alice}.send(t, f.url))
	tags := asInterim(t, rt{name: "tags", args: `{}`, caps: formCaps, header: alice}.send(t, f.url))
	answer := `{"form":{"action":"accept","content":{"tags":["a"]}}}`
	b := []byte(profile.RequestState)
	i := len(b) / 2
	b[i] = map[bool]byte{true: 'B', false: 'A'}[b[i] == 'A']
	for name, state := range map[string]string{"altered": string(b), "another tool's": tags.RequestState} {
		checkInvalidState(t, rt{id: 2, name: "profile", args: `{}`, caps: formCaps, header: alice, state: quoteJSON(state), responses: answer}.send(t, f.url))
		select {
		case seen := <-f.seen:
			t.Errorf("%s state: the tool ran: %q", name, seen)
		default:
		}
	}
	// The state as sealed, with the answer its own form allows.
	asResult(t, rt{id: 2, name: "tags", args: `{}`, caps: formCaps, header: alice, state: quoteJSON(tags.RequestState), responses: answer}.send(t, f.url))
	if seen := <-f.seen; seen != `tags accept {"tags":["a"]}` {
		t.Errorf("the tool saw %q", seen)
	}
}

// TestElicitForm_StateCarriesOnlyTheChecks: a form described at length,
// whose descriptions alone are past a sealed state's 4 KiB, is still
// asked over 2026-07-28 (the state carries its checks, not its titles and
// descriptions) and its answers are still checked.
func TestElicitForm_StateCarriesOnlyTheChecks(t *testing.T) {
	t.Parallel()
	if len(longForm) <= 4<<10 {
		t.Fatalf("the form is %d bytes: too short to show anything", len(longForm))
	}
	f := newFormFixture(t)
	if got := f.answerForm(t, mcp.Version20260728, "long", `{"action":"accept","content":{"f0":3,"f7":9}}`); got != nil {
		t.Fatalf("refused: %+v", *got)
	}
	if seen := <-f.seen; seen != `long accept {"f0":3,"f7":9}` {
		t.Errorf("the tool saw %q", seen)
	}
	got := f.answerForm(t, mcp.Version20260728, "long", `{"action":"accept","content":{"f0":3,"f7":10}}`)
	if got == nil || got.Data.Violation != "/f7: maximum: want 9" {
		t.Errorf("an answer past the form's maximum: %+v", got)
	}
}

// TestElicitForm_SchemaThatDoesNotCompile: a requestedSchema that passes
// ElicitForm's shape check but is no schema (a bound that is not a count,
// a dialect nobody knows) is the handler's bug: no client is asked a form
// whose answers could never be checked. The call ends as the tool's
// internal error, logged, in every revision.
func TestElicitForm_SchemaThatDoesNotCompile(t *testing.T) {
	t.Parallel()
	f := newFormFixture(t)
	alice := map[string]string{"Authorization": "Bearer " + tokAlice}
	for _, tool := range []string{"broken", "unknown_dialect"} {
		res := asResult(t, rt{name: tool, args: `{}`, caps: formCaps, header: alice}.send(t, f.url))
		if !res.IsError || res.Content[0].Text != "The tool failed with an internal error." {
			t.Errorf("2026-07-28 %s: %+v", tool, res)
		}
		for _, v := range []mcp.Version{mcp.Version20251125, mcp.Version20250618, mcp.Version20250326} {
			session := sessionFor(t, f.url, tokAlice, v, formCaps)
			m := openCall(t, f.url, tokAlice, session, v, tool).next(t)
			if text, isErr := resultText(t, m); !isErr || text != "The tool failed with an internal error." {
				t.Errorf("%s %s: %v", v, tool, m)
			}
		}
	}
	if n := strings.Count(f.log.String(), "requestedSchema does not compile"); n != 8 {
		t.Errorf("%d of 8 calls logged, log:\n%s", n, f.log.String())
	}
}

// TestElicitForm_ContentValuesBounded: an accepted form's content is
// bounded as a call's arguments are (Limits.ArgumentValues), before it
// is decoded to be checked.
func TestElicitForm_ContentValuesBounded(t *testing.T) {
	t.Parallel()
	f := newFormFixture(t, mcp.WithLimits(mcp.Limits{ArgumentValues: 6}))
	got := f.answerForm(t, mcp.Version20260728, "tags", `{"action":"accept","content":{"tags":["a","b","c","a","b","c"]}}`)
	if got == nil || got.Code != -32602 || got.Data.Violation != "more than 6 values" {
		t.Errorf("%+v", got)
	}
	if got := f.answerForm(t, mcp.Version20260728, "tags", `{"action":"accept","content":{"tags":["a","b"]}}`); got != nil {
		t.Errorf("refused: %+v", *got)
	}
	<-f.seen
}
