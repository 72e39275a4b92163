package openapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"math"
	"net/url"
	"strconv"
	"strings"
)

// document is a loaded OpenAPI 3 document: the node tree it was read
// into (see node), and what operations share from its top level.
type document struct {
	root        *node // the top-level mapping
	own         int   // values the document writes
	v30         bool  // OpenAPI 3.0: schemas are of the 3.0 dialect
	security    []*securityRequirement
	securityErr error // the top-level security is malformed (see security)
	servers     []*server
	// left is what converting the document may still make (see spend);
	// over is where it ran out.
	left int
	over string
}

// A schema is converted once for each tool that uses it (its $defs
// hold a copy of what it references), and an alias is converted each
// time it is met: what Register makes can outgrow the document by far
// more than its aliases do (see expansionLimit), an operation referring
// to a large schema a thousand times over. Conversion may make
// convertFactor values for each of the document's own, plus convertBase,
// and maxConverted in all. GitHub's document (475,521 values of its own,
// no aliases; 1,223 operations) makes 0.37 values for each of its own.
const (
	convertFactor = 16
	convertBase   = 100_000
	maxConverted  = 1 << 23
)

// errTooLarge stops one operation's conversion when the document's budget
// is spent; Register then fails with tooLarge (the document, not the
// operation, is at fault).
var errTooLarge = errors.New("the document converts to too many values")

// spend counts one value the conversion makes at ptr.
func (d *document) spend(ptr string) error {
	d.left--
	if d.left >= 0 {
		return nil
	}
	if d.over == "" {
		d.over = ptr
	}
	return errTooLarge
}

// tooLarge is the error Register returns when the conversion ran out.
func (d *document) tooLarge() error {
	if d.over == "" {
		return nil
	}
	return fmt.Errorf("openapi: %s: converting the document's schemas and examples made more than %d values (the document has %d of its own); its aliases or references repeat too much", d.over, d.limit(), d.own)
}

func (d *document) limit() int { return min(convertFactor*d.own+convertBase, maxConverted) }

// maxDepth bounds how deep a schema may nest (and so how deep the
// conversion recurses), whatever the document's aliases do.
const maxDepth = 64

func load(spec []byte) (*document, error) {
	root, own, err := parse(spec)
	if _, ok := err.(*docError); ok {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	if err != nil {
		return nil, fmt.Errorf("openapi: the document cannot be parsed: %w", err)
	}
	if root.Kind != mappingNode {
		return nil, fmt.Errorf("openapi: the document is not an object")
	}
	version := text(root, "openapi")
	if !strings.HasPrefix(version, "3.") {
		kind, found := "openapi", version
		if v := text(root, "swagger"); v != "" {
			kind, found = "swagger", v
		}
		return nil, fmt.Errorf("openapi: the document is not OpenAPI 3.x (found %s %s); convert Swagger 2.0 documents to OpenAPI 3 first", kind, found)
	}
	if d, ok := member(root, "jsonSchemaDialect"); ok && d.Value != dialect2020 {
		return nil, fmt.Errorf("openapi: /jsonSchemaDialect: only the JSON Schema 2020-12 dialect is supported, not %q", d.Value)
	}
	doc := &document{root: root, v30: strings.HasPrefix(version, "3.0"), servers: servers(root), own: own}
	doc.left = doc.limit()
	doc.security, _, doc.securityErr = security(root)
	return doc, nil
}

// resolve finds the node a local reference ("#/components/schemas/Pet")
// names, and returns it with its JSON pointer ("/components/schemas/Pet").
// chain yields n and each schema its root $ref leads to, in turn,
// following at most maxDepth references (as inline does: a longer chain is
// refused where it matters, see hidden); it ends at a schema without $ref
// or one that does not resolve (the conversion reports those).
func (d *document) chain(n *node) iter.Seq[*node] {
	return func(yield func(*node) bool) {
		for i := 0; i <= maxDepth && n != nil; i++ {
			if !yield(n) {
				return
			}
			ref, ok := member(n, "$ref")
			if !ok {
				return
			}
			n, _, _ = d.resolve(ref.Value)
		}
	}
}

func (d *document) resolve(ref string) (*node, string, error) {
	frag, ok := strings.CutPrefix(ref, "#")
	switch {
	case !ok:
		return nil, "", fmt.Errorf("$ref %q points outside the document; only references within it (#/...) are supported", ref)
	case frag != "" && !strings.HasPrefix(frag, "/"):
		return nil, "", fmt.Errorf("$ref %q names an anchor; only JSON pointers (#/...) are supported", ref)
	}
	ptr, err := url.PathUnescape(frag)
	if err != nil {
		return nil, "", fmt.Errorf("$ref %q: %v", ref, err)
	}
	n := d.root
	if ptr == "" {
		return n, "", nil
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = pointerUnescape(tok)
		var next *node
		switch n.Kind {
		case mappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == tok {
					next = n.Content[i+1]
					break
				}
			}
		case sequenceNode:
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(n.Content) {
				next = n.Content[i]
			}
		}
		if next == nil {
			return nil, "", fmt.Errorf("$ref %q points to nothing in the document", ref)
		}
		n = next
	}
	return n, ptr, nil
}

// member returns the value of key in mapping n.
func member(n *node, key string) (*node, bool) {
	if n == nil || n.Kind != mappingNode {
		return nil, false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1], true
		}
	}
	return nil, false
}

// value converts a YAML value (an enum entry, a default, an example) to
// JSON. ptr locates it for errors.
func (d *document) value(n *node, ptr string, depth int) (any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("%s: nested deeper than %d levels", ptr, maxDepth)
	}
	if err := d.spend(ptr); err != nil {
		return nil, err
	}
	switch n.Kind {
	case mappingNode:
		o := newObject()
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != scalarNode {
				return nil, fmt.Errorf("%s: a key is not a string", ptr)
			}
			v, err := d.value(n.Content[i+1], ptr+"/"+pointerEscape(k.Value), depth+1)
			if err != nil {
				return nil, err
			}
			o.set(k.Value, v)
		}
		return o, nil
	case sequenceNode:
		arr := make([]any, 0, len(n.Content))
		for i, c := range n.Content {
			v, err := d.value(c, ptr+"/"+strconv.Itoa(i), depth+1)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		return arr, nil
	case scalarNode:
		return scalar(n, ptr)
	}
	return nil, fmt.Errorf("%s: not a JSON value", ptr)
}

func scalar(n *node, ptr string) (json.RawMessage, error) {
	switch n.Tag {
	case "!!null":
		return json.RawMessage("null"), nil
	case "!!bool":
		b, err := strconv.ParseBool(n.Value)
		if err != nil {
			return nil, fmt.Errorf("%s: %q is not a boolean", ptr, n.Value)
		}
		return json.RawMessage(strconv.FormatBool(b)), nil
	case "!!int":
		if i, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64); err == nil {
			return json.RawMessage(strconv.FormatInt(i, 10)), nil
		}
		if _, err := strconv.ParseFloat(n.Value, 64); err == nil && json.Valid([]byte(n.Value)) {
			return json.RawMessage(n.Value), nil // a large integer, kept as written
		}
		return nil, fmt.Errorf("%s: %q is not an integer JSON can carry", ptr, n.Value)
	case "!!float":
		if json.Valid([]byte(n.Value)) {
			return json.RawMessage(n.Value), nil // as written: no rounding
		}
		f, err := strconv.ParseFloat(n.Value, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, fmt.Errorf("%s: %q is not a number JSON can carry", ptr, n.Value)
		}
		return json.RawMessage(strconv.FormatFloat(f, 'g', -1, 64)), nil
	}
	// Strings, and YAML's timestamps and other scalars, as text.
	return encodeString(n.Value), nil
}
