package typeschema

import (
	"encoding/json"
	"reflect"

	"github.com/mcpdual/mcpdual/internal/typeschema"
)

// For returns the JSON Schema of T, which must be a struct (or a pointer
// to one, or a map with string keys): a tool's input and output schemas
// have root type "object". It fails on types JSON cannot carry (channels,
// functions, complex numbers, maps keyed by anything but strings, integers
// or text), and on an mcp tag it cannot read, naming the field.
func For[T any]() (json.RawMessage, error) {
	s, err := typeschema.For(reflect.TypeFor[T]())
	if err != nil {
		return nil, err
	}
	return s.JSON, nil
}

// MustFor is For for package-level variables and registration code: it
// panics where For returns an error, as AddTool panics on a schema it
// cannot use.
func MustFor[T any]() json.RawMessage {
	b, err := For[T]()
	if err != nil {
		panic(err)
	}
	return b
}
