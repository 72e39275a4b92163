package openapi

import (
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"math"
	"net/url"
	"strconv"
	"strings"

	"github.com/pb33f/go-yaml"
	"github.com/pb33f/libopenapi"
	"github.com/pb33f/libopenapi/datamodel"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
)

// document is a loaded OpenAPI 3 document: libopenapi's model for the
// structure (paths, operations, parameters, bodies, responses, security),
// and the YAML node tree it parsed, from which schemas are taken as
// written.
type document struct {
	model *v3.Document
	root  *yaml.Node // the top-level mapping
	v30   bool       // OpenAPI 3.0: schemas are of the 3.0 dialect
}

// maxDepth bounds how deep a schema may nest (and so how deep the
// conversion recurses), whatever the document's aliases do.
const maxDepth = 64

func load(spec []byte) (*document, error) {
	cfg := &datamodel.DocumentConfiguration{
		// libopenapi logs to standard output by default; a library
		// registering tools must not print.
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		// Nothing is fetched: a $ref outside the document is reported at
		// the operation that uses it, with its JSON pointer.
		SkipExternalRefResolution: true,
	}
	d, err := libopenapi.NewDocumentWithConfiguration(spec, cfg)
	if err != nil {
		return nil, fmt.Errorf("openapi: the document cannot be parsed: %w", err)
	}
	info := d.GetSpecInfo()
	if info.SpecType != "openapi" || !strings.HasPrefix(info.Version, "3.") {
		return nil, fmt.Errorf("openapi: the document is not OpenAPI 3.x (found %s %s); convert Swagger 2.0 documents to OpenAPI 3 first", info.SpecType, info.Version)
	}
	m, err := d.BuildV3Model()
	if m == nil {
		return nil, fmt.Errorf("openapi: the document cannot be read: %w", err)
	}
	// Any other error of the build concerns a $ref; every $ref an
	// operation uses is resolved again, and reported with its pointer,
	// when that operation is registered.
	root := info.RootNode
	if root != nil && root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root == nil || root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("openapi: the document is not an object")
	}
	if d, ok := member(root, "jsonSchemaDialect"); ok && d.Value != dialect2020 {
		return nil, fmt.Errorf("openapi: /jsonSchemaDialect: only the JSON Schema 2020-12 dialect is supported, not %q", d.Value)
	}
	return &document{model: &m.Model, root: root, v30: strings.HasPrefix(info.Version, "3.0")}, nil
}

// resolve finds the node a local reference ("#/components/schemas/Pet")
// names, and returns it with its JSON pointer ("/components/schemas/Pet").
// chain yields n and each schema its root $ref leads to, in turn, at
// most maxDepth of them; it ends at a schema without $ref or one that
// does not resolve (the conversion reports those).
func (d *document) chain(n *yaml.Node) iter.Seq[*yaml.Node] {
	return func(yield func(*yaml.Node) bool) {
		for i := 0; i < maxDepth && n != nil; i++ {
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

func (d *document) resolve(ref string) (*yaml.Node, string, error) {
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
		n = deref(n)
		var next *yaml.Node
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == tok {
					next = n.Content[i+1]
					break
				}
			}
		case yaml.SequenceNode:
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(n.Content) {
				next = n.Content[i]
			}
		}
		if next == nil {
			return nil, "", fmt.Errorf("$ref %q points to nothing in the document", ref)
		}
		n = next
	}
	return deref(n), ptr, nil
}

// deref follows YAML aliases.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < maxDepth; i++ {
		n = n.Alias
	}
	return n
}

// member returns the value of key in mapping n.
func member(n *yaml.Node, key string) (*yaml.Node, bool) {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return deref(n.Content[i+1]), true
		}
	}
	return nil, false
}

// value converts a YAML value (an enum entry, a default, an example) to
// JSON. ptr locates it for errors.
func value(n *yaml.Node, ptr string, depth int) (any, error) {
	n = deref(n)
	if depth > maxDepth {
		return nil, fmt.Errorf("%s: nested deeper than %d levels", ptr, maxDepth)
	}
	switch n.Kind {
	case yaml.MappingNode:
		o := newObject()
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := deref(n.Content[i])
			if k.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("%s: a key is not a string", ptr)
			}
			v, err := value(n.Content[i+1], ptr+"/"+pointerEscape(k.Value), depth+1)
			if err != nil {
				return nil, err
			}
			o.set(k.Value, v)
		}
		return o, nil
	case yaml.SequenceNode:
		arr := make([]any, 0, len(n.Content))
		for i, c := range n.Content {
			v, err := value(c, ptr+"/"+strconv.Itoa(i), depth+1)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		return arr, nil
	case yaml.ScalarNode:
		return scalar(n, ptr)
	}
	return nil, fmt.Errorf("%s: not a JSON value", ptr)
}

func scalar(n *yaml.Node, ptr string) (json.RawMessage, error) {
	switch n.ShortTag() {
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
