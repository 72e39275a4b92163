// Command measure runs one of streambench's measurements against servers
// already running (cmd/server) and writes what it measured as JSON into
// -out (mem.json or latency.json), for TestBounds to read.
//
//	measure -mode mem -url http://127.0.0.1:P/mcp [-streams 2000] -out DIR
//	measure -mode latency -url URL1,URL2,URL3 [-streams 1000] [-publications 20] -out DIR
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/mcpdual/mcpdual/internal/streambench"
)

func main() {
	mode := flag.String("mode", "", "mem or latency")
	urls := flag.String("url", "", "the server's endpoint; for latency, each replica's, comma-separated")
	n := flag.Int("streams", 0, "streams to open (default 2000 for mem, 1000 for latency)")
	pubs := flag.Int("publications", 20, "latency: publications counted")
	out := flag.String("out", "", "directory to write mem.json or latency.json into")
	profiles := flag.String("profiles", "", "mem: a directory to save the server's heap and goroutine profiles in, taken with the streams open")
	flag.Parse()
	if *urls == "" || *out == "" {
		log.Fatal("measure needs -url and -out")
	}
	list := strings.Split(*urls, ",")
	switch *mode {
	case "mem":
		if *n == 0 {
			*n = 2000
		}
		r, err := streambench.MeasureMemory(list[0], *n, *profiles)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("memory: %d idle listen streams: %.0f bytes (%.1f KiB) per stream; heap+stack in use %.1f MiB before, %.1f MiB open, %.1f MiB closed; goroutines %d, %d, %d; opened in %.1f s\n",
			r.Streams, r.PerStream, r.PerStream/1024, mib(r.Before.Inuse()), mib(r.Open.Inuse()), mib(r.Closed.Inuse()),
			r.Before.Goroutines, r.Open.Goroutines, r.Closed.Goroutines, r.OpenSeconds)
		check(streambench.Write(*out, "mem.json", r))
	case "latency":
		if *n == 0 {
			*n = 1000
		}
		r, err := streambench.MeasureLatency(list, *n, *pubs)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("latency: %d streams on %d replicas, %d publications, %d deliveries: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms (warm-up publication's max %.2f ms; trigger round trip p50 %.2f ms); CPU per publication: replicas %.1f ms in all, this program %.1f ms\n",
			r.Streams, r.Replicas, r.Publications, r.Deliveries, r.P50, r.P90, r.P99, r.Max, r.WarmupMax, r.TriggerP50, r.ServerCPU, r.ClientCPU)
		check(streambench.Write(*out, "latency.json", r))
	default:
		log.Fatal("measure needs -mode mem or -mode latency")
	}
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
