package mrtr

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strconv"
)

// plaintext is what the AEAD protects. Its layout is the JSON that
// encoding/json gives for this struct; states sealed by any replica of any
// release must keep opening, so appendPlaintext writes exactly that and
// parsePlaintext reads it without reflection, handing anything else to
// json.Unmarshal.
type plaintext struct {
	Binding []byte `json:"b"`
	Issued  int64  `json:"i"`
	Expires int64  `json:"e"`
	Nonce   []byte `json:"n"`
	Payload []byte `json:"p,omitempty"`
}

var b64 = base64.StdEncoding

func appendPlaintext(dst []byte, p *plaintext) []byte {
	dst = append(dst, `{"b":"`...)
	dst = b64.AppendEncode(dst, p.Binding)
	dst = append(dst, `","i":`...)
	dst = strconv.AppendInt(dst, p.Issued, 10)
	dst = append(dst, `,"e":`...)
	dst = strconv.AppendInt(dst, p.Expires, 10)
	dst = append(dst, `,"n":"`...)
	dst = b64.AppendEncode(dst, p.Nonce)
	dst = append(dst, '"')
	if len(p.Payload) > 0 {
		dst = append(dst, `,"p":"`...)
		dst = b64.AppendEncode(dst, p.Payload)
		dst = append(dst, '"')
	}
	return append(dst, '}')
}

// parsePlaintext decodes pt into p. The byte fields share one allocation.
func parsePlaintext(pt []byte, p *plaintext) error {
	if parseLayout(pt, p) {
		return nil
	}
	*p = plaintext{}
	return json.Unmarshal(pt, p)
}

// parseLayout reads the layout appendPlaintext writes, and reports false
// on any other.
func parseLayout(pt []byte, p *plaintext) bool {
	r := layoutReader{in: pt, ok: true}
	bind := r.quoted(`{"b":"`)
	issued, ok1 := r.integer(`","i":`)
	expires, ok2 := r.integer(`,"e":`)
	nonce := r.quoted(`,"n":"`)
	if !r.ok || !ok1 || !ok2 || !r.lit(`"`) {
		return false
	}
	var payload []byte
	if !r.lit(`}`) {
		payload = r.quoted(`,"p":"`)
		if !r.ok || !r.lit(`"}`) || len(payload) == 0 {
			return false
		}
	}
	if r.pos != len(pt) {
		return false
	}
	buf := make([]byte, b64.DecodedLen(len(bind))+b64.DecodedLen(len(nonce))+b64.DecodedLen(len(payload)))
	strict := b64.Strict()
	field := func(src []byte) []byte {
		n, err := strict.Decode(buf, src)
		if err != nil {
			r.ok = false
		}
		out := buf[:n:n]
		buf = buf[n:]
		return out
	}
	p.Binding, p.Nonce, p.Issued, p.Expires = field(bind), field(nonce), issued, expires
	if payload != nil {
		p.Payload = field(payload)
	}
	return r.ok
}

type layoutReader struct {
	in  []byte
	pos int
	ok  bool
}

func (r *layoutReader) lit(s string) bool {
	if !bytes.HasPrefix(r.in[r.pos:], []byte(s)) {
		return false
	}
	r.pos += len(s)
	return true
}

// quoted reads prefix, then base64 text up to (not including) a quote.
func (r *layoutReader) quoted(prefix string) []byte {
	if !r.ok || !r.lit(prefix) {
		r.ok = false
		return nil
	}
	end := bytes.IndexByte(r.in[r.pos:], '"')
	if end < 0 {
		r.ok = false
		return nil
	}
	s := r.in[r.pos : r.pos+end]
	for _, c := range s {
		// Only the alphabet: the base64 decoder skips line breaks, which
		// a JSON string may not hold raw.
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '=') {
			r.ok = false
			return nil
		}
	}
	r.pos += end
	return s
}

// integer reads prefix, then a non-negative decimal as strconv writes it
// (at most 18 digits, so it cannot overflow).
func (r *layoutReader) integer(prefix string) (int64, bool) {
	if !r.ok || !r.lit(prefix) {
		return 0, false
	}
	var n int64
	start := r.pos
	for r.pos < len(r.in) && r.in[r.pos] >= '0' && r.in[r.pos] <= '9' && r.pos-start < 18 {
		n = n*10 + int64(r.in[r.pos]-'0')
		r.pos++
	}
	digits := r.pos - start
	if digits == 0 || digits > 1 && r.in[start] == '0' {
		return 0, false
	}
	return n, true
}
