// Command server serves one variant's endpoint on a loopback address.
//
//	server -variant mcpdual [-addr 127.0.0.1:0] [-lifetime 30m] [-cpuprofile FILE]
//
// It prints "ready http://<addr>/mcp pid=<pid>" once listening, so a
// script can both find the port the system picked and confirm it will
// stop the right process. It exits on SIGINT or SIGTERM, and by itself
// after -lifetime, so a server whose script died cannot linger.
// -cpuprofile writes a CPU profile of its whole life (for go tool pprof),
// which is where the over-the-wire cost is read: what the server spends
// around the handler, which the in-process benchmarks do not see.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/mcpdual/mcpdual/internal/bench"
)

func main() {
	variant := flag.String("variant", bench.MCPDual, "one of mcpdual, gosdk, mcpgo, mcpgo-validate, floor")
	addr := flag.String("addr", "127.0.0.1:0", "loopback listen address (port 0: the system picks)")
	lifetime := flag.Duration("lifetime", 30*time.Minute, "exit after this long whatever happens")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile to this file until the server stops")
	flag.Parse()

	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		log.Fatal(err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		log.Fatalf("refusing non-loopback address %q", *addr)
	}
	// mcp-go logs through slog.Default; under load that is noise.
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	h, err := bench.New(*variant)
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, IdleTimeout: time.Minute}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	stopProfile := func() {}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		stopProfile = func() {
			pprof.StopCPUProfile()
			f.Close()
		}
	}
	fmt.Printf("ready http://%s/mcp pid=%d\n", ln.Addr(), os.Getpid())

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *lifetime)
	defer cancel()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	err = srv.Serve(ln)
	stopProfile()
	if err != nil && err != http.ErrServerClosed {
		log.Fatal(err)
	}
}
