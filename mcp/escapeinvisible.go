package mcp

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A confirmation question must read the same to a person as to the
// program that acts on the answer. Removing what cannot be seen would not
// do: "at\u200btacker" would read "attacker" and be something else. So
// everything a person could misread is shown as an escape, \u{XXXX}
// (upper-case hex, four digits at least), which no plain text produces by
// accident: a backslash in a quoted value is itself escaped.
//
// Escaped everywhere in a question:
//   - control characters other than line breaks and tabs (which become
//     spaces in the host's own text, and are escaped in a quoted value,
//     where "prod\ndb" shown as "prod db" would be another value), and
//     invalid UTF-8 (as \u{FFFD});
//   - every Default_Ignorable_Code_Point: the format characters below,
//     variation selectors (U+FE00-FE0F, U+E0100-E01EF, the Mongolian
//     ones), which Unicode files as combining marks but which show nothing
//     of their own;
//   - format characters (Cf: bidi controls, zero-width characters, the
//     soft hyphen, Unicode tag characters, interlinear annotation marks),
//     line and paragraph separators, every space but U+0020;
//   - fillers and blanks that are letters or symbols but show nothing
//     (fillerRunes: Hangul fillers, the braille blank, the combining
//     grapheme joiner, Khmer inherent vowels);
//   - private-use, unassigned and noncharacter code points;
//   - every combining mark after the second on one base character
//     (stacked marks can cover the text around them), and every mark
//     with no shown base before it: at the start (of a quoted value, it
//     would sit on the opening quote) or after an escape.
//
// Escaped in a quoted value (Quote) as well: the double quote and the
// backslash, and every quotation-mark look-alike (quoteRunes: fullwidth,
// curly, low-9 and reversed quotes, primes, guillemets, ornaments), so a
// value can never seem to end its quotes early. Two apostrophes or grave
// accents side by side ('' or ``), or two of their look-alikes (tick),
// read as a double quote in many fonts: each character of such a run is
// escaped, and a lone one ("c'd") is shown.

// fillerRunes show nothing, though Unicode files them as letters, symbols
// or marks.
var fillerRunes = map[rune]bool{
	0x034F:  true, // combining grapheme joiner
	0x115F:  true, // Hangul choseong filler
	0x1160:  true, // Hangul jungseong filler
	0x17B4:  true, // Khmer vowel inherent aq
	0x17B5:  true, // Khmer vowel inherent aa
	0x2800:  true, // braille pattern blank
	0x3164:  true, // Hangul filler
	0xFFA0:  true, // halfwidth Hangul filler
	0x1D159: true, // musical symbol null notehead
}

// quoteRunes look like quotation marks.
var quoteRunes = map[rune]bool{
	'"': true, '\\': true,
	0x00AB: true, 0x00BB: true, // guillemets
	0x02BA: true, 0x02DD: true, 0x02EE: true, // modifier double prime, double acute, modifier double apostrophe
	0x05F3: true, 0x05F4: true, // Hebrew geresh, gershayim
	0x2018: true, 0x2019: true, 0x201A: true, 0x201B: true, // single curly, low-9, reversed
	0x201C: true, 0x201D: true, 0x201E: true, 0x201F: true, // double curly, low-9, reversed
	0x2032: true, 0x2033: true, 0x2034: true, 0x2035: true, 0x2036: true, 0x2037: true, 0x2057: true, // primes
	0x2039: true, 0x203A: true, // single guillemets
	0x275B: true, 0x275C: true, 0x275D: true, 0x275E: true, 0x275F: true, 0x2760: true, // ornaments
	0x2E42: true,                             // double low-reversed-9
	0x3003: true,                             // ditto mark
	0x301D: true, 0x301E: true, 0x301F: true, // CJK double prime quotes
	0xFF02: true, 0xFF07: true, // fullwidth quotation mark, apostrophe
	0x1F676: true, 0x1F677: true, 0x1F678: true, // sans-serif heavy quotation ornaments
}

// misread reports whether r must be shown escaped (see above); quoted adds
// the rules of a quoted value.
func misread(r rune, quoted bool) bool {
	switch {
	case r < utf8.RuneSelf:
		return (r < 0x20 || r == 0x7F) || (quoted && (r == '"' || r == '\\'))
	case fillerRunes[r], quoted && quoteRunes[r]:
		return true
	case r&0xFFFE == 0xFFFE || (r >= 0xFDD0 && r <= 0xFDEF): // noncharacters
		return true
	}
	if unicode.In(r, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point) {
		return true // Default_Ignorable_Code_Point, with Cf below
	}
	return !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S) && r != ' '
}

// tick reports whether r is an apostrophe or a grave accent, or one of
// their look-alikes (acute accent, modifier apostrophe, turned comma,
// prime, grave and vertical line, saltillo, the Greek numeral sign): two
// side by side read as a double quote, as two modifier primes read as the
// modifier double prime quoteRunes escapes. One alone is shown: several
// are letters of ordinary words (Hawaiʻi, Ukrainian's apostrophe).
func tick(r rune) bool {
	switch r {
	case '\'', '`', 0x00B4, 0x02B9, 0x02BB, 0x02BC, 0x02C8, 0x02CA, 0x02CB, 0x0374, 0xA78C:
		return true
	}
	return false
}

// escape is how a misread character is shown.
func escape(r rune) string {
	h := strconv.FormatInt(int64(r), 16)
	if len(h) < 4 {
		h = strings.Repeat("0", 4-len(h)) + h
	}
	return `\u{` + strings.ToUpper(h) + `}`
}

// visible calls f with each unit a person reads in s, in order: a
// character as it is (a slice of s), or the escape of one that could be
// misread. Outside quotes, line breaks and tabs are a space. f returns
// false to stop.
func visible(s string, quoted bool, f func(unit string) bool) {
	marks := 0
	base := false     // the last unit shown is a character a mark can sit on
	prevTick := false // the previous character was an apostrophe or grave accent
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		unit := s[i : i+size]
		mark := unicode.Is(unicode.M, r)
		if mark {
			marks++
		} else {
			marks = 0
		}
		nextTick := false
		if quoted && tick(r) && i+size < len(s) {
			next, _ := utf8.DecodeRuneInString(s[i+size:])
			nextTick = tick(next)
		}
		switch {
		case r == utf8.RuneError && size == 1:
			unit = escape(utf8.RuneError)
		case !quoted && (r == '\n' || r == '\r' || r == '\t'):
			unit = " "
		case misread(r, quoted) || marks > 2 || (mark && !base):
			unit = escape(r)
		case quoted && tick(r) && (prevTick || nextTick):
			unit = escape(r)
		}
		prevTick = tick(r)
		if !mark {
			base = len(unit) == size || unit == " "
		}
		i += size
		if !f(unit) {
			return
		}
	}
}

// unitLen is how many characters a person reads in a unit.
func unitLen(unit string) int {
	if len(unit) > 1 && unit[0] == '\\' {
		return len(unit)
	}
	return 1
}
