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

// passOn recovers a panic and raises it again, as a middleware or the
// endpoint's observer wrapper does.
func passOn(f func()) {
	defer func() {
		if p := recover(); p != nil {
			panic(p)
		}
	}()
	f()
}

// TestDescribe_RaisedAgain: a panic a deferred function recovered and
// raised again is described where it was raised last and where it was
// raised first, which is where the fault is; one raised once has no
// second place.
func TestDescribe_RaisedAgain(t *testing.T) {
	d := caught(func() { passOn(func() { raise("the dsn " + "hunter2") }) })
	if d.Type != "string" || !strings.Contains(d.At, "panics.passOn.func1 (panics_test.go:") ||
		!strings.Contains(d.From, "panics.raise (panics_test.go:") {
		t.Errorf("%+v", d)
	}
	if s := d.String(); !strings.Contains(s, ", first raised at github.com/mcpdual/mcpdual/internal/panics.raise (panics_test.go:") || strings.Contains(s, "hunter2") {
		t.Errorf("%s", s)
	}
	if d := caught(func() { raise(1) }); d.From != "" || !strings.Contains(d.At, "panics.raise") {
		t.Errorf("raised once: %+v", d)
	}
}

// TestDescribe_Nil: panic(nil) is a *runtime.PanicNilError, described
// with the runtime's text; a nil value (recover's under
// GODEBUG=panicnil=1, or a caller's slip) is described, not a panic of
// its own.
func TestDescribe_Nil(t *testing.T) {
	if d := caught(func() { raise(nil) }); d.Type != "*runtime.PanicNilError" || !strings.Contains(d.Runtime, "panic called with nil") ||
		!strings.Contains(d.At, "panics.raise") {
		t.Errorf("panic(nil): %+v", d)
	}
	if d := Describe(nil); d.Type != "nil" {
		t.Errorf("nil: %+v", d)
	}
}
