package main

import (
	"context"
	"flag"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/mcpdual/mcpdual/mcp/stdio"
)

// stdioFlag serves the inbox over standard input and output instead of
// HTTP, for local clients that start it as a subprocess:
//
//	go run -C examples/inbox . -stdio
//
// It runs as the development account dev-writer (Globex, workspace
// ws_globex, read and write): a stdio client presents no token, the user
// who starts the process is who it acts for. stdout carries only MCP
// messages; the log goes to stderr. With -legacy-input a 2025 client that
// declared elicitation on initialize confirms destructive tools: the
// question is a line on stdout, the client's answer a line on stdin.
var stdioFlag = flag.Bool("stdio", false, "serve MCP over stdin/stdout as the development account "+stdioAccount+" (no HTTP listener)")

// stdioAccount is the development token whose account a stdio session
// acts as.
const stdioAccount = "dev-writer"

// stdioResource stands for the endpoint's resource URI, which a stdio
// session has none of: sealed requestState is bound to it, and no token
// is ever checked against it.
const stdioResource = "http://127.0.0.1/mcp"

// serveStdio serves until stdin ends (0), SIGINT or SIGTERM (0), or
// stdout fails (1), and gives the session the principal's budget rate
// sets (-rate, as over HTTP); a rate it cannot read exits 2. legacy is
// -legacy-input: 2025 clients are asked over the lines; -notifications
// serves subscriptions/listen on the lines.
func serveStdio(rate string, legacy bool) int {
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	slog.SetDefault(logger) // nothing the endpoint logs may reach stdout
	perSecond, burst, err := parseRate(rate)
	if err != nil {
		logger.Error("inbox: " + err.Error())
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// A client that closes its end of stdout fails the next write (Serve
	// catches the SIGPIPE that would otherwise end the process unlogged):
	// the failure is logged below and the status is 1.
	err = runStdio(ctx, os.Stdin, os.Stdout, logger, perSecond, burst, legacy, *notificationsFlag)
	if err != nil && ctx.Err() == nil {
		logger.Error("inbox: stdio session failed", "err", err)
		return 1
	}
	return 0
}

// runStdio serves a fresh inbox over in and out as stdioAccount, whose
// budget is perSecond requests a second with burst; legacy asks 2025
// clients for input (mcp.WithLegacyInput, its answers carried in this
// process); notifications announces the changes the session's own calls
// make (mcp.WithChangeNotifications: a 2026-07-28 subscriptions/listen
// streams on the lines).
func runStdio(ctx context.Context, in io.Reader, out io.Writer, logger *slog.Logger, perSecond float64, burst int, legacy, notifications bool) error {
	a := newAppWith(stdioResource, appConfig{queue: 1024, worker: true, perSecond: perSecond, burst: burst, legacyInput: legacy,
		notifications: notifications})
	defer a.close()
	p, err := devVerifier(stdioResource).VerifyAccessToken(ctx, stdioAccount, nil)
	if err != nil {
		return err
	}
	logger.Info("inbox: serving MCP over stdio", "account", stdioAccount, "subject", p.Subject,
		"budget", strconv.FormatFloat(perSecond, 'f', -1, 64)+"/s, burst "+strconv.Itoa(burst), "legacyInput", legacy,
		"notifications", notifications)
	return stdio.Serve(ctx, a.handler, in, out, stdio.WithPrincipal(p), stdio.WithLogger(logger))
}

// stdioFlags are the flags a stdio session reads; any other set beside
// -stdio is refused (stdioIgnores).
var stdioFlags = map[string]bool{"stdio": true, "rate": true, "legacy-input": true, "notifications": true}

// stdioIgnores names the first flag set on the command line that a stdio
// session would ignore, "" when none is.
func stdioIgnores() string {
	var unused string
	flag.Visit(func(f *flag.Flag) {
		if unused == "" && !stdioFlags[f.Name] {
			unused = "-" + f.Name
		}
	})
	return unused
}
