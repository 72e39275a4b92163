package jsonrpc

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"
)

// Kind classifies why a body was refused. It maps one to one onto a JSON-RPC
// code in the caller: Syntax is -32700, Invalid is -32600, Params is -32602.
type Kind uint8

const (
	// Syntax: the bytes are not one RFC 8259 JSON text in UTF-8.
	Syntax Kind = iota + 1
	// Invalid: valid JSON, but not an acceptable JSON-RPC request.
	Invalid
	// Params: the envelope is fine but params is not an object.
	Params
)

// Error reports a refused body. Reason is a stable machine-readable key
// ("duplicate_member", "too_deep", "batch", ...); Message is safe to send to
// the client: it never quotes more than a short member name.
type Error struct {
	Kind    Kind
	Reason  string
	Message string
	Offset  int
	// ID is the request id, when it was read and valid before the failure
	// was found; nil otherwise. Errors then echo it.
	ID []byte
}

func (e *Error) Error() string { return e.Message }

// DefaultMaxDepth bounds nesting of arrays and objects. 64 levels is far
// beyond any MCP message and keeps the recursive scan's stack small.
const DefaultMaxDepth = 64

// MaxIDBytes bounds a string or integer id as it appears on the wire.
const MaxIDBytes = 256

// dupSortThreshold is the member count past which an object's names are
// checked for duplicates by one sort at its end instead of a linear search
// per member, so a hostile object with 100k members stays n log n.
const dupSortThreshold = 16

type scanner struct {
	data     []byte
	pos      int
	maxDepth int
	// keys holds the (unescaped) member names of every object currently
	// open, outermost first; each object remembers where its own start.
	keys []keyRef
	// escaped holds the unescaped names of the rare members whose names
	// have escapes; a keyRef with escaped set indexes it.
	escaped [][]byte
	// root captures the top-level members when the root is an object, as
	// offsets: no pointer for the collector to follow or the pool to clear.
	root []rootRef
	// params and sub, when set (ParseIndexed), are filled with the members
	// of the root's params object and of the object params names subName;
	// into is the index the next object scanned fills, set just before it.
	params, sub, into *Index
	subName           string
}

// rootRef is a top-level member: its name (see keyRef) and the span of
// its raw value.
type rootRef struct {
	key    keyRef
	v0, v1 int32
}

func (s *scanner) fail(k Kind, reason, msg string) *Error {
	return &Error{Kind: k, Reason: reason, Message: msg, Offset: s.pos}
}

func (s *scanner) syntax() *Error {
	return s.fail(Syntax, "parse_error", "Parse error: invalid JSON at byte "+strconv.Itoa(s.pos))
}

func (s *scanner) skipWS() {
	d, i := s.data, s.pos
	// Compact JSON, the usual kind, has none: one comparison says so.
	if i < len(d) && d[i] > ' ' {
		return
	}
	for i < len(d) && isWS(d[i]) {
		i++
	}
	s.pos = i
}

// value scans one JSON value starting at s.pos (whitespace already skipped).
func (s *scanner) value(depth int) *Error {
	if s.pos >= len(s.data) {
		return s.syntax()
	}
	switch c := s.data[s.pos]; c {
	case '{':
		return s.object(depth + 1)
	case '[':
		return s.array(depth + 1)
	case '"':
		_, err := s.str(false)
		return err
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			return s.number()
		}
		return s.syntax()
	}
}

func (s *scanner) literal(lit string) *Error {
	if !bytes.HasPrefix(s.data[s.pos:], []byte(lit)) {
		return s.syntax()
	}
	s.pos += len(lit)
	return nil
}

func (s *scanner) number() *Error {
	d := s.data
	if d[s.pos] == '-' {
		s.pos++
	}
	if s.pos >= len(d) {
		return s.syntax()
	}
	switch {
	case d[s.pos] == '0':
		s.pos++
	case d[s.pos] >= '1' && d[s.pos] <= '9':
		for s.pos < len(d) && d[s.pos] >= '0' && d[s.pos] <= '9' {
			s.pos++
		}
	default:
		return s.syntax()
	}
	if s.pos < len(d) && d[s.pos] == '.' {
		s.pos++
		start := s.pos
		for s.pos < len(d) && d[s.pos] >= '0' && d[s.pos] <= '9' {
			s.pos++
		}
		if s.pos == start {
			return s.syntax()
		}
	}
	if s.pos < len(d) && (d[s.pos] == 'e' || d[s.pos] == 'E') {
		s.pos++
		if s.pos < len(d) && (d[s.pos] == '+' || d[s.pos] == '-') {
			s.pos++
		}
		start := s.pos
		for s.pos < len(d) && d[s.pos] >= '0' && d[s.pos] <= '9' {
			s.pos++
		}
		if s.pos == start {
			return s.syntax()
		}
	}
	return nil
}

// str scans a string. With decode it returns the unescaped content (aliasing
// the input when there is no escape); otherwise it returns nil.
func (s *scanner) str(decode bool) ([]byte, *Error) {
	d := s.data
	s.pos++ // opening quote
	start := s.pos
	escaped := false
	for s.pos < len(d) {
		// Most bytes of a string are plain: skip them with one table
		// lookup each, then look at the byte that stopped the run.
		i := s.pos
		for i < len(d) && plain[d[i]] {
			i++
		}
		if s.pos = i; i >= len(d) {
			break
		}
		c := d[s.pos]
		switch {
		case c == '"':
			raw := d[start:s.pos]
			s.pos++
			if !decode {
				return nil, nil
			}
			if !escaped {
				return raw, nil
			}
			// Escaped strings are rare on the wire; they get their own copy.
			out, ok := unescape(nil, raw)
			if !ok {
				return nil, s.syntax()
			}
			return out, nil
		case c == '\\':
			escaped = true
			if s.pos+1 >= len(d) {
				return nil, s.syntax()
			}
			switch d[s.pos+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.pos += 2
			case 'u':
				r, ok := hex4(d, s.pos+2)
				if !ok {
					return nil, s.syntax()
				}
				s.pos += 6
				if r >= 0xDC00 && r <= 0xDFFF {
					return nil, s.fail(Syntax, "invalid_utf8", "Parse error: lone surrogate escape")
				}
				if r >= 0xD800 && r <= 0xDBFF {
					if s.pos+1 >= len(d) || d[s.pos] != '\\' || d[s.pos+1] != 'u' {
						return nil, s.fail(Syntax, "invalid_utf8", "Parse error: lone surrogate escape")
					}
					lo, ok := hex4(d, s.pos+2)
					if !ok || lo < 0xDC00 || lo > 0xDFFF {
						return nil, s.fail(Syntax, "invalid_utf8", "Parse error: lone surrogate escape")
					}
					s.pos += 6
				}
			default:
				return nil, s.syntax()
			}
		case c < 0x20:
			return nil, s.syntax()
		default: // not ASCII: plain stops at every such byte
			r, size := utf8.DecodeRune(d[s.pos:])
			if r == utf8.RuneError && size == 1 {
				return nil, s.fail(Syntax, "invalid_utf8", "Parse error: invalid UTF-8")
			}
			s.pos += size
		}
	}
	return nil, s.syntax()
}

// plain marks the bytes a string holds as they are: printable ASCII but
// the quote and the backslash.
var plain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func hex4(d []byte, at int) (rune, bool) {
	if at+4 > len(d) {
		return 0, false
	}
	var r rune
	for _, c := range d[at : at+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}

func (s *scanner) array(depth int) *Error {
	if depth > s.maxDepth {
		return s.fail(Invalid, "too_deep", "Invalid Request: nesting deeper than "+strconv.Itoa(s.maxDepth))
	}
	s.pos++
	s.skipWS()
	if s.pos < len(s.data) && s.data[s.pos] == ']' {
		s.pos++
		return nil
	}
	for {
		s.skipWS()
		if err := s.value(depth); err != nil {
			return err
		}
		s.skipWS()
		if s.pos >= len(s.data) {
			return s.syntax()
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
		case ']':
			s.pos++
			return nil
		default:
			return s.syntax()
		}
	}
}

func (s *scanner) object(depth int) *Error {
	if depth > s.maxDepth {
		return s.fail(Invalid, "too_deep", "Invalid Request: nesting deeper than "+strconv.Itoa(s.maxDepth))
	}
	x, start := s.into, s.pos
	s.into = nil
	if x != nil {
		x.n, x.rescan = 0, false
	}
	s.pos++
	base := len(s.keys)
	defer func() { s.keys = s.keys[:base] }()
	s.skipWS()
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		s.pos++
		if x != nil {
			x.obj, x.done = s.data[start:s.pos], true
		}
		return nil
	}
	for {
		s.skipWS()
		if s.pos >= len(s.data) || s.data[s.pos] != '"' {
			return s.syntax()
		}
		keyAt := s.pos
		key, err := s.str(true)
		if err != nil {
			return err
		}
		keyEnd := s.pos - 1
		// Duplicate member names are refused at every depth: encoding/json
		// would let the last one win, which lets two parsers disagree. A
		// small object is checked member by member; a large one once, at
		// its end, by sorting its names, so a hostile object with 100k
		// members costs one sort and no allocation per name.
		if len(s.keys)-base < dupSortThreshold {
			for _, k := range s.keys[base:] {
				if bytes.Equal(s.name(k), key) {
					s.pos = keyAt
					return s.dup(key)
				}
			}
		}
		s.keys = append(s.keys, s.ref(keyAt, key))
		s.skipWS()
		if s.pos >= len(s.data) || s.data[s.pos] != ':' {
			return s.syntax()
		}
		s.pos++
		s.skipWS()
		valStart := s.pos
		if s.params != nil && valStart < len(s.data) && s.data[valStart] == '{' {
			switch {
			case depth == 1 && string(key) == "params":
				s.into = s.params
			case x != nil && x == s.params && s.sub != nil && string(key) == s.subName:
				s.into = s.sub
			}
		}
		if err := s.value(depth); err != nil {
			return err
		}
		if depth == 1 {
			s.root = append(s.root, rootRef{s.keys[len(s.keys)-1], int32(valStart), int32(s.pos)})
		}
		if x != nil {
			// An escape always shortens a name: its written length differs.
			x.add(keyAt+1-start, keyEnd-start, valStart-start, s.pos-start, keyEnd-keyAt-1 != len(key))
		}
		s.skipWS()
		if s.pos >= len(s.data) {
			return s.syntax()
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
		case '}':
			s.pos++
			if names := s.keys[base:]; len(names) > dupSortThreshold {
				cmp := func(a, b keyRef) int { return bytes.Compare(s.name(a), s.name(b)) }
				slices.SortFunc(names, cmp)
				for i := 1; i < len(names); i++ {
					if cmp(names[i-1], names[i]) == 0 {
						return s.dup(s.name(names[i]))
					}
				}
			}
			if x != nil {
				x.obj, x.done = s.data[start:s.pos], true
			}
			return nil
		default:
			return s.syntax()
		}
	}
}

// keyRef names a member of an object being scanned in 8 bytes: the span of
// its name in the input, or, for a name with escapes, its index in
// scanner.escaped. Objects with 100k members keep 100k of these.
type keyRef struct {
	start, end int32 // end < 0: escaped[start]
}

func (s *scanner) ref(at int, key []byte) keyRef {
	if len(key) == 0 || &key[0] != &s.data[min(at+1, len(s.data)-1)] {
		s.escaped = append(s.escaped, key)
		return keyRef{int32(len(s.escaped) - 1), -1}
	}
	return keyRef{int32(at + 1), int32(at + 1 + len(key))}
}

func (s *scanner) name(k keyRef) []byte {
	if k.end < 0 {
		return s.escaped[k.start]
	}
	return s.data[k.start:k.end]
}

func (s *scanner) dup(key []byte) *Error {
	name := string(key)
	if len(name) > 64 || !printable(name) {
		return s.fail(Invalid, "duplicate_member", "Invalid Request: duplicate member name")
	}
	return s.fail(Invalid, "duplicate_member", "Invalid Request: duplicate member "+strconv.Quote(name))
}

func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// Validate checks that data is exactly one strict JSON text: UTF-8, no lone
// surrogates, no duplicate member names at any depth, nesting within
// maxDepth, nothing but whitespace after the value.
func Validate(data []byte, maxDepth int) error {
	s := getScanner(data, maxDepth)
	defer putScanner(s)
	if err := s.run(); err != nil {
		return err
	}
	return nil
}

// Scanners are reused: the name references and the root members they
// collect are kept between requests, so a request scans without
// allocating.
var scanners = sync.Pool{New: func() any { return &scanner{keys: make([]keyRef, 0, 32), root: make([]rootRef, 0, 8)} }}

func getScanner(data []byte, maxDepth int) *scanner {
	s := scanners.Get().(*scanner)
	s.data, s.pos, s.maxDepth = data, 0, maxDepth
	return s
}

// putScanner returns s to the pool unless it grew large scanning a
// hostile body, dropping every reference into the data it scanned.
func putScanner(s *scanner) {
	if cap(s.keys) > 1024 || cap(s.root) > 64 {
		return
	}
	*s = scanner{keys: s.keys[:0], root: s.root[:0]}
	scanners.Put(s)
}

// maxMessage is the longest message the scanner reads: it keeps offsets
// in 32 bits (keyRef, rootRef). A variable so that a test can lower it.
var maxMessage = math.MaxInt32

func (s *scanner) run() *Error {
	if len(s.data) > maxMessage {
		return s.fail(Invalid, "too_large", "Invalid Request: a message is at most "+strconv.Itoa(maxMessage)+" bytes")
	}
	s.skipWS()
	if s.pos == len(s.data) {
		// Nothing but white space, if that: "invalid JSON at byte 0" of
		// an empty body would point at a byte that is not there.
		return s.fail(Syntax, "parse_error", "Parse error: the message is empty")
	}
	if err := s.value(0); err != nil {
		return err
	}
	s.skipWS()
	if s.pos != len(s.data) {
		return s.fail(Syntax, "trailing_data", "Parse error: data after the JSON value")
	}
	return nil
}

// unescape decodes the body of a JSON string that is known to be valid.
func unescape(dst, raw []byte) ([]byte, bool) {
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' {
			dst = append(dst, c)
			i++
			continue
		}
		switch raw[i+1] {
		case '"', '\\', '/':
			dst = append(dst, raw[i+1])
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, ok := hex4(raw, i+2)
			if !ok {
				return nil, false
			}
			i += 6
			if r >= 0xD800 && r <= 0xDBFF {
				lo, ok := hex4(raw, i+2)
				if !ok {
					return nil, false
				}
				r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
				i += 6
			}
			dst = utf8.AppendRune(dst, r)
			continue
		default:
			return nil, false
		}
		i += 2
	}
	return dst, true
}
