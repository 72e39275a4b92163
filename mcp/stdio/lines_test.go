package stdio

import (
	"bufio"
	"bytes"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
)

// readAll reads every line of data with a reader of bufSize bytes.
func readAll(t testing.TB, data []byte, max, bufSize int) (lines [][]byte, overs []*oversized) {
	lr := newLineReader(bytes.NewReader(data), max)
	if bufSize > 0 {
		// A small buffer makes lines span reads.
		lr.r = bufio.NewReaderSize(bytes.NewReader(data), bufSize)
	}
	for {
		line, over, err := lr.next()
		if err == io.EOF {
			return lines, overs
		}
		if err != nil {
			t.Fatal(err)
		}
		if over != nil {
			lines = append(lines, nil)
			overs = append(overs, over)
			continue
		}
		lines = append(lines, line)
		overs = append(overs, nil)
	}
}

// expected splits data as the reader must: at '\n', without one '\r'
// before it, the last line kept when it has no '\n'.
func expected(data []byte) [][]byte {
	parts := bytes.Split(data, []byte{'\n'})
	if len(parts[len(parts)-1]) == 0 {
		parts = parts[:len(parts)-1]
	}
	for i, p := range parts {
		parts[i] = bytes.TrimSuffix(p, []byte{'\r'})
	}
	return parts
}

// checkLines holds the reader to expected, and each oversized line's probe
// to what the strict parser reads in it.
func checkLines(t testing.TB, data []byte, max, bufSize int) {
	lines, overs := readAll(t, data, max, bufSize)
	want := expected(data)
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d (max %d, buffer %d): %q", len(lines), len(want), max, bufSize, data)
	}
	for i, w := range want {
		if o := overs[i]; o != nil {
			if len(w) <= max {
				t.Fatalf("line %d (%d bytes) reported over %d", i, len(w), max)
			}
			if o.size < int64(len(w)) || o.size > int64(len(w))+1 {
				t.Fatalf("line %d: size %d, want %d", i, o.size, len(w))
			}
			var m jsonrpc.Message
			if jsonrpc.ParseInto(w, jsonrpc.DefaultMaxDepth, &m) == nil {
				if !bytes.Equal(o.ID(), m.ID) || o.Notification() != m.IsNotification() {
					t.Fatalf("line %q: probe id %s notification %v; parser id %s notification %v", w, o.ID(), o.Notification(), m.ID, m.IsNotification())
				}
			}
			continue
		}
		if !bytes.Equal(lines[i], w) || len(lines[i]) > max {
			t.Fatalf("line %d: %q, want %q", i, lines[i], w)
		}
	}
}

func TestLineReader(t *testing.T) {
	t.Parallel()
	msgs := []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"method":"tools/call","params":{"name":"x","arguments":{"id":"nested","s":"a\"b\\"}},"jsonrpc":"2.0","id":"the-id"}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":[1,{"id":2}]}}`,
		` { "jsonrpc" : "2.0" , "\u0069d" : -7 , "method" : "ping" } `,
		`{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`,
		`not json at all`,
		``,
		"\r",
	}
	data := []byte(strings.Join(msgs, "\n") + "\r\n" + msgs[0])
	for _, max := range []int{1, 8, 40, 41, 100, 1000} {
		for _, buf := range []int{0, 16, 17, 64} {
			checkLines(t, data, max, buf)
		}
	}
}

// TestLineReaderBounded: a line of 16 MiB costs what the limit (256 KiB,
// gathered before the line is known to be too long) and the read buffer
// cost, not what the line does.
func TestLineReaderBounded(t *testing.T) {
	const size = 16 << 20
	head := `{"jsonrpc":"2.0","method":"tools/call","params":{"text":"`
	tail := `"},"id":42}` + "\n" + `{"next":1}` + "\n"
	in := io.MultiReader(strings.NewReader(head), io.LimitReader(repeat('a'), size), strings.NewReader(tail))
	lr := newLineReader(in, 256<<10)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, over, err := lr.next()
	runtime.ReadMemStats(&after)
	if err != nil || over == nil {
		t.Fatalf("%v %v", over, err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 2<<20 {
		t.Errorf("skipping a %d MiB line allocated %d bytes", size>>20, got)
	}
	if want := int64(len(head) + size + len(tail) - len("\n{\"next\":1}\n")); over.size != want || string(over.ID()) != "42" || over.Notification() {
		t.Errorf("size %d (want %d), id %s", over.size, want, over.ID())
	}
	line, over, err := lr.next()
	if string(line) != `{"next":1}` || over != nil || err != nil {
		t.Errorf("next line: %q %v %v", line, over, err)
	}
}

type repeat byte

func (r repeat) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// FuzzLineReader: whatever the input, limit and read size, lines come out
// exactly as they went in, none over the limit, and the probe of a line
// over it agrees with the strict parser on the id and on whether it is a
// notification.
func FuzzLineReader(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"), uint8(5), uint8(0))
	f.Add([]byte(`{"method":"x","params":{"id":[{"id":"\""}]},"jsonrpc":"2.0","id":"a\\b"}`+"\r\n{}"), uint8(10), uint8(3))
	f.Add([]byte(`{"jsonrpc":"2.0","method":"n","params":{}}`+"\n\n\r\n"), uint8(2), uint8(1))
	f.Add([]byte(`{"jsonrpc":"2.0","id":12345678901234567890,"method":"m"}`), uint8(0), uint8(9))
	f.Fuzz(func(t *testing.T, data []byte, max, buf uint8) {
		bufSize := 0
		if buf%4 != 0 {
			bufSize = 16 + int(buf)
		}
		checkLines(t, data, int(max)+1, bufSize)
	})
}
