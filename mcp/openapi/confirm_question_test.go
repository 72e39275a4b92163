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
