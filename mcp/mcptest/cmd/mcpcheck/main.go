// Command mcpcheck runs mcptest's battery against an MCP server over the
// network, whatever it is written in, and prints one line per check with
// its status, level and the rule it comes from:
//
//	go run github.com/mcpdual/mcpdual/mcp/mcptest/cmd/mcpcheck http://127.0.0.1:8080/mcp
//
// The exit status is 1 when a check fails (at the default level, only MUST
// violations fail; -strict fails SHOULDs and mcpdual's stateless profile
// too), 2 on a usage error, 0 otherwise.
package main

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/mcptest"
)

// list is a repeatable flag.
type list []string

func (l *list) String() string     { return strings.Join(*l, ", ") }
func (l *list) Set(v string) error { *l = append(*l, v); return nil }

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcpcheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var headers, revisions, skips, deviations, noExamples list
	strict := fs.Bool("strict", false, "enforce every level: SHOULDs and mcpdual's stateless profile fail like MUSTs")
	quiet := fs.Bool("q", false, "print only the checks that did not pass or were skipped")
	timeout := fs.Duration("timeout", 5*time.Second, "bound on each request")
	examples := fs.String("examples", "", "a JSON file mapping read-only tool names to example arguments (turns on tools/read-only-examples)")
	follow := fs.Bool("follow", false, "follow a redirect to the same origin (scheme, host, port); one to another origin is never followed, so -H headers and the body stay with the endpoint; without -follow a redirect fails wire/redirect")
	cacert := fs.String("cacert", "", "a PEM file of the certificate authorities to trust for an https:// endpoint, in place of the system's (a test or private CA)")
	fs.Var(&noExamples, "skip-example", "leave this tool out of the -examples calls, such as a status tool that needs a live job id (repeatable)")
	fs.Var(&headers, "H", `a header sent with every request, "Name: value" (repeatable), such as "Authorization: Bearer ..."`)
	fs.Var(&revisions, "revision", "run only the checks of this revision, and those of the endpoint (repeatable)")
	fs.Var(&skips, "skip", "leave out the named check (repeatable)")
	fs.Var(&deviations, "deviation", `declare "check=reason", or "check: phrase=reason" (the reason after the last '=') to excuse only the check's findings that contain the phrase: the server breaks the check's rule on purpose (repeatable)`)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: mcpcheck [flags] URL")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	// An endpoint the kit cannot even address is the caller's mistake, not
	// the server's failure.
	if u, err := url.Parse(fs.Arg(0)); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		fmt.Fprintf(stderr, "mcpcheck: %q: want an http:// or https:// URL of the MCP endpoint\n", fs.Arg(0))
		return 2
	}
	if *timeout <= 0 {
		fmt.Fprintln(stderr, "mcpcheck: -timeout must be positive")
		return 2
	}
	client := []mcptest.Option{mcptest.WithTimeout(*timeout)}
	if *follow {
		client = append(client, mcptest.FollowRedirects())
	}
	if *cacert != "" {
		rt, err := trusting(*cacert)
		if err != nil {
			fmt.Fprintf(stderr, "mcpcheck: -cacert: %v\n", err)
			return 2
		}
		client = append(client, mcptest.WithTransport(rt))
	}
	for _, h := range headers {
		name, value, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(name) == "" {
			fmt.Fprintf(stderr, "mcpcheck: -H %q: want \"Name: value\"\n", h)
			return 2
		}
		client = append(client, mcptest.WithHeader(strings.TrimSpace(name), strings.TrimSpace(value)))
	}
	opts := []mcptest.RunOption{mcptest.WithClientOptions(client...), mcptest.Skip(skips...)}
	if *strict {
		opts = append(opts, mcptest.Strict())
	}
	if len(revisions) > 0 {
		vs := make([]mcp.Version, len(revisions))
		for i, v := range revisions {
			vs[i] = mcp.Version(v)
		}
		opts = append(opts, mcptest.Revisions(vs...))
	}
	for _, d := range deviations {
		check, reason, ok := strings.Cut(d, "=")
		if ok && strings.Contains(check, ":") {
			// A check's name holds neither ':' nor '=', but a phrase may hold
			// '=' (the kit's words quote Mcp-Name's "=?base64?...?="): the
			// reason follows the last one. Cut at the first, the phrase
			// would end early, or be empty, and excuse more than declared.
			i := strings.LastIndex(d, "=")
			check, reason = d[:i], d[i+1:]
			_, phrase, _ := strings.Cut(check, ":")
			ok = strings.TrimSpace(phrase) != ""
		}
		if !ok || check == "" || strings.TrimSpace(reason) == "" {
			fmt.Fprintf(stderr, "mcpcheck: -deviation %q: want \"check=reason\" or \"check: phrase=reason\"\n", d)
			return 2
		}
		opts = append(opts, mcptest.Deviation(check, reason))
	}
	if *examples != "" {
		b, err := os.ReadFile(*examples)
		var ex map[string]any
		if err == nil {
			err = json.Unmarshal(b, &ex)
		}
		if err != nil {
			fmt.Fprintf(stderr, "mcpcheck: -examples: %v\n", err)
			return 2
		}
		opts = append(opts, mcptest.WithToolExamples(ex))
	}
	if len(noExamples) > 0 {
		opts = append(opts, mcptest.SkipToolExamples(noExamples...))
	}

	results := mcptest.CheckURL(fs.Arg(0), opts...)
	return report(stdout, results, *quiet)
}

// trusting returns a transport that trusts the certificate authorities of
// the PEM file at path and no others, as curl's --cacert does: a check of
// a test server should not pass on a certificate the system happens to
// trust.
func trusting(path string) (http.RoundTripper, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s holds no PEM certificate", path)
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return t, nil
}

// report prints the table and returns the exit status.
func report(w io.Writer, results []mcptest.Result, quiet bool) int {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STATUS\tLEVEL\tCHECK\tSOURCE")
	count := map[mcptest.Status]int{}
	for _, r := range results {
		count[r.Status]++
		if quiet && r.Status == mcptest.Passed {
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Status, r.Level, r.Check, r.Source)
		if r.Status == mcptest.Skipped || r.Status == mcptest.Deviated {
			fmt.Fprintf(tw, "\t\t\t  %s\n", oneLine(r.Reason))
		}
		if r.Status != mcptest.Passed && r.Status != mcptest.Skipped {
			for _, d := range r.Details {
				fmt.Fprintf(tw, "\t\t\t  %s\n", oneLine(d))
			}
		}
	}
	tw.Flush()
	fmt.Fprintf(w, "\n%d checks: %d passed, %d failed, %d warned (not enforced at this level), %d deviated as declared, %d skipped\n",
		len(results), count[mcptest.Passed], count[mcptest.Failed], count[mcptest.Warned], count[mcptest.Deviated], count[mcptest.Skipped])
	if count[mcptest.Failed] > 0 {
		return 1
	}
	return 0
}

// oneLine keeps a detail on its table row.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		// Cut at a character boundary.
		i := 300
		for i > 0 && s[i]&0xC0 == 0x80 {
			i--
		}
		s = s[:i] + "…"
	}
	return s
}
