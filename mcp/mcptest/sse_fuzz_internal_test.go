package mcptest

import (
	"bytes"
	"strings"
	"testing"
	"testing/iotest"
)

// FuzzEvents: the kit reads whatever a server under test streams, so its
// event-stream readers never panic, and they agree with each other and
// with the format. Whatever the input: readUntilResponse returns a prefix
// of it, the same one when the stream arrives a byte at a time (a CR at
// the end of one read and an LF at the start of the next are one line
// end); events of the whole input begin with the events of that prefix.
// And events written with any of the three line ends, a byte-order mark
// or none, and comments between them, come back as written.
func FuzzEvents(f *testing.F) {
	f.Add([]byte("data: {\"result\":{}}\n\n"), "a\x00b", uint8(0))
	f.Add([]byte("\xEF\xBB\xBFdata:x\r\ndata: y\r\r\n\n"), "one\x00two\x00", uint8(7))
	f.Add([]byte(": c\rdata: {\"error\":{}}\r\rdata: more"), "", uint8(2))
	f.Add([]byte("data:\r\n\r\ndata: {\"id\":1,\"result\":1}\n"), "{\"result\":2}", uint8(5))
	f.Fuzz(func(t *testing.T, raw []byte, datas string, form uint8) {
		got, err := readUntilResponse(bytes.NewReader(raw))
		if err != nil || !bytes.HasPrefix(raw, got) {
			t.Fatalf("readUntilResponse: %q, %v; want a prefix of %q", got, err, raw)
		}
		slow, err := readUntilResponse(iotest.OneByteReader(bytes.NewReader(raw)))
		if err != nil || !bytes.Equal(slow, got) {
			t.Fatalf("a byte at a time: %q, %v; at once %q", slow, err, got)
		}
		all, head := events(raw), events(got)
		// The prefix's last event may be cut short of lines the whole
		// input adds to it; every event before it is the same.
		if len(head) > len(all) {
			t.Fatalf("the prefix has %d events, the whole input %d", len(head), len(all))
		}
		for i := 0; i+1 < len(head); i++ {
			if !bytes.Equal(head[i], all[i]) {
				t.Fatalf("event %d: %q in the prefix, %q in the whole", i, head[i], all[i])
			}
		}

		// Events as a server writes them: one data line per line of the
		// event's data, a blank line after each.
		var want []string
		for _, d := range strings.Split(datas, "\x00") {
			if d = strings.NewReplacer("\r", "", "\n", "").Replace(d); d != "" {
				want = append(want, d)
			}
		}
		eol := []string{"\n", "\r\n", "\r"}[form%3]
		var w strings.Builder
		if form&4 != 0 {
			w.WriteString("\xEF\xBB\xBF")
		}
		for _, d := range want {
			if form&8 != 0 {
				w.WriteString(": a comment" + eol)
			}
			w.WriteString("data: " + d + eol + eol)
		}
		out := events([]byte(w.String()))
		if len(out) != len(want) {
			t.Fatalf("%q: %d events, want %d", w.String(), len(out), len(want))
		}
		for i := range want {
			// "data: " loses one space after the colon, and only one.
			if string(out[i]) != want[i] {
				t.Errorf("event %d of %q: %q, want %q", i, w.String(), out[i], want[i])
			}
		}
	})
}
