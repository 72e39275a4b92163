package mcptest

import (
	"fmt"
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
	deviations map[string]string // check name -> reason
	revisions  map[string]bool   // nil: every revision
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
// purpose, for the reason given. The check still runs: its violation is
// reported (Deviated, logged by Run) instead of failing, and the check
// fails if the server meets the rule after all, so that a stale
// declaration does not linger.
func Deviation(check, reason string) RunOption {
	return runOptionFunc(func(c *runConfig) { c.deviations[check] = reason })
}

// Revisions limits the battery to the checks of the given revisions (and
// to the checks of the endpoint itself, which every revision shares).
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

// Skip leaves out the named checks.
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
	cfg := &runConfig{skip: map[string]bool{}, deviations: map[string]string{}, noExample: map[string]bool{}}
	for _, o := range opts {
		o.applyRun(cfg)
	}
	return cfg
}

// outcome turns what a check found into its Result.
func (cfg *runConfig) outcome(c check, found []string, skip string) Result {
	r := Result{Check: c.name, Level: c.level, Source: c.source, Details: found}
	reason, deviates := cfg.deviations[c.name]
	switch {
	case skip != "":
		r.Status, r.Reason = Skipped, skip
	case len(found) == 0 && deviates:
		r.Status = Failed
		r.Details = []string{"declared deviation (" + reason + ") but the server meets the rule: remove mcptest.Deviation(\"" + c.name + "\", ...)"}
	case len(found) == 0:
		r.Status = Passed
	case deviates:
		r.Status, r.Reason = Deviated, reason
	case c.level == Must || cfg.strict:
		r.Status = Failed
	default:
		r.Status = Warned
	}
	return r
}
