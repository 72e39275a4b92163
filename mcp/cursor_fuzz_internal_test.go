package mcp

import (
	"encoding/base64"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/mcp/auth"
)

// FuzzParseCursor: a list cursor is a client's bytes. Whatever it holds,
// parseCursor never panics, accepts only an offset inside the list, and
// accepts exactly the one spelling the server mints for that offset: a
// cursor of another list, registry or spelling is refused.
func FuzzParseCursor(f *testing.F) {
	s := &Server{fingerprints: map[string]string{"tools": "0123456789ab", "prompts": "ba9876543210"}}
	for _, seed := range []string{
		s.cursor("tools", 1), s.cursor("prompts", 50), s.cursor("tools", 0),
		base64.RawURLEncoding.EncodeToString([]byte("tools|01|0123456789ab")),
		base64.RawURLEncoding.EncodeToString([]byte("tools|+1|0123456789ab")),
		base64.RawURLEncoding.EncodeToString([]byte("tools|1|0123456789ab|")),
		"", "x", "====",
	} {
		f.Add(seed, "tools", 100)
	}
	f.Fuzz(func(t *testing.T, c, kind string, n int) {
		off, ok := s.parseCursor(kind, c, n)
		if !ok {
			return
		}
		if off <= 0 || off >= n {
			t.Fatalf("cursor %q accepted with offset %d outside (0, %d)", c, off, n)
		}
		if want := s.cursor(kind, off); c != want {
			t.Fatalf("cursor %q accepted for offset %d; the server mints %q", c, off, want)
		}
		if _, err := strconv.Atoi(strconv.Itoa(off)); err != nil {
			t.Fatal(err)
		}
	})
}

// TestParseCursor_OneSpelling: the base64 decoder skips CR and LF even in
// strict mode, so a minted cursor with line breaks inserted was taken as
// the same cursor (found by FuzzParseCursor). mrtr.Open refuses them for
// the same reason; a cursor should too.
func TestParseCursor_OneSpelling(t *testing.T) {
	s := &Server{fingerprints: map[string]string{"tools": "0123456789ab", "prompts": "ba9876543210"}}
	c := s.cursor("tools", 1)
	for _, bad := range []string{c[:5] + "\n" + c[5:], c[:5] + "\r\n" + c[5:], "\n" + c, c + "\r"} {
		if off, ok := s.parseCursor("tools", bad, 100); ok {
			t.Errorf("cursor %q taken for offset %d; only %q is that cursor", bad, off, c)
		}
	}
}

// TestAnswerFor_OneSpelling: a question's id is taken only as minted,
// for the principal it was minted for; line breaks inserted (which strict
// base64 skips) make it no id of ours.
func TestAnswerFor_OneSpelling(t *testing.T) {
	alice, bob := &auth.Principal{Subject: "alice"}, &auth.Principal{Subject: "bob"}
	id := answerID(alice, "aud")
	if !answerFor(id, alice, "aud") || answerFor(id, bob, "aud") || answerFor(id, alice, "other") {
		t.Fatalf("answerFor(%q)", id)
	}
	i := len(answerIDPrefix) + 3
	for _, bad := range []string{id[:i] + "\n" + id[i:], id[:i] + "\r\n" + id[i:], id + "\n", strings.Replace(id, ".", ".\r", 1)} {
		if answerFor(bad, alice, "aud") {
			t.Errorf("%q taken for %q", bad, id)
		}
	}
}
