package schema

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var printer = message.NewPrinter(language.English)

// Schema is a compiled JSON Schema. It is safe for concurrent use.
type Schema struct {
	s *jsonschema.Schema
}

// Compile decodes and compiles a schema document (already validated JSON).
func Compile(doc []byte) (*Schema, error) {
	if err := jsonrpc.Validate(doc, jsonrpc.DefaultMaxDepth); err != nil {
		return nil, fmt.Errorf("schema is not valid JSON: %w", err)
	}
	v, err := jsonrpc.Decode(doc, 0)
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

// Decode decodes a JSON text that has already passed jsonrpc.Validate or
// jsonrpc.Parse into the value form Validate expects (numbers as
// json.Number, so large integers keep their precision). It refuses a text
// of more than maxValues values (0: no bound) with jsonrpc.ErrTooManyValues,
// which bounds what validating it can cost.
func Decode(doc []byte, maxValues int) (any, error) {
	return jsonrpc.Decode(doc, maxValues)
}

// maxMessage bounds one violation's text, in bytes.
const maxMessage = 200

// Validate checks v (from Decode) and returns nil or the violations, one
// line each, at most max of them (sorted by where they are), and a last
// line saying how many more there are. Only the lines returned are
// rendered, so the cost of a value with many violations is the
// validator's, not ours.
func (s *Schema) Validate(v any, max int) []string {
	err := s.s.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []string{"value does not match the schema"}
	}
	var leaves []*jsonschema.ValidationError
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			leaves = append(leaves, e)
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	// Sorted by location without building any string: only the lines
	// returned are rendered.
	sort.SliceStable(leaves, func(i, j int) bool {
		return slices.Compare(leaves[i].InstanceLocation, leaves[j].InstanceLocation) < 0
	})
	n := len(leaves)
	if max > 0 && n > max {
		n = max
	}
	out := make([]string, 0, n+1)
	for _, l := range leaves[:n] {
		out = append(out, cut("/"+strings.Join(l.InstanceLocation, "/")+": "+l.ErrorKind.LocalizedString(printer), maxMessage))
	}
	if n < len(leaves) {
		out = append(out, fmt.Sprintf("(%d more)", len(leaves)-n))
	}
	return out
}

// cut shortens s to at most n bytes, on a rune boundary, marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
