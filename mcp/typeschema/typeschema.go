package typeschema

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// For returns the JSON Schema of T, which must be a struct (or a pointer
// to one, or a map with string keys): a tool's input and output schemas
// have root type "object". It fails on types JSON cannot carry (channels,
// functions, complex numbers, maps keyed by non-strings) and on recursive
// types.
func For[T any]() (json.RawMessage, error) {
	t := reflect.TypeFor[T]()
	s, err := jsonschema.For[T](nil)
	if err != nil {
		return nil, fmt.Errorf("typeschema: %w", err)
	}
	if s.Type != "object" && !slices.Contains(s.Types, "object") {
		return nil, fmt.Errorf("typeschema: %s is not a JSON object; a tool's schemas describe objects", t)
	}
	// A *Struct is "object or null"; a tool's arguments and structured
	// results are always objects.
	if len(s.Types) > 0 {
		s.Type, s.Types = "object", nil
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("typeschema: %s: %w", t, err)
	}
	return b, nil
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
