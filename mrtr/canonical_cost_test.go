//go:build !race

package mrtr

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// costDocuments are ~1 MB argument documents of the shapes a retry can
// carry: many small values with one escape (design record 019: the escape sent the
// whole document through encoding/json at 52–62 times its size), and
// members out of order whose names and values are full of escapes.
func costDocuments() map[string][]byte {
	docs := map[string][]byte{}
	var b strings.Builder
	b.WriteString(`{"v":[`)
	for i := range 480_000 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('0')
	}
	b.WriteString(`],"s":"\u0041"}`)
	docs["values with one escape"] = []byte(b.String())

	b.Reset()
	b.WriteByte('{')
	for i := 30_000; i > 0; i-- {
		if i < 30_000 {
			b.WriteByte(',')
		}
		b.WriteString(`"\u006b` + strconv.Itoa(i) + `\n":"\u00e9\ud83d\ude00\/\u2028` + strconv.Itoa(i) + `"`)
	}
	b.WriteByte('}')
	docs["escaped members out of order"] = []byte(b.String())

	b.Reset()
	b.WriteString(`{"o":[`)
	for i := range 60_000 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"z":"\t","y":1,"x":[true]}`)
	}
	b.WriteString(`]}`)
	docs["many small objects"] = []byte(b.String())
	return docs
}

// allocated is the bytes f allocates.
func allocated(f func()) uint64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestCanonical_AllocationsLarge: canonicalizing, and digesting, a large document with
// escapes allocates a small multiple of its size, whatever it holds.
func TestCanonical_AllocationsLarge(t *testing.T) {
	for name, doc := range costDocuments() {
		t.Run(name, func(t *testing.T) {
			if _, ok := appendFast(nil, doc); !ok {
				t.Fatal("the single pass refused the document")
			}
			var out []byte
			n := allocated(func() { out, _ = Canonical(doc) })
			ratio := float64(n) / float64(len(doc))
			t.Logf("%d bytes in, %d out, %d allocated (%.2f× the input)", len(doc), len(out), n, ratio)
			if ratio > 3 {
				t.Errorf("Canonical allocated %.2f× the input, want at most 3×", ratio)
			}
			b := Binding{Principal: "alice", Method: "tools/call", Target: "t", Arguments: doc}
			n = allocated(func() { b.digest() })
			if ratio := float64(n) / float64(len(doc)); ratio > 3 {
				t.Errorf("digest allocated %.2f× the input, want at most 3×", ratio)
			}
		})
	}
}
