package httpsyntax

// CutUnquoted cuts s around its first sep outside a quoted-string, with
// no allocation: before and after share s. A quoted-string (RFC 9110
// §5.6.4) may hold the separators of the list or the parameters around
// it ("text/event-stream;ext=\"a,b\";q=0", a Forwarded element's
// for="[::1]:80;x"), which separate nothing there. A backslash inside one
// escapes the byte after it; an unterminated one runs to the end of s.
// Without sep outside quotes, before is s and after is "".
func CutUnquoted(s string, sep byte) (before, after string) {
	quoted := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quoted && c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case !quoted && c == sep:
			return s[:i], s[i+1:]
		}
	}
	return s, ""
}
