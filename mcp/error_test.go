package mcp

import (
	"net/http"
	"testing"
)

// TestErrorStatus pins the one place HTTP statuses are derived.
func TestErrorStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		err        *Error
		perRequest bool
		want       int
	}{
		{"in-band, 2025", NewError(CodeInvalidParams, "x"), false, 200},
		{"in-band, 2026", NewError(CodeInvalidParams, "x"), true, 200},
		{"internal, 2026", NewError(CodeInternal, "x"), true, 200},
		{"method not found, 2025", MethodNotFound("m"), false, 200},
		{"method not found, 2026", MethodNotFound("m"), true, 404},
		{"missing capability, 2026", NewError(CodeMissingRequiredClientCapabilities, "x"), true, 400},
		{"rejection", Reject(CodeInvalidParams, "x"), false, 400},
		{"rejected method", Reject(CodeMethodNotFound, "x"), false, 404},
		{"header mismatch", HeaderMismatch("Mcp-Name", "missing", "x"), true, 400},
		{"explicit status", httpError(http.StatusRequestEntityTooLarge, CodeInvalidRequest, "x"), true, 413},
	}
	for _, tt := range tests {
		if got := tt.err.httpStatus(tt.perRequest); got != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, got, tt.want)
		}
	}
	if got := MethodNotFound(string(make([]byte, 500))).data.(map[string]string)["method"]; len(got) != 128 {
		t.Errorf("method not truncated: %d bytes", len(got))
	}
}
