package bench

import (
	"os"
	"testing"
)

// TestMeasureOpenAPI: both sides of the side-by-side measurement read a
// real document (one of mcp/openapi's test documents) and report what
// they made; a document without operations is an error, not a ratio.
func TestMeasureOpenAPI(t *testing.T) {
	spec, err := os.ReadFile("../../mcp/openapi/testdata/thirdparty-3.0.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m, err := MeasureOpenAPI(spec)
	if err != nil {
		t.Fatal(err)
	}
	if m.Paths == 0 || m.Tools == 0 || m.KinWall <= 0 || m.RegisterWall <= 0 {
		t.Errorf("nothing measured: %+v", m)
	}
	if _, err := MeasureOpenAPI([]byte(`{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{}}`)); err == nil {
		t.Error("a document without operations measured without error")
	}
}
