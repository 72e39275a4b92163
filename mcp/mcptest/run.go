package mcptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/mcp"
)

// Run checks h against the rules of the MCP revisions it serves, one
// subtest per check, each named after its rule and level (see Check for
// the list). By default only MUST violations fail the test; SHOULD and
// profile violations are logged with t.Log, and checks that do not apply
// are skipped with the reason. Strict fails them all. It learns what h
// serves from server/discover and initialize. Every request has a timeout
// (DefaultTimeout, or WithTimeout through WithClientOptions).
//
// Before v0.5.0 Run failed on every check, this library's own choices
// included; use Strict for that.
func Run(t *testing.T, h http.Handler, opts ...RunOption) {
	t.Helper()
	report(t, Check(h, opts...))
}

// RunURL is Run for a server listening at url.
func RunURL(t *testing.T, url string, opts ...RunOption) {
	t.Helper()
	report(t, CheckURL(url, opts...))
}

func report(t *testing.T, results []Result) {
	t.Helper()
	for _, r := range results {
		t.Run(r.Check, func(t *testing.T) {
			switch r.Status {
			case Failed:
				for _, d := range r.Details {
					t.Errorf("%s (%s): %s", r.Level, r.Source, d)
				}
			case Warned:
				for _, d := range r.Details {
					t.Logf("%s (%s), not enforced at this level: %s", r.Level, r.Source, d)
				}
			case Deviated:
				for _, d := range r.Details {
					t.Logf("%s (%s), declared deviation (%s): %s", r.Level, r.Source, r.Reason, d)
				}
			case Skipped:
				t.Skip(r.Reason)
			}
		})
	}
}

// Check runs the battery against h in-process and returns one Result per
// check, in the battery's order, without failing anything: the caller
// decides (Run fails the Failed ones; cmd/mcpcheck prints a table).
func Check(h http.Handler, opts ...RunOption) []Result {
	return newBattery("http://localhost/mcp", inProcess(h), opts).run()
}

// CheckURL runs the battery against the endpoint at url, over the
// network.
func CheckURL(url string, opts ...RunOption) []Result {
	return newBattery(url, nil, opts).run()
}

// battery is what the checks share: the endpoint, a client of each era and
// what the server said it serves.
type battery struct {
	url  string
	send func(*http.Request) (*http.Response, error) // returns once the headers are in
	cfg  *runConfig
	ctx  context.Context

	modern, legacy, legacy0326 *Client
	serves2026, serves2025     bool
	serves0326                 bool
	supported                  []string // server/discover's supportedVersions, when it serves 2026-07-28
	listed                     []string // the same, whatever it serves
	caps                       map[string]json.RawMessage
	discover, init             *Response
	// discoverErr and initErr: why there is no answer to judge (the
	// connection refused, the URL unusable, the time out), for the
	// failure that says the endpoint answers neither.
	discoverErr, initErr error

	getOnce sync.Once
	get     *http.Response
	getErr  error

	wire       wire // what inspect found in every exchange
	surveyOnce sync.Once

	listMu   sync.Mutex
	lists    map[listKey]listRead // every list read whole, by client and method
	answered []*Response          // responses' answers, once asked
}

// newBattery makes the battery; send nil means over the network.
func newBattery(url string, send func(*http.Request) (*http.Response, error), opts []RunOption) *battery {
	b := &battery{url: url, send: send, cfg: newRunConfig(opts), ctx: context.Background()}
	b.legacy = b.client(mcp.Version20250618)
	b.send = b.legacy.send // the network's, as the options say, when send is nil
	b.modern = b.client(mcp.Version20260728)
	b.legacy0326 = b.client(mcp.Version20250326)
	b.wire.excuse = func(row, msg string) []int {
		if e := b.cfg.excuser(row); e != nil {
			return e(msg, false)
		}
		return nil
	}
	return b
}

func (b *battery) client(v mcp.Version) *Client {
	c := newClient(b.url, b.send, v, b.cfg.client)
	c.inspect = b.inspect
	return c
}

func (b *battery) run() []Result {
	b.learn()
	if !b.serves2026 && !b.serves2025 {
		detail := fmt.Sprintf("the endpoint answers neither server/discover (%s) nor initialize (%s)", describeErr(b.discover, b.discoverErr), describeErr(b.init, b.initErr))
		if redirects := b.wire.reportText(rowRedirect); len(redirects) > 0 {
			detail += "; it redirects: " + strings.Join(redirects, "; ")
		}
		if wantsCredentials(b.init) || wantsCredentials(b.discover) {
			detail += "; it wants credentials: pass them with WithClientOptions(WithHeader(\"Authorization\", ...)) (mcpcheck: -H \"Authorization: Bearer ...\")"
		}
		return []Result{{Check: "endpoint/answers", Level: Must, Source: srcDiscover + "; " + srcInit, Status: Failed, Details: []string{detail}}}
	}
	var out []Result
	known := map[string]bool{}
	for _, c := range checks {
		known[c.name] = true
		found, skip := b.runOne(c)
		out = append(out, b.cfg.outcome(c, found, skip))
	}
	// A deviation naming no check (a typo, a check renamed) would silence
	// nothing and say nothing: it fails, so that it is mended.
	var unknown []deviation
	for _, d := range b.cfg.deviations {
		if !known[d.check] {
			unknown = append(unknown, d)
		}
	}
	slices.SortStableFunc(unknown, func(a, b deviation) int { return strings.Compare(a.check, b.check) })
	for _, d := range unknown {
		out = append(out, Result{Check: d.check, Level: Must, Status: Failed,
			Details: []string{"mcptest.Deviation(\"" + d.label() + "\", ...) names no check of the battery: remove it, or name the check it means"}})
	}
	// So would a revision no check exercises (a typo, such as 2026-7-28):
	// it would leave out every check of every revision, and the run would
	// pass on the endpoint's rows alone.
	revs := map[string]bool{}
	for _, c := range checks {
		if c.rev != "" {
			revs[c.rev] = true
		}
	}
	var stray []string
	for _, v := range slices.Sorted(maps.Keys(b.cfg.revisions)) {
		if !revs[v] {
			stray = append(stray, fmt.Sprintf("mcptest.Revisions(%q) names no revision of the battery (%s): every check of a revision would be left out; name one of those", v, strings.Join(slices.Sorted(maps.Keys(revs)), ", ")))
		}
	}
	if len(stray) > 0 {
		out = append(out, Result{Check: "mcptest/revisions", Level: Must, Status: Failed, Details: stray})
	}
	return out
}

// describeErr is describe, with the reason when no answer came.
func describeErr(r *Response, err error) string {
	switch {
	case r == nil && err != nil:
		return "no response: " + err.Error()
	case err != nil && !errors.Is(err, errNotJSON):
		return describe(r) + ", then: " + err.Error()
	}
	return describe(r)
}

func wantsCredentials(r *Response) bool {
	return r != nil && (r.Status == http.StatusUnauthorized || r.Status == http.StatusForbidden)
}

// stop ends a check early (fatal or skip).
type stop struct{}

// reporter is what a check reports to: findings (Errorf), a finding that
// ends the check (Fatalf), that the server gave no answer to judge
// (Unansweredf, which also ends it), or that the check does not apply
// (Skipf). The checks know nothing else of who runs them, so the same
// table serves Run under testing.T, Check and CheckURL for callers, and
// cmd/mcpcheck.
type reporter interface {
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Unansweredf(format string, args ...any)
	Skipf(format string, args ...any)
	// add records a finding made elsewhere (a wire row's).
	add(f finding)
}

// finding is one thing a check found.
type finding struct {
	text string
	// fault: the kit got no answer to judge (the request failed, the body
	// could not be read) or could not finish the check; never excused.
	fault bool
	// dev is the index plus one of the deviation that excuses it, 0 for
	// none; also, those of the other deviations that match it, declared
	// after dev's: they excuse it too, and are not stale.
	dev  int
	also []int
	// n is how many findings the text stands for (0 and 1: one), more for
	// a row's "and N more" past its cap.
	n int
	// judged: dev was settled where the finding was filed (a wire row's,
	// each matched when inspect filed it); its text, such as "and N
	// more", is not matched again.
	judged bool
}

// rep collects what one check finds.
type rep struct {
	found []finding
	skip  string
	// excuse says which deviations match a finding, the first excusing
	// it; nil when none can.
	excuse func(text string, fault bool) []int
}

func (r *rep) add(f finding) {
	if r.excuse != nil && !f.judged {
		if m := r.excuse(f.text, f.fault); len(m) > 0 {
			f.dev, f.also = m[0], m[1:]
		}
	}
	r.found = append(r.found, f)
}

func (r *rep) Errorf(format string, args ...any) {
	r.add(finding{text: fmt.Sprintf(format, args...)})
}

// Fatalf records a finding and ends the check.
func (r *rep) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	panic(stop{})
}

// Unansweredf records that the server gave no answer the check could
// judge, and ends the check.
func (r *rep) Unansweredf(format string, args ...any) {
	r.add(finding{text: fmt.Sprintf(format, args...), fault: true})
	panic(stop{})
}

// Skipf ends the check as not applicable.
func (r *rep) Skipf(format string, args ...any) {
	r.skip = fmt.Sprintf(format, args...)
	panic(stop{})
}

func (b *battery) runOne(c check) (found []finding, skip string) {
	switch {
	case b.cfg.skip[c.name]:
		return nil, "left out by mcptest.Skip"
	case c.rev != "" && b.cfg.revisions != nil && !b.cfg.revisions[c.rev]:
		return nil, "revision " + c.rev + " left out by mcptest.Revisions"
	}
	if why := c.applies(b); why != "" {
		return nil, why
	}
	r := &rep{excuse: b.cfg.excuser(c.name)}
	func() {
		defer func() {
			if p := recover(); p != nil {
				if _, ok := p.(stop); !ok {
					// Whatever a server answers, the kit reports; a check
					// that trips over an answer it did not foresee is a
					// failure that says so, not a crash of the run.
					r.add(finding{text: fmt.Sprintf("mcptest could not finish this check (%v); the answers before it are above, and this is a fault of the kit to report", p), fault: true})
				}
			}
		}()
		c.run(b, r)
	}()
	return r.found, r.skip
}

// learn asks the server what it serves.
func (b *battery) learn() {
	d, err := b.modern.Call(b.ctx, "server/discover", nil)
	b.discover, b.discoverErr = d, err
	if err == nil && d.Error == nil && d.Status == http.StatusOK && d.Result != nil {
		var r struct {
			SupportedVersions []string                   `json:"supportedVersions"`
			Capabilities      map[string]json.RawMessage `json:"capabilities"`
		}
		_ = json.Unmarshal(d.Result, &r)
		// A server may know server/discover and still not serve
		// 2026-07-28 (go-sdk does, outside its stateless mode): what it
		// lists decides.
		b.listed = r.SupportedVersions
		if b.serves2026 = slices.Contains(r.SupportedVersions, "2026-07-28"); b.serves2026 {
			b.supported, b.caps = r.SupportedVersions, r.Capabilities
		}
	}
	init, err := b.legacy.Initialize(b.ctx)
	b.init, b.initErr = init, err
	b.serves2025 = err == nil && init.Error == nil && init.Status == http.StatusOK && init.Result != nil
	if b.serves2025 && b.caps == nil {
		var r struct {
			Capabilities map[string]json.RawMessage `json:"capabilities"`
		}
		_ = json.Unmarshal(init.Result, &r)
		b.caps = r.Capabilities
	}
	if b.serves2025 {
		r, err := b.legacy0326.Initialize(b.ctx)
		b.serves0326 = err == nil && r.Error == nil && b.legacy0326.Version() == mcp.Version20250326
	}
}

// clients returns a client of each revision the server serves (and
// Revisions allows).
func (b *battery) clients() []*Client {
	var out []*Client
	for _, c := range []*Client{b.modern, b.legacy, b.legacy0326} {
		served := b.serves2026
		switch c {
		case b.legacy:
			served = b.serves2025
		case b.legacy0326:
			served = b.serves0326
		}
		if served && (b.cfg.revisions == nil || b.cfg.revisions[string(c.version)]) {
			out = append(out, c)
		}
	}
	return out
}

// getResponse sends one GET, as a client opening the 2025 standalone
// stream does, and keeps its status and headers; the body is never read.
func (b *battery) getResponse() (*http.Response, error) {
	b.getOnce.Do(func() {
		// Short: a server that streams answers with headers at once, and
		// one that answers nothing is at fault either way.
		ctx, cancel := context.WithTimeout(b.ctx, getWait)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, b.url, nil)
		req.Header.Set("Accept", "text/event-stream")
		for k, vs := range b.legacy.extra {
			req.Header[k] = slices.Clone(vs)
		}
		b.legacy.mu.Lock()
		if b.legacy.session != "" {
			req.Header.Set("Mcp-Session-Id", b.legacy.session) // the stream is the session's
		}
		b.legacy.mu.Unlock()
		// The body is never read: an event stream the server holds open
		// costs nothing.
		if b.get, b.getErr = b.send(req); b.getErr == nil {
			b.get.Body.Close()
			if b.get.StatusCode/100 == 3 {
				b.wire.add(rowRedirect, fmt.Sprintf("GET: HTTP %d redirect to %s, not followed%s", b.get.StatusCode, b.get.Header.Get("Location"), redirectNote(b.legacy, "")))
			}
		} else {
			b.getErr = fmt.Errorf("no response headers within %v: %w", getWait, b.getErr)
		}
	})
	return b.get, b.getErr
}

// getWait bounds how long the GET check waits for response headers.
var getWait = 2 * time.Second
