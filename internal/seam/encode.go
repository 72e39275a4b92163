package seam

import (
	"strconv"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
)

// AppendMembers appends the stamp's members (those that are set), in the
// order every result sends them, and reports whether it wrote any, so
// the caller knows whether its next member needs a comma.
func (s *Stamp) AppendMembers(dst []byte) ([]byte, bool) {
	n := len(dst)
	if s.ResultType != "" {
		dst = append(dst, `"resultType":`...)
		dst = jsonrpc.AppendString(dst, s.ResultType)
	}
	if s.CacheScope != "" {
		dst = Comma(dst, len(dst) > n)
		dst = append(dst, `"ttlMs":`...)
		dst = strconv.AppendInt(dst, s.TTLMs, 10)
	}
	if s.CacheScope != "" {
		dst = Comma(dst, len(dst) > n)
		dst = append(dst, `"cacheScope":`...)
		dst = jsonrpc.AppendString(dst, s.CacheScope)
	}
	if s.Meta != nil {
		dst = Comma(dst, len(dst) > n)
		dst = append(dst, `"_meta":`...)
		dst = append(dst, s.Meta...)
	}
	return dst, len(dst) > n
}

// Comma appends a comma when one is due.
func Comma(dst []byte, due bool) []byte {
	if due {
		return append(dst, ',')
	}
	return dst
}

// AppendString appends s as a JSON string.
func AppendString(dst []byte, s string) []byte { return jsonrpc.AppendString(dst, s) }
