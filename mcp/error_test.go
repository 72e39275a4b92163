package mcp

import (
	"errors"
	"net/http"
	"testing"

	"github.com/mcpdual/mcpdual/internal/seam"
)

// TestErrorStatus pins the one place HTTP statuses are derived: an
// explicit status wins, an in-band error takes its era's rule, and without
// a rule it is 200. Each era's rule is pinned in its own package.
func TestErrorStatus(t *testing.T) {
	t.Parallel()
	handshake := map[int]int{}
	perRequest := map[int]int{int(CodeMethodNotFound): http.StatusNotFound}
	tests := []struct {
		name string
		err  *Error
		era  map[int]int
		want int
	}{
		{"in-band, before an era", NewError(CodeInvalidParams, "x"), nil, 200},
		{"in-band, handshake era", NewError(CodeInvalidParams, "x"), handshake, 200},
		{"method not found, handshake era", methodNotFound("m"), handshake, 200},
		{"method not found, per-request era", methodNotFound("m"), perRequest, 404},
		{"rejection", reject(CodeInvalidParams, "x"), perRequest, 400},
		{"rejected method", reject(CodeMethodNotFound, "x"), handshake, 404},
		{"header mismatch", mismatch("Mcp-Name", "missing", "x"), handshake, 400},
		{"explicit status", httpError(http.StatusRequestEntityTooLarge, CodeInvalidRequest, "x"), perRequest, 413},
	}
	for _, tt := range tests {
		if got := tt.err.httpStatus(tt.era); got != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, got, tt.want)
		}
	}
	if got := methodNotFound(string(make([]byte, 500))).data.(map[string]string)["method"]; len(got) != 128 {
		t.Errorf("method not truncated: %d bytes", len(got))
	}
}

// TestAsError: an era's failure keeps its code, message, data and status;
// anything else becomes the generic internal error.
func TestAsError(t *testing.T) {
	t.Parallel()
	e, ok := asError(&seam.Failure{Code: -32020, Message: "m", Data: 1, Status: 400})
	if !ok || e.code != -32020 || e.message != "m" || e.data != 1 || e.status != 400 {
		t.Errorf("failure: %+v %v", e, ok)
	}
	e, ok = asError(errors.New("db password=secret"))
	if ok || e.code != CodeInternal || e.message != "Internal error" {
		t.Errorf("other error: %+v %v", e, ok)
	}
}
