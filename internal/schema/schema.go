package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var printer = message.NewPrinter(language.English)

// Schema is a JSON Schema, compiled at registration or, when the document
// is plain (see plain), on first use. It is safe for concurrent use.
type Schema struct {
	once sync.Once
	doc  string // the compact document, for the compilation on first use
	s    *jsonschema.Schema
	err  error // the compilation's, on first use: never, for a plain document

	decoded any // the decoded document of a small one, once a second tool uses it (Cache.Compile)

	quickOnce sync.Once
	quick     *quick // the quick check (quick.go), nil when the document has none
}

// Conforms reports whether raw, a JSON value the envelope scanner has
// validated, certainly conforms to the schema, without decoding it. False
// means "run Validate": the value may conform all the same.
func (s *Schema) Conforms(raw []byte) bool {
	// Compiled first, as Validate would: a document that does not compile
	// (only a flaw in plain lets one through) refuses every value.
	if s.once.Do(s.compile); s.err != nil {
		return false
	}
	s.quickOnce.Do(func() {
		if v, err := decodeText(s.doc); err == nil {
			s.quick = newQuick(v, 0)
		}
	})
	raw = bytes.TrimSpace(raw)
	return s.quick != nil && len(raw) > 0 && s.quick.valid(raw)
}

// Compile decodes and compiles one schema document, at once.
func Compile(doc []byte) (*Schema, error) {
	c := NewCache()
	c.eager = true
	s, _, err := c.Compile(doc)
	return s, err
}

// Cache compiles schema documents, each distinct document once: tools
// that share a schema (an id argument, a list filter) share its compiled
// form. A plain document (the kind a generator writes: mcp/openapi's, a
// function tool's) is checked here and compiled on first use; any other
// is compiled, and so checked against the 2020-12 metaschema, at once.
// Registering GitHub's 1,220 operations thus no longer compiles 2,400
// schemas nobody may call (design record 031), and no decoded copy of a
// document is kept: only its compact text until it is compiled. It is
// safe for concurrent use.
type Cache struct {
	mu       sync.Mutex
	docs     map[string]*Schema
	patterns map[string]bool      // regular expressions seen, and whether they compile
	c        *jsonschema.Compiler // shared by the documents compiled at once
	n        int
	eager    bool // compile every document at once (Compile, the function)
}

// keepDecoded is the size of the largest document whose decoded form a
// cache keeps once it is used twice.
const keepDecoded = 512

// NewCache returns an empty cache.
func NewCache() *Cache {
	return &Cache{docs: map[string]*Schema{}, patterns: map[string]bool{}}
}

// Compile checks doc, compiles it now or arranges to on first use, or
// returns what an earlier call made from the same document (compared in
// compact form), with the decoded document, which the caller may read
// but not keep writing to.
func (c *Cache) Compile(doc []byte) (*Schema, any, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if hit, ok := c.docs[string(doc)]; ok {
		// The same bytes as a document checked before: valid, and
		// compact. mcp/openapi hands every document over twice.
		return c.hit(hit)
	}
	if err := jsonrpc.Validate(doc, jsonrpc.DefaultMaxDepth); err != nil {
		return nil, nil, fmt.Errorf("schema is not valid JSON: %w", err)
	}
	// Generated schemas (mcp/openapi's, a function tool's) arrive compact
	// already: json.Compact, a second scan and a copy, is only for the
	// others.
	key := doc
	if !jsonrpc.IsCompact(doc) {
		var compact bytes.Buffer
		if err := json.Compact(&compact, doc); err != nil {
			return nil, nil, fmt.Errorf("schema is not valid JSON: %w", err)
		}
		key = compact.Bytes()
	}
	if hit, ok := c.docs[string(key)]; ok {
		return c.hit(hit)
	}
	text := string(key) // the one copy: the cache's key, the document kept and what v's strings share
	v, err := decodeText(text)
	if errors.Is(err, jsonrpc.ErrNumberTooLarge) {
		// A validator could not compare against it (see the error).
		return nil, nil, fmt.Errorf("schema holds %w", err)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("schema is not valid JSON: %w", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, nil, errors.New("schema must be a JSON object")
	}
	s := &Schema{doc: text}
	if c.eager || !plain(m, c.patterns) {
		if err := c.compileNow(s, v); err != nil {
			return nil, nil, err
		}
	}
	c.docs[text] = s
	return s, v, nil
}

// hit returns what a document compiled before made, with its decoded
// form. c.mu is held.
func (c *Cache) hit(s *Schema) (*Schema, any, error) {
	if s.decoded != nil {
		return s, s.decoded, nil
	}
	v, err := decodeText(s.doc)
	if err != nil {
		return nil, nil, fmt.Errorf("schema is not valid JSON: %w", err)
	}
	// A small document seen twice (an id argument, a list filter) is
	// likely shared by many tools: its decoded form is kept, to be
	// decoded once. A large one is decoded again: every document is seen
	// twice when mcp/openapi checks a tool before it registers it, and
	// GitHub's kept decoded would be 10 MB.
	if len(s.doc) <= keepDecoded {
		s.decoded = v
	}
	return s, v, nil
}

// Retain forgets every document whose compiled form keep does not
// hold. The cache is a memo for sharing: a server that replaces its tools
// (Server.Update) would otherwise keep every schema it ever compiled, and
// the shared compiler every document it compiled at once, for the life
// of the process. Schemas already handed out keep working: each holds its
// compiled form, and nothing compiled refers back to the compiler. When
// anything is forgotten the shared compiler is dropped too (documents
// compiled from then on start a new one) and so is the memo of patterns.
func (c *Cache) Retain(keep func(*Schema) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	dropped := false
	for k, s := range c.docs {
		if !keep(s) {
			delete(c.docs, k)
			dropped = true
		}
	}
	if dropped {
		c.c = nil
		clear(c.patterns)
	}
}

// Len is how many documents the cache holds.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.docs)
}

// compileNow compiles v, s's decoded document, in the shared compiler or,
// when it clashes with another document there, alone. c.mu is held.
func (c *Cache) compileNow(s *Schema, v any) error {
	if c.c == nil {
		c.c = newCompiler()
	}
	c.n++
	compiled, err := compileIn(c.c, "urn:mcpdual:schema:"+strconv.Itoa(c.n), v)
	if err != nil {
		// A document may clash with another in the shared compiler
		// (two of them declaring one $id); alone, it may still compile.
		if compiled, err = compileIn(newCompiler(), "urn:mcpdual:schema", v); err != nil {
			return err
		}
	}
	s.once.Do(func() { s.s = compiled })
	return nil
}

func newCompiler() *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	return c
}

// decodeText decodes a document the cache keeps: its strings share text,
// which never changes.
func decodeText(text string) (any, error) {
	return jsonrpc.DecodeShared(unsafe.Slice(unsafe.StringData(text), len(text)), 0)
}

// compile compiles a plain document on first use, in a compiler of its
// own (no $id, nothing to share), so that nothing but the compiled schema
// stays behind.
func (s *Schema) compile() {
	v, err := decodeText(s.doc)
	if err == nil {
		s.s, err = compileIn(newCompiler(), "urn:mcpdual:schema", v)
	}
	s.err = err
}

func compileIn(c *jsonschema.Compiler, loc string, v any) (*jsonschema.Schema, error) {
	if err := c.AddResource(loc, v); err != nil {
		return nil, err
	}
	return c.Compile(loc)
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
	s.once.Do(s.compile)
	if s.err != nil {
		// Only a flaw in plain lets a document that does not compile
		// through registration; the call is refused, never let through.
		return []string{cut("the schema does not compile: "+s.err.Error(), maxMessage)}
	}
	err := s.s.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []string{"value does not match the schema"}
	}
	// A propertyNames subschema validates a member's name as an instance
	// of its own, so its violations are located at "/": each is placed at
	// the object and says which name it is about (names are shape, as in
	// additionalProperties' text), else "/: does not match pattern" reads
	// as if the whole value had to match.
	type leaf struct {
		e    *jsonschema.ValidationError
		loc  []string
		name *string // the member name a propertyNames violation is about
	}
	var leaves []leaf
	var walk func(e *jsonschema.ValidationError, at *leaf)
	walk = func(e *jsonschema.ValidationError, at *leaf) {
		if pn, ok := e.ErrorKind.(*kind.PropertyNames); ok && at == nil && len(e.Causes) > 0 {
			at = &leaf{loc: e.InstanceLocation, name: &pn.Property}
		}
		if choice := constChoice(e); choice != nil {
			l := leaf{e: &jsonschema.ValidationError{InstanceLocation: e.InstanceLocation, ErrorKind: choice}, loc: e.InstanceLocation}
			if at != nil {
				l.loc, l.name = at.loc, at.name
			}
			leaves = append(leaves, l)
			return
		}
		if len(e.Causes) == 0 {
			l := leaf{e: e, loc: e.InstanceLocation}
			if at != nil {
				l.loc, l.name = at.loc, at.name
			}
			leaves = append(leaves, l)
			return
		}
		for _, c := range e.Causes {
			walk(c, at)
		}
	}
	walk(ve, nil)
	// Sorted by location without building any string: only the lines
	// returned are rendered.
	sort.SliceStable(leaves, func(i, j int) bool { return slices.Compare(leaves[i].loc, leaves[j].loc) < 0 })
	n := len(leaves)
	if max > 0 && n > max {
		n = max
	}
	out := make([]string, 0, n+1)
	for _, l := range leaves[:n] {
		text := describe(l.e.ErrorKind)
		if l.name != nil {
			text = "property name " + quote(*l.name) + " " + text
		}
		out = append(out, cut("/"+strings.Join(l.loc, "/")+": "+text, maxMessage))
	}
	if n < len(leaves) {
		out = append(out, fmt.Sprintf("(%d more)", len(leaves)-n))
	}
	return out
}

// constChoice reads a oneOf or anyOf that no branch matched, where every
// branch is a const (a form's titled choices, [{"const":"red","title":
// "Red"},...]), as the enum it stands for: one violation listing the
// choices, where each branch's own says "value must be 'red'", the first
// of which reads as if red were the only choice. nil for anything else.
func constChoice(e *jsonschema.ValidationError) *kind.Enum {
	switch k := e.ErrorKind.(type) {
	case *kind.OneOf:
		if k.Subschemas != nil {
			return nil // more than one matched
		}
	case *kind.AnyOf:
	default:
		return nil
	}
	if len(e.Causes) == 0 {
		return nil
	}
	choice := &kind.Enum{Want: make([]any, 0, len(e.Causes))}
	for _, c := range e.Causes {
		k, ok := c.ErrorKind.(*kind.Const)
		if !ok || len(c.Causes) > 0 || !slices.Equal(c.InstanceLocation, e.InstanceLocation) {
			return nil
		}
		choice.Got = k.Got
		choice.Want = append(choice.Want, k.Want)
	}
	return choice
}

// describe says what a violation is without the value that violated it.
// A violation of an argument goes back to the client in the tool's error,
// one of a tool's output to the log, and the value may be a secret (a
// password against a pattern, a PIN against a bound): what the schema
// wants is said, and the value's shape (its type, length, the count of its
// items or properties, the names of its members), never the value (design
// record 011). The kinds known to say nothing more are rendered by the
// validator; the few that quote the value get a text of ours; a kind a
// later validator adds says only which keyword failed.
func describe(k jsonschema.ErrorKind) string {
	number := func(r *big.Rat) string {
		f, _ := r.Float64()
		return printer.Sprint(f)
	}
	switch k := k.(type) {
	case *kind.Pattern:
		return "does not match pattern " + quote(k.Want)
	case *kind.Format:
		return "is not a valid " + k.Want
	case *kind.ContentEncoding:
		return "value is not " + quote(k.Want) + " encoded"
	case *kind.ContentMediaType:
		return "value is not of mediatype " + quote(k.Want)
	case *kind.Minimum:
		return "minimum: want " + number(k.Want)
	case *kind.Maximum:
		return "maximum: want " + number(k.Want)
	case *kind.ExclusiveMinimum:
		return "exclusiveMinimum: want above " + number(k.Want)
	case *kind.ExclusiveMaximum:
		return "exclusiveMaximum: want below " + number(k.Want)
	case *kind.MultipleOf:
		return "multipleOf: want a multiple of " + number(k.Want)
	case *kind.InvalidJsonValue, *kind.Schema, *kind.Group, *kind.Not, *kind.AllOf, *kind.AnyOf, *kind.OneOf,
		*kind.FalseSchema, *kind.RefCycle, *kind.Type, *kind.Enum, *kind.Const, *kind.Reference,
		*kind.MinProperties, *kind.MaxProperties, *kind.MinItems, *kind.MaxItems, *kind.AdditionalItems,
		*kind.Required, *kind.Dependency, *kind.DependentRequired, *kind.AdditionalProperties, *kind.PropertyNames,
		*kind.UniqueItems, *kind.Contains, *kind.MinContains, *kind.MaxContains, *kind.MinLength, *kind.MaxLength,
		*kind.ContentSchema:
		// Types, counts, lengths, indexes, member names, and the
		// schema's own values (enum, const).
		return k.LocalizedString(printer)
	}
	return quote(strings.Join(k.KeywordPath(), "/")) + " failed"
}

// quote quotes s as the validator's messages do.
func quote(s string) string {
	s = strconv.Quote(s)
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s[1:len(s)-1], `\"`, `"`), "'", `\'`) + "'"
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
