// Command inbox is the Autonomous Inbox reference server: a multi-tenant
// REST API (/api/v1: emails, inboxes, webhooks, jobs) over an in-memory
// store, and the same API as MCP tools, resources and prompts at /mcp,
// serving MCP 2026-07-28, 2025-06-18 and 2025-03-26 on one endpoint.
//
//	go run -C examples/inbox .              # 127.0.0.1:8080, from the repository root
//	go run -C examples/inbox . -addr 127.0.0.1:9090
//
// Replicas behind a load balancer share what any of them may need:
//
//	INBOX_STATE_KEYS='k1:<32 random bytes, base64>' go run -C examples/inbox . \
//	    -addr 127.0.0.1:9001 -public-url http://127.0.0.1:9000 -redis redis://127.0.0.1:6379/0
//
// INBOX_STATE_KEYS (or a file named by INBOX_STATE_KEYS_FILE) is the
// requestState key ring, in the text form of mrtr.ParseKeys; -public-url
// is the URL clients reach the service at, whose /mcp is the resource URI
// tokens are issued for; -redis keeps rate budgets, used confirmations,
// Idempotency-Keys and the job queue in Redis. The README's "Running
// several replicas" has the details.
//
// Development tokens (printed at start): dev-admin (organization Acme, two
// workspaces, all scopes: send X-Workspace-Id), dev-writer and dev-reader
// (organization Globex, one workspace; the reader has read scopes only).
// The seed data has the same ids on every start; see the README.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() { os.Exit(run()) }

// run serves until SIGINT or SIGTERM, then lets the requests in flight
// finish and stops the job worker; it returns 1 when they did not finish within the shutdown
// timeout (they were cut), 0 otherwise.
func run() int {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address (loopback)")
	grace := flag.Duration("shutdown-timeout", 10*time.Second, "how long requests in flight may take to finish at shutdown")
	var ff fleetFlags
	flag.StringVar(&ff.publicURL, "public-url", "", "the URL clients reach the service at (default: from -addr); its /mcp is the resource URI tokens are issued for")
	flag.StringVar(&ff.redisURL, "redis", "", "redis:// URL of the Redis that keeps rate budgets, used confirmations, Idempotency-Keys and jobs for every replica (default: in this process)")
	flag.StringVar(&ff.rate, "rate", "50,100", "each principal's rate budget: requests per second,burst")
	flag.Parse()
	if *stdioFlag {
		if unused := stdioIgnores(); unused != "" {
			// Said, not ignored: -stdio -redis would otherwise serve a
			// process of its own while its operator believes it shares
			// the fleet's store, and -otel-stdout would write spans onto
			// the protocol's own lines.
			fmt.Fprintf(os.Stderr, "inbox: %s has no effect with -stdio (which takes -rate, -legacy-input and -notifications)\n", unused)
			return 2
		}
		return serveStdio(ff.rate, *legacyInputFlag) // stdio.go
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fl, err := ff.setup(ln.Addr())
	if err != nil {
		ln.Close()
		log.Print(err)
		return 2
	}
	defer fl.shared.close()
	base := fl.base
	observer, stopTracing := tracing() // -otel-stdout, otel.go
	defer stopTracing()
	a := newAppWith(base+"/mcp", appConfig{queue: 1024, worker: true, perSecond: fl.perSecond, burst: fl.burst, shared: fl.shared, observer: observer, oidcIssuer: oidcIssuer,
		legacyInput: *legacyInputFlag, notifications: *notificationsFlag})
	// Last before Redis closes: the worker stops, and with -redis hands
	// back the job it runs, so that another replica claims it at once
	// rather than after its lease.
	defer a.close()
	srv := &http.Server{
		Handler:           a.handler,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	// Shutdown waits for every connection to go idle, which a notification
	// stream never does: Close ends them, and their clients listen again
	// on another replica.
	srv.RegisterOnShutdown(func() { a.mcp.Close() })
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	done := make(chan error, 1)
	go func() {
		<-ctx.Done()
		// In-flight requests finish; new connections are refused.
		shutdown, cancel := context.WithTimeout(context.Background(), *grace)
		defer cancel()
		done <- srv.Shutdown(shutdown)
	}()
	fmt.Printf(`Autonomous Inbox
  MCP endpoint:  %[1]s/mcp
  REST API:      %[1]s/api/v1
  Development tokens (Authorization: Bearer <token>):
    dev-admin   Acme, workspaces ws_acme_prod and ws_acme_staging, read+write (send X-Workspace-Id)
    dev-writer  Globex, workspace ws_globex, read+write
    dev-reader  Globex, workspace ws_globex, read only
`, base)
	if oidcIssuer != "" {
		fmt.Printf("  -oidc-issuer: only JWT access tokens of %s issued for %s/mcp are accepted, not the development tokens\n", oidcIssuer, base)
	}
	fmt.Printf("  Replicas:\n")
	for _, line := range fl.report {
		fmt.Printf("    %s\n", line)
	}
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Print(err)
		return 1
	}
	if err := <-done; err != nil {
		log.Printf("shutdown: requests still in flight after %v were cut: %v", *grace, err)
		return 1
	}
	return 0
}
