package openapi

import (
	"errors"
	"fmt"
	"iter"
	"strings"
)

// The parts of an OpenAPI document a tool is made of, read from the node
// tree: operations with their parameters, request bodies, responses,
// security requirements and servers. References to parameters, request
// bodies, responses, examples and path items are followed here (each
// reference's pointer is kept, for errors); schemas stay nodes as
// written, for the converter. Only what tools need is read.

// omap is an ordered map: the document's order is the tools' order.
type omap[V any] struct {
	keys []string
	vals []V
}

func (m *omap[V]) add(k string, v V) {
	m.keys = append(m.keys, k)
	m.vals = append(m.vals, v)
}

func (m *omap[V]) Len() int {
	if m == nil {
		return 0
	}
	return len(m.keys)
}

func (m *omap[V]) FromOldest() iter.Seq2[string, V] {
	return func(yield func(string, V) bool) {
		if m == nil {
			return
		}
		for i, k := range m.keys {
			if !yield(k, m.vals[i]) {
				return
			}
		}
	}
}

// first returns the first entry.
func (m *omap[V]) first() (string, V) { return m.keys[0], m.vals[0] }

func (m *omap[V]) GetOrZero(k string) V {
	var zero V
	if m == nil {
		return zero
	}
	for i, key := range m.keys {
		if key == k {
			return m.vals[i]
		}
	}
	return zero
}

type pathItem struct {
	Parameters []*parameter
	Servers    []*server
	ops        *omap[*opModel]
}

type opModel struct {
	OperationId, Summary, Description string
	Tags                              []string
	Deprecated                        *bool
	Parameters                        []*parameter
	RequestBody                       *requestBody
	bodyPtr                           string // where the request body is written (after a $ref)
	bodyErr                           error  // a reference that does not resolve
	Responses                         *responses
	Security                          []*securityRequirement
	hasSecurity                       bool  // security is written, even as []
	securityErr                       error // security is written but is not a list of requirements
	Servers                           []*server
}

type parameter struct {
	Name, In, Style, Description string
	Required, Explode            *bool
	Deprecated                   bool
	Schema                       *node
	Content                      *omap[*mediaType]
	Example                      *node
	Examples                     *omap[*example]
	ptr                          string // where it is written (after a $ref); "" when inline
	err                          error  // a reference that does not resolve
}

type mediaType struct {
	Schema   *node
	Encoding *omap[*encoding]
}

type encoding struct {
	ContentType, Style string
	Explode            *bool
}

type requestBody struct {
	Description string
	Required    *bool
	Content     *omap[*mediaType]
}

type responses struct{ Codes *omap[*respModel] }

type respModel struct {
	Content *omap[*mediaType]
	err     error // the response does not resolve (see follow)
}

type securityRequirement struct {
	Requirements             *omap[[]string]
	ContainsEmptyRequirement bool
}

type server struct {
	URL       string
	Variables *omap[*serverVariable]
}

type serverVariable struct{ Default string }

type example struct{ Value *node }

// text returns member k of mapping n as a string ("" when absent).
func text(n *node, k string) string {
	if v, ok := member(n, k); ok && v.Kind == scalarNode {
		return v.Value
	}
	return ""
}

func flag(n *node, k string) *bool {
	if v, ok := member(n, k); ok && v.Kind == scalarNode && v.Tag == "!!bool" {
		b := v.Value == "true"
		return &b
	}
	return nil
}

// pairs yields the members of mapping n.
func pairs(n *node) iter.Seq2[string, *node] {
	return func(yield func(string, *node) bool) {
		if n == nil || n.Kind != mappingNode {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if !yield(n.Content[i].Value, n.Content[i+1]) {
				return
			}
		}
	}
}

// follow resolves n when it is a reference object ({"$ref": "#/..."}),
// returning what it names and its pointer ("" when n is not a
// reference). It follows at most maxDepth references, as inline does.
func (d *document) follow(n *node) (*node, string, error) {
	ptr := ""
	for i := 0; ; i++ {
		ref, ok := member(n, "$ref")
		if !ok || ref.Kind != scalarNode {
			return n, ptr, nil
		}
		if i == maxDepth {
			return nil, ptr, fmt.Errorf("the $ref chain at %s does not end", ptr)
		}
		target, tptr, err := d.resolve(ref.Value)
		if err != nil {
			return nil, ptr, err
		}
		n, ptr = target, tptr
	}
}

var methods = map[string]bool{"get": true, "put": true, "post": true, "delete": true, "options": true, "head": true, "patch": true, "trace": true}

// operations lists the document's operations in document order.
func (d *document) operations() []*operation {
	paths, _ := member(d.root, "paths")
	var ops []*operation
	for path, raw := range pairs(paths) {
		itemNode, _, err := d.follow(raw)
		if err != nil || itemNode == nil {
			itemNode = &node{Kind: mappingNode}
		}
		item := &pathItem{Parameters: d.parameters(itemNode), Servers: servers(itemNode), ops: &omap[*opModel]{}}
		for method, opNode := range pairs(itemNode) {
			if !methods[method] {
				continue
			}
			op := d.operation(opNode)
			ops = append(ops, &operation{
				method: strings.ToUpper(method), path: path, id: op.OperationId,
				ptr:  "/paths/" + pointerEscape(path) + "/" + method,
				item: item, op: op,
			})
		}
	}
	return ops
}

func (d *document) operation(n *node) *opModel {
	op := &opModel{
		OperationId: text(n, "operationId"), Summary: text(n, "summary"), Description: text(n, "description"),
		Deprecated: flag(n, "deprecated"), Parameters: d.parameters(n), Servers: servers(n),
	}
	if tags, ok := member(n, "tags"); ok {
		for _, t := range tags.Content {
			op.Tags = append(op.Tags, t.Value)
		}
	}
	if rb, ok := member(n, "requestBody"); ok {
		target, ptr, err := d.follow(rb)
		op.bodyPtr = ptr
		if err == nil && target != nil {
			op.RequestBody = &requestBody{Description: text(target, "description"), Required: flag(target, "required"), Content: d.content(target)}
		} else {
			op.RequestBody, op.bodyErr = &requestBody{}, err
		}
	}
	if rs, ok := member(n, "responses"); ok {
		op.Responses = &responses{Codes: &omap[*respModel]{}}
		for code, r := range pairs(rs) {
			target, _, err := d.follow(r)
			if err != nil {
				op.Responses.Codes.add(code, &respModel{err: err})
				continue
			}
			op.Responses.Codes.add(code, &respModel{Content: d.content(target)})
		}
	}
	op.Security, op.hasSecurity, op.securityErr = security(n)
	return op
}

func (d *document) parameters(n *node) []*parameter {
	list, ok := member(n, "parameters")
	if !ok {
		return nil
	}
	out := make([]*parameter, 0, len(list.Content))
	for _, raw := range list.Content {
		target, ptr, err := d.follow(raw)
		if err != nil || target == nil {
			out = append(out, &parameter{ptr: ptr, err: err})
			continue
		}
		p := &parameter{
			Name: text(target, "name"), In: text(target, "in"), Style: text(target, "style"), Description: text(target, "description"),
			Required: flag(target, "required"), Explode: flag(target, "explode"), ptr: ptr,
		}
		if dep := flag(target, "deprecated"); dep != nil {
			p.Deprecated = *dep
		}
		p.Schema, _ = member(target, "schema")
		p.Example, _ = member(target, "example")
		if c, ok := member(target, "content"); ok {
			p.Content = d.contentOf(c)
		}
		if exs, ok := member(target, "examples"); ok {
			p.Examples = &omap[*example]{}
			for name, ex := range pairs(exs) {
				t, _, err := d.follow(ex)
				if err != nil || t == nil {
					continue
				}
				v, _ := member(t, "value")
				p.Examples.add(name, &example{Value: v})
			}
		}
		out = append(out, p)
	}
	return out
}

func (d *document) content(n *node) *omap[*mediaType] {
	c, ok := member(n, "content")
	if !ok {
		return nil
	}
	return d.contentOf(c)
}

func (d *document) contentOf(c *node) *omap[*mediaType] {
	out := &omap[*mediaType]{}
	for ct, mt := range pairs(c) {
		m := &mediaType{}
		m.Schema, _ = member(mt, "schema")
		if enc, ok := member(mt, "encoding"); ok {
			m.Encoding = &omap[*encoding]{}
			for name, e := range pairs(enc) {
				m.Encoding.add(name, &encoding{ContentType: text(e, "contentType"), Style: text(e, "style"), Explode: flag(e, "explode")})
			}
		}
		out.add(ct, m)
	}
	return out
}

// security reads a security member: present when it is written, bad when
// it is not a list of requirement objects each mapping a scheme to a list
// of scopes. A malformed one must not be read as what it resembles: a
// mapping's entries, or null, would read as empty requirements, that is
// as "anonymous allowed", and hide the document's own requirement.
func security(n *node) (_ []*securityRequirement, present bool, bad error) {
	list, ok := member(n, "security")
	if !ok {
		return nil, false, nil
	}
	if list.Kind != sequenceNode {
		return nil, true, errors.New("security is not a list of requirement objects")
	}
	out := []*securityRequirement{}
	for i, req := range list.Content {
		if req.Kind != mappingNode {
			return nil, true, fmt.Errorf("security/%d is not a requirement object", i)
		}
		r := &securityRequirement{Requirements: &omap[[]string]{}}
		for name, scopes := range pairs(req) {
			if scopes.Kind != sequenceNode {
				return nil, true, fmt.Errorf("security/%d/%s is not a list of scopes", i, name)
			}
			var s []string
			for _, v := range scopes.Content {
				if v.Kind != scalarNode {
					return nil, true, fmt.Errorf("security/%d/%s holds a scope that is not a string", i, name)
				}
				s = append(s, v.Value)
			}
			r.Requirements.add(name, s)
		}
		r.ContainsEmptyRequirement = r.Requirements.Len() == 0
		out = append(out, r)
	}
	return out, true, nil
}

func servers(n *node) []*server {
	list, ok := member(n, "servers")
	if !ok {
		return nil
	}
	var out []*server
	for _, s := range list.Content {
		srv := &server{URL: text(s, "url")}
		if vars, ok := member(s, "variables"); ok {
			srv.Variables = &omap[*serverVariable]{}
			for name, v := range pairs(vars) {
				srv.Variables.add(name, &serverVariable{Default: text(v, "default")})
			}
		}
		out = append(out, srv)
	}
	return out
}
