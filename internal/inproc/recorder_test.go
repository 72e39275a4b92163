package inproc

import (
	"net/http"
	"strconv"
	"testing"
)

// TestRecorder_StartRelease: every run starts with no headers, whether its
// map is new, an earlier run's or a released one; a map that grew past
// one group of slots is not kept.
func TestRecorder_StartRelease(t *testing.T) {
	var r Recorder
	r.Start(nil, 10)
	if len(r.Headers) != 0 || r.Headers == nil || r.Status != 0 || r.Limit != 10 {
		t.Fatalf("started: headers %v, status %d, limit %d", r.Headers, r.Status, r.Limit)
	}
	first := r.Headers
	r.Header().Set("X-Run", "1")
	r.Write([]byte("one"))
	r.Close()

	// A second run of the same recorder (a retry, a listen's polls).
	r.Start(nil, 20)
	if len(r.Headers) != 0 || r.Status != 0 || r.Body.Len() != 0 || r.Silent {
		t.Fatalf("second run: headers %v, status %d, body %q", r.Headers, r.Status, r.Body.String())
	}
	if !sameMap(r.Headers, first) {
		t.Error("a second run of one recorder did not reuse its map")
	}
	r.Header().Set("X-Run", "2")
	r.Release()
	if r.Headers != nil {
		t.Fatal("Release left the map in the recorder")
	}
	if first["X-Run"] != nil {
		t.Errorf("a released map keeps %v", first)
	}
	r.Release() // twice, and on a recorder never started: nothing

	// Released maps come back empty.
	for range 10 {
		var n Recorder
		n.Start(nil, 1)
		if len(n.Headers) != 0 {
			t.Fatalf("a pooled map holds %v", n.Headers)
		}
		n.Headers.Set("X-Secret", "s")
		n.Release()
	}

	// A map past maxPooledHeaders is dropped, not pooled.
	var big Recorder
	big.Start(nil, 1)
	m := big.Headers
	for i := range maxPooledHeaders + 1 {
		m.Set("X-"+strconv.Itoa(i), "v")
	}
	big.Release()
	if len(m) != maxPooledHeaders+1 {
		t.Errorf("a map too large to pool was cleared: %d entries left", len(m))
	}
}

// TestRecorder_HeaderAfterClose: once the response has ended, Header hands
// out a map of its own, so a late Set reaches neither the map being read
// nor a released one.
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

// TestRecorder_Allocations: a run on a released map allocates nothing for
// the recorder or its first headers.
func TestRecorder_Allocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector empties sync.Pools at random")
	}
	buf := make([]byte, 0, 64)
	var r Recorder
	r.Start(buf, 1<<10)
	r.Release()
	n := testing.AllocsPerRun(100, func() {
		r.Start(buf, 1<<10)
		r.Header()["Content-Type"] = textPlain
		r.Write([]byte("hello"))
		r.Close()
		r.Release()
	})
	if n != 0 {
		t.Errorf("%.0f allocations per run, want 0", n)
	}
}

var textPlain = []string{"text/plain"}

// sameMap reports whether a and b are one map: a key set in one is seen in
// the other.
func sameMap(a, b http.Header) bool {
	const probe = "X-Same-Map-Probe"
	a[probe] = nil
	_, ok := b[probe]
	delete(a, probe)
	return ok
}
