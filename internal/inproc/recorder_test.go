package inproc

import (
	"net/http"
	"testing"
)

// TestRecorder_Start: every run starts with no status, no body and an
// empty header map of its own, never the map of the run before, which a
// goroutine that run left behind may still hold.
func TestRecorder_Start(t *testing.T) {
	buf := make([]byte, 0, 8)
	var r Recorder
	r.Start(buf, 10)
	if r.Headers == nil || len(r.Headers) != 0 || r.Status != 0 || r.Limit != 10 || r.Body.Len() != 0 {
		t.Fatalf("started: headers %v, status %d, limit %d", r.Headers, r.Status, r.Limit)
	}
	first := r.Headers
	r.Header().Set("X-Run", "1")
	r.Write([]byte("one"))
	r.Close()

	r.Start(buf, 20)
	if len(r.Headers) != 0 || r.Status != 0 || r.Body.Len() != 0 || r.Silent || r.Limit != 20 {
		t.Fatalf("second run: headers %v, status %d, body %q", r.Headers, r.Status, r.Body.String())
	}
	if sameMap(r.Headers, first) {
		t.Error("a second run got the first run's header map")
	}
	if first.Get("X-Run") != "1" {
		t.Errorf("the first run's map was changed: %v", first)
	}
	if _, err := r.Write([]byte("two")); err != nil || r.Body.String() != "two" || r.Status != http.StatusOK {
		t.Errorf("second run: %v, body %q, status %d", err, r.Body.String(), r.Status)
	}
}

// TestRecorder_HeaderAfterClose: once the response has ended, Header hands
// out a map of its own, so a late Set does not reach the map being read.
func TestRecorder_HeaderAfterClose(t *testing.T) {
	var r Recorder
	r.Start(nil, 10)
	r.Header().Set("Content-Type", "text/plain")
	r.Close()
	late := r.Header()
	late.Set("Content-Type", "application/json")
	late.Set("X-Late", "1")
	if got := r.Headers.Get("Content-Type"); got != "text/plain" || r.Headers.Get("X-Late") != "" {
		t.Errorf("a Set after Close reached the response: %v", r.Headers)
	}
	if sameMap(late, r.Headers) {
		t.Error("Header after Close returned the response's map")
	}
}

// sameMap reports whether a and b are one map: a key set in one is seen in
// the other.
func sameMap(a, b http.Header) bool {
	const probe = "X-Same-Map-Probe"
	a[probe] = nil
	_, ok := b[probe]
	delete(a, probe)
	return ok
}

// TestRecorder_HeaderAfterStatus: once the status is written, a header
// set through Header no longer changes the answer, as net/http's server
// sends the headers as they stood at WriteHeader; reading them still
// works, from one copy. Before the status, and for a 1xx, the map is the
// answer's.
func TestRecorder_HeaderAfterStatus(t *testing.T) {
	for name, commit := range map[string]func(r *Recorder){
		"WriteHeader": func(r *Recorder) { r.WriteHeader(http.StatusCreated) },
		"Write":       func(r *Recorder) { r.Write([]byte("x")) },
		"Flush":       func(r *Recorder) { r.Flush() },
	} {
		t.Run(name, func(t *testing.T) {
			var r Recorder
			r.Start(nil, 10)
			r.Header().Set("Link", "</a>; rel=preload")
			r.WriteHeader(http.StatusEarlyHints) // informational: nothing is fixed yet
			r.Header().Set("X-Before", "1")
			commit(&r)
			late := r.Header()
			if late.Get("X-Before") != "1" || late.Get("Link") == "" {
				t.Errorf("after the status, Header reads %v", late)
			}
			late.Set("Content-Type", "image/png")
			r.Header().Set("X-After", "1")
			if r.Header().Get("Content-Type") != "image/png" || r.Header().Get("X-After") != "1" {
				t.Errorf("Header after the status is not one map: %v", r.Header())
			}
			r.Close()
			if r.Headers.Get("X-Before") != "1" || r.Headers.Get("X-After") != "" || r.Headers.Get("Content-Type") == "image/png" {
				t.Errorf("the answer's headers: %v", r.Headers)
			}
		})
	}
}
