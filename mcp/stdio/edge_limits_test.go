package stdio_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/mcp/stdio"
)

// TestLineEdge: with a bound larger than the reader's buffer, a line of
// exactly the bound is served and one of a byte more is answered
// message_too_large with its id, and the next line is served either way.
// The same at a bound inside one buffer.
func TestLineEdge(t *testing.T) {
	t.Parallel()
	for _, max := range []int{300, 64 << 10, 100_000} {
		line := func(n int) string {
			head := `{"jsonrpc":"2.0","id":1,"method":"ping","x":"`
			return head + strings.Repeat("x", n-len(head)-2) + `"}`
		}
		f := newFixture(t)
		s := start(t, f.h, stdio.WithPrincipal(alice), stdio.WithMaxMessageBytes(max))
		if m := s.call(1, line(max)); m.Error != nil {
			t.Errorf("max %d: a line at the bound: %s", max, m.raw)
		}
		m := s.call(1, line(max+1))
		if m.Error == nil || m.code() != -32600 || !strings.Contains(string(m.Error.Data), "message_too_large") {
			t.Errorf("max %d: a line past the bound: %.200s", max, m.raw)
		}
		if m := s.call(2, `{"jsonrpc":"2.0","id":2,"method":"ping"}`); m.Error != nil {
			t.Errorf("max %d: the next line: %s", max, m.raw)
		}
		s.finish()
	}
}

// TestConcurrencyEdge: by default Serve serves 16 messages at once
// (DefaultConcurrency). Sixteen slow calls all run together; a
// seventeenth, read and accepted, waits for a slot: it starts only once
// one of the sixteen has left its route (here cancelled), so no more than
// 16 were ever running. Every call is answered once, the cancelled one
// never.
func TestConcurrencyEdge(t *testing.T) {
	t.Parallel()
	const bound = stdio.DefaultConcurrency
	if bound != 16 {
		t.Fatalf("DefaultConcurrency is %d, documented as 16", bound)
	}
	f := newFixture(t)
	s := start(t, f.h, stdio.WithPrincipal(alice), stdio.WithWorkspace("ws_a"), stdio.WithMaxMessageBytes(4096))
	for i := 1; i <= bound+1; i++ {
		s.send(toolsCall(i, "slow", `{"id":"`+strconv.Itoa(i)+`"}`, ""))
	}
	entered := map[string]bool{}
	timeout := time.After(wait)
	for len(entered) < bound {
		select {
		case id := <-f.entered:
			entered[id] = true
		case <-timeout:
			t.Fatalf("%d calls running, want %d", len(entered), bound)
		}
	}
	// An oversized line is answered by the reader itself: once its answer
	// is out, all 17 calls were read and handed on. A few more round trips
	// give a seventeenth that found a slot (the bound broken) the time to
	// reach its route while the sixteen still hold theirs: nothing here
	// can show that one waits, only that one ran.
	for i := range 8 {
		id := 90 + i
		if m := s.call(id, `{"jsonrpc":"2.0","id":`+strconv.Itoa(id)+`,"method":"ping","params":{"pad":"`+strings.Repeat("x", 5000)+`"}}`); m.code() != -32600 {
			t.Fatalf("the oversized line: %s", m.raw)
		}
	}
	var waiting, first string
	for i := 1; i <= bound+1; i++ {
		switch id := strconv.Itoa(i); {
		case !entered[id]:
			waiting = id
		case first == "":
			first = id
		}
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + first + `}}`)
	expect(t, f.stopped, first)
	expect(t, f.entered, waiting)
	f.runMu.Lock()
	most := f.maxRunning
	f.runMu.Unlock()
	if most != bound {
		t.Errorf("at most %d calls ran at once, want %d", most, bound)
	}
	close(f.release)
	answered := map[string]int{}
	for _, m := range s.finish() {
		if m.Error != nil {
			t.Errorf("an error: %s", m.raw)
		}
		answered[string(m.ID)]++
	}
	for i := 1; i <= bound+1; i++ {
		id := strconv.Itoa(i)
		if want := map[bool]int{true: 0, false: 1}[id == first]; answered[id] != want {
			t.Errorf("call %s answered %d times, want %d", id, answered[id], want)
		}
	}
}
