// Command load drives one endpoint on loopback with a bounded closed loop
// (see bench.Load) and prints one line for people on stderr and one for
// cmd/summarize on stdout ("RESULT {json}"). It exits non-zero on any
// error, a wrong answer included.
//
//	load -url http://127.0.0.1:PORT/mcp -proto 2026-07-28 -label mcpdual \
//	     -workers 4 -warmup 1s -duration 5s -max-requests 2000000
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/mcpdual/mcpdual/internal/bench"
)

func main() {
	var cfg bench.LoadConfig
	flag.StringVar(&cfg.URL, "url", "", "endpoint, http://<loopback IP>:<port>/mcp")
	flag.StringVar(&cfg.Proto, "proto", bench.Proto2025, "protocol revision: 2025-06-18 or 2026-07-28")
	flag.IntVar(&cfg.Workers, "workers", 4, "concurrent workers, one keep-alive connection each")
	flag.DurationVar(&cfg.Warmup, "warmup", time.Second, "unmeasured lead-in")
	flag.DurationVar(&cfg.Duration, "duration", 5*time.Second, "measured window")
	flag.Int64Var(&cfg.MaxRequests, "max-requests", 2_000_000, "stop after this many requests, warm-up included")
	flag.IntVar(&cfg.ServerPID, "server-pid", 0, "the server's PID, for its CPU per request and peak RSS (0: not measured)")
	label := flag.String("label", "", "variant name carried into the RESULT line")
	flag.Parse()

	res, err := bench.Load(cfg)
	res.Label = *label
	fmt.Fprintf(os.Stderr, "load %-14s %s w=%d  %8.0f req/s  p50 %.0fµs  p90 %.0fµs  p99 %.0fµs  max %.0fµs  cpu %.1fµs/req  rss %d kB  n=%d capped=%t errors=%d\n",
		res.Label, res.Proto, res.Workers, res.RPS, res.P50Us, res.P90Us, res.P99Us, res.MaxUs, res.CPUUsPerReq, res.PeakRSSKB, res.Requests, res.Capped, res.Errors)
	if err != nil {
		fmt.Fprintf(os.Stderr, "load %s %s: %v\n", res.Label, cfg.Proto, err)
		os.Exit(1)
	}
	line, _ := json.Marshal(res)
	fmt.Printf("RESULT %s\n", line)
}
