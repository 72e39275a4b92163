package mcp

import "strconv"

// Code is a JSON-RPC error code. Every error the endpoint sends carries one.
type Code int32

// The codes this library emits. Codes from -32020 to -32099 are reserved by
// MCP and used only with their defined meaning; -32000 to -32019 are never
// used. Codes for HTTP-level refusals sit outside the reserved range.
const (
	CodeParseError     Code = -32700
	CodeInvalidRequest Code = -32600
	CodeMethodNotFound Code = -32601
	CodeInvalidParams  Code = -32602
	CodeInternal       Code = -32603

	// CodeResourceNotFound is the 2025 eras' code for an unknown resource;
	// revision 2026-07-28 forbids it and uses CodeInvalidParams instead.
	CodeResourceNotFound Code = -32002

	// 2026-07-28.
	CodeHeaderMismatch                    Code = -32020
	CodeMissingRequiredClientCapabilities Code = -32021
	CodeUnsupportedProtocolVersion        Code = -32022

	// HTTP-level refusals (origin, host, media type, authentication, limits).
	CodeUnauthorized Code = -31401
	CodeForbidden    Code = -31403
	CodeRateLimited  Code = -31429
	CodeUnavailable  Code = -31503
)

func (c Code) String() string {
	switch c {
	case CodeParseError:
		return "parse_error"
	case CodeInvalidRequest:
		return "invalid_request"
	case CodeMethodNotFound:
		return "method_not_found"
	case CodeInvalidParams:
		return "invalid_params"
	case CodeInternal:
		return "internal"
	case CodeResourceNotFound:
		return "resource_not_found"
	case CodeHeaderMismatch:
		return "header_mismatch"
	case CodeMissingRequiredClientCapabilities:
		return "missing_required_client_capabilities"
	case CodeUnsupportedProtocolVersion:
		return "unsupported_protocol_version"
	case CodeUnauthorized:
		return "unauthorized"
	case CodeForbidden:
		return "forbidden"
	case CodeRateLimited:
		return "rate_limited"
	case CodeUnavailable:
		return "unavailable"
	}
	return "code_" + strconv.Itoa(int(c))
}
