package jsonrpc

import "bytes"

// IsCompact reports whether a valid JSON text has no whitespace outside
// its strings, which is what json.Compact would remove. Generated
// documents (mcp/openapi's schemas, a function tool's) are compact
// already, and json.Compact over them, a scan and a copy, was an eighth
// of registering GitHub's OpenAPI document. A string's body is skipped
// with bytes.IndexByte: most of a schema's bytes are its descriptions.
func IsCompact(doc []byte) bool {
	for i := 0; i < len(doc); i++ {
		switch doc[i] {
		case ' ', '\t', '\n', '\r':
			return false
		case '"':
			for {
				j := bytes.IndexByte(doc[i+1:], '"')
				if j < 0 {
					return true // not valid JSON: not this function's question
				}
				i += 1 + j
				// The quote ends the string unless an odd run of
				// backslashes escapes it (the opening quote stops the run).
				k := i - 1
				for doc[k] == '\\' {
					k--
				}
				if (i-1-k)%2 == 0 {
					break
				}
			}
		}
	}
	return true
}
