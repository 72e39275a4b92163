package main

import (
	"context"
	"flag"
	"io"
	"log/slog"
	"os"
	"os/signal"
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
// messages; the log goes to stderr.
var stdioFlag = flag.Bool("stdio", false, "serve MCP over stdin/stdout as the development account "+stdioAccount+" (no HTTP listener)")

// stdioAccount is the development token whose account a stdio session
// acts as.
const stdioAccount = "dev-writer"

// stdioResource stands for the endpoint's resource URI, which a stdio
// session has none of: sealed requestState is bound to it, and no token
// is ever checked against it.
const stdioResource = "http://127.0.0.1/mcp"

// serveStdio serves until stdin ends (0), SIGINT or SIGTERM (0), or
// stdout fails (1).
func serveStdio() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	slog.SetDefault(logger) // nothing the endpoint logs may reach stdout
	err := runStdio(ctx, os.Stdin, os.Stdout, logger)
	if err != nil && ctx.Err() == nil {
		logger.Error("inbox: stdio session failed", "err", err)
		return 1
	}
	return 0
}

// runStdio serves a fresh inbox over in and out as stdioAccount.
func runStdio(ctx context.Context, in io.Reader, out io.Writer, logger *slog.Logger) error {
	a := newApp(stdioResource)
	defer a.close()
	p, err := devVerifier(stdioResource).VerifyAccessToken(ctx, stdioAccount, nil)
	if err != nil {
		return err
	}
	logger.Info("inbox: serving MCP over stdio", "account", stdioAccount, "subject", p.Subject)
	return stdio.Serve(ctx, a.handler, in, out, stdio.WithPrincipal(p), stdio.WithLogger(logger))
}
