package bench

import (
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"syscall"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/openapi"
)

// OpenAPITimes is one side-by-side measurement of a document: what
// kin-openapi takes only to load it (parse and resolve its references),
// and what mcp/openapi takes to register every operation as a tool
// (parse, convert the schemas, make the tools). Wall and CPU time (the
// process's, every thread, so the collector's work counts).
type OpenAPITimes struct {
	KinWall, KinCPU           time.Duration
	RegisterWall, RegisterCPU time.Duration
	Paths, Tools              int
}

// MeasureOpenAPI loads spec with kin-openapi and registers it with
// mcp/openapi, one after the other in this process, each after a full
// collection so neither pays for the other's garbage. kin-openapi is a
// dependency of this module only: mcp/openapi's go.mod never lists it.
func MeasureOpenAPI(spec []byte) (OpenAPITimes, error) {
	var t OpenAPITimes
	runtime.GC()
	w0, c0 := time.Now(), processCPU()
	doc, err := openapi3.NewLoader().LoadFromData(spec)
	t.KinWall, t.KinCPU = time.Since(w0), processCPU()-c0
	if err != nil {
		return t, fmt.Errorf("kin-openapi: %w", err)
	}
	if doc.Paths != nil {
		t.Paths = doc.Paths.Len()
	}
	doc = nil
	runtime.GC()
	srv := mcp.NewServer(mcp.Implementation{Name: "bench-openapi", Version: "1"})
	w0, c0 = time.Now(), processCPU()
	report, err := openapi.Register(srv, spec, http.NotFoundHandler())
	t.RegisterWall, t.RegisterCPU = time.Since(w0), processCPU()-c0
	if err != nil {
		return t, err
	}
	t.Tools = len(report.Tools)
	if t.Paths == 0 || t.Tools == 0 {
		return t, errors.New("the document has no operations")
	}
	return t, nil
}

func processCPU() time.Duration {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
