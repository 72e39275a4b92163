package streambench

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// The bounds issue 34 sets, which TestBounds checks against what a run
// wrote.
const (
	MaxBytesPerStream = 32 << 10              // server memory per idle listen stream
	MaxP99            = 50 * time.Millisecond // publish-to-delivery, 3 replicas through Redis
)

// window is how long after the first stream opened a run must be done:
// a listen stream ends after 45 s (mcp's listenLifetime), and a
// measurement taken later would miss streams.
const window = 40 * time.Second

// MemResult is what the memory run measured.
type MemResult struct {
	Streams     int     `json:"streams"`
	Before      Mem     `json:"before"`      // before the first stream opened
	Open        Mem     `json:"open"`        // every stream open and idle
	Closed      Mem     `json:"closed"`      // a second after every stream closed
	PerStream   float64 `json:"perStream"`   // (Open - Before) Inuse bytes / Streams
	OpenSeconds float64 `json:"openSeconds"` // opening them all took
}

// LatencyResult is what the latency run measured, in milliseconds.
type LatencyResult struct {
	Streams      int     `json:"streams"`
	Replicas     int     `json:"replicas"`
	Publications int     `json:"publications"` // counted; one more, first, warms up
	Deliveries   int     `json:"deliveries"`
	P50          float64 `json:"p50"`
	P90          float64 `json:"p90"`
	P99          float64 `json:"p99"`
	Max          float64 `json:"max"`
	WarmupMax    float64 `json:"warmupMax"`  // the uncounted first publication's slowest delivery
	TriggerP50   float64 `json:"triggerP50"` // the debug POST's own round trip
	// RoundMax is each counted publication's slowest delivery; Trigger,
	// how long its debug POST took.
	RoundMax []float64 `json:"roundMax"`
	// ServerCPU is the CPU time (user and system) every replica spent
	// per publication, in all; ClientCPU, the measuring program's own.
	ServerCPU float64   `json:"serverCPU"`
	ClientCPU float64   `json:"clientCPU"`
	Trigger   []float64 `json:"trigger"`
}

// Write writes v as JSON to dir/name.
func Write(dir, name string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name), append(b, '\n'), 0o644)
}

// streams is a set of open streams, each read by a goroutine of its own
// until it ends.
type streams struct {
	mu    sync.Mutex
	open  []*Stream
	ended atomic.Int64
	wg    sync.WaitGroup
}

// openAll opens n listen streams, i on urls[i%len(urls)], workers at a
// time, each read by read(i, message) until it ends (read returns
// false to stop reading); check sees each acknowledgement.
func openAll(urls []string, n, workers int, notes string, check func(ack json.RawMessage) error, read func(i int, m Message) bool) (*streams, error) {
	ss := &streams{open: make([]*Stream, n)}
	next := atomic.Int64{}
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				s, ack, err := Listen(urls[i%len(urls)], i+1, notes, 10*time.Second)
				if err == nil {
					err = check(ack)
				}
				if err != nil {
					if s != nil {
						s.Close()
					}
					next.Store(int64(n)) // the others stop too
					errs <- err
					return
				}
				ss.mu.Lock()
				ss.open[i] = s
				ss.mu.Unlock()
				ss.wg.Add(1)
				go func() {
					defer ss.wg.Done()
					defer ss.ended.Add(1)
					for {
						m, err := s.Next()
						if err != nil || m.Method == "" || !read(i, m) {
							return
						}
					}
				}()
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		ss.close()
		return nil, err
	}
	return ss, nil
}

// close closes every stream and waits for their readers.
func (ss *streams) close() {
	ss.mu.Lock()
	for _, s := range ss.open {
		if s != nil {
			s.Close()
		}
	}
	ss.mu.Unlock()
	ss.wg.Wait()
}

// MeasureMemory opens n idle listen streams (toolsListChanged) on the
// server at url and reports its memory before and with them open. With
// profiles not "", it also saves the server's heap and goroutine
// profiles (heap.pprof, goroutine.txt) there while the streams are open.
func MeasureMemory(url string, n int, profiles string) (MemResult, error) {
	r := MemResult{Streams: n}
	var err error
	// A first stream, opened and closed, so that what the first one
	// sets up once is not counted.
	if err := warm(url, `{"toolsListChanged":true}`); err != nil {
		return r, err
	}
	if r.Before, err = GetMem(url); err != nil {
		return r, err
	}
	start := time.Now()
	ss, err := openAll([]string{url}, n, 16, `{"toolsListChanged":true}`,
		func(ack json.RawMessage) error {
			if string(ack) != `{"toolsListChanged":true}` {
				return fmt.Errorf("acknowledged %s", ack)
			}
			return nil
		},
		func(int, Message) bool { return true })
	if err != nil {
		return r, err
	}
	r.OpenSeconds = time.Since(start).Seconds()
	time.Sleep(time.Second) // idle
	r.Open, err = GetMem(url)
	if err == nil && profiles != "" {
		err = saveProfiles(url, profiles)
	}
	if err == nil {
		err = ss.alive(n, start)
	}
	ss.close()
	if err != nil {
		return r, err
	}
	time.Sleep(time.Second)
	if r.Closed, err = GetMem(url); err != nil {
		return r, err
	}
	r.PerStream = (float64(r.Open.Inuse()) - float64(r.Before.Inuse())) / float64(n)
	return r, nil
}

// alive fails when a stream ended, or when the run outlived the window.
func (ss *streams) alive(n int, start time.Time) error {
	if e := ss.ended.Load(); e > 0 {
		return fmt.Errorf("%d of %d streams ended before they were measured", e, n)
	}
	if d := time.Since(start); d > window {
		return fmt.Errorf("the run took %v: past %v streams may have ended", d.Round(time.Millisecond), window)
	}
	return nil
}

// warm opens one stream on url and closes it.
func warm(url, notes string) error {
	s, _, err := Listen(url, 0, notes, 10*time.Second)
	if err != nil {
		return err
	}
	return s.Close()
}

// delivery is one stream's receipt of a resource update.
type delivery struct {
	stream int
	at     time.Time
}

// MeasureLatency opens n listen streams spread over the replicas at
// urls, each subscribed to WatchedURI, then publishes pubs+1 updates of
// it, one at a time on the replicas in turn (the first uncounted), and
// reports how long after the publication's trigger each stream received
// it. Every stream must receive every update exactly once.
func MeasureLatency(urls []string, n, pubs int) (LatencyResult, error) {
	r := LatencyResult{Streams: n, Replicas: len(urls), Publications: pubs}
	for _, u := range urls {
		if err := warm(u, `{"resourceSubscriptions":["`+WatchedURI+`"]}`); err != nil {
			return r, err
		}
	}
	got := make(chan delivery, 2*n)
	start := time.Now()
	want := `{"resourceSubscriptions":["` + WatchedURI + `"]}`
	ss, err := openAll(urls, n, 16, want,
		func(ack json.RawMessage) error {
			if string(ack) != want {
				return fmt.Errorf("acknowledged %s", ack)
			}
			return nil
		},
		func(i int, m Message) bool {
			if m.Method == "notifications/resources/updated" {
				got <- delivery{i, time.Now()}
			}
			return true
		})
	if err != nil {
		return r, err
	}
	defer ss.close()
	time.Sleep(500 * time.Millisecond)

	// The measuring program's own garbage is collected between
	// publications, never while one is delivered.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	var lat, trig []time.Duration
	cpu0, err := cpuOf(urls)
	if err != nil {
		return r, err
	}
	own0 := ownCPU()

	for k := range pubs + 1 {
		u := urls[k%len(urls)]
		runtime.GC()
		t0 := time.Now()
		if err := NotifyUpdated(u, WatchedURI); err != nil {
			return r, err
		}
		trig = append(trig, time.Since(t0))
		seen := make([]bool, n)
		deadline := time.NewTimer(5 * time.Second)
		var round []time.Duration
		for len(round) < n {
			select {
			case d := <-got:
				if seen[d.stream] {
					deadline.Stop()
					return r, fmt.Errorf("publication %d: stream %d received it twice", k, d.stream)
				}
				seen[d.stream] = true
				round = append(round, d.at.Sub(t0))

			case <-deadline.C:
				return r, fmt.Errorf("publication %d: %d of %d streams received it within 5 s", k, len(round), n)
			}
		}
		deadline.Stop()
		if k == 0 {
			r.WarmupMax = ms(slices.Max(round))
		} else {
			lat = append(lat, round...)
			r.RoundMax = append(r.RoundMax, ms(slices.Max(round)))
			r.Trigger = append(r.Trigger, ms(trig[k]))
		}
		time.Sleep(50 * time.Millisecond)
	}
	cpu1, err := cpuOf(urls)
	if err != nil {
		return r, err
	}
	counted := float64(pubs + 1)
	r.ServerCPU = (cpu1 - cpu0) * 1000 / counted
	r.ClientCPU = (ownCPU() - own0) * 1000 / counted
	if err := ss.alive(n, start); err != nil {
		return r, err
	}
	select {
	case d := <-got:
		return r, fmt.Errorf("stream %d received an update no publication made", d.stream)
	default:
	}
	slices.Sort(lat)
	slices.Sort(trig)
	r.Deliveries = len(lat)
	r.P50, r.P90, r.P99 = ms(Quantile(lat, 0.5)), ms(Quantile(lat, 0.9)), ms(Quantile(lat, 0.99))
	r.Max = ms(lat[len(lat)-1])
	r.TriggerP50 = ms(Quantile(trig, 0.5))
	return r, nil
}

// cpuOf is the CPU time the servers at urls have spent, in seconds.
func cpuOf(urls []string) (float64, error) {
	var sum float64
	for _, u := range urls {
		resp, err := debugClient.Get(base(u) + "/debug/cpu")
		if err != nil {
			return 0, err
		}
		var c struct {
			Seconds float64 `json:"seconds"`
		}
		err = json.NewDecoder(resp.Body).Decode(&c)
		resp.Body.Close()
		if err != nil {
			return 0, err
		}
		sum += c.Seconds
	}
	return sum, nil
}

// Quantile is the nearest-rank q-quantile of sorted, which is not empty.
func Quantile(sorted []time.Duration, q float64) time.Duration {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// errNoResults is TestBounds' refusal of an empty results directory.
var errNoResults = errors.New("no mem.json or latency.json")
