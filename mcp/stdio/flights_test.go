package stdio

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"
)

// TestCancel_IDReusedAfterAnswer: a request's id is released before its
// answer is handed to the writer, so a client that read the answer may
// send the id again at once (2026-07-28 asks ids to be unique among
// requests in flight only) and cancel that new request. The id was
// released only as the old request's goroutine ended, after the answer
// was out: a request sent in between was taken for a duplicate of a
// finished one, and nothing could cancel it.
//
// The in-between is made to last: the test takes back the concurrency
// slot the first request holds, so its goroutine, once its answer is
// handed over, waits to give the slot back; and it reads the lines itself
// instead of a writer.
func TestCancel_IDReusedAfterAnswer(t *testing.T) {
	t.Parallel()
	stopped := make(chan struct{})
	entered := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"wait"`)) {
			close(entered)
			<-r.Context().Done()
			close(stopped)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":7,"result":{}}`)
	})
	s := newServer(context.Background(), h, io.Discard, config{maxMessage: DefaultMaxMessageBytes, concurrent: 2,
		logger: slog.New(slog.DiscardHandler)})
	s.accept([]byte(`{"jsonrpc":"2.0","id":7,"method":"ping"}`))
	<-s.slots // the slot the first request took
	defer func() {
		s.stop(nil) // a request still running ends
		s.slots <- struct{}{}
		s.wg.Wait()
	}()
	select {
	case line := <-s.lines:
		if string(line) != "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n" {
			t.Fatalf("answer: %q", line)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no answer")
	}
	s.accept([]byte(`{"jsonrpc":"2.0","id":7,"method":"wait"}`))
	select {
	case <-entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the second request did not start")
	}
	s.cancelled([]byte(`{"requestId":7}`))
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("the cancellation did not reach the request that holds the id now")
	}
}
