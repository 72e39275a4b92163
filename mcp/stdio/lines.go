package stdio

import (
	"bufio"
	"bytes"
	"io"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
)

// lineReader splits its input into messages at '\n'. A line longer than
// max is never held whole: past max it is only scanned, to find the
// members an error about it can name, and then dropped.
type lineReader struct {
	r   *bufio.Reader
	max int
	acc []byte // the line being gathered when it spans reads
}

// readBuffer is how much of the input is read at a time.
const readBuffer = 64 << 10

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, readBuffer), max: max}
}

// oversized describes a line that was longer than allowed.
type oversized struct {
	size int64 // bytes skipped, without the line's end
	probe
}

// next returns the next line, without its '\n' and a '\r' before it, in
// memory of its own; or, for a line over the limit, what is known of it.
// At the end of the input it returns io.EOF (after a last line that has
// no '\n'). A read error other than EOF is returned as it is.
func (lr *lineReader) next() (line []byte, over *oversized, err error) {
	lr.acc = lr.acc[:0]
	for {
		chunk, err := lr.r.ReadSlice('\n')
		complete := err == nil
		if len(lr.acc)+len(chunk) > lr.max+2 { // room for "\r\n"
			return nil, lr.skip(chunk, complete), nil
		}
		if complete || (err == io.EOF && len(lr.acc)+len(chunk) > 0) {
			if len(lr.acc) == 0 {
				line = trimEnd(chunk)
			} else {
				lr.acc = append(lr.acc, chunk...)
				line = trimEnd(lr.acc)
			}
			if len(line) > lr.max {
				o := &oversized{}
				o.feed(line)
				o.size = int64(len(line))
				return nil, o, nil
			}
			return bytes.Clone(line), nil, nil
		}
		switch err {
		case bufio.ErrBufferFull:
			lr.acc = append(lr.acc, chunk...)
		case io.EOF:
			return nil, nil, io.EOF
		default:
			return nil, nil, err
		}
	}
}

// skip scans the rest of a line that is over the limit: what was gathered,
// chunk, and everything up to the next '\n', holding none of it.
func (lr *lineReader) skip(chunk []byte, complete bool) *oversized {
	o := &oversized{}
	o.feed(lr.acc)
	o.size = int64(len(lr.acc))
	lr.acc = lr.acc[:0]
	for {
		body := chunk
		if complete {
			body = trimEnd(chunk)
		}
		o.feed(body)
		o.size += int64(len(body))
		if complete {
			return o
		}
		var err error
		chunk, err = lr.r.ReadSlice('\n')
		switch err {
		case nil:
			complete = true
		case bufio.ErrBufferFull:
		default:
			// The input ended (or failed) inside the line: what was
			// read is judged, and the next call reports the end.
			complete = true
		}
		if complete && err != nil {
			o.feed(chunk)
			o.size += int64(len(chunk))
			return o
		}
	}
}

// trimEnd removes a line's '\n' and a '\r' before it.
func trimEnd(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte{'\n'})
	return bytes.TrimSuffix(b, []byte{'\r'})
}

// probe follows a JSON text it is fed piece by piece, remembering only
// the top-level "id" (when it is an acceptable id) and whether there was
// a top-level "method", so that a message too large to read can still be
// answered with its id, or recognised as a notification. It never holds
// more than a member name and an id.
type probe struct {
	state  probeState
	depth  int  // nesting depth; the message's own object is 1
	inStr  bool // inside a string
	escape bool // after a backslash inside a string
	key    []byte
	keyBig bool // the member name is too long to be one of ours
	value  []byte
	valBig bool // the value is too long to be an id
	member int  // which member's value this is: 0 other, 1 id, 2 method, 3 result or error

	id        []byte // the top-level id, when valid
	ids       int    // how many top-level "id" members were seen
	hasMethod bool
	hasAnswer bool // a top-level "result" or "error": a response
	broken    bool // not an object, or not JSON: nothing is trusted
}

type probeState uint8

const (
	probeStart  probeState = iota // before the message's '{'
	probeKey                      // expecting a member name (or '}')
	probeKeyStr                   // inside a member name
	probeColon                    // after a member name
	probeValue                    // expecting a top-level member's value
	probeScalar                   // inside a top-level number or literal
	probeTopStr                   // inside a top-level string value
	probeNested                   // inside a top-level object or array value
	probeAfter                    // after a value: ',' or '}'
	probeDone                     // after the message's '}'
)

const maxKey = 64 // longer than any escaped spelling of "method"

// feed advances the probe over p. Inside a nested value or a string
// that is not the id, it jumps to the next byte that matters.
func (pr *probe) feed(p []byte) {
	for i := 0; i < len(p); i++ {
		if pr.broken {
			return
		}
		if !pr.escape {
			skipTo := ""
			switch {
			case pr.state == probeNested && pr.inStr, pr.state == probeTopStr && pr.member != 1:
				skipTo = `"\`
			case pr.state == probeNested:
				skipTo = `"{}[]`
			}
			if skipTo != "" {
				j := bytes.IndexAny(p[i:], skipTo)
				if j < 0 {
					return
				}
				i += j
			}
		}
		pr.step(p[i])
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func (pr *probe) step(c byte) {
	switch pr.state {
	case probeStart:
		switch {
		case isSpace(c):
		case c == '{':
			pr.state, pr.depth = probeKey, 1
		default:
			pr.broken = true
		}
	case probeKey:
		switch {
		case isSpace(c):
		case c == '"':
			// The key keeps its quotes, so it reads as a JSON string.
			pr.state, pr.key, pr.keyBig = probeKeyStr, append(pr.key[:0], '"'), false
		case c == '}':
			pr.state = probeDone
		default:
			pr.broken = true
		}
	case probeKeyStr:
		if pr.strByte(c) {
			pr.key = append(pr.key, '"')
			pr.state = probeColon
			return
		}
		if len(pr.key) < maxKey {
			pr.key = append(pr.key, c)
		} else {
			pr.keyBig = true
		}
	case probeColon:
		switch {
		case isSpace(c):
		case c == ':':
			pr.state, pr.member = probeValue, 0
			if !pr.keyBig {
				switch {
				case jsonrpc.StringIs(pr.key, "id"):
					pr.member = 1
				case jsonrpc.StringIs(pr.key, "method"):
					pr.member = 2
				case jsonrpc.StringIs(pr.key, "result"), jsonrpc.StringIs(pr.key, "error"):
					pr.member = 3
				}
			}
		default:
			pr.broken = true
		}
	case probeValue:
		pr.value, pr.valBig = pr.value[:0], false
		switch {
		case isSpace(c):
			return
		case c == '"':
			pr.state = probeTopStr
		case c == '{' || c == '[':
			pr.state, pr.depth = probeNested, 2
		case c == '}' || c == ']' || c == ',' || c == ':':
			pr.broken = true
			return
		default:
			pr.state = probeScalar
		}
		pr.keep(c)
	case probeScalar:
		switch {
		case isSpace(c):
			pr.endValue()
			pr.state = probeAfter
		case c == ',':
			pr.endValue()
			pr.state = probeKey
		case c == '}':
			pr.endValue()
			pr.state = probeDone
		default:
			pr.keep(c)
		}
	case probeTopStr:
		pr.keep(c)
		if pr.strByte(c) {
			pr.endValue()
			pr.state = probeAfter
		}
	case probeNested:
		switch {
		case pr.inStr:
			pr.inStr = !pr.strByte(c)
		case c == '"':
			pr.inStr = true
		case c == '{' || c == '[':
			pr.depth++
		case c == '}' || c == ']':
			pr.depth--
			if pr.depth == 1 {
				pr.endValue()
				pr.state = probeAfter
			}
		}
	case probeAfter:
		switch {
		case isSpace(c):
		case c == ',':
			pr.state = probeKey
		case c == '}':
			pr.state = probeDone
		default:
			pr.broken = true
		}
	case probeDone:
		if !isSpace(c) {
			pr.broken = true
		}
	}
}

// keep adds c to the value when it may be the id.
func (pr *probe) keep(c byte) {
	if pr.member != 1 {
		return
	}
	if len(pr.value) < jsonrpc.MaxIDBytes {
		pr.value = append(pr.value, c)
	} else {
		pr.valBig = true
	}
}

// endValue closes a top-level member's value.
func (pr *probe) endValue() {
	switch pr.member {
	case 1:
		pr.ids++
		pr.id = nil
		if !pr.valBig && len(pr.value) > 0 && jsonrpc.Validate(pr.value, 1) == nil && jsonrpc.CheckID(pr.value) == "" {
			pr.id = bytes.Clone(pr.value)
		}
	case 2:
		pr.hasMethod = true
	case 3:
		pr.hasAnswer = true
	}
}

// ID returns the message's id when it was found once and is acceptable.
func (pr *probe) ID() []byte {
	if pr.broken || pr.ids != 1 {
		return nil
	}
	return pr.id
}

// Notification reports a message that looked like a notification: an
// object with a method and no id member.
func (pr *probe) Notification() bool {
	return !pr.broken && pr.ids == 0 && pr.hasMethod
}

// Response reports a message that looked like a response: an object with
// a result or an error and no method.
func (pr *probe) Response() bool {
	return !pr.broken && pr.hasAnswer && !pr.hasMethod
}

// strByte takes byte c of a string (after its opening quote) and reports
// whether it is the closing quote.
func (pr *probe) strByte(c byte) bool {
	switch {
	case pr.escape:
		pr.escape = false
	case c == '\\':
		pr.escape = true
	case c == '"':
		return true
	}
	return false
}
