// Package streambench measures what open subscriptions/listen streams
// (2026-07-28) cost an mcpdual server with WithChangeNotifications, the
// two figures of issue 34: the server's memory per idle stream, and the
// latency from a publication on one replica to its delivery on every
// stream of a fleet sharing Redis. It is a module of its own, like
// internal/bench, so the library's go.mod never lists what it needs.
//
// The server (cmd/server, App) runs in its own process and serves debug
// routes beside /mcp; the measuring program (cmd/measure) opens the
// streams over loopback, asks the server for its memory, triggers
// publications, and writes what it measured to a JSON file that
// TestBounds reads (.ci/streams.sh runs them all).
package streambench

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/pprof"
	neturl "net/url"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
)

// WatchedURI is the resource the latency run's streams subscribe to.
const WatchedURI = "bench://watched"

// Mem is what GET /debug/mem reports, after two runtime.GC calls.
type Mem struct {
	HeapInuse   uint64 `json:"heapInuse"`
	StackInuse  uint64 `json:"stackInuse"`
	HeapObjects uint64 `json:"heapObjects"`
	Sys         uint64 `json:"sys"`
	Goroutines  int    `json:"goroutines"`
}

// Inuse is the figure the memory run compares: HeapInuse + StackInuse.
func (m Mem) Inuse() uint64 { return m.HeapInuse + m.StackInuse }

// App is the measured server: two tools and one resource on an
// endpoint with change notifications on bus (nil: in this process) and
// room for streams notification streams, all from one caller, served at
// /mcp, with the debug routes beside it:
//
//	GET  /debug/mem            runtime.GC twice, then Mem as JSON
//	GET  /debug/cpu            the process's CPU time so far: {"seconds":S}
//	POST /debug/notify?uri=U   Handler.NotifyResourceUpdated(U), 204
//	POST /debug/update         Server.Update adding or removing a tool, 204
//	GET  /debug/pprof/...      net/http/pprof
//
// Only ever serve it on a loopback address.
func App(bus mcp.EventBus, streams int) http.Handler {
	mux := http.NewServeMux()
	srv := mcp.NewServer(mcp.Implementation{Name: "streambench", Version: "1.0.0"})
	tool := func(name string) {
		route := "POST /tools/" + name
		mux.HandleFunc(route, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, name)
		})
		srv.AddTool(mcp.Tool{Name: name, Description: "Answers its name.", InputSchema: json.RawMessage(`{"type":"object"}`)}, route, mux)
	}
	tool("ping")
	tool("echo")
	mux.HandleFunc("GET /resources/watched", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "watched")
	})
	srv.AddResource(mcp.Resource{URI: WatchedURI, Name: "watched", MIMEType: "text/plain"}, "GET /resources/watched", mux)

	h := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()},
		// Streams never hold one of Concurrent's slots: a bound far
		// below the streams shows it.
		mcp.WithLimits(mcp.Limits{Concurrent: 256, PerCaller: 256}),
		mcp.WithChangeNotifications(mcp.ChangeNotifications{Bus: bus, Streams: streams, StreamsPerCaller: streams}))
	mux.Handle("/mcp", h)

	mux.HandleFunc("GET /debug/mem", func(w http.ResponseWriter, r *http.Request) {
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(Mem{HeapInuse: ms.HeapInuse, StackInuse: ms.StackInuse, HeapObjects: ms.HeapObjects,
			Sys: ms.Sys, Goroutines: runtime.NumGoroutine()})
	})
	mux.HandleFunc("GET /debug/cpu", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"seconds":%.6f}`, ownCPU())
	})
	mux.HandleFunc("POST /debug/notify", func(w http.ResponseWriter, r *http.Request) {
		if err := h.NotifyResourceUpdated(r.Context(), "", r.URL.Query().Get("uri")); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	var mu sync.Mutex
	extra := false
	mux.HandleFunc("POST /debug/update", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		err := srv.Update(func(s *mcp.Server) {
			if extra {
				s.Remove(auth.KindTool, "extra")
				return
			}
			s.AddTool(mcp.Tool{Name: "extra", Description: "Comes and goes.", InputSchema: json.RawMessage(`{"type":"object"}`)}, "POST /tools/ping", mux)
		})
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		extra = !extra
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("POST /floor", floor)
	return mux
}

// floor is what holding a listen stream open costs net/http itself, to
// set beside App's /mcp: a handler that reads the body, answers the
// acknowledgement /mcp sends as an event stream, and then waits, with a
// keep-alive ticker and the stream's lifetime as its timers, until the
// client leaves. No MCP, no bus.
func floor(w http.ResponseWriter, r *http.Request) {
	if _, err := io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20)); err != nil {
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	io.WriteString(w, `event: message
data: {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true}}}

`)
	rc := http.NewResponseController(w)
	rc.Flush()
	end := time.NewTimer(45 * time.Second)
	defer end.Stop()
	keepAlive := time.NewTicker(15 * time.Second)
	defer keepAlive.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-end.C:
			return
		case <-keepAlive.C:
			io.WriteString(w, ": keep-alive\n\n")
			rc.Flush()
		}
	}
}

// Serve is the http.Server App runs in: no WriteTimeout (each stream
// sets its own write deadlines), headers within 5 s.
func Serve(h http.Handler) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, IdleTimeout: time.Minute}
}

// ownCPU is the CPU time (user and system) this process has spent, in
// seconds.
func ownCPU() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// base is url without its path: where the debug routes are.
func base(url string) string {
	u, err := neturl.Parse(url)
	if err != nil {
		return url
	}
	return u.Scheme + "://" + u.Host
}
