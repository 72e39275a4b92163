// Package panics describes a recovered panic for a log without its value.
//
// The value a panic carries is whatever the failing code had at hand — a
// request's arguments, a token, a row it read — formatted by code that
// never meant it for a log: panic(fmt.Sprintf("bad row %v", row)) puts the
// row there. So a log line about a host's panic (a route, a tool function,
// a token verifier) says what kind of value it was and where it was
// raised, which is what one needs to find the fault, and never the value
// (design record 011). A runtime error's text is kept: the runtime writes
// it, from types, indexes and lengths.
package panics

import (
	"log/slog"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
)

// Value is a recovered panic as a log shows it.
type Value struct {
	// Type is the Go type of the value, such as "string" or
	// "*errors.errorString".
	Type string
	// Runtime is the message of a runtime error (a nil dereference, an
	// index out of range), "" for any other value.
	Runtime string
	// At is the function and the file and line that panicked, such as
	// "main.handler.func1 (server.go:42)"; "" when the stack does not
	// show it.
	At string
	// From is where the first panic still on the stack was raised when
	// it is not At: a deferred function recovered it and panicked again
	// (a middleware, or the endpoint's observer wrapper, passing it on),
	// or panicked while it unwound. "" otherwise.
	From string
}

// Describe describes v, a value recover returned. Call it in the
// deferred function that recovered v: the stack that panicked is still
// there, and At is read from it.
func Describe(v any) Value {
	d := Value{Type: "nil"}
	d.At, d.From = sites()
	if v == nil {
		// recover returns nil only under GODEBUG=panicnil=1 (Go 1.21 and
		// later give panic(nil) a *runtime.PanicNilError): the callers
		// test for nil first, and a description must not panic itself.
		return d
	}
	d.Type = reflect.TypeOf(v).String()
	if err, ok := v.(runtime.Error); ok && fromRuntime(v) {
		d.Runtime = err.Error()
	}
	return d
}

// fromRuntime reports whether v's type is the runtime package's own: any
// type may have a RuntimeError method, and only the runtime's errors are
// known to hold no value.
func fromRuntime(v any) bool {
	t := reflect.TypeOf(v)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.PkgPath() == "runtime"
}

// maxFrames bounds the frames read to find where a panic was raised:
// those of the recovery and of the runtime above it, then the one sought,
// and as many again for a panic raised anew by a deferred function.
const maxFrames = 64

// sites returns the first frame below runtime.gopanic that is not the
// runtime's own (a nil dereference passes through runtime.sigpanic and
// runtime.panicmem on its way), and the same for the deepest
// runtime.gopanic when there are more: a deferred function that recovers
// a panic and panics again (the endpoint's serveObserved does, for
// net/http) is where the value was raised last, and not where the fault
// is.
func sites() (at, from string) {
	var pcs [maxFrames]uintptr
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs[:])])
	below := false
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.gopanic":
			below = true
		case below && !strings.HasPrefix(f.Function, "runtime."):
			below = false
			s := f.Function + " (" + filepath.Base(f.File) + ":" + strconv.Itoa(f.Line) + ")"
			if at == "" {
				at = s
			} else {
				from = s
			}
		}
		if !more {
			return at, from
		}
	}
}

// String is the description on one line: the type, the runtime's message
// when there is one, and where, such as
// "*errors.errorString at main.handler (server.go:42)".
func (v Value) String() string {
	s := v.Type
	if v.Runtime != "" {
		s += " (" + v.Runtime + ")"
	}
	if v.At != "" {
		s += " at " + v.At
	}
	if v.From != "" {
		s += ", first raised at " + v.From
	}
	return s
}

// LogValue groups the description's fields, leaving out empty ones.
func (v Value) LogValue() slog.Value {
	attrs := []slog.Attr{slog.String("type", v.Type)}
	if v.Runtime != "" {
		attrs = append(attrs, slog.String("runtime", v.Runtime))
	}
	if v.At != "" {
		attrs = append(attrs, slog.String("at", v.At))
	}
	if v.From != "" {
		attrs = append(attrs, slog.String("from", v.From))
	}
	return slog.GroupValue(attrs...)
}
