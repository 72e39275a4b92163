package openapi

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestDefaultQuestion_Characters (review item 8): the question is
// budgeted in characters, as the library bounds it (500), not in bytes;
// a path parameter whose quoted value does not fit is shortened, its
// start and end shown and the cut counted, never dropped; and whatever
// is left out, the question stays within the bound.
func TestDefaultQuestion_Characters(t *testing.T) {
	op := Operation{Method: "DELETE", Path: "/repos/{owner}/{repo}"}
	zw := strings.Repeat("\u200b", 60) + "end" // 60 escapes of 8 characters each
	cjk := strings.Repeat("倉", 70)             // 70 characters, 210 bytes
	for _, tc := range []struct {
		name       string
		ids, keys  []string
		args       map[string]any
		want, miss []string
	}{
		{"a path value of escapes is shortened, not dropped", []string{"owner", "repo"}, nil,
			map[string]any{"owner": "octo", "repo": zw},
			[]string{`owner "octo"`, `repo "\u{200B}\u{200B}`, `…`, `\u{200B}end" (`, " characters not shown)"}, []string{"more arguments"}},
		{"two long path values in another script both fit", []string{"owner", "repo"}, nil,
			map[string]any{"owner": cjk, "repo": cjk},
			[]string{`owner "` + cjk + `"`, `repo "` + cjk + `"`}, []string{"not shown"}},
		{"two path values of escapes: the second gets the room left", []string{"owner", "repo"}, nil,
			map[string]any{"owner": zw, "repo": zw},
			[]string{`owner "\u{200B}`, `repo "\u{200B}`}, []string{"more arguments"}},
		{"key arguments that do not fit are counted", []string{"owner"}, []string{"a", "b", "c"},
			map[string]any{"owner": zw, "a": strings.Repeat("\u200b", 40), "b": "x", "c": "y"},
			[]string{`owner "\u{200B}`, " and 3 more arguments, not shown"}, nil},
		{"short values are quoted whole", []string{"owner", "repo"}, []string{"force"},
			map[string]any{"owner": "octo", "repo": "hello", "force": true},
			[]string{`for owner "octo", repo "hello", force "true": this changes`}, []string{"not shown"}},
	} {
		q := defaultQuestion(op, strings.Repeat("T", 60), tc.ids, tc.keys, tc.args)
		if n := utf8.RuneCountInString(q); n > 500 {
			t.Errorf("%s: %d characters, over the library's 500: %s", tc.name, n, q)
		}
		for _, w := range tc.want {
			if !strings.Contains(q, w) {
				t.Errorf("%s: no %q in %s", tc.name, w, q)
			}
		}
		for _, m := range tc.miss {
			if strings.Contains(q, m) {
				t.Errorf("%s: %q in %s", tc.name, m, q)
			}
		}
	}
}

// TestDefaultQuestion_Edges: the question's own bounds at their edges. A
// required body argument of 40 characters (counted in characters, not
// bytes) is quoted, one of 41 is not an argument the question names; the
// first three such arguments are quoted, a fourth is not; a path of 120
// characters is shown, one of 121 is not.
func TestDefaultQuestion_Edges(t *testing.T) {
	op := Operation{Method: "DELETE", Path: "/items/{id}"}
	ask := func(op Operation, keys []string, args map[string]any) string {
		t.Helper()
		q := defaultQuestion(op, "Delete", []string{"id"}, keys, args)
		if n := utf8.RuneCountInString(q); n > 500 {
			t.Fatalf("%d characters, over the library's 500: %s", n, q)
		}
		return q
	}
	at, past := strings.Repeat("倉", 40), strings.Repeat("倉", 41) // 120 and 123 bytes
	q := ask(op, []string{"a", "b"}, map[string]any{"id": "7", "a": at, "b": past})
	if !strings.Contains(q, `for id "7", a "`+at+`": this changes`) || strings.Contains(q, past) || strings.Contains(q, "not shown") {
		t.Errorf("arguments of 40 and 41 characters: %s", q)
	}
	q = ask(op, []string{"a", "b", "c", "d"}, map[string]any{"id": "7", "a": "1", "b": "2", "c": "3", "d": "4"})
	if !strings.Contains(q, `for id "7", a "1", b "2", c "3": this changes`) {
		t.Errorf("four short arguments: %s", q)
	}
	for n, shown := range map[int]bool{120: true, 121: false} {
		long := Operation{Method: "DELETE", Path: "/" + strings.Repeat("p", n-len("/{id}")-1) + "/{id}"}
		if len(long.Path) != n {
			t.Fatalf("a path of %d characters written as %d", n, len(long.Path))
		}
		q := ask(long, nil, map[string]any{"id": "7"})
		if strings.Contains(q, "(DELETE "+long.Path+")") != shown || !strings.HasPrefix(q, `Confirm "Delete"`) {
			t.Errorf("a path of %d characters, shown %v: %s", n, shown, q)
		}
	}
}
