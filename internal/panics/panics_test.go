package panics

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

// caught runs f and describes what it panicked with.
func caught(f func()) (d Value) {
	defer func() { d = Describe(recover()) }()
	f()
	return Value{}
}

// raise panics with v from a function of its own, so that the place
// Describe finds is known.
func raise(v any) { panic(v) }

// fakeRuntimeError claims to be a runtime error; its text is the host's.
type fakeRuntimeError struct{ s string }

func (e fakeRuntimeError) Error() string { return e.s }
func (fakeRuntimeError) RuntimeError()   {}

// TestDescribe_NeverTheValue: a panic is described by its type and the
// function, file and line that raised it; the value's text appears only
// when the runtime wrote it.
func TestDescribe_NeverTheValue(t *testing.T) {
	const secret = "hunter2-S3CRET"
	var nilMap map[string]int
	for _, c := range []struct {
		name          string
		f             func()
		typ, rt, site string
	}{
		{"a string", func() { raise("db password " + secret) }, "string", "", "panics.raise (panics_test.go:"},
		{"an error", func() { raise(errors.New("token " + secret)) }, "*errors.errorString", "", "panics.raise (panics_test.go:"},
		{"a host's runtime.Error", func() { raise(fakeRuntimeError{secret}) }, "panics.fakeRuntimeError", "", "panics.raise (panics_test.go:"},
		{"a nil map", func() { nilMap[secret] = 1 }, "runtime.plainError", "assignment to entry in nil map", "panics.TestDescribe_NeverTheValue.func"},
		{"an index", func() { _ = []string{secret}[len(secret)] }, "runtime.boundsError", "index out of range [14] with length 1", "panics.TestDescribe_NeverTheValue.func"},
	} {
		d := caught(c.f)
		if d.Type != c.typ || !strings.HasSuffix(d.Runtime, c.rt) || c.rt == "" && d.Runtime != "" || !strings.Contains(d.At, c.site) {
			t.Errorf("%s: %+v, want type %q, runtime %q, at %q…", c.name, d, c.typ, c.rt, c.site)
		}
		var log bytes.Buffer
		slog.New(slog.NewTextHandler(&log, nil)).Error("x", "panic", d)
		for _, text := range []string{d.String(), log.String()} {
			if strings.Contains(text, secret) || !strings.Contains(text, c.typ) || !strings.Contains(text, c.site) {
				t.Errorf("%s: %s", c.name, text)
			}
		}
	}
}
