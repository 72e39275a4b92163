package mcptest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

// TestDeviation_NoAnswerIsNotExcused: a deviation declares how the server
// answers; it cannot excuse a check the server gave no answer to. This
// server refuses batches (400, the declared deviation) when they come
// without MCP-Protocol-Version, and drops the connection when they come
// with it: the second fault fails the check. The deviation silenced it.
func TestDeviation_NoAnswerIsNotExcused(t *testing.T) {
	t.Parallel()
	refusing := noBatchServer()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Header.Get("MCP-Protocol-Version") == "2025-03-26" {
			var probe []json.RawMessage
			if json.NewDecoder(r.Body).Decode(&probe) == nil {
				panic(http.ErrAbortHandler) // net/http drops the connection, quietly
			}
		}
		refusing.ServeHTTP(w, r)
	}))
	defer ts.Close()
	dev := Deviation("2025-03-26/batch", "refused in every revision")
	r := statusesURL(ts.URL, dev)["2025-03-26/batch"]
	if r.Status != Failed || len(r.Details) == 0 || !strings.Contains(r.Details[0], "EOF") {
		t.Errorf("a batch whose connection is dropped, with a deviation declared for refusing batches: %s %q; want it failed, saying what happened", r.Status, r.Details)
	}
	if !strings.Contains(strings.Join(r.Details, " "), "refused in every revision") {
		t.Errorf("details %q do not say the declared deviation excused nothing", r.Details)
	}
}

// statusesURL is statuses over the network.
func statusesURL(url string, opts ...RunOption) map[string]Result {
	out := map[string]Result{}
	for _, r := range CheckURL(url, opts...) {
		out[r.Check] = r
	}
	return out
}

// headerBlind is goodServer not comparing Mcp-Name with the tool the body
// names (it takes the body's), and, with method too, not requiring
// Mcp-Method (it takes the body's method when the header is missing).
func headerBlind(method bool) http.Handler {
	return onRequest(goodServer(), func(r *http.Request, b []byte) {
		if r.Header.Get("MCP-Protocol-Version") != "2026-07-28" {
			return
		}
		var m struct {
			Method string `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		if json.Unmarshal(b, &m) != nil {
			return
		}
		if m.Method == "tools/call" && !strings.HasPrefix(r.Header.Get("Mcp-Name"), "=?base64?") {
			r.Header.Set("Mcp-Name", m.Params.Name)
		}
		if method && r.Header.Get("Mcp-Method") == "" {
			r.Header.Set("Mcp-Method", m.Method)
		}
	})
}

// TestDeviation_ExcusesOnlyWhatItNames: a deviation that names its
// finding ("check: phrase") excuses the findings of its check that
// contain the phrase and nothing else; another fault of the same check
// still fails it. It used to excuse the whole check.
func TestDeviation_ExcusesOnlyWhatItNames(t *testing.T) {
	t.Parallel()
	const check = "2026-07-28/header-mismatch"
	dev := Deviation(check+": Mcp-Name", "the tool is routed by the body's name")

	r := statuses(headerBlind(false), dev)[check]
	if r.Status != Deviated || r.Reason != "the tool is routed by the body's name" || len(r.Details) != 2 {
		t.Fatalf("the declared fault alone: %s %q %q; want deviated, its two Mcp-Name findings", r.Status, r.Reason, r.Details)
	}
	for _, d := range r.Details {
		if !strings.Contains(d, "Mcp-Name") {
			t.Errorf("excused %q, which does not contain the phrase", d)
		}
	}

	r = statuses(headerBlind(true), dev)[check]
	if r.Status != Failed || len(r.Details) == 0 || !strings.HasPrefix(r.Details[0], "Mcp-Method missing:") {
		t.Fatalf("the declared fault and a missing Mcp-Method accepted: %s %q; want failed for Mcp-Method", r.Status, r.Details)
	}
	for _, d := range r.Details {
		if strings.HasPrefix(d, "Mcp-Name naming another tool:") || strings.HasPrefix(d, "tools/call without Mcp-Name:") {
			t.Errorf("an excused finding reported as a failure: %q", d)
		}
	}
	if last := r.Details[len(r.Details)-1]; !strings.Contains(last, "2 findings excused by the declared deviation (the tool is routed by the body's name)") {
		t.Errorf("last detail %q; want the count of excused findings and the reason", last)
	}

	// A phrase no finding contains excuses nothing and fails as stale.
	r = statuses(headerBlind(true), Deviation(check+": Mcp-Param", "not ours"))[check]
	if r.Status != Failed || !strings.Contains(strings.Join(r.Details, " "), `no finding contains "Mcp-Param"`) {
		t.Errorf("a phrase no finding contains: %s %q", r.Status, r.Details)
	}
	// "check: " with no phrase is no whole-check deviation: taken as one,
	// it excused both findings, Mcp-Method's too, though its form promises
	// a phrase. It excuses nothing and fails, saying so.
	for _, named := range []string{check + ":", check + ":  "} {
		r = statuses(headerBlind(true), Deviation(named, "no phrase"))[check]
		all := strings.Join(r.Details, " ")
		if r.Status != Failed || !strings.Contains(all, `names no phrase after "`+check+`:"`) || !strings.Contains(all, "Mcp-Method missing:") || strings.Contains(all, "excused by") {
			t.Errorf("%q: %s %q; want failed, its findings unexcused, the empty phrase named", named, r.Status, r.Details)
		}
	}
	if r := statuses(goodServer(), dev)[check]; r.Status != Failed || !strings.Contains(strings.Join(r.Details, " "), "remove mcptest.Deviation(\""+check+": Mcp-Name\"") {
		t.Errorf("a server that meets the rule, deviation declared: %s %q", r.Status, r.Details)
	}
}

// TestDeviation_WireRowNamesItsFinding: the wire rows gather what every
// check read, so a deviation of one must name its finding; a deviation
// naming the row alone would excuse every future fault of the wire and
// fails, saying so. Named, it excuses its findings past the row's cap of
// 20 too.
func TestDeviation_WireRowNamesItsFinding(t *testing.T) {
	t.Parallel()
	idMember := regexp.MustCompile(`"id":[^,}]+`)
	wrongID := rewrite(goodServer(), func(_ http.Header, b []byte) []byte { return idMember.ReplaceAll(b, []byte(`"id":424242`)) })

	r := statuses(wrongID, Deviation("wire/id", "ids are rewritten"))["wire/id"]
	if r.Status != Failed || !strings.Contains(strings.Join(r.Details, " "), `name the finding it excuses: mcptest.Deviation("wire/id: <a phrase of the finding>"`) {
		t.Errorf("a deviation naming only wire/id: %s %q", r.Status, r.Details)
	}

	r = statuses(wrongID, Deviation("wire/id: 424242", "ids are rewritten"))["wire/id"]
	if r.Status != Deviated || len(r.Details) <= maxPerRow {
		t.Fatalf("wire/id with the finding named: %s, %d details %q; want deviated, past the row's cap", r.Status, len(r.Details), r.Details)
	}
	if last := r.Details[len(r.Details)-1]; !regexp.MustCompile(`^and \d+ more containing "424242"$`).MatchString(last) {
		t.Errorf("last detail %q; want the count of the excused findings past the cap", last)
	}
}

// TestDeviation_DroppedGetIsNotExcused: a GET the server drops is no
// answer, whichever check reads it: a deviation declared for how the
// server answers GET (a stream where 405 is asked) does not excuse it.
func TestDeviation_DroppedGetIsNotExcused(t *testing.T) {
	t.Parallel()
	good := goodServer()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			panic(http.ErrAbortHandler) // net/http drops the connection, quietly
		}
		good.ServeHTTP(w, r)
	}))
	defer ts.Close()
	got := statusesURL(ts.URL,
		Deviation("http/get", "GET is answered 400 without a session"),
		Deviation("profile/get-405", "GET opens a stream"))
	for _, check := range []string{"http/get", "profile/get-405"} {
		r := got[check]
		if r.Status != Failed || len(r.Details) == 0 || !strings.Contains(r.Details[0], "EOF") {
			t.Errorf("%s, GET dropped, a deviation declared for how GET is answered: %s %q; want it failed, saying what happened", check, r.Status, r.Details)
		}
	}
}

// TestDeviation_DroppedToolCallIsNotExcused: a tools/call the server
// drops while the examples are called is no answer; a deviation of a
// check that calls them excuses the answers that break its rule, not
// that one.
func TestDeviation_DroppedToolCallIsNotExcused(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(onRequest(goodServer(), func(r *http.Request, b []byte) {
		if bytes.Contains(b, []byte(`"tools/call"`)) && bytes.Contains(b, []byte(`"hello"`)) {
			panic(http.ErrAbortHandler)
		}
	}))
	defer ts.Close()
	got := statusesURL(ts.URL, WithToolExamples(map[string]any{"hello": map[string]any{}}),
		Deviation("tools/read-only-examples", "hello answers text"),
		Deviation("2026-07-28/input-required", "hello asks in its own way"))
	for _, check := range []string{"tools/read-only-examples", "2026-07-28/input-required"} {
		r := got[check]
		if r.Status != Failed || len(r.Details) == 0 || !strings.Contains(r.Details[0], "EOF") {
			t.Errorf("%s, its tools/call dropped, a deviation of it declared: %s %q; want it failed, saying what happened", check, r.Status, r.Details)
		}
	}
}

// TestDeviation_PhraseNeverExcusesTheRowsCount: past a wire row's cap,
// "and N more" stands for findings the row matched to no deviation when
// it filed them; a phrase that only that line contains ("more") excuses
// none of them and fails as stale. It excused the N, and the row said
// they were excused by the deviation.
func TestDeviation_PhraseNeverExcusesTheRowsCount(t *testing.T) {
	t.Parallel()
	idMember := regexp.MustCompile(`"id":[^,}]+`)
	wrongID := rewrite(goodServer(), func(_ http.Header, b []byte) []byte { return idMember.ReplaceAll(b, []byte(`"id":424242`)) })
	r := statuses(wrongID, Deviation("wire/id: more", "a phrase of no finding"))["wire/id"]
	all := strings.Join(r.Details, "\n")
	if r.Status != Failed || len(r.Details) < maxPerRow+2 || strings.Contains(all, "excused by the declared deviation") {
		t.Fatalf("wire/id past its cap, a phrase only its count contains: %s %q; want failed, nothing excused", r.Status, r.Details)
	}
	if more := r.Details[maxPerRow]; !regexp.MustCompile(`^and \d+ more$`).MatchString(more) {
		t.Errorf("detail %d %q; want the count of the findings past the cap", maxPerRow, more)
	}
	if !strings.Contains(all, `no finding contains "more"`) {
		t.Errorf("details %q do not say the deviation excused nothing", r.Details)
	}
}

// TestDeviation_OverlappingInAnyOrder: two deviations of one check whose
// findings overlap excuse the same findings whichever is declared first:
// the check is Deviated with both reasons. Declared broad first, the
// narrower one was failed as stale, "no finding contains" its phrase,
// though one did.
func TestDeviation_OverlappingInAnyOrder(t *testing.T) {
	t.Parallel()
	const check = "2026-07-28/header-mismatch"
	broadPhrase := Deviation(check+": Mcp-Name", "the tool is routed by the body's name")
	plain := Deviation(check, "the tool is routed by the body's name")
	narrow := Deviation(check+": another tool", "a name the body contradicts is ignored")
	for name, opts := range map[string][]RunOption{
		"phrase, then narrower": {broadPhrase, narrow},
		"narrower, then phrase": {narrow, broadPhrase},
		"plain, then narrower":  {plain, narrow},
		"narrower, then plain":  {narrow, plain},
	} {
		r := statuses(headerBlind(false), opts...)[check]
		if r.Status != Deviated || len(r.Details) != 2 ||
			!strings.Contains(r.Reason, "the tool is routed by the body's name") || !strings.Contains(r.Reason, "a name the body contradicts is ignored") {
			t.Errorf("%s: %s %q %q; want deviated, its two findings, both reasons", name, r.Status, r.Reason, r.Details)
		}
	}

	// A wire row past its cap: the tools/call findings come after the
	// first 20 of the broad phrase's, which the row shows; the narrower
	// deviation matched findings the row only counts.
	idMember := regexp.MustCompile(`"id":[^,}]+`)
	wrongID := rewrite(goodServer(), func(_ http.Header, b []byte) []byte { return idMember.ReplaceAll(b, []byte(`"id":424242`)) })
	broadID := Deviation("wire/id: 424242", "ids are rewritten")
	narrowID := Deviation("wire/id: tools/call", "a call's id is its route's")
	for name, opts := range map[string][]RunOption{
		"wire/id, broad first":  {broadID, narrowID},
		"wire/id, narrow first": {narrowID, broadID},
	} {
		r := statuses(wrongID, opts...)["wire/id"]
		if r.Status != Deviated || !strings.Contains(r.Reason, "ids are rewritten") || !strings.Contains(r.Reason, "a call's id is its route's") {
			t.Errorf("%s: %s %q %q; want deviated, both reasons", name, r.Status, r.Reason, r.Details)
		}
	}
}

// TestDeviation_OversizedAnswerIsNotExcused: a body past the kit's 16 MiB
// bound is no answer to judge, in a wire row as in a check: a deviation of
// the row whose phrase the finding contains does not excuse it (it did,
// since a wire row's findings were all taken as answers), and says why.
func TestDeviation_OversizedAnswerIsNotExcused(t *testing.T) {
	t.Parallel()
	oversized := rewrite(goodServer(), func(_ http.Header, b []byte) []byte {
		if bytes.Contains(b, []byte(`"tools":[`)) {
			return bytes.Replace(b, []byte(`"name":"regional"`), []byte(`"name":"regional","description":"`+strings.Repeat("x", maxResponse)+`"`), 1)
		}
		return b
	})
	r := statuses(oversized, Deviation(rowJSONRPC+": exceeds 16 MiB", "our lists are large"))[rowJSONRPC]
	all := strings.Join(r.Details, "\n")
	if r.Status != Failed || !strings.Contains(all, "tools/list: mcptest: the response exceeds 16 MiB") || strings.Contains(all, "excused by") {
		t.Fatalf("an oversized answer, a deviation naming it: %s %q; want failed, not excused", r.Status, r.Details)
	}
	if !strings.Contains(all, `the findings containing "exceeds 16 MiB" got no answer to judge`) {
		t.Errorf("details %q do not say why the deviation excused nothing", r.Details)
	}
}

// TestDeviation_NeedsAReason: a deviation with a blank reason excuses
// nothing and fails its check saying so, as mcpcheck refuses one: a
// declaration nobody can read the why of later is no decision. It used to
// excuse the findings with an empty reason.
func TestDeviation_NeedsAReason(t *testing.T) {
	t.Parallel()
	const check = "2026-07-28/header-mismatch"
	for _, reason := range []string{"", "  ", "\t\n"} {
		for _, named := range []string{check, check + ": Mcp-Name"} {
			r := statuses(headerBlind(false), Deviation(named, reason))[check]
			all := strings.Join(r.Details, " ")
			if r.Status != Failed || !strings.Contains(all, `mcptest.Deviation("`+named+`", ...) gives no reason`) ||
				!strings.Contains(all, "Mcp-Name naming another tool:") || strings.Contains(all, "excused by") {
				t.Errorf("%q with reason %q: %s %q; want failed, its findings unexcused, the missing reason named", named, reason, r.Status, r.Details)
			}
		}
	}
	// With a reason, the same declaration excuses (the test above would
	// pass for a check that failed for another cause).
	if r := statuses(headerBlind(false), Deviation(check, "routed by the body")); r[check].Status != Deviated {
		t.Errorf("with a reason: %s %q", r[check].Status, r[check].Details)
	}
}
