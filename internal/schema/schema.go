package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
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

// Compile decodes and compiles one schema document.
func Compile(doc []byte) (*Schema, error) {
	s, _, err := NewCache().Compile(doc)
	return s, err
}

// Cache compiles schema documents, each distinct document once: tools
// that share a schema (an id argument, a list filter) share its compiled
// form, and every document is checked against the 2020-12 metaschema,
// which dominates what compiling costs, only the first time. It is safe
// for concurrent use.
type Cache struct {
	mu   sync.Mutex
	docs map[string]cached
	c    *jsonschema.Compiler // shared: the metaschema is compiled once
	n    int
}

type cached struct {
	s   *Schema
	doc any
}

// NewCache returns an empty cache.
func NewCache() *Cache {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	return &Cache{docs: map[string]cached{}, c: c}
}

// Compile compiles doc, or returns what an earlier call compiled from the
// same document (compared in compact form), with the decoded document.
func (c *Cache) Compile(doc []byte) (*Schema, any, error) {
	if err := jsonrpc.Validate(doc, jsonrpc.DefaultMaxDepth); err != nil {
		return nil, nil, fmt.Errorf("schema is not valid JSON: %w", err)
	}
	// Generated schemas (mcp/openapi's, a function tool's) arrive compact
	// already: json.Compact, a second scan and a copy, is only for the
	// others.
	key := doc
	if !isCompact(doc) {
		var compact bytes.Buffer
		if err := json.Compact(&compact, doc); err != nil {
			return nil, nil, fmt.Errorf("schema is not valid JSON: %w", err)
		}
		key = compact.Bytes()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if hit, ok := c.docs[string(key)]; ok {
		return hit.s, hit.doc, nil
	}
	v, err := jsonrpc.Decode(key, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("schema is not valid JSON: %w", err)
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, nil, errors.New("schema must be a JSON object")
	}
	c.n++
	s, err := compileIn(c.c, "urn:mcpdual:schema:"+strconv.Itoa(c.n), v)
	if err != nil {
		// A document may clash with another in the shared compiler
		// (two of them declaring one $id); alone, it may still compile.
		alone := jsonschema.NewCompiler()
		alone.DefaultDraft(jsonschema.Draft2020)
		if s, err = compileIn(alone, "urn:mcpdual:schema", v); err != nil {
			return nil, nil, err
		}
	}
	c.docs[string(key)] = cached{s, v}
	return s, v, nil
}

// isCompact reports whether a valid JSON text has no whitespace outside
// its strings, which is what json.Compact would remove.
func isCompact(doc []byte) bool {
	in := false
	for i := 0; i < len(doc); i++ {
		switch c := doc[i]; {
		case in && c == '\\':
			i++ // the escaped byte, whatever it is
		case c == '"':
			in = !in
		case !in && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			return false
		}
	}
	return true
}

func compileIn(c *jsonschema.Compiler, loc string, v any) (*Schema, error) {
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

// DecodeShared is Decode for a document nothing writes to again (a request
// body): the values alias doc instead of a copy of it.
func DecodeShared(doc []byte, maxValues int) (any, error) {
	return jsonrpc.DecodeShared(doc, maxValues)
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
