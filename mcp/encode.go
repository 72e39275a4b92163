package mcp

import (
	"bytes"
	"encoding/json"
	"sync"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
)

// encoder marshals results into a reused buffer, compact and without HTML
// escaping (a tool's text is data for a model, not for a browser).
type encoder struct {
	buf []byte
	w   bytes.Buffer
	enc *json.Encoder
}

var encoderPool = sync.Pool{New: func() any {
	e := &encoder{buf: make([]byte, 0, 1024)}
	e.enc = json.NewEncoder(&e.w)
	e.enc.SetEscapeHTML(false)
	return e
}}

func getEncoder() *encoder { return encoderPool.Get().(*encoder) }

func putEncoder(e *encoder) {
	if cap(e.buf) > 64<<10 || e.w.Cap() > 64<<10 {
		return
	}
	e.buf = e.buf[:0]
	e.w.Reset()
	encoderPool.Put(e)
}

// encode appends the JSON of v to e.buf.
func (e *encoder) encode(v any) error {
	if raw, ok := v.(json.RawMessage); ok {
		e.buf = append(e.buf, raw...)
		return nil
	}
	e.w.Reset()
	if err := e.enc.Encode(v); err != nil {
		return err
	}
	b := e.w.Bytes()
	e.buf = append(e.buf, b[:len(b)-1]...) // drop Encode's newline
	return nil
}

func appendString(dst []byte, s string) []byte { return jsonrpc.AppendString(dst, s) }

func appendInt(dst []byte, n int64) []byte { return jsonrpc.AppendInt(dst, n) }

// object renders a JSON object of string members, in the order given.
func object(fields ...string) []byte {
	b := []byte{'{'}
	for i := 0; i+1 < len(fields); i += 2 {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, fields[i])
		b = append(b, ':')
		b = appendString(b, fields[i+1])
	}
	return append(b, '}')
}
