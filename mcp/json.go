package mcp

import "github.com/mcpdual/mcpdual/internal/jsonrpc"

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

func isObject(v []byte) bool { return len(v) > 0 && v[0] == '{' }
