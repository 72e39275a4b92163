package openapi

import (
	"strings"

	"github.com/mcpdual/mcpdual/mcp"
)

// Option configures Register.
type Option interface{ apply(*config) }

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

type config struct {
	tags, paths, ops []string
	overrides        map[string]Override
	resources        []resourceSpec
	prefix           *string
	strict           bool
	namer            func(Operation) string
	confirm          func(Operation, map[string]any) string
	outputs          OutputMode
}

// An operation is named by its operationId or by "METHOD /path" as the
// document writes it ("GET /emails/{id}"), so that operations without an
// operationId can be named too.
func (o *operation) is(name string) bool {
	if name == o.id && o.id != "" {
		return true
	}
	method, path, ok := strings.Cut(name, " ")
	return ok && strings.EqualFold(method, o.method) && path == o.path
}

// WithTags registers the operations that have at least one of tags.
// Selections add up: with WithTags, WithPaths and WithOperations together,
// an operation any of them selects is registered; with none of them, every
// operation is.
func WithTags(tags ...string) Option {
	cp := append([]string(nil), tags...)
	return optionFunc(func(c *config) { c.tags = append(c.tags, cp...) })
}

// WithPaths registers the operations whose path (as the document writes
// it, without the server's prefix) is one of prefixes or lies below one:
// "/emails" selects /emails, /emails/{id} and /emails/{id}/reprocess.
func WithPaths(prefixes ...string) Option {
	cp := append([]string(nil), prefixes...)
	return optionFunc(func(c *config) { c.paths = append(c.paths, cp...) })
}

// WithOperations registers the named operations (operationIds, or
// "METHOD /path"), first and in the order given; other selected operations
// follow in document order. Tools are listed in registration order, so
// this also orders tools/list.
func WithOperations(names ...string) Option {
	cp := append([]string(nil), names...)
	return optionFunc(func(c *config) { c.ops = append(c.ops, cp...) })
}

// Override changes what the document says about one operation's tool,
// for what a document cannot say (a destructive POST, a confirmation
// message) or says differently than the tool should. Zero fields keep the
// document's word.
type Override struct {
	// Name replaces the operationId as the tool's name.
	Name string
	// Title and Description replace the operation's summary and
	// description.
	Title       string
	Description string
	// Annotations replaces the hints derived from the HTTP method.
	Annotations *mcp.Annotations
	// Scopes, when not nil, replaces the scopes derived from the
	// operation's security requirements; an empty slice requires none.
	Scopes []string
	// Options are added to the tool's registration: mcp.ConfirmWith,
	// mcp.WithoutConfirmation, mcp.RequireScopes...
	Options []mcp.ItemOption
}

// WithOverride applies o to the tool of operation (an operationId or
// "METHOD /path"). Register fails when the document has no such
// operation, so a renamed operation cannot silently lose its override.
func WithOverride(operation string, o Override) Option {
	o.Options = append([]mcp.ItemOption(nil), o.Options...)
	if o.Scopes != nil {
		o.Scopes = append([]string{}, o.Scopes...)
	}
	return optionFunc(func(c *config) {
		if c.overrides == nil {
			c.overrides = map[string]Override{}
		}
		c.overrides[operation] = o
	})
}

type resourceSpec struct {
	operation string
	resource  *mcp.Resource
	template  *mcp.ResourceTemplate
	opts      []mcp.ItemOption
}

// WithResource also registers GET operation as the fixed resource r, read
// through the same route. Empty fields of r come from the document: Name
// from the operationId, Title and Description from the summary and
// description, MIMEType from the media type of the 2xx response. r.URI is
// required, and the operation's path must have no parameters.
func WithResource(operation string, r mcp.Resource, opts ...mcp.ItemOption) Option {
	cp := append([]mcp.ItemOption(nil), opts...)
	return optionFunc(func(c *config) {
		c.resources = append(c.resources, resourceSpec{operation: operation, resource: &r, opts: cp})
	})
}

// WithResourceTemplate also registers GET operation as the resource
// template t, read through the same route: each variable of t.URITemplate
// must be a path or query parameter of the operation, and each path
// parameter a variable. Empty fields of t come from the document as for
// WithResource.
func WithResourceTemplate(operation string, t mcp.ResourceTemplate, opts ...mcp.ItemOption) Option {
	cp := append([]mcp.ItemOption(nil), opts...)
	return optionFunc(func(c *config) {
		c.resources = append(c.resources, resourceSpec{operation: operation, template: &t, opts: cp})
	})
}

// WithPathPrefix sets what goes before each path of the document to form
// the host's route ("/api/v1"). Without it, the prefix is the path of the
// first server URL the operation, its path item or the document declares
// (server variables take their defaults).
func WithPathPrefix(prefix string) Option {
	p := strings.TrimRight(prefix, "/")
	return optionFunc(func(c *config) { c.prefix = &p })
}

// SkipUnsupported is what Register does without FailUnsupported: it is
// kept so that calls written before it was the default read the same.
func SkipUnsupported() Option {
	return optionFunc(func(c *config) { c.strict = false })
}

// FailUnsupported makes Register fail, and register nothing, when a
// selected operation cannot be a tool, with every problem listed (the
// operation and the JSON pointer of the construct), instead of skipping
// it and listing it in Report.Skipped. Use it for a document you own, so
// that an operation does not silently go missing.
func FailUnsupported() Option {
	return optionFunc(func(c *config) { c.strict = true })
}

// Operation describes an operation of the document to the functions of
// WithNamer and WithConfirm.
type Operation struct {
	Method      string // upper case: "DELETE"
	Path        string // as the document writes it: "/repos/{owner}/{repo}"
	OperationID string // "" when the document gives none
	Summary     string
	Tags        []string
}

// WithNamer names each tool with name(op) instead of the rule of
// [Register] (the operationId made valid, or the method and path). A name
// it returns must be a valid tool name (1 to 128 of A-Z a-z 0-9 _ - .);
// "" falls back to the rule, as a nil name does for every operation.
// Override.Name still wins, and two operations given one name are told
// apart as the rule does (see Register).
func WithNamer(name func(op Operation) string) Option {
	return optionFunc(func(c *config) { c.namer = name })
}

// WithConfirm writes the confirmation question of every destructive tool
// the document makes (DELETE operations, and those an Override marks
// destructive) with message(op, args), where args are the call's
// arguments. Wrap each value taken from args in mcp.Quote. An Override's
// mcp.ConfirmWith still wins for its operation. Without WithConfirm, the
// question names the operation and quotes its identifying arguments: the
// path parameters, then up to three short string, number or boolean
// arguments the body requires; so does a message that returns "", and a
// nil message.
func WithConfirm(message func(op Operation, args map[string]any) string) Option {
	return optionFunc(func(c *config) { c.confirm = message })
}

// OutputMode says what a tool does with the output schema the document
// gives its 2xx answer.
type OutputMode int

const (
	// OutputStrict declares the output schema and checks every answer
	// against it: an answer that does not match is not shown, and the
	// model gets a tool error saying the API's answer did not match its
	// document. The default.
	OutputStrict OutputMode = iota
	// OutputLenient declares the output schema and checks every answer:
	// an answer that does not match is still shown, as text without
	// structured content, followed by a note saying it does not match
	// the document.
	OutputLenient
	// OutputOff declares no output schema: answers are shown as text.
	OutputOff
)

// WithOutputSchemas sets how tools use the document's output schemas
// (OutputStrict by default). A mismatch is logged through slog.Default
// once per tool, with the tool and the schema violations (never the
// answer's data). A 2025-03-26 client, which is told of no output schema,
// gets answers unchecked, as text. A mode other than the three acts as
// OutputStrict.
func WithOutputSchemas(mode OutputMode) Option {
	return optionFunc(func(c *config) { c.outputs = mode })
}
