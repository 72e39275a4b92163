package jsonrpc

import "math"

// Index is an object's members, found once, as offsets into the object, so
// that a request's many lookups in its params do not walk them again, and
// so that a request holding one stays small (it is a listen stream's
// memory). [ParseIndexed] fills it while it scans the body; [Index.Build]
// fills it afterwards, for an object parsed without it. When the members do
// not fit, or a name holds an escape (no client writes one), every lookup
// walks the object again instead: slower, never wrong, and it allocates
// nothing.
type Index struct {
	obj    []byte
	spans  [IndexRoom]span
	n      uint8
	done   bool
	rescan bool
}

// IndexRoom is how many members an Index holds: an MCP tools/call's
// params (name, arguments, _meta, and a retry's requestState and
// inputResponses), and the _meta of revision 2026-07-28 (protocolVersion,
// clientCapabilities, clientInfo, and two of logLevel, progressToken or a
// trace context).
const IndexRoom = 5

// span is a member's name, as written, between k0 and k1, and its value
// between v0 and v1, counted from the object's opening brace.
type span struct{ k0, k1, v0, v1 uint32 }

// Build indexes obj, a validated object (anything else has no members),
// unless the index is already done; it returns x.
func (x *Index) Build(obj []byte) *Index {
	if x.done {
		return x
	}
	*x = Index{done: true}
	it := NewIter(obj)
	x.obj = it.Data()
	for {
		k0, k1, v0, v1, escaped, ok := it.NextAt()
		if !ok {
			return x
		}
		x.add(k0, k1, v0, v1, escaped)
	}
}

// add records a member; past the room, or for an escaped name, the index
// gives up its offsets and rescans on every lookup.
func (x *Index) add(k0, k1, v0, v1 int, escaped bool) {
	if x.rescan {
		return
	}
	if escaped || int(x.n) == len(x.spans) || uint64(v1) > math.MaxUint32 {
		x.n, x.rescan = 0, true
		return
	}
	x.spans[x.n] = span{uint32(k0), uint32(k1), uint32(v0), uint32(v1)}
	x.n++
}

// Lookup returns the raw value of member name, matched exactly (never
// case-insensitively). The index must be done (Build).
func (x *Index) Lookup(name string) ([]byte, bool) {
	if x.rescan {
		return Lookup(x.obj, name)
	}
	for _, s := range x.spans[:x.n] {
		if string(x.obj[s.k0:s.k1]) == name {
			return x.obj[s.v0:s.v1], true
		}
	}
	return nil, false
}

// CaseVariant reports a member whose name differs from one of known only
// in letter case: that name and the one it imitates.
func (x *Index) CaseVariant(known []string) (got, want string, found bool) {
	if x.rescan {
		it := NewIter(x.obj)
		for {
			k, _, ok := it.Next()
			if !ok {
				return "", "", false
			}
			if v := caseVariant(k, known); v != "" {
				return string(k), v, true
			}
		}
	}
	for _, s := range x.spans[:x.n] {
		if v := caseVariant(x.obj[s.k0:s.k1], known); v != "" {
			return string(x.obj[s.k0:s.k1]), v, true
		}
	}
	return "", "", false
}

// Done reports whether the index holds its object's members (Build, or
// ParseIndexed found the object).
func (x *Index) Done() bool { return x.done }
