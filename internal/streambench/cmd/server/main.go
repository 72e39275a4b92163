// Command server serves streambench.App on a loopback address.
//
//	server [-addr 127.0.0.1:0] [-streams 2100] [-redis redis://127.0.0.1:PORT/0] [-lifetime 5m]
//
// With -redis the change notifications go through
// redisstore.NewEventBus on that Redis (which must be on loopback), so
// that replicas started alike share them; without, they stay in this
// process. It prints "ready http://<addr>/mcp pid=<pid>" once listening,
// and exits on SIGINT or SIGTERM, or by itself after -lifetime.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpdual/mcpdual/internal/streambench"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/redisstore"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "loopback listen address (port 0: the system picks)")
	streams := flag.Int("streams", 2100, "notification streams allowed, in all and from one caller")
	redisURL := flag.String("redis", "", "redis://host:port/db on loopback: the event bus the replicas share (default: in process)")
	lifetime := flag.Duration("lifetime", 5*time.Minute, "exit after this long whatever happens")
	profileRate := flag.Int("memprofilerate", 0, "runtime.MemProfileRate: 1 records every allocation in /debug/pprof/heap (default: Go's, one per 512 KiB)")
	flag.Parse()
	if *profileRate > 0 {
		runtime.MemProfileRate = *profileRate
	}

	loopback := func(hostport string) {
		host, _, err := net.SplitHostPort(hostport)
		if err != nil {
			log.Fatal(err)
		}
		if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
			log.Fatalf("refusing non-loopback address %q", hostport)
		}
	}
	loopback(*addr)
	var bus mcp.EventBus
	if *redisURL != "" {
		opt, err := redis.ParseURL(*redisURL)
		if err != nil {
			log.Fatal(err)
		}
		loopback(opt.Addr)
		rdb := redis.NewClient(opt)
		defer rdb.Close()
		eb := redisstore.NewEventBus(rdb, redisstore.WithPrefix("streambench:"))
		defer eb.Close()
		bus = eb
	}
	srv := streambench.Serve(streambench.App(bus, *streams))

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
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
		srv.Close() // streams do not end by themselves within 2 s
	}()
	if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
		log.Fatal(err)
	}
}
