package mcp_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/mcp"
)

// TestQuote: a quoted value reads the same to a person as to the program:
// every character that could be misread is shown as an escape, one corpus
// per class, and nothing long is cut without saying so.
func TestQuote(t *testing.T) {
	t.Parallel()
	corpus := []struct {
		class string
		chars []string
	}{
		{"quotation-mark look-alikes", []string{"\"", "\uff02", "\uff07", "\u201c", "\u201d", "\u201e", "\u201f", "\u2018", "\u2019", "\u201a", "\u201b",
			"\u2032", "\u2033", "\u2034", "\u2035", "\u2036", "\u2037", "\u2057", "\u00ab", "\u00bb", "\u2039", "\u203a",
			"\u02ba", "\u02dd", "\u02ee", "\u05f3", "\u05f4", "\u275d", "\u275e", "\u2e42", "\u3003", "\u301d", "\u301e", "\u301f", "\U0001F676"}},
		{"the escape character", []string{"\\"}},
		{"fillers", []string{"\u3164", "\u115f", "\u1160", "\uffa0", "\u2800", "\u034f", "\u17b4", "\u17b5", "\U0001D159", "\U0001D173"}},
		{"zero-width and format characters (Cf)", []string{"\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u180e", "\u2061", "\u2062", "\u2063", "\u2064",
			"\U000E0041", "\U000E0061", "\U000E007F", "\ufff9", "\ufffa", "\ufffb", "\U0001D173"}},
		{"bidi controls", []string{"\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069", "\u061c", "\u200e", "\u200f"}},
		{"other spaces", []string{"\u00a0", "\u1680", "\u2000", "\u2001", "\u2002", "\u2003", "\u2007", "\u2009", "\u200a", "\u202f", "\u205f", "\u3000"}},
		{"line and paragraph separators", []string{"\u2028", "\u2029"}},
		{"controls", []string{"\x00", "\x1b", "\x7f", "\u0085", "\u009b"}},
		// Design record 019, visible text: every Default_Ignorable_Code_Point, variation
		// selectors (which Unicode files as marks) included.
		{"variation selectors", []string{"\ufe00", "\ufe0e", "\ufe0f", "\U000E0100", "\U000E01EF", "\u180b", "\u180c", "\u180d", "\u180f"}},
		{"other default-ignorables", []string{"\u2065", "\ufff0", "\ufff8", "\U000E0000", "\U000E0080", "\U000E01F0", "\U000E0FFF"}},
		// Design record 019, visible text: in a quoted value a line break or tab is not a space.
		{"line breaks and tabs", []string{"\n", "\r", "\t", "\v", "\f"}},
		{"private use, unassigned, noncharacters", []string{"\ue000", "\U000F0000", "\U0010FFFD", "\u0378", "\ufffe", "\uffff", "\ufdd0", "\U0001FFFE"}},
	}
	for _, class := range corpus {
		for _, c := range class.chars {
			r := []rune(c)[0]
			want := `"at\u{` + fmt.Sprintf("%04X", r) + `}tacker@evil.test"`
			if got := mcp.Quote("at" + c + "tacker@evil.test"); got != want {
				t.Errorf("%s: %+q: %s, want %s", class.class, c, got, want)
			}
		}
	}
	if got := mcp.Quote("at\xfftacker"); got != `"at\u{FFFD}tacker"` {
		t.Errorf("invalid UTF-8: %s", got)
	}
	// Two combining marks on one character are shown; more are escaped,
	// and the next base character starts again.
	if got := mcp.Quote("e\u0301\u0302\u0303\u0304x\u0301\u0302"); got != `"e`+"\u0301\u0302"+`\u{0303}\u{0304}x`+"\u0301\u0302"+`"` {
		t.Errorf("stacked marks: %s", got)
	}
	// What a person reads needs no escape.
	for _, v := range []string{"a b c'd é 日本 ✓", "Ünïcödé — ok", "José Müller", "naïve café", "ק ש", "مرحبا", "e\u0301", "x\u0301\u0302"} {
		if got := mcp.Quote(v); got != `"`+v+`"` {
			t.Errorf("visible text changed: %s", got)
		}
	}
	for _, tc := range []struct{ in, want string }{
		// "prod\ndb" shown as "prod db" would read as another value.
		{"prod\r\ndb", `"prod\u{000D}\u{000A}db"`},
		// A mark with no base before it would sit on the opening quote,
		// or on the closing brace of an escape.
		{"\u0301x", `"\u{0301}x"`},
		{"\u0338\u0301x", `"\u{0338}\u{0301}x"`},
		{"a\u200b\u0338b", `"a\u{200B}\u{0338}b"`},
		{"x\u0301\u0302", "\"x\u0301\u0302\""},
		// Two apostrophes or grave accents read as a double quote; one
		// does not.
		{"it''s", `"it\u{0027}\u{0027}s"`},
		{"a'''b", `"a\u{0027}\u{0027}\u{0027}b"`},
		{"``x'`", `"\u{0060}\u{0060}x\u{0027}\u{0060}"`},
		// So do two of an apostrophe's or a prime's look-alikes: two
		// modifier primes are the double prime escaped above.
		{"dbʹʹ, target: ʼʼprod", `"db\u{02B9}\u{02B9}, target: \u{02BC}\u{02BC}prod"`},
		{"a´´bʻʻcˈˈdꞌꞌeʹʹf'ʼg", `"a\u{00B4}\u{00B4}b\u{02BB}\u{02BB}c\u{02C8}\u{02C8}d\u{A78C}\u{A78C}e\u{0374}\u{0374}f\u{0027}\u{02BC}g"`},
		{"Hawaiʻi, maʼam", "\"Hawai\u02bbi, ma\u02bcam\""},
		{"'x'", `"'x'"`},
		{"O'Brien's", `"O'Brien's"`},
	} {
		if got := mcp.Quote(tc.in); got != tc.want {
			t.Errorf("%+q: %s, want %s", tc.in, got, tc.want)
		}
	}
	long := strings.Repeat("a", 100) + "@attacker.example"
	got := mcp.Quote(long)
	if !strings.HasSuffix(got, `@attacker.example" (45 characters not shown)`) || !strings.HasPrefix(got, `"aaaa`) {
		t.Errorf("long value: %q", got)
	}
	if got := mcp.Quote(strings.Repeat("b", 80)); got != `"`+strings.Repeat("b", 80)+`"` {
		t.Errorf("80 characters are shown whole: %q", got)
	}
	if got, want := mcp.Quote(strings.Repeat("b", 80)+"c"), `"`+strings.Repeat("b", 48)+"…"+strings.Repeat("b", 23)+`c" (9 characters not shown)`; got != want {
		t.Errorf("81 characters: %q, want their first 48 and last 24", got)
	}
	// A long value of escapes is cut between escapes, never inside one.
	got = mcp.Quote(strings.Repeat("\u3164", 100))
	if want := `"` + strings.Repeat(`\u{3164}`, 48) + "…" + strings.Repeat(`\u{3164}`, 24) + `" (28 characters not shown)`; got != want {
		t.Errorf("long run of fillers: %s", got)
	}
}

func TestQuoteList(t *testing.T) {
	t.Parallel()
	senders := []string{"a@x.test", "b@x.test", "c@x.test", "d@x.test", "attacker@evil.test"}
	if got := mcp.QuoteList(senders, 10); got != `"a@x.test", "b@x.test", "c@x.test", "d@x.test", "attacker@evil.test"` {
		t.Errorf("all: %q", got)
	}
	if got := mcp.QuoteList(senders, 3); got != `"a@x.test", "b@x.test", "c@x.test" and 2 more, not shown` {
		t.Errorf("cut: %q", got)
	}
	if got := mcp.QuoteList(nil, 3); got != "" {
		t.Errorf("empty: %q", got)
	}
}

// TestQuoteList_MaxBelowOneShowsOnlyTheCount: "at most max" values is none
// for a max of 0 or less, and the count then reads on its own (no " and"
// after nothing); a negative max is not taken as no bound.
func TestQuoteList_MaxBelowOneShowsOnlyTheCount(t *testing.T) {
	t.Parallel()
	senders := []string{"a@x.test", "b@x.test", "attacker@evil.test"}
	for _, max := range []int{0, -1} {
		if got := mcp.QuoteList(senders, max); got != "3 values, not shown" {
			t.Errorf("max %d: %q", max, got)
		}
		if got := mcp.QuoteList(senders[:1], max); got != "1 value, not shown" {
			t.Errorf("max %d, one value: %q", max, got)
		}
		if got := mcp.QuoteList(nil, max); got != "" {
			t.Errorf("max %d, no value: %q", max, got)
		}
	}
}
