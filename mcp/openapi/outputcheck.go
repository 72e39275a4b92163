package openapi

import (
	"bytes"
	"errors"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// outputSchema is a document's output schema as WithOutputSchemas checks
// it. This module compiles it with jsonschema/v6 itself, as the core does
// for its own (draft 2020-12 by default, no remote references), rather
// than reaching into the core's internal packages, which are no part of
// the API a module of its own may build on.
type outputSchema struct{ s *jsonschema.Schema }

// compileOutput compiles doc; an error leaves the answer unchecked (the
// core compiled the same document when the tool was registered).
func compileOutput(doc []byte) (*outputSchema, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("output.json", v); err != nil {
		return nil, err
	}
	s, err := c.Compile("output.json")
	if err != nil {
		return nil, err
	}
	return &outputSchema{s}, nil
}

// errNotJSON is an answer that does not parse.
var errNotJSON = errors.New("the answer is not JSON")

// validate returns at most max violations of body, each the instance's
// location and the failing keyword (never the answer's values, which the
// log must not carry), or nil when it matches.
func (o *outputSchema) validate(body []byte, max int) ([]string, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return nil, errNotJSON
	}
	err = o.s.Validate(v)
	if err == nil {
		return nil, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []string{"the answer does not match the schema"}, nil
	}
	var out []string
	more := 0
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			if len(out) == max {
				more++
				return
			}
			out = append(out, "/"+strings.Join(e.InstanceLocation, "/")+": "+strings.Join(e.ErrorKind.KeywordPath(), "/"))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	if more > 0 {
		out = append(out, "and more")
	}
	return out, nil
}
