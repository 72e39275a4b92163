package mcptest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// chunked returns raw in reads of the sizes given, the last size repeated.
type chunked struct {
	raw   []byte
	sizes []int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.raw) == 0 {
		return 0, io.EOF
	}
	n := c.sizes[0]
	if len(c.sizes) > 1 {
		c.sizes = c.sizes[1:]
	}
	n = min(n, len(p), len(c.raw))
	copy(p, c.raw[:n])
	c.raw = c.raw[n:]
	return n, nil
}

// reads are the ways a stream may arrive: whole, a byte at a time, in
// small reads, and with a read ending right before, after, or inside a
// line end, at either side of the 4 KiB a buffered reader fills at once.
var reads = map[string]func([]byte) io.Reader{
	"whole":      func(b []byte) io.Reader { return bytes.NewReader(b) },
	"bytewise":   func(b []byte) io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) },
	"halves":     func(b []byte) io.Reader { return iotest.HalfReader(bytes.NewReader(b)) },
	"3,5,7":      func(b []byte) io.Reader { return &chunked{raw: b, sizes: []int{3, 5, 7}} },
	"4095,1":     func(b []byte) io.Reader { return &chunked{raw: b, sizes: []int{4095, 1}} },
	"4097":       func(b []byte) io.Reader { return &chunked{raw: b, sizes: []int{4097}} },
	"data+error": func(b []byte) io.Reader { return iotest.DataErrReader(bytes.NewReader(b)) },
}

// response is an event's data that ends readUntilResponse's reading.
const response = `{"jsonrpc":"2.0","id":1,"result":{}}`

// padded returns s with a comment line first, so long that byte at of
// the result is s's first byte: a line end of s can be put across a
// read.
func padded(at int, s string) string {
	return ":" + strings.Repeat("c", at-2) + "\n" + s
}

// TestReadUntilResponse_WhereItStops: the kit reads an event stream up to
// the end of the first event that is a JSON-RPC response (one with a
// result or an error member, as encoding/json reads names) and no
// further, whatever the line ends (LF, CRLF, a lone CR) and however the
// stream arrives: a lone CR ends its line at once, so the LF of a CRLF
// that ends the response's event is left unread; a stream with no
// response is read to its end. Lines are the format's: a byte-order mark
// is skipped before the first only, "data:" loses one space, comments
// and other fields are ignored.
func TestReadUntilResponse_WhereItStops(t *testing.T) {
	t.Parallel()
	const event = "data: " + response
	for _, c := range []struct {
		name, in string
		read     int // bytes read; -1: all of in
	}{
		{"LF", "data: " + response + "\n\nevent: next\n", len("data: " + response + "\n\n")},
		{"CRLF, the last LF unread", "data: " + response + "\r\n\r\nnext", len("data: " + response + "\r\n\r")},
		{"CR", "data: " + response + "\r\rnext", len("data: " + response + "\r\r")},
		{"CR then LF alone", "data: " + response + "\r\n\n", len("data: " + response + "\r\n\n")},
		{"LF then CR", "data: " + response + "\n\r\n", len("data: " + response + "\n\r")},
		{"data split over lines", "data: {\"id\":1,\ndata:\"result\":{}}\n\nx", len("data: {\"id\":1,\ndata:\"result\":{}}\n\n")},
		{"an error", "data: {\"id\":1,\"error\":{\"code\":1}}\n\nx", len("data: {\"id\":1,\"error\":{\"code\":1}}\n\n")},
		{"a null result", "data: {\"result\":null}\n\nx", len("data: {\"result\":null}\n\n")},
		{"a name in another case", "data: {\"Result\":1}\n\nx", len("data: {\"Result\":1}\n\n")},
		{"a notification first", "data: {\"method\":\"n\"}\n\ndata: " + response + "\n\nx", len("data: {\"method\":\"n\"}\n\ndata: " + response + "\n\n")},
		{"not JSON first", "data: nope\n\ndata: " + response + "\n\nx", len("data: nope\n\ndata: " + response + "\n\n")},
		{"an array is no response", "data: [" + response + "]\n\nx", -1},
		{"fields and comments", ": hi\nevent: message\nid: 7\nretry: 10\ndata: " + response + "\n\nx", len(": hi\nevent: message\nid: 7\nretry: 10\ndata: " + response + "\n\n")},
		{"a byte-order mark", "\xEF\xBB\xBFdata: " + response + "\n\nx", len("\xEF\xBB\xBFdata: " + response + "\n\n")},
		{"a byte-order mark later", "\n\xEF\xBB\xBFdata: " + response + "\n\nx", -1},
		{"DATA is no field", "DATA: " + response + "\n\nx", -1},
		{"no blank line after it", "data: " + response + "\n", -1},
		{"no line end at all", "data: " + response, -1},
		{"empty", "", -1},
		// The CR of a CRLF, then the CR ending the event, as the last byte
		// of a buffered reader's first 4 KiB.
		{"CRLF across 4 KiB", padded(4095-len(event), event+"\r\n\r\nx"), len(padded(4095-len(event), event+"\r\n\r"))},
		{"the last CR ending 4 KiB", padded(4094-len(event), event+"\r\r\nx"), len(padded(4094-len(event), event+"\r\r"))},
	} {
		want := c.in
		if c.read >= 0 {
			want = c.in[:c.read]
		}
		for how, r := range reads {
			got, err := readUntilResponse(r([]byte(c.in)))
			if err != nil || string(got) != want {
				t.Errorf("%s, read %s: %q, %v; want %q", c.name, how, got, err, want)
			}
		}
	}
}

// TestEvents_AsTheFormatSplitsThem: events returns each event's data,
// lines joined by LF, whatever the line ends, and the data of an event
// the stream ends inside last (splitEvents tells it apart: a client
// discards it). A "data:" line with nothing after it adds nothing, not
// even the LF before the next data line.
func TestEvents_AsTheFormatSplitsThem(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in       string
		ended    []string
		dangling string // "-": none
	}{
		{"data: a\n\ndata: b\n\n", []string{"a", "b"}, "-"},
		{"data: a\r\n\r\ndata: b\r\n\r\n", []string{"a", "b"}, "-"},
		{"data: a\r\rdata: b\r\r", []string{"a", "b"}, "-"},
		{"data: a\ndata:b\rdata:  c\r\n\n", []string{"a\nb\n c"}, "-"},
		{"data: a\n\ndata: b", []string{"a"}, "b"},
		{"data: a\n\ndata: b\n", []string{"a"}, "b"},
		{"data: a\n\ndata: b\r", []string{"a"}, "b"},
		{"data: a\n\n: comment", []string{"a"}, "-"},
		{"data:\n\ndata: b\n\n", []string{"b"}, "-"},
		{"data:\ndata: b\n\n", []string{"b"}, "-"},
		{"data: a\ndata:\n\n", []string{"a\n"}, "-"},
		{"\n\n\r\r\r\n", nil, "-"},
		{"\xEF\xBB\xBFdata: a\n\n", []string{"a"}, "-"},
		{"\xEF\xBB\xBF\xEF\xBB\xBFdata: a\n\n", nil, "-"},
		{"event: x\nid: 1\ndata: a\n\n", []string{"a"}, "-"},
	} {
		out, dangling := splitEvents([]byte(c.in))
		var got []string
		for _, e := range out {
			got = append(got, string(e))
		}
		d := "-"
		if dangling != nil {
			d = string(dangling)
		}
		if fmt.Sprintf("%q %q", got, d) != fmt.Sprintf("%q %q", c.ended, c.dangling) {
			t.Errorf("%q: %q and %q; want %q and %q", c.in, got, d, c.ended, c.dangling)
		}
		all := events([]byte(c.in))
		want := len(c.ended)
		if c.dangling != "-" {
			want++
		}
		if len(all) != want || (c.dangling != "-" && string(all[want-1]) != c.dangling) {
			t.Errorf("%q: events %q, want the %d ended and the dangling one last", c.in, all, len(c.ended))
		}
	}
}

// TestReadUntilResponse_ErrorOfTheRead: a read that fails, not at the
// stream's end, is returned with what was read before it.
func TestReadUntilResponse_ErrorOfTheRead(t *testing.T) {
	t.Parallel()
	broken := errors.New("connection reset")
	in := "data: {\"method\":\"n\"}\n\ndata: {\"id\""
	got, err := readUntilResponse(io.MultiReader(strings.NewReader(in), iotest.ErrReader(broken)))
	if !errors.Is(err, broken) || string(got) != in {
		t.Errorf("%q, %v; want %q and the read's error", got, err, in)
	}
}

// TestReadUntilResponse_LoneCRNeverWaits: on a stream the server holds
// open, an event ended by lone CRs is read at once: the reader does not
// wait for the byte after a CR to tell it from a CRLF.
func TestReadUntilResponse_LoneCRNeverWaits(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"data: " + response + "\r\r", "data: " + response + "\r\n\r", "data: " + response + "\n\r"} {
		pr, pw := io.Pipe()
		go pw.Write([]byte(in))
		done := make(chan string, 1)
		go func() {
			got, err := readUntilResponse(pr)
			done <- fmt.Sprintf("%q %v", got, err)
		}()
		select {
		case got := <-done:
			if want := fmt.Sprintf("%q <nil>", in); got != want {
				t.Errorf("%q: %s, want %s", in, got, want)
			}
		case <-time.After(10 * time.Second): // a bound on a hang, not a measure
			t.Errorf("%q: still waiting for the byte after its last CR", in)
		}
		pw.Close()
	}
}

// TestReadUntilResponse_BoundEdge: the kit reads at most maxResponse
// bytes of a stream. A response whose event ends on the bound's last
// byte is read whole (and nothing after it is read, even the LF of a
// CRLF right after the bound); one whose event ends a byte later, or a
// stream without a response past the bound, is errTooLarge with the
// bytes read, maxResponse + 1. One line may be as long as the bound: no
// bound of its own. Whatever the reads.
func TestReadUntilResponse_BoundEdge(t *testing.T) {
	t.Parallel()
	// event is a response's event of exactly n bytes, ended by eol twice.
	event := func(n int, eol string) string {
		head, tail := `data: {"id":1,"result":{"pad":"`, `"}}`+eol+eol
		return head + strings.Repeat("p", n-len(head)-len(tail)) + tail
	}
	for _, c := range []struct {
		name string
		in   string
		read int
		err  error
	}{
		{"LF, at the bound", event(maxResponse, "\n") + "x", maxResponse, nil},
		{"LF, past it", event(maxResponse+1, "\n"), maxResponse + 1, errTooLarge},
		{"CR, at the bound", event(maxResponse, "\r") + "x", maxResponse, nil},
		{"CR, past it", event(maxResponse+1, "\r"), maxResponse + 1, errTooLarge},
		{"CRLF, its last LF past the bound", event(maxResponse+1, "\r\n"), maxResponse, nil},
		{"CRLF, past it", event(maxResponse+2, "\r\n"), maxResponse + 1, errTooLarge},
		{"no response", strings.Repeat("data: "+strings.Repeat("x", 1018)+"\n\n", maxResponse/1026+1), maxResponse + 1, errTooLarge},
		{"one line at the bound", "data: " + strings.Repeat("p", maxResponse-len("data: ")), maxResponse, nil},
		{"one line past it", "data: " + strings.Repeat("p", maxResponse), maxResponse + 1, errTooLarge},
	} {
		for _, how := range []string{"whole", "halves", "4095,1"} {
			got, err := readUntilResponse(reads[how]([]byte(c.in)))
			if err != c.err || len(got) != c.read || !strings.HasPrefix(c.in, string(got)) {
				t.Errorf("%s, read %s: %d bytes, %v; want %d, %v", c.name, how, len(got), err, c.read, c.err)
			}
		}
	}
}
