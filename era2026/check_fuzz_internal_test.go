package era2026

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
)

// FuzzLookupPath: an Mcp-Param-* header is checked against the argument
// lookupPath finds in the client's arguments, while the tool behind it
// decodes the same bytes with encoding/json, which matches member names
// ignoring case. Whatever the arguments: when lookupPath names no
// imitation, a struct decoded by encoding/json with the path's names as
// its tags holds exactly the value lookupPath found (or nothing, when it
// found none); an imitation it names is a member on the way that differs
// from the path's name only in case. So a header can never be checked
// against one value while the tool acts on another.
func FuzzLookupPath(f *testing.F) {
	for _, s := range []struct{ args, a, b string }{
		{`{"id":"x"}`, "id", ""},
		{`{"id":"x","ID":"y"}`, "id", ""},
		{`{"\u0069d":"x"}`, "id", ""},
		{`{"ſession":"x"}`, "session", ""},
		{`{"\u212aey":1}`, "key", ""},
		{`{"user":{"name":"a","Name":"b"}}`, "user", "name"},
		{`{"user":{"name":"a"}}`, "user", "name"},
		{`{"user":null}`, "user", "name"},
		{`{"user":{"name":null}}`, "user", "name"},
		{`{"user":[{"name":"a"}]}`, "user", "name"},
		{`{"a":1,"b":{"c":[1,{"d":2}]},"e":"\"}"}`, "e", ""},
	} {
		f.Add([]byte(s.args), s.a, s.b)
	}
	f.Fuzz(func(t *testing.T, args []byte, a, b string) {
		if len(args) > 4096 || jsonrpc.Validate(args, jsonrpc.DefaultMaxDepth) != nil {
			return // arguments reach lookupPath from a validated body
		}
		path := []string{a}
		if b != "" {
			path = append(path, b)
		}
		for _, k := range path {
			if !tagName(k) {
				return // a name encoding/json takes as a tag
			}
		}
		val, present, imitation := lookupPath(args, path)
		if imitation != "" {
			for _, k := range path {
				if imitation != k && strings.EqualFold(imitation, k) {
					return
				}
			}
			t.Fatalf("lookupPath(%s, %q) names %q, which is no case variant of the path", args, path, imitation)
		}
		// The struct a tool decodes into: each name a field tagged with
		// it, the last one holding the value as written.
		leaf := reflect.TypeFor[json.RawMessage]()
		typ := leaf
		for i := len(path) - 1; i >= 0; i-- {
			typ = reflect.StructOf([]reflect.StructField{{Name: "F", Type: typ, Tag: reflect.StructTag(`json:"` + path[i] + `"`)}})
		}
		dst := reflect.New(typ)
		if json.Unmarshal(args, dst.Interface()) != nil {
			// A value on the way is no object: the tool refuses the
			// arguments, so no value of it is acted on.
			if present && len(path) > 1 {
				t.Fatalf("lookupPath(%s, %q) found %s where encoding/json refuses the arguments", args, path, val)
			}
			return
		}
		v := dst.Elem()
		for range path {
			v = v.Field(0)
		}
		decoded := v.Interface().(json.RawMessage)
		switch {
		case present && !bytes.Equal(decoded, val):
			t.Fatalf("lookupPath(%s, %q) = %s; encoding/json decodes %s", args, path, val, decoded)
		case !present && decoded != nil:
			t.Fatalf("lookupPath(%s, %q) found nothing; encoding/json decodes %s", args, path, decoded)
		}
	})
}

// tagName reports whether encoding/json takes s as a field's name in a
// tag (its rule: letters, digits and some punctuation; no quote, comma or
// backslash), so the struct built for the check is matched by s.
func tagName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}
