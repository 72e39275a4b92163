package bench

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// LoadConfig describes one closed-loop load run. A run ends at whichever
// comes first: Warmup+Duration, MaxRequests sent, or the first error, so
// it is bounded in time and in requests whatever the server does.
type LoadConfig struct {
	URL         string        // the endpoint; its host must be a loopback IP
	Proto       string        // Proto2025 or Proto2026
	Workers     int           // concurrent workers, one keep-alive connection each
	Warmup      time.Duration // unmeasured lead-in
	Duration    time.Duration // measured window
	MaxRequests int64         // cap on requests sent, warm-up and probe included
	Text        string        // echoed text (plain ASCII, no JSON escapes)
	// ServerPID, when not 0, is the server's process (on this machine):
	// its user+system CPU time is read from /proc/<pid>/stat at the start
	// and end of the measured window, and divided by the requests of the
	// window, and its peak resident memory is read at the end.
	ServerPID int
}

// LoadResult is what a run measured. Latencies are per request, seen by
// the client, over the measured window only.
type LoadResult struct {
	Label     string  `json:"label"`
	Proto     string  `json:"proto"`
	Workers   int     `json:"workers"`
	DurationS float64 `json:"duration_s"`
	Requests  int     `json:"requests"`
	Capped    bool    `json:"capped"` // MaxRequests ended the run early
	RPS       float64 `json:"rps"`
	P50Us     float64 `json:"p50_us"`
	P90Us     float64 `json:"p90_us"`
	P99Us     float64 `json:"p99_us"`
	MaxUs     float64 `json:"max_us"`
	Errors    int64   `json:"errors"`
	// Server side, with LoadConfig.ServerPID: CPU per request in the
	// window (µs, all the process's threads), and VmHWM (kB).
	CPUUsPerReq float64 `json:"cpu_us_per_req,omitempty"`
	PeakRSSKB   int64   `json:"peak_rss_kb,omitempty"`
	FirstError  string  `json:"first_error,omitempty"`
}

// Load runs cfg. It returns an error, with the partial result, when any
// response fails QuickCheck (the first one also FullCheck) or nothing was
// measured.
func Load(cfg LoadConfig) (LoadResult, error) {
	res := LoadResult{Proto: cfg.Proto, Workers: cfg.Workers}
	u, err := url.Parse(cfg.URL)
	if err != nil {
		return res, err
	}
	if ip := net.ParseIP(u.Hostname()); u.Scheme != "http" || ip == nil || !ip.IsLoopback() {
		return res, fmt.Errorf("refusing %q: only http://<loopback IP> targets", cfg.URL)
	}
	switch {
	case cfg.Proto != Proto2025 && cfg.Proto != Proto2026:
		return res, fmt.Errorf("unknown protocol %q", cfg.Proto)
	case cfg.Workers < 1 || cfg.Workers > 256:
		return res, errors.New("workers must be 1..256")
	case cfg.Duration <= 0 || cfg.Warmup < 0 || cfg.Warmup+cfg.Duration > 10*time.Minute:
		return res, errors.New("duration must be positive and warm-up plus duration at most 10m")
	case cfg.MaxRequests < 2:
		return res, errors.New("max requests must be at least 2")
	}
	if cfg.Text == "" {
		cfg.Text = "hello-mcp"
	}
	cpu0 := time.Duration(0)
	if cfg.ServerPID != 0 {
		if cpu0, err = ProcessCPU(cfg.ServerPID); err != nil {
			return res, err
		}
	}

	tr := &http.Transport{
		MaxIdleConns:        cfg.Workers,
		MaxIdleConnsPerHost: cfg.Workers,
		MaxConnsPerHost:     cfg.Workers,
		DisableCompression:  true,
		IdleConnTimeout:     30 * time.Second,
	}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	hdr := Headers(cfg.Proto)
	send := func(buf *bytes.Buffer, body []byte) (int, http.Header, []byte, error) {
		req, err := http.NewRequest(http.MethodPost, cfg.URL, bytes.NewReader(body))
		if err != nil {
			return 0, nil, nil, err
		}
		req.Header = hdr.Clone() // the transport may add to it
		resp, err := client.Do(req)
		if err != nil {
			return 0, nil, nil, err
		}
		defer resp.Body.Close()
		buf.Reset()
		_, err = io.Copy(buf, io.LimitReader(resp.Body, 1<<20))
		return resp.StatusCode, resp.Header, buf.Bytes(), err
	}

	// One fully parsed request first, so a wrong answer fails loudly
	// rather than being counted as throughput.
	var probe bytes.Buffer
	status, h, body, err := send(&probe, AppendToolsCall(nil, cfg.Proto, 1, cfg.Text))
	if err == nil {
		err = QuickCheck(status, h, body, cfg.Text)
	}
	if err == nil {
		err = FullCheck(body, 1, cfg.Text)
	}
	if err != nil {
		return res, fmt.Errorf("probe: %w", err)
	}

	var (
		sent     atomic.Int64 // requests started, the probe included
		measure  atomic.Bool
		errs     atomic.Int64
		firstErr error
		haltOnce sync.Once
		halt     = make(chan struct{}) // closed on the first error or at the cap
		stop     atomic.Bool
		capped   atomic.Bool
		wg       sync.WaitGroup
	)
	sent.Store(1)
	var start time.Time
	sampleCPU := func() {
		if cfg.ServerPID != 0 {
			cpu0, _ = ProcessCPU(cfg.ServerPID) // readable above, so still
		}
	}
	if cfg.Warmup == 0 { // measure from the first request on
		sampleCPU()
		measure.Store(true)
		start = time.Now()
	}
	lat := make([][]time.Duration, cfg.Workers)
	for w := range cfg.Workers {
		lat[w] = make([]time.Duration, 0, min(cfg.MaxRequests/int64(cfg.Workers)+1, 1<<16))
		wg.Go(func() {
			var buf bytes.Buffer
			body := make([]byte, 0, 512)
			for !stop.Load() {
				id := sent.Add(1)
				if id > cfg.MaxRequests {
					capped.Store(true)
					haltOnce.Do(func() { close(halt) })
					return
				}
				body = AppendToolsCall(body[:0], cfg.Proto, id, cfg.Text)
				t0 := time.Now()
				status, h, respBody, err := send(&buf, body)
				d := time.Since(t0)
				if err == nil {
					err = QuickCheck(status, h, respBody, cfg.Text)
				}
				if err != nil {
					if errs.Add(1) == 1 {
						firstErr = err
						haltOnce.Do(func() { close(halt) })
					}
					return
				}
				if measure.Load() {
					lat[w] = append(lat[w], d)
				}
			}
		})
	}

	if cfg.Warmup > 0 {
		select {
		case <-time.After(cfg.Warmup):
			sampleCPU()
			measure.Store(true)
			start = time.Now()
		case <-halt:
			start = time.Now() // nothing was measured
		}
	}
	select {
	case <-time.After(cfg.Duration - time.Since(start)):
	case <-halt:
	}
	measure.Store(false)
	elapsed := time.Since(start)
	var cpu time.Duration
	if cfg.ServerPID != 0 {
		cpu1, err := ProcessCPU(cfg.ServerPID)
		if err != nil {
			return res, err
		}
		cpu = cpu1 - cpu0
		res.PeakRSSKB, _ = PeakRSS(cfg.ServerPID)
	}
	stop.Store(true)
	wg.Wait()

	all := slices.Concat(lat...)
	slices.Sort(all)
	us := func(p float64) float64 {
		if len(all) == 0 {
			return 0
		}
		return float64(all[int(p*float64(len(all)-1))].Nanoseconds()) / 1e3
	}
	res.DurationS, res.Requests, res.Capped = elapsed.Seconds(), len(all), capped.Load()
	res.RPS = float64(len(all)) / elapsed.Seconds()
	res.P50Us, res.P90Us, res.P99Us, res.MaxUs = us(0.50), us(0.90), us(0.99), us(1)
	res.Errors = errs.Load()
	if cfg.ServerPID != 0 && len(all) > 0 {
		res.CPUUsPerReq = float64(cpu.Nanoseconds()) / 1e3 / float64(len(all))
	}
	if firstErr != nil { // written before halt closed, read after wg.Wait
		res.FirstError = firstErr.Error()
		return res, firstErr
	}
	if len(all) == 0 {
		return res, errors.New("no request completed in the measured window (is MaxRequests too small for the warm-up?)")
	}
	return res, nil
}

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's times: 100 on
// every Linux architecture Go supports.
const clockTicks = 100

// ProcessCPU returns the user plus system CPU time pid has used, all its
// threads included, from /proc/<pid>/stat (Linux only). Its resolution is
// 10 ms, so a window must hold many of those for a per-request figure.
func ProcessCPU(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name, field 2, is in parentheses and may hold spaces:
	// fields are counted after its closing one. utime and stime are
	// fields 14 and 15, so the 12th and 13th after it.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields after the name", pid, len(f))
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %v", pid, err)
	}
	return time.Duration(u+s) * time.Second / clockTicks, nil
}

// PeakRSS returns pid's peak resident set size in kB (VmHWM in
// /proc/<pid>/status, Linux only).
func PeakRSS(pid int) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("/proc/%d/status: no VmHWM", pid)
}
