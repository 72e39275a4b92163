package mcp

import "strconv"

// Code is a JSON-RPC error code. Every error the endpoint sends carries one.
type Code int32

// The codes this library emits. Codes from -32020 to -32099 are reserved by
// MCP and used only with their defined meaning; of -32000 to -32019 only the
// handshake revisions' -32001 (session not found) and -32002 (resource not
// found) are used. Codes for HTTP-level refusals sit outside the reserved range.
const (
	CodeParseError     Code = -32700
	CodeInvalidRequest Code = -32600
	CodeMethodNotFound Code = -32601
	CodeInvalidParams  Code = -32602
	CodeInternal       Code = -32603

	// 2026-07-28.
	CodeHeaderMismatch                    Code = -32020
	CodeMissingRequiredClientCapabilities Code = -32021
	CodeUnsupportedProtocolVersion        Code = -32022
)

// The codes only the endpoint sends: the handshake revisions' unknown
// resource (2026-07-28 forbids it and uses CodeInvalidParams), and the
// HTTP-level refusals (authentication, limits), outside the reserved range.
const (
	codeResourceNotFound Code = -32002
	codeUnauthorized     Code = -31401
	codeForbidden        Code = -31403
	codeRateLimited      Code = -31429
	codeUnavailable      Code = -31503
)

// name is the code's stable key, for logs.
func (c Code) name() string {
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
	case codeResourceNotFound:
		return "resource_not_found"
	case CodeHeaderMismatch:
		return "header_mismatch"
	case CodeMissingRequiredClientCapabilities:
		return "missing_required_client_capabilities"
	case CodeUnsupportedProtocolVersion:
		return "unsupported_protocol_version"
	case codeUnauthorized:
		return "unauthorized"
	case codeForbidden:
		return "forbidden"
	case codeRateLimited:
		return "rate_limited"
	case codeUnavailable:
		return "unavailable"
	}
	return "code_" + strconv.Itoa(int(c))
}
