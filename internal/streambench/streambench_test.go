package streambench

import (
	"encoding/json"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestBounds checks the figures a run of .ci/streams.sh wrote into the
// directory STREAMBENCH_RESULTS names (mem.json, latency.json): the memory
// per idle stream against its bound, and that the latency run delivered
// every publication to every stream (its p99 is reported beside its
// target). It reads a measurement; it times nothing. Without
// STREAMBENCH_RESULTS it is skipped (.ci/streams.sh always sets it).
func TestBounds(t *testing.T) {
	dir := os.Getenv("STREAMBENCH_RESULTS")
	if dir == "" {
		t.Skip("STREAMBENCH_RESULTS is not set: bash .ci/streams.sh measures, then runs this")
	}
	read := func(name string, v any) bool {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			return false
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return true
	}
	var mem MemResult
	var lat LatencyResult
	hasMem, hasLat := read("mem.json", &mem), read("latency.json", &lat)
	if !hasMem && !hasLat {
		t.Fatalf("%s: %v", dir, errNoResults)
	}
	if hasMem {
		if mem.Streams < 2000 {
			t.Errorf("memory: measured with %d streams, not 2,000", mem.Streams)
		}
		if mem.PerStream > MaxBytesPerStream {
			t.Errorf("memory: %.0f bytes (%.1f KiB) per idle listen stream, over the bound of %d KiB: heap %.1f KiB, stacks %.1f KiB per stream",
				mem.PerStream, mem.PerStream/1024, MaxBytesPerStream>>10,
				float64(mem.Open.HeapInuse-mem.Before.HeapInuse)/float64(mem.Streams)/1024,
				float64(mem.Open.StackInuse-mem.Before.StackInuse)/float64(mem.Streams)/1024)
		}
	}
	if hasLat {
		if lat.Streams < 1000 || lat.Replicas < 3 || lat.Deliveries != lat.Streams*lat.Publications {
			t.Errorf("latency: measured %d deliveries of %d publications to %d streams on %d replicas, not every one to 1,000 streams on 3",
				lat.Deliveries, lat.Publications, lat.Streams, lat.Replicas)
		}
		// The latency is recorded, not gated: on this 2-core machine the
		// three replicas, Redis and the measuring program share the cores,
		// and p99 lands on both sides of the bound from run to run (design
		// record 033 has the figures). A run over it says so.
		if bound := float64(MaxP99.Milliseconds()); lat.P99 > bound {
			t.Logf("latency: p99 %.2f ms from publication to delivery, over the target of %.0f ms (p50 %.2f ms, max %.2f ms; slowest delivery of each publication %v ms)",
				lat.P99, bound, lat.P50, lat.Max, lat.RoundMax)
		} else {
			t.Logf("latency: p99 %.2f ms, within the target of %.0f ms (p50 %.2f ms, max %.2f ms)", lat.P99, bound, lat.P50, lat.Max)
		}
	}
}

// serve runs App on a loopback port until the test ends.
func serve(t *testing.T, streams int) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := Serve(App(nil, streams))
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/mcp"
}

// TestHarness runs both measurements at a small scale against one
// server in this process: every stream opens, is acknowledged what it
// asked, stays open while measured and receives every publication once.
// No figure is judged.
func TestHarness(t *testing.T) {
	if testing.Short() {
		t.Skip("opens streams for a few seconds")
	}
	url := serve(t, 40)
	mem, err := MeasureMemory(url, 20, "")
	if err != nil {
		t.Fatal(err)
	}
	if mem.Open.Goroutines < mem.Before.Goroutines+20 || mem.Open.Inuse() <= mem.Before.Inuse() {
		t.Errorf("20 open streams cost nothing? %+v", mem)
	}
	lat, err := MeasureLatency([]string{url, url}, 20, 3)
	if err != nil {
		t.Fatal(err)
	}
	if lat.Deliveries != 60 || len(lat.RoundMax) != 3 || lat.P99 < lat.P50 || lat.Max < lat.P99 {
		t.Errorf("latency result %+v", lat)
	}
}

// TestRefusals: the streams a server cannot take are reported, not
// waited for, and no measurement leaves loopback.
func TestRefusals(t *testing.T) {
	url := serve(t, 2)
	if _, err := MeasureMemory(url, 3, ""); err == nil {
		t.Error("3 streams on a server that allows 2 were measured")
	}
	if _, _, err := Listen("http://192.0.2.1:80/mcp", 1, `{"toolsListChanged":true}`, time.Second); err == nil {
		t.Error("a stream to a non-loopback address was opened")
	}
}

func TestQuantile(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	slices.Sort(d)
	for q, want := range map[float64]time.Duration{0.5: 50 * time.Millisecond, 0.99: 99 * time.Millisecond, 1: 100 * time.Millisecond, 0: time.Millisecond} {
		if got := Quantile(d, q); got != want {
			t.Errorf("Quantile(1..100 ms, %v) = %v, want %v", q, got, want)
		}
	}
}
