package httpsyntax

import "testing"

func TestCutUnquoted(t *testing.T) {
	for _, c := range []struct {
		s             string
		sep           byte
		before, after string
	}{
		{"a;b;c", ';', "a", "b;c"},
		{"no separator", ';', "no separator", ""},
		{"", ',', "", ""},
		{`ext="a,b";q=0`, ',', `ext="a,b";q=0`, ""},
		{`ext="a;b";q=0`, ';', `ext="a;b"`, "q=0"},
		{`x="a\";b";y`, ';', `x="a\";b"`, "y"}, // an escaped quote stays inside
		{`x="a\\";b`, ';', `x="a\\"`, "b"},     // an escaped backslash does not escape the quote
		{`x="unterminated;b`, ';', `x="unterminated;b`, ""},
		{`;lead`, ';', "", "lead"},
	} {
		before, after := CutUnquoted(c.s, c.sep)
		if before != c.before || after != c.after {
			t.Errorf("CutUnquoted(%q, %q) = %q, %q; want %q, %q", c.s, c.sep, before, after, c.before, c.after)
		}
	}
}

func TestCutUnquoted_Allocations(t *testing.T) {
	s := `text/event-stream;ext="a,b";q=0, application/json`
	var before, after string
	if n := testing.AllocsPerRun(100, func() { before, after = CutUnquoted(s, ',') }); n != 0 {
		t.Errorf("%v allocations; want none", n)
	}
	if before != `text/event-stream;ext="a,b";q=0` || after != " application/json" {
		t.Errorf("cut %q, %q", before, after)
	}
}
