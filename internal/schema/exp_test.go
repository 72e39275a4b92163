package schema

import (
	"runtime"
	"strings"
	"testing"
)

func measure(f func()) (uint64, uint64) {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc, b.Mallocs - a.Mallocs
}

func TestExpCost(t *testing.T) {
	s, err := Compile([]byte(`{"type":"object","properties":{"senders":{"type":"array","items":{"type":"string"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	body := `{"senders":[` + strings.Repeat("1,", 400000) + `1]}`
	var v any
	by, n := measure(func() { v, _ = Decode([]byte(body)) })
	t.Logf("decode: %d MB %d allocs (body %d KB)", by>>20, n, len(body)>>10)
	var out []string
	by, n = measure(func() { out = s.Validate(v, 10) })
	t.Logf("validate: %d MB %d allocs; %v", by>>20, n, out[:2])
	good := `{"senders":[` + strings.Repeat(`"a",`, 200000) + `"a"]}`
	v, _ = Decode([]byte(good))
	by, n = measure(func() { out = s.Validate(v, 10) })
	t.Logf("validate valid: %d MB %d allocs", by>>20, n)
}
