package mcp

import "strconv"

// boundArguments refuses arguments holding more than Limits.ArgumentValues
// values. The binding of a requestState covers the call's arguments, so a
// retry's digest reads all of them before the state is opened, before the
// method validates anything: without this bound a retry of ~1 MB holding
// hundreds of thousands of values cost what its digest cost, whether or
// not its state opened (design record 019). The body is bounded before it is even
// parsed (Limits.BodyBytes); this bounds what it may hold.
func (r *request) boundArguments(args []byte) error {
	max := r.handler.cfg.limits.ArgumentValues
	if max <= 0 || countValues(args, max) <= max {
		return nil
	}
	return NewError(CodeInvalidParams, "Invalid params: arguments hold more than "+strconv.Itoa(max)+" values; send fewer items per call").
		WithData(map[string]any{"reason": "too_many_values", "maxValues": max})
}

// countValues counts the JSON values in b (objects, arrays, strings,
// numbers and literals, not member names), as jsonrpc.Decode counts them,
// stopping once the count passes max. b is JSON the envelope scanner has
// already validated. A text holds one value, plus, for each container
// that is not empty, one more than the commas directly inside it; so the
// count is 1 + commas + containers - empty containers, and it only grows
// as the scan goes. It allocates nothing.
func countValues(b []byte, max int) int {
	n := 1
	for i := 0; i < len(b) && n <= max; i++ {
		switch b[i] {
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case ',':
			n++
		case '{', '[':
			j := i + 1
			for j < len(b) && (b[j] == ' ' || b[j] == '\t' || b[j] == '\n' || b[j] == '\r') {
				j++
			}
			if j < len(b) && b[j] != '}' && b[j] != ']' {
				n++
			}
		}
	}
	return n
}
