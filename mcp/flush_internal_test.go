package mcp

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mcpdual/mcpdual/mcp/observe"
)

// stoppedReading is a connection whose client stopped reading: writes go
// to the buffer, and the flush that would send them fails, as net/http's
// writer's does once a write deadline has passed.
type stoppedReading struct{ *httptest.ResponseRecorder }

func (w stoppedReading) FlushError() error { return errors.New("i/o timeout") }

// TestStreamWrite_FailedFlushEndsTheStream: a stream's write (an event, a
// keep-alive) whose flush fails reports the stream over, whatever wraps
// the connection's writer on the way (the request's tracker, the
// observer's), so that a client that stopped reading is let go at the
// first write that could not reach it, not one write later.
func TestStreamWrite_FailedFlushEndsTheStream(t *testing.T) {
	wrappers := map[string]func(http.ResponseWriter) http.ResponseWriter{
		"plain":   func(w http.ResponseWriter) http.ResponseWriter { return w },
		"tracked": func(w http.ResponseWriter) http.ResponseWriter { return &trackedWriter{ResponseWriter: w} },
		"observed": func(w http.ResponseWriter) http.ResponseWriter {
			return &observedWriter{ResponseWriter: w, ev: &observe.Event{}}
		},
		"tracked and observed": func(w http.ResponseWriter) http.ResponseWriter {
			return &trackedWriter{ResponseWriter: &observedWriter{ResponseWriter: w, ev: &observe.Event{}}}
		},
	}
	for name, wrap := range wrappers {
		t.Run(name, func(t *testing.T) {
			for _, bounded := range []bool{false, true} {
				if streamWrite(wrap(stoppedReading{httptest.NewRecorder()}), []byte("data: {}\n\n"), bounded) {
					t.Errorf("bounded %v: a write whose flush failed reported the stream alive", bounded)
				}
			}
			s := &streamWriter{ResponseWriter: wrap(stoppedReading{httptest.NewRecorder()}), started: true, deadlined: true}
			if s.keepAlive() {
				t.Error("a keep-alive whose flush failed reported the stream alive")
			}
			if !streamWrite(wrap(httptest.NewRecorder()), []byte("data: {}\n\n"), true) {
				t.Error("a write whose flush went through reported the stream over")
			}
		})
	}
}
