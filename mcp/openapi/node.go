package openapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pb33f/go-yaml"
)

// node is one value of the document, as written: a mapping (its keys and
// values alternate in Content, in document order), a sequence, or a
// scalar with its YAML tag ("!!str", "!!int", "!!float", "!!bool",
// "!!null"). The document is read into these and nothing else: a large
// API's document (GitHub's is 13 MB) becomes a few hundred thousand small
// nodes, read in one pass, and garbage once Register returns.
type node struct {
	Kind    nodeKind
	Tag     string
	Value   string
	Content []*node
}

type nodeKind uint8

const (
	scalarNode nodeKind = iota + 1
	mappingNode
	sequenceNode
)

// parse reads a JSON or YAML document. JSON, what large generated
// documents are, is read by parseJSON; anything else by go-yaml, whose
// tree is then copied (YAML aliases become shared nodes). It returns the
// tree and how many values the document itself writes (keys included),
// which bounds what converting it may make (see budget).
func parse(spec []byte) (*node, int, error) {
	for _, c := range spec {
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			continue
		}
		if c == '{' {
			n, count, err := parseJSON(spec)
			if err == nil {
				return n, count, nil
			}
			if _, ok := err.(*docError); ok {
				// Well-formed JSON that is refused (a duplicate key):
				// YAML, which JSON is a subset of, would refuse it too,
				// and less precisely.
				return nil, 0, err
			}
		}
		break
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(spec, &doc); err != nil {
		return nil, 0, err
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, 0, errors.New("not one YAML or JSON document")
	}
	r := &yamlReader{seen: map[*yaml.Node]*node{}, size: map[*node]int{}}
	r.own = countYAML(doc.Content[0], 0)
	r.limit = expansionLimit(r.own)
	n, err := r.read(doc.Content[0], 0)
	if err != nil {
		return nil, 0, err
	}
	return n, r.own, nil
}

// A document's aliases may repeat a value, and each repetition may repeat
// others: 768 bytes of YAML can stand for millions of values. The tree
// holds each value once, but whatever walks it (the conversion of a
// schema, an example) meets it every time. So a YAML document is refused
// when its values, each alias counted as what it stands for, outnumber
// expansionFactor times its own values plus expansionBase, or maxValues
// in all (see budget for the conversion's own bound). A document without
// aliases (every JSON document) always passes.
const (
	expansionFactor = 4
	expansionBase   = 100_000
	maxValues       = 1 << 24
)

func expansionLimit(own int) int {
	return min(expansionFactor*own+expansionBase, maxValues)
}

// docError is a document refused for how it is written, located by its
// JSON pointer and where it is in the text (a line, an offset).
type docError struct {
	path []string // the pointer's tokens, innermost first
	at   string
	msg  string
}

func (e *docError) Error() string {
	var b strings.Builder
	for i := len(e.path) - 1; i >= 0; i-- {
		b.WriteByte('/')
		b.WriteString(pointerEscape(e.path[i]))
	}
	if b.Len() == 0 {
		b.WriteByte('/')
	}
	return b.String() + ": " + e.msg + " (" + e.at + ")"
}

// within adds the token of the value err was found in, as err unwinds.
func within(err error, tok string) error {
	if e, ok := err.(*docError); ok {
		e.path = append(e.path, tok)
	}
	return err
}

// duplicate reports whether key k is already among the keys of a
// mapping's content so far; idx indexes them once there are many.
func duplicate(content []*node, k string, idx *map[string]bool) bool {
	const linear = 16
	if len(content) < 2*linear {
		for i := 0; i < len(content); i += 2 {
			if content[i].Value == k {
				return true
			}
		}
		return false
	}
	if *idx == nil {
		*idx = make(map[string]bool, len(content))
		for i := 0; i < len(content); i += 2 {
			(*idx)[content[i].Value] = true
		}
	}
	if (*idx)[k] {
		return true
	}
	(*idx)[k] = true
	return false
}

// countYAML counts the values y writes itself (an alias counts one).
func countYAML(y *yaml.Node, depth int) int {
	if depth > 4*maxDepth {
		return 1 // read refuses it
	}
	n := 1
	for _, c := range y.Content {
		n += countYAML(c, depth+1)
	}
	return n
}

type yamlReader struct {
	seen  map[*yaml.Node]*node
	size  map[*node]int // values a node stands for, aliases expanded; 0 while it is being read
	own   int
	limit int
}

// read copies y into nodes. Each value is copied once, so an alias is a
// shared node; its expanded size is summed as it is read, and bounded.
func (r *yamlReader) read(y *yaml.Node, depth int) (*node, error) {
	alias := y
	for i := 0; y != nil && y.Kind == yaml.AliasNode; i++ {
		if i == maxDepth {
			return nil, &docError{at: lineOf(alias), msg: "an alias chain does not end"}
		}
		y = y.Alias
	}
	if y == nil {
		return nil, &docError{at: lineOf(alias), msg: "an alias names nothing"}
	}
	if n, ok := r.seen[y]; ok {
		if r.size[n] == 0 {
			// JSON has no value that contains itself, and expanding one
			// never ends.
			return nil, &docError{at: lineOf(alias), msg: "an alias names a value that contains it"}
		}
		return n, nil
	}
	if depth > 4*maxDepth {
		return nil, fmt.Errorf("line %d: nested too deep", y.Line)
	}
	n := &node{Value: y.Value}
	r.seen[y] = n
	switch y.Kind {
	case yaml.ScalarNode:
		n.Kind, n.Tag = scalarNode, y.ShortTag()
		r.size[n] = 1
		return n, nil
	case yaml.MappingNode:
		n.Kind = mappingNode
	case yaml.SequenceNode:
		n.Kind = sequenceNode
	default:
		return nil, &docError{at: lineOf(y), msg: "not a JSON value"}
	}
	n.Content = make([]*node, 0, len(y.Content))
	size := 1
	var idx map[string]bool
	for i, c := range y.Content {
		cn, err := r.read(c, depth+1)
		if err != nil {
			switch {
			case n.Kind == sequenceNode:
				return nil, within(err, strconv.Itoa(i))
			case i%2 == 1:
				return nil, within(err, n.Content[i-1].Value)
			}
			return nil, err
		}
		if n.Kind == mappingNode && i%2 == 0 {
			if cn.Kind != scalarNode {
				return nil, &docError{at: lineOf(c), msg: "a key is not a string"}
			}
			if duplicate(n.Content, cn.Value, &idx) {
				return nil, &docError{at: lineOf(c), msg: fmt.Sprintf("the key %q appears twice", cn.Value)}
			}
		}
		n.Content = append(n.Content, cn)
		size += r.size[cn]
		if size > r.limit {
			return nil, &docError{at: lineOf(y), msg: fmt.Sprintf("through its aliases this value stands for more than %d values, and the document has %d of its own", r.limit, r.own)}
		}
	}
	r.size[n] = size
	return n, nil
}

func lineOf(y *yaml.Node) string { return "line " + strconv.Itoa(y.Line) }

// parseJSON reads a JSON text into nodes, in one pass over the bytes,
// and counts its values.
func parseJSON(b []byte) (*node, int, error) {
	p := &jsonParser{b: b}
	n, err := p.value(0)
	if err != nil {
		return nil, 0, err
	}
	p.space()
	if p.i != len(p.b) {
		return nil, 0, p.fail("text after the document")
	}
	return n, p.count, nil
}

type jsonParser struct {
	b     []byte
	i     int
	count int // values read, keys included
	// Short scalars repeat ("string", "object", true, small numbers,
	// every key): one node each is shared, found without a copy of its
	// bytes.
	strs map[string]*node
	nums map[string]*node
	lits [3]*node // true, false, null
	// The members read of the mappings and sequences open: each gets its
	// Content in one allocation of its size when it closes, instead of a
	// slice grown by doubling (GitHub's document: a third of the tree's
	// bytes, and garbage).
	stack []*node
}

func (p *jsonParser) fail(msg string) error {
	return fmt.Errorf("offset %d: %s", p.i, msg)
}

func (p *jsonParser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\r', '\n':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonParser) value(depth int) (*node, error) {
	if depth > 4*maxDepth {
		return nil, p.fail("nested too deep")
	}
	p.space()
	if p.i >= len(p.b) {
		return nil, p.fail("unexpected end")
	}
	p.count++
	switch c := p.b[p.i]; {
	case c == '{' || c == '[':
		open, close := c, byte('}')
		n := &node{Kind: mappingNode}
		if open == '[' {
			n.Kind, close = sequenceNode, ']'
		}
		p.i++
		p.space()
		if p.i < len(p.b) && p.b[p.i] == close {
			p.i++
			return n, nil
		}
		base := len(p.stack)
		defer func() { p.stack = p.stack[:base] }()
		var idx map[string]bool
		for {
			var k string
			if n.Kind == mappingNode {
				p.space()
				if p.i >= len(p.b) || p.b[p.i] != '"' {
					return nil, p.fail("a key must be a string")
				}
				at := p.i
				key, err := p.strNode()
				if err != nil {
					return nil, err
				}
				k = key.Value
				if duplicate(p.stack[base:], k, &idx) {
					// Readers disagree on which one counts (the first
					// here, the last in JavaScript): neither is taken.
					return nil, &docError{at: "offset " + strconv.Itoa(at), msg: fmt.Sprintf("the key %q appears twice", k)}
				}
				p.space()
				if p.i >= len(p.b) || p.b[p.i] != ':' {
					return nil, p.fail("':' expected")
				}
				p.i++
				p.count++
				p.stack = append(p.stack, key)
			}
			v, err := p.value(depth + 1)
			if err != nil {
				if n.Kind == sequenceNode {
					return nil, within(err, strconv.Itoa(len(p.stack)-base))
				}
				return nil, within(err, k)
			}
			p.stack = append(p.stack, v)
			p.space()
			if p.i >= len(p.b) {
				return nil, p.fail("unexpected end")
			}
			if p.b[p.i] == ',' {
				p.i++
				continue
			}
			if p.b[p.i] != close {
				return nil, p.fail("',' or the end of the value expected")
			}
			p.i++
			n.Content = append([]*node(nil), p.stack[base:]...)
			return n, nil
		}
	case c == '"':
		return p.strNode()
	case c == 't' || c == 'f' || c == 'n':
		for i, lit := range [...]struct{ text, tag string }{{"true", "!!bool"}, {"false", "!!bool"}, {"null", "!!null"}} {
			if len(p.b)-p.i >= len(lit.text) && string(p.b[p.i:p.i+len(lit.text)]) == lit.text {
				p.i += len(lit.text)
				if p.lits[i] == nil {
					p.lits[i] = &node{Kind: scalarNode, Tag: lit.tag, Value: lit.text}
				}
				return p.lits[i], nil
			}
		}
		return nil, p.fail("invalid literal")
	default:
		start := p.i
		tag := "!!int"
		for p.i < len(p.b) {
			c := p.b[p.i]
			if c == '.' || c == 'e' || c == 'E' {
				tag = "!!float"
			} else if !(c >= '0' && c <= '9' || c == '-' || c == '+') {
				break
			}
			p.i++
		}
		num := p.b[start:p.i]
		if n, ok := p.nums[string(num)]; ok { // the tag follows from the text
			return n, nil
		}
		if !json.Valid(num) {
			p.i = start
			return nil, p.fail("invalid value")
		}
		n := &node{Kind: scalarNode, Tag: tag, Value: string(num)}
		if len(num) <= 24 {
			if p.nums == nil {
				p.nums = map[string]*node{}
			}
			p.nums[n.Value] = n
		}
		return n, nil
	}
}

// strNode reads a JSON string at p.i as a scalar node: a short one
// without escapes is looked up before its bytes are copied, so that the
// keys and type names a document repeats cost nothing after the first.
func (p *jsonParser) strNode() (*node, error) {
	if end := p.i + 1; end < len(p.b) {
		for j := end; j < len(p.b) && j-end <= 24; j++ {
			c := p.b[j]
			if c == '"' {
				if n, ok := p.strs[string(p.b[end:j])]; ok {
					p.i = j + 1
					return n, nil
				}
				break
			}
			if c == '\\' || c < 0x20 {
				break
			}
		}
	}
	s, err := p.str()
	if err != nil {
		return nil, err
	}
	if len(s) > 24 {
		return &node{Kind: scalarNode, Tag: "!!str", Value: s}, nil
	}
	if p.strs == nil {
		p.strs = map[string]*node{}
	}
	n := &node{Kind: scalarNode, Tag: "!!str", Value: s}
	p.strs[s] = n
	return n, nil
}

// str reads a JSON string at p.i.
func (p *jsonParser) str() (string, error) {
	start := p.i
	p.i++
	escaped := false
	for p.i < len(p.b) {
		switch c := p.b[p.i]; {
		case c == '"':
			p.i++
			raw := p.b[start:p.i]
			if !escaped {
				if !utf8.Valid(raw) {
					return "", p.fail("a string is not UTF-8")
				}
				return string(raw[1 : len(raw)-1]), nil
			}
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return "", p.fail("invalid string: " + strconv.Quote(err.Error()))
			}
			return s, nil
		case c == '\\':
			escaped = true
			p.i += 2
		case c < 0x20:
			return "", p.fail("a control character in a string")
		default:
			p.i++
		}
	}
	return "", p.fail("unterminated string")
}
