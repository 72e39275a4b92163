package openapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
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
// tree is then copied (YAML aliases become shared nodes).
func parse(spec []byte) (*node, error) {
	for _, c := range spec {
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			continue
		}
		if c == '{' {
			if n, err := parseJSON(spec); err == nil {
				return n, nil
			}
		}
		break
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(spec, &doc); err != nil {
		return nil, err
	}
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		return fromYAML(doc.Content[0], map[*yaml.Node]*node{}, 0)
	}
	return nil, errors.New("not one YAML or JSON document")
}

func fromYAML(y *yaml.Node, seen map[*yaml.Node]*node, depth int) (*node, error) {
	for i := 0; y != nil && y.Kind == yaml.AliasNode; i++ {
		if i == maxDepth {
			return nil, errors.New("an alias chain does not end")
		}
		y = y.Alias
	}
	if y == nil {
		return nil, errors.New("an alias names nothing")
	}
	if n, ok := seen[y]; ok {
		return n, nil
	}
	if depth > 4*maxDepth {
		return nil, fmt.Errorf("line %d: nested too deep", y.Line)
	}
	n := &node{Value: y.Value}
	seen[y] = n
	switch y.Kind {
	case yaml.ScalarNode:
		n.Kind, n.Tag = scalarNode, y.ShortTag()
		return n, nil
	case yaml.MappingNode:
		n.Kind = mappingNode
	case yaml.SequenceNode:
		n.Kind = sequenceNode
	default:
		return nil, fmt.Errorf("line %d: not a JSON value", y.Line)
	}
	n.Content = make([]*node, 0, len(y.Content))
	for i, c := range y.Content {
		cn, err := fromYAML(c, seen, depth+1)
		if err != nil {
			return nil, err
		}
		if n.Kind == mappingNode && i%2 == 0 && cn.Kind != scalarNode {
			return nil, fmt.Errorf("line %d: a key is not a string", c.Line)
		}
		n.Content = append(n.Content, cn)
	}
	return n, nil
}

// parseJSON reads a JSON text into nodes, in one pass over the bytes.
func parseJSON(b []byte) (*node, error) {
	p := &jsonParser{b: b}
	n, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(p.b) {
		return nil, p.fail("text after the document")
	}
	return n, nil
}

type jsonParser struct {
	b []byte
	i int
	// Scalars repeat ("string", "object", true): one node each is shared.
	common map[string]*node
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
		for {
			if n.Kind == mappingNode {
				p.space()
				if p.i >= len(p.b) || p.b[p.i] != '"' {
					return nil, p.fail("a key must be a string")
				}
				k, err := p.str()
				if err != nil {
					return nil, err
				}
				p.space()
				if p.i >= len(p.b) || p.b[p.i] != ':' {
					return nil, p.fail("':' expected")
				}
				p.i++
				n.Content = append(n.Content, p.scalar("!!str", k))
			}
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, v)
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
			return n, nil
		}
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return p.scalar("!!str", s), nil
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range [...]struct{ text, tag string }{{"true", "!!bool"}, {"false", "!!bool"}, {"null", "!!null"}} {
			if len(p.b)-p.i >= len(lit.text) && string(p.b[p.i:p.i+len(lit.text)]) == lit.text {
				p.i += len(lit.text)
				return p.scalar(lit.tag, lit.text), nil
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
		if !json.Valid(p.b[start:p.i]) {
			p.i = start
			return nil, p.fail("invalid value")
		}
		return p.scalar(tag, string(p.b[start:p.i])), nil
	}
}

// scalar returns a scalar node, shared with every other one alike when
// the text is short (type names, formats, flags, small numbers).
func (p *jsonParser) scalar(tag, text string) *node {
	if len(text) > 24 {
		return &node{Kind: scalarNode, Tag: tag, Value: text}
	}
	if p.common == nil {
		p.common = map[string]*node{}
	}
	key := tag + text
	if n, ok := p.common[key]; ok {
		return n
	}
	n := &node{Kind: scalarNode, Tag: tag, Value: text}
	p.common[key] = n
	return n
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
