package mcp

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/mcp/auth"
)

// FuzzAnswerFor: a question's id comes back in the body of a 2025
// client's POST, so any bytes reach answerFor. An id is taken only in the
// one spelling answerID mints (prefix, 16 random bytes and a 12-byte tag,
// each in unpadded base64url, so decoding and encoding again gives the id
// back), only with the tag its random part has for that caller and
// audience, and never for another caller; and an id just minted for the
// caller is always taken.
func FuzzAnswerFor(f *testing.F) {
	alice := &auth.Principal{Subject: "alice"}
	minted := answerID(alice, "aud")
	i := len(answerIDPrefix) + 3
	for _, s := range []string{
		minted, minted[:i] + "\n" + minted[i:], minted + "=", strings.Replace(minted, ".", "=.", 1),
		answerIDPrefix + ".", answerIDPrefix, "mcpdual-q-AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAA", "",
	} {
		f.Add(s, "alice")
	}
	f.Fuzz(func(t *testing.T, id, subject string) {
		p := &auth.Principal{Subject: subject}
		if fresh := answerID(p, "aud"); !answerFor(fresh, p, "aud") {
			t.Fatalf("an id minted for %q refused: %q", subject, fresh)
		}
		if !answerFor(id, p, "aud") {
			return
		}
		rest := strings.TrimPrefix(id, answerIDPrefix)
		r64, t64, _ := strings.Cut(rest, ".")
		random, err1 := base64.RawURLEncoding.DecodeString(r64)
		tag, err2 := base64.RawURLEncoding.DecodeString(t64)
		if err1 != nil || err2 != nil {
			t.Fatalf("%q taken though its parts do not decode: %v, %v", id, err1, err2)
		}
		if again := answerIDPrefix + base64.RawURLEncoding.EncodeToString(random) + "." + base64.RawURLEncoding.EncodeToString(tag); again != id {
			t.Fatalf("%q taken; that id is minted as %q", id, again)
		}
		if want := answerTag(random, p, "aud"); string(want[:12]) != string(tag) {
			t.Fatalf("%q taken with a tag that is not the caller's", id)
		}
		other := &auth.Principal{Subject: subject + "\x00"}
		if answerFor(id, other, "aud") || answerFor(id, p, "aud2") {
			t.Fatalf("%q taken for another caller or audience too", id)
		}
	})
}
