package openapi

import (
	"bytes"
	"net/http"
	"testing"
)

// TestAnswer_BoundEdge: the answer held for the output check takes
// exactly maxAnswer bytes, in one write or several; one byte more marks it
// over, keeps nothing more, and every later write is taken (so the route
// is not told to stop) and dropped.
func TestAnswer_BoundEdge(t *testing.T) {
	for _, pieces := range [][]int{{maxAnswer}, {maxAnswer - 1, 1}, {1, maxAnswer - 2, 1}} {
		a := &answer{header: http.Header{}}
		for _, n := range pieces {
			if got, err := a.Write(bytes.Repeat([]byte{'a'}, n)); got != n || err != nil {
				t.Fatalf("%v: a write of %d: %d %v", pieces, n, got, err)
			}
		}
		if a.over || a.buf.Len() != maxAnswer || a.status != http.StatusOK {
			t.Errorf("%v: over %v, %d bytes held, status %d", pieces, a.over, a.buf.Len(), a.status)
		}
		for range 2 {
			if got, err := a.Write([]byte{'b'}); got != 1 || err != nil {
				t.Fatalf("%v: a write past the bound: %d %v", pieces, got, err)
			}
			if !a.over || a.buf.Len() != maxAnswer {
				t.Errorf("%v: past the bound: over %v, %d bytes held", pieces, a.over, a.buf.Len())
			}
		}
	}
	a := &answer{header: http.Header{}}
	if got, _ := a.Write(bytes.Repeat([]byte{'a'}, maxAnswer+1)); got != maxAnswer+1 || !a.over || a.buf.Len() != 0 {
		t.Errorf("one write of %d: %d, over %v, %d bytes held", maxAnswer+1, got, a.over, a.buf.Len())
	}
}
