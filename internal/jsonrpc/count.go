package jsonrpc

// CountValues counts the JSON values in b (objects, arrays, strings,
// numbers and literals, not member names), as Decode counts them,
// stopping once the count passes max. b is JSON the envelope scanner has
// already validated. A text holds one value, plus, for each container
// that is not empty, one more than the commas directly inside it; so the
// count is 1 + commas + containers - empty containers, and it only grows
// as the scan goes. It allocates nothing.
func CountValues(b []byte, max int) int {
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
