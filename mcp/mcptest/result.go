package mcptest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpdual/mcpdual/mcp"
)

// Level says how binding the rule behind a check is.
type Level int

const (
	// Must is a MUST or MUST NOT of the MCP specification, of JSON-RPC 2.0
	// or of an RFC the specification relies on: every server has to pass.
	Must Level = iota
	// Should is a SHOULD or SHOULD NOT, or a code or shape the
	// specification recommends without requiring it.
	Should
	// Profile is a choice of this library's stateless profile (one JSON
	// response per POST, no sessions, no stream, Cache-Control: no-store,
	// 400 for what the specification leaves open): a server built on
	// mcpdual passes it; another server need not.
	Profile
)

func (l Level) String() string {
	switch l {
	case Must:
		return "MUST"
	case Should:
		return "SHOULD"
	case Profile:
		return "Profile"
	}
	return fmt.Sprintf("Level(%d)", int(l))
}

// Status is the outcome of one check.
type Status int

const (
	// Passed: the server gave an answer the rule allows.
	Passed Status = iota
	// Failed: the server broke a rule of an enforced level (MUST, or any
	// level under Strict), or a declared Deviation no longer deviates.
	Failed
	// Warned: the server broke a rule of a level that is not enforced
	// (a SHOULD or the profile, at the default level).
	Warned
	// Skipped: the check does not apply (the server does not serve that
	// revision or capability, or Skip or Revisions left it out).
	Skipped
	// Deviated: the server broke the rule, as a Deviation declared it
	// would.
	Deviated
)

func (s Status) String() string {
	return [...]string{"pass", "FAIL", "warn", "skip", "deviation"}[s]
}

// Result is the outcome of one check of the battery.
type Result struct {
	Check  string // the check's name, such as "2025-06-18/ping"
	Level  Level
	Source string // the rule: revision and section, or the JSON-RPC 2.0 or RFC clause
	Status Status
	// Details says what the server answered that breaks the rule (Failed,
	// Warned, Deviated), or why a declared Deviation failed.
	Details []string
	// Reason says why the check was skipped, or the declared deviation.
	Reason string
}

// String renders one detail the way Run reports it:
// "MUST (2025-06-18 Utilities, Ping): ...".
func (r Result) String() string {
	head := fmt.Sprintf("%s (%s)", r.Level, r.Source)
	switch r.Status {
	case Passed:
		return head + ": passed"
	case Skipped:
		return head + ": skipped: " + r.Reason
	case Deviated:
		return head + ": declared deviation (" + r.Reason + "): " + strings.Join(r.Details, "; ")
	}
	return head + ": " + strings.Join(r.Details, "; ")
}

// RunOption configures Run, Check and CheckURL.
type RunOption interface{ applyRun(*runConfig) }

type runConfig struct {
	client     []Option
	skip       map[string]bool
	examples   map[string]any // tool name -> example arguments
	noExample  map[string]bool
	strict     bool
	deviations []deviation     // in the order declared
	revisions  map[string]bool // nil: every revision
}

// deviation is one Deviation: the check, the phrase of the findings it
// excuses ("" for every answer of the check that breaks its rule) and
// why.
type deviation struct {
	check, finding, reason string
	// unphrased: declared "check: " with no phrase. Taken as the check
	// alone it would excuse every finding, more than the form promises:
	// it excuses nothing, and its check fails saying so.
	unphrased bool
	// unreasoned: declared with a blank reason. A deviation is a
	// decision someone must be able to read later: it excuses nothing,
	// and its check fails saying so (mcpcheck refuses one outright).
	unreasoned bool
}

// label is the deviation as declared (its white space trimmed): the
// colon of one with no phrase is kept, or the message quoting it would
// show a whole-check deviation, which is not what was written.
func (d deviation) label() string {
	if d.unphrased {
		return d.check + ":"
	}
	if d.finding == "" {
		return d.check
	}
	return d.check + ": " + d.finding
}

// gathersAll reports whether check is a row that files findings from every
// exchange of the battery (wire.go): a deviation of one must name its
// finding, or it would excuse any fault of the wire to come.
func gathersAll(check string) bool {
	for _, c := range wireRows {
		if c.name == check {
			return true
		}
	}
	return false
}

// excuser returns what tells which deviations of check match a finding:
// their indexes in cfg.deviations plus one, in the order declared (the
// first excuses it; the others are not stale for it), none when none
// does; nil when no deviation of check can excuse anything. A finding
// where the kit got no answer to judge (fault) is never excused: a
// deviation declares how the server answers.
func (cfg *runConfig) excuser(check string) func(text string, fault bool) []int {
	var mine []int
	for i, d := range cfg.deviations {
		if d.check == check && !d.unphrased && !d.unreasoned && (d.finding != "" || !gathersAll(check)) {
			mine = append(mine, i)
		}
	}
	if len(mine) == 0 {
		return nil
	}
	return func(text string, fault bool) []int {
		if fault {
			return nil
		}
		var match []int
		for _, i := range mine {
			if f := cfg.deviations[i].finding; f == "" || strings.Contains(text, f) {
				match = append(match, i+1)
			}
		}
		return match
	}
}

type runOptionFunc func(*runConfig)

func (f runOptionFunc) applyRun(c *runConfig) { f(c) }

// Strict enforces every level: SHOULDs and this library's stateless
// profile fail like MUSTs. mcpdual's own servers and examples run the kit
// this way; a server that is not built on mcpdual usually wants the
// default, which fails only MUST violations and logs the rest.
func Strict() RunOption {
	return runOptionFunc(func(c *runConfig) { c.strict = true })
}

// Deviation declares that the server breaks the rule of the named check on
// purpose, for the reason given. The check still runs: the violation
// declared is reported (Deviated, logged by Run) instead of failing, and
// the check fails if the server meets the rule after all, so that a stale
// declaration does not linger.
//
// A deviation excuses only what it names. Named "check: phrase" (such as
// "2026-07-28/header-mismatch: Mcp-Name"), it excuses the findings of
// that check whose detail contains the phrase; any other finding of the
// check still counts at its level. Named by the check alone, it excuses
// every answer of the check that breaks its rule, which suits a check that
// tests one thing (such as "2025-03-26/batch"). Neither excuses a check
// the server gave no answer to judge (a dropped connection, a timeout, a
// body too large to read). The wire rows (wire/*, schema/*,
// 2026-07-28/result-type) gather what every check read, so a deviation of
// one must name its finding. Several deviations may name one check, in any
// order; one whose findings another also excuses is not stale. One named
// "check:" with no phrase, or given a blank reason, excuses nothing, and
// its check fails saying so; one naming no check of the battery (a typo, a
// check renamed) fails as a row of its own, so that it is mended.
func Deviation(check, reason string) RunOption {
	name, finding, phrased := strings.Cut(check, ":")
	finding = strings.TrimSpace(finding)
	return runOptionFunc(func(c *runConfig) {
		c.deviations = append(c.deviations, deviation{check: strings.TrimSpace(name), finding: finding, reason: reason,
			unphrased: phrased && finding == "", unreasoned: strings.TrimSpace(reason) == ""})
	})
}

// Revisions limits the battery to the checks of the given revisions (and
// to the checks of the endpoint itself, which every revision shares). A
// revision no check exercises (a typo) fails the run, as the row
// "mcptest/revisions": it would leave out every revision's checks.
func Revisions(vs ...mcp.Version) RunOption {
	return runOptionFunc(func(c *runConfig) {
		if c.revisions == nil {
			c.revisions = map[string]bool{}
		}
		for _, v := range vs {
			c.revisions[string(v)] = true
		}
	})
}

// WithClientOptions passes options (such as WithHeader for a token, or
// WithCapabilities and WithAnswers for multi round-trip calls) to every
// client the battery creates.
func WithClientOptions(opts ...Option) RunOption {
	return runOptionFunc(func(c *runConfig) { c.client = append(c.client, opts...) })
}

// Skip leaves out the named checks. A name that is no check's leaves out
// nothing: the check it meant still runs and reports as usual.
func Skip(names ...string) RunOption {
	return runOptionFunc(func(c *runConfig) {
		for _, n := range names {
			c.skip[n] = true
		}
	})
}

// WithToolExamples turns on the checks "tools/read-only-examples" and
// "2026-07-28/input-required": every read-only tool (readOnlyHint true) is
// called, in every revision the server serves, with the example arguments
// given for it by name, and must answer a result that is not an error and
// that matches its outputSchema; on 2026-07-28 every interim
// input_required result of those calls must be well formed, and the call
// must end complete (give WithAnswers through WithClientOptions for tools
// that ask). A read-only tool without an example fails the check, so a new
// tool cannot slip through (SkipToolExamples leaves one out on purpose). It catches a tool routed to the wrong handler
// or refused by the host's own middleware, which the protocol checks
// cannot see.
func WithToolExamples(examples map[string]any) RunOption {
	return runOptionFunc(func(c *runConfig) {
		if c.examples == nil {
			c.examples = map[string]any{}
		}
		for k, v := range examples {
			c.examples[k] = v
		}
	})
}

// SkipToolExamples leaves the named tools out of the example calls of
// WithToolExamples: they are not called, and a read-only one among them
// does not fail for want of an example. For a tool no fixed argument can
// call, such as a status tool that needs a live job id.
func SkipToolExamples(names ...string) RunOption {
	return runOptionFunc(func(c *runConfig) {
		for _, n := range names {
			c.noExample[n] = true
		}
	})
}

func newRunConfig(opts []RunOption) *runConfig {
	cfg := &runConfig{skip: map[string]bool{}, noExample: map[string]bool{}}
	for _, o := range opts {
		o.applyRun(cfg)
	}
	return cfg
}

// outcome turns what a check found into its Result: the findings no
// deviation excuses count at the check's level; those excused make it
// Deviated when nothing else is found; a deviation of the check that
// excused nothing fails it.
func (cfg *runConfig) outcome(c check, found []finding, skip string) Result {
	r := Result{Check: c.name, Level: c.level, Source: c.source}
	if skip != "" {
		r.Status, r.Reason = Skipped, skip
		return r
	}
	var failing, excused []string
	nExcused := 0
	used := map[int]bool{}
	for _, f := range found {
		if f.dev > 0 {
			excused = append(excused, f.text)
			nExcused += max(f.n, 1)
			used[f.dev-1] = true
			for _, d := range f.also {
				used[d-1] = true
			}
			continue
		}
		failing = append(failing, f.text)
	}
	var reasons []string
	stale := false
	for i, d := range cfg.deviations {
		switch {
		case d.check != c.name:
		case d.unreasoned:
			stale = true
			failing = append(failing, "declared deviation mcptest.Deviation(\""+d.label()+"\", ...) gives no reason: it excuses nothing until it says why the server breaks the rule")
		case d.unphrased:
			stale = true
			failing = append(failing, "declared deviation ("+d.reason+") names no phrase after \""+c.name+":\": name the finding it excuses, or the check alone to excuse every answer of it that breaks its rule")
		case d.finding == "" && gathersAll(c.name):
			stale = true
			failing = append(failing, "declared deviation ("+d.reason+") names the whole row, which gathers what every check read: name the finding it excuses: mcptest.Deviation(\""+c.name+": <a phrase of the finding>\", ...)")
		case used[i]:
			if !slices.Contains(reasons, d.reason) {
				reasons = append(reasons, d.reason)
			}
		case len(found) == 0:
			stale = true
			failing = append(failing, "declared deviation ("+d.reason+") but the server meets the rule: remove mcptest.Deviation(\""+d.label()+"\", ...)")
		case d.finding != "" && slices.ContainsFunc(found, func(f finding) bool { return f.fault && strings.Contains(f.text, d.finding) }):
			stale = true
			failing = append(failing, fmt.Sprintf("declared deviation (%s) excused nothing: the findings containing %q got no answer to judge, which no deviation excuses", d.reason, d.finding))
		case d.finding != "":
			stale = true
			failing = append(failing, fmt.Sprintf("declared deviation (%s) excused nothing: no finding contains %q; remove or mend mcptest.Deviation(%q, ...)", d.reason, d.finding, d.label()))
		default:
			stale = true
			failing = append(failing, "declared deviation ("+d.reason+") excused nothing: the server gave no answer to judge, which no deviation excuses")
		}
	}
	r.Reason = strings.Join(reasons, "; ")
	switch {
	case len(failing) == 0 && len(excused) == 0:
		r.Status = Passed
	case len(failing) == 0:
		r.Status, r.Details = Deviated, excused
	default:
		r.Details = failing
		if n := nExcused; n > 0 {
			r.Details = append(r.Details, fmt.Sprintf("%d %s excused by the declared deviation (%s)", n, map[bool]string{true: "finding", false: "findings"}[n == 1], r.Reason))
		}
		if stale || c.level == Must || cfg.strict {
			r.Status = Failed
		} else {
			r.Status = Warned
		}
	}
	return r
}
