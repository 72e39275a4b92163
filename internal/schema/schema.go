package schema

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var printer = message.NewPrinter(language.English)

// Schema is a compiled JSON Schema. It is safe for concurrent use.
type Schema struct {
	s *jsonschema.Schema
}

// Compile decodes and compiles a schema document.
func Compile(doc []byte) (*Schema, error) {
	v, err := Decode(doc)
	if err != nil {
		return nil, fmt.Errorf("schema is not valid JSON: %w", err)
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, errors.New("schema must be a JSON object")
	}
	const loc = "urn:mcpdual:schema"
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(loc, v); err != nil {
		return nil, err
	}
	s, err := c.Compile(loc)
	if err != nil {
		return nil, err
	}
	return &Schema{s: s}, nil
}

// Decode decodes JSON into the value form Validate expects (numbers as
// json.Number, so large integers keep their precision).
func Decode(doc []byte) (any, error) {
	return jsonschema.UnmarshalJSON(bytes.NewReader(doc))
}

// Validate checks v (from Decode) and returns nil or the violations, one
// line each, sorted, at most max of them.
func (s *Schema) Validate(v any, max int) []string {
	err := s.s.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []string{"value does not match the schema"}
	}
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			loc := "/" + strings.Join(e.InstanceLocation, "/")
			out = append(out, loc+": "+e.ErrorKind.LocalizedString(printer))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.Strings(out)
	if max > 0 && len(out) > max {
		out = append(out[:max], fmt.Sprintf("(%d more)", len(out)-max))
	}
	return out
}
