package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mrtr"
)

// projectsForm offers 300 projects to choose from: its checks (the enum)
// are about 5 KB, past what a sealed requestState holds however short
// its titles. noteForm is a small form asked beside it.
var (
	projectsForm = func() string {
		names := make([]string, 300)
		for i := range names {
			names[i] = strconv.Quote(fmt.Sprintf("project-%03d", i))
		}
		return `{"type":"object","properties":{"project":{"type":"string","title":"Project","enum":[` +
			strings.Join(names, ",") + `]}},"required":["project"]}`
	}()
	noteForm = `{"type":"object","properties":{"note":{"type":"string","maxLength":200}}}`
)

// TestElicitForm_ChecksPastTheSealedState: a form whose validation
// keywords would push a 2026-07-28 requestState past what the era seals
// is still asked, as it was before answers were checked against forms:
// its checks, and only as many forms' as make the state fit (the
// largest first), are left out of the state, so its answers are checked
// for their shape only, while a small form asked beside it keeps its
// checks. One warning per call names the target and the keys left out,
// never a word of the form (its choices). Before, the era failed to seal
// the state: -32603, logged as "keep the payload small". A 2025 revision
// seals no state and checks the form whole.
func TestElicitForm_ChecksPastTheSealedState(t *testing.T) {
	t.Parallel()
	seen := make(chan string, 4)
	srv := mcp.NewServer(mcp.Implementation{Name: "forms", Version: "1"})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "choose", Description: "Asks for a project and a note."},
		func(ctx context.Context, in struct{}) (map[string]any, error) {
			c := mcp.CallFromContext(ctx)
			if e, ok := c.Elicitation("project"); ok {
				seen <- string(e.Action) + " " + string(e.Content)
				return map[string]any{"action": e.Action}, nil
			}
			c.RequireInput([]byte("asked"), mcp.ElicitForm("note", "Anything to add?", json.RawMessage(noteForm)),
				mcp.ElicitForm("project", "Which project?", json.RawMessage(projectsForm)))
			return nil, nil
		})
	srv.AddPrompt(mcp.Prompt{Name: "choose"}, func(ctx context.Context, _ map[string]string) (*mcp.PromptResult, error) {
		mcp.CallFromContext(ctx).RequireInput(nil, mcp.ElicitForm("project", "Which project?", json.RawMessage(projectsForm)))
		return nil, nil
	})
	var log syncBuffer
	ring := sessionRing(t, 12)
	a := auth.New(auth.Config{Resource: resourceURI, Verifier: auth.VerifierFunc(testVerifier)})
	url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(era2026.WithSealer(mrtr.NewSealer(ring))),
		era2025.New(era2025.WithSessions(mrtr.NewSealer(ring), 0))},
		mcp.WithAuth(a), mcp.WithLogger(slog.New(slog.NewTextHandler(&log, nil))),
		mcp.WithLegacyInput(mcp.LegacyInput{Bus: &sharedBus{subs: map[string]chan []byte{}}})))
	alice := map[string]string{"Authorization": "Bearer " + tokAlice}

	in := asInterim(t, rt{name: "choose", args: `{}`, caps: formCaps, header: alice}.send(t, url))
	if len(in.InputRequests) != 2 || !strings.Contains(string(in.InputRequests["project"]), `"project-299"`) {
		t.Fatalf("the tool asked %v; want both forms, whole", in.InputRequests)
	}
	retry := func(id int, note, project string) *reply {
		return rt{id: id, name: "choose", args: `{}`, caps: formCaps, header: alice, state: quoteJSON(in.RequestState),
			responses: `{"note":{"action":"accept","content":{"note":"` + note + `"}},"project":{"action":"accept","content":{"project":"` + project + `"}}}`}.send(t, url)
	}
	// The large form's checks are out of the state: a choice it does not
	// offer reaches the tool, as every answer did before forms were checked.
	if r := retry(2, "none", "not-offered"); r.code() != 0 || asResult(t, r).IsError || <-seen != `accept {"project":"not-offered"}` {
		t.Errorf("an answer to the form left unchecked: %s", r.raw)
	}
	// The small form's checks are in it: a note past its maxLength is refused.
	if r := retry(3, strings.Repeat("n", 201), "project-001"); r.code() != -32602 || !strings.Contains(string(r.raw), `"key":"note"`) {
		t.Errorf("an answer the small form does not allow: %s", r.raw)
	}
	asInterim(t, rt{method: "prompts/get", name: "choose", caps: formCaps, header: alice}.send(t, url))

	var found []string
	for _, l := range strings.Split(strings.TrimSpace(log.String()), "\n") {
		if strings.Contains(l, "level=ERROR") {
			t.Errorf("an error logged: %s", l)
		}
		if strings.Contains(l, "level=WARN") && strings.Contains(l, "requestState") {
			found = append(found, l)
		}
	}
	want := []string{"method=tools/call target=choose keys=[project] form_bytes=", "method=prompts/get target=choose keys=[project] form_bytes="}
	if len(found) != len(want) {
		t.Fatalf("warnings %q; want one per call that asked", found)
	}
	for i, l := range found {
		if !strings.Contains(l, `msg="mcp: the checks of the forms named do not fit in the sealed requestState, so their answers are not checked`) ||
			!strings.Contains(l, want[i]) || !strings.Contains(l, " limit_bytes=") {
			t.Errorf("log line %q; want it to name %s, and the forms' checks as what does not fit", l, want[i])
		}
		// The small form is not what does not fit; the choices, the
		// payload's text and the keywords never reach the log.
		for _, never := range []string{"note", "project-", "asked", "enum", "payload small", "era2026"} {
			if strings.Contains(l, never) {
				t.Errorf("log line %q holds %q", l, never)
			}
		}
	}

	// 2025-11-25 keeps the round in memory, not in a sealed state: the
	// same form is asked whole, and its answer reaches the tool.
	v := mcp.Version20251125
	s := openCall(t, url, tokAlice, sessionFor(t, url, tokAlice, v, formCaps), v, "choose")
	for range 2 { // both questions, each answered
		q := s.next(t)
		params, _ := q["params"].(map[string]any)
		schema, _ := json.Marshal(params["requestedSchema"])
		content := `{"note":"none"}`
		if strings.Contains(string(schema), `"project"`) {
			if !strings.Contains(string(schema), `"project-299"`) {
				t.Fatalf("%s: the form asked %s", v, schema)
			}
			content = `{"project":"project-299"}`
		}
		if q["method"] != "elicitation/create" {
			t.Fatalf("%s: question %v", v, q)
		}
		if got := answer(t, url, tokAlice, q["id"], `{"action":"accept","content":`+content+`}`); got != 202 {
			t.Fatalf("%s: the answer got %d", v, got)
		}
	}
	if text, isErr := resultText(t, s.next(t)); isErr || <-seen != `accept {"project":"project-299"}` {
		t.Errorf("%s: %s", v, text)
	}
}

// TestElicitForm_StateAtTheSealLimit: the bound the core checks a round's
// plaintext against is the era's own, to the byte. A form grown a byte
// at a time is asked with its checks in the state (an answer it does not
// allow refused on the retry) up to the largest state the era seals, and
// from the next byte on is asked with its checks left out (that answer
// delivered, checked for its shape only), logged naming the form; no size
// between the two reaches the era's failure to seal.
func TestElicitForm_StateAtTheSealLimit(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Implementation{Name: "forms", Version: "1"})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "pick", Description: "Asks a form of two choices, the second pad long."},
		func(ctx context.Context, in struct {
			Pad int `json:"pad"`
		}) (map[string]any, error) {
			c := mcp.CallFromContext(ctx)
			if e, ok := c.Elicitation("choice"); ok {
				return map[string]any{"content": e.Content}, nil
			}
			form := `{"type":"object","properties":{"choice":{"type":"string","enum":["a","` + strings.Repeat("p", in.Pad) + `"]}}}`
			c.RequireInput(nil, mcp.ElicitForm("choice", "Which?", json.RawMessage(form)))
			return nil, nil
		})
	var log syncBuffer
	url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(era2026.WithSealer(mrtr.NewSealer(sessionRing(t, 13))))},
		mcp.WithLogger(slog.New(slog.NewTextHandler(&log, nil)))))
	// Each byte of pad is a byte of the state's plaintext; the edge lies
	// within this range for every key id and algorithm mrtr seals with.
	last, unchecked := -1, 0
	for pad := 1850; pad <= 2150; pad++ {
		args := `{"pad":` + strconv.Itoa(pad) + `}`
		in := asInterim(t, rt{name: "pick", args: args, caps: formCaps}.send(t, url))
		r := rt{id: 2, name: "pick", args: args, caps: formCaps, state: quoteJSON(in.RequestState),
			responses: `{"choice":{"action":"accept","content":{"choice":"b"}}}`}.send(t, url)
		switch {
		case r.code() == -32602 && unchecked == 0:
			last = pad
		case r.code() == 0 && last >= 0 && !asResult(t, r).IsError:
			unchecked++
		default:
			t.Fatalf("pad %d, after %d checked and %d unchecked: %s", pad, last-1849, unchecked, r.raw)
		}
	}
	if last < 0 || unchecked == 0 {
		t.Fatalf("no edge in the range: the last checked %d, %d unchecked", last, unchecked)
	}
	// The largest state the era seals opens again, and carries the form.
	args := `{"pad":` + strconv.Itoa(last) + `}`
	in := asInterim(t, rt{name: "pick", args: args, caps: formCaps}.send(t, url))
	long := strings.Repeat("p", last)
	r := rt{id: 2, name: "pick", args: args, caps: formCaps, state: quoteJSON(in.RequestState),
		responses: `{"choice":{"action":"accept","content":{"choice":"` + long + `"}}}`}.send(t, url)
	if got := asResult(t, r); got.IsError || got.StructuredContent["content"].(map[string]any)["choice"] != long {
		t.Errorf("the answer at the edge: %s", r.raw)
	}
	r = rt{id: 3, name: "pick", args: args, caps: formCaps, state: quoteJSON(in.RequestState),
		responses: `{"choice":{"action":"accept","content":{"choice":"b"}}}`}.send(t, url)
	if r.code() != -32602 {
		t.Errorf("an answer the form at the edge does not allow: %s", r.raw)
	}
	if n := strings.Count(log.String(), "keys=[choice]"); n != unchecked || strings.Contains(log.String(), "cannot seal") {
		t.Errorf("%d of %d forms left unchecked logged naming the form, log:\n%s", n, unchecked, log.String())
	}
}

// TestRequireInput_PayloadPastTheSealedState: a payload that would not
// fit in a sealed requestState is the handler's bug too, answered as the
// others are (a tool's generic internal error), and the log blames the
// payload, not the small form asked beside it, whose key it lists with
// its size.
func TestRequireInput_PayloadPastTheSealedState(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Implementation{Name: "forms", Version: "1"})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "carry", Description: "Keeps too much in its state."},
		func(ctx context.Context, in struct{}) (map[string]any, error) {
			mcp.CallFromContext(ctx).RequireInput([]byte(strings.Repeat("s", 3000)),
				mcp.ElicitForm("note", "Anything to add?", json.RawMessage(noteForm)))
			return nil, nil
		})
	var log syncBuffer
	url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New()}, mcp.WithLogger(slog.New(slog.NewTextHandler(&log, nil)))))
	r := rt{name: "carry", args: `{}`, caps: formCaps}.send(t, url)
	if r.status != 200 || r.code() != 0 {
		t.Fatalf("HTTP %d %s; want 200 and a result", r.status, r.raw)
	}
	if res := r.result(t); res["isError"] != true || res["requestState"] != nil ||
		fmt.Sprint(res["content"]) != "[map[text:The tool failed with an internal error. type:text]]" {
		t.Errorf("%s; want the tool's generic internal error", r.raw)
	}
	l := log.String()
	if !strings.Contains(l, `msg="mcp: the payload of RequireInput does not fit in the sealed requestState`) ||
		!strings.Contains(l, "method=tools/call target=carry payload_bytes=3000 ") || !strings.Contains(l, "keys=[note]") ||
		strings.Contains(l, "checks of the forms") || strings.Contains(l, "sss") {
		t.Errorf("log:\n%s", l)
	}
}
