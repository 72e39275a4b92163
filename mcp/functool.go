package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/panics"
	"github.com/mcpdual/mcpdual/internal/schema"
	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/internal/typeschema"
	"github.com/mcpdual/mcpdual/mcp/content"
)

// ToolResult is a function tool's result under its own control: the
// content blocks (text, images, audio, resource links...) as they are,
// for a function whose Out is *ToolResult.
type ToolResult struct {
	Content []content.Block
	// StructuredContent, when not nil, is encoded as JSON (it must encode
	// as an object) and sent as structuredContent from revision
	// 2025-06-18 on; with an OutputSchema it must validate against it.
	StructuredContent any
	// IsError marks a failure the model can act on.
	IsError bool
}

// NewToolError returns an error a function tool returns to end its call with
// an isError result whose one text block is msg, for the model to read
// and act on ("no note has that id", "the date is in the past"). It may be
// wrapped. Any other error is a server failure: logged, and answered with
// a generic text that never repeats the error's own.
func NewToolError(msg string) error { return &toolError{msg} }

type toolError struct{ msg string }

func (e *toolError) Error() string { return e.msg }

// funcTool is a tool served by a Go function: the untyped form AddToolFunc
// builds over its typed function. run decodes the arguments (validated
// against the input schema already), calls the function and encodes what
// it returned.
type funcTool struct {
	run func(ctx context.Context, args []byte) (out []byte, full *ToolResult, err error)
	// validate: the output may fail the output schema (constraints of a
	// given schema or of the type's own), so it is checked before it is
	// sent. Without it the encoding alone guarantees the schema holds.
	validate bool
}

// errDecode marks arguments that passed the schema but do not fit the Go
// type (a number too large for its field).
type errDecode struct {
	field  string
	folded bool // a member whose name differs from a field's only in case
}

func (e *errDecode) Error() string { return "arguments do not fit " + e.field }

// undecodable reports whether err is the arguments' failure to decode
// into the function's type (its own function: the target errors.As is
// given escapes, and a call that succeeds allocates nothing).
func undecodable(err error) bool {
	var d *errDecode
	return errors.As(err, &d)
}

// AddToolFunc registers t as a tool served by fn, a Go function: no HTTP
// request is built for a call. The input schema is In's and the output
// schema Out's (see package mcp/typeschema for the rules and the struct
// tags) unless t gives them; a given schema wins, and must fit the type:
// every property of the type's schema must be in it with a compatible
// type.
//
// A call runs through the same pipeline as a route's: the caller's scopes
// and permissions, the arguments validated against the input schema
// before fn runs (so in is always valid), the confirmation of a
// destructive tool before fn runs (ConfirmWithInput words it from in),
// limits, the observer, and a ctx that is canceled when the client goes
// and carries the verified identity (auth.FromContext,
// auth.WorkspaceFromContext) and the Call (CallFromContext: input
// requests through RequireInput — return the zero Out and nil after it —
// progress and log messages with WithStreaming).
//
// What fn returns is sent as structuredContent and as its JSON text
// (2025-06-18 on; only the text on 2025-03-26), encoded so that it
// validates against its schema: a nil slice or map is sent as [] or {},
// a nil pointer field as null (or left out with omitempty). An Out of *ToolResult sends the
// function's own content blocks instead. An error made with NewToolError is
// an isError result with its text; any other error, and a panic, is
// logged with the tool's name and answered with a generic isError text.
//
// In and Out must be structs (or pointers to one) or maps with string
// keys, as structuredContent and arguments are objects. In's schema leaves
// out the members encoding/json cannot decode into (those of an embedded
// pointer to a struct of an unexported type), so a call sending one is
// refused as invalid arguments. AddToolFunc panics
// where AddTool does, on such another type, on a given schema that does
// not fit the type (naming the field), and on options that only apply to
// routes (WithPlacement, WithTask).
func AddToolFunc[In, Out any](s *Server, t Tool, fn func(ctx context.Context, in In) (Out, error), opts ...ItemOption) {
	s.done(addFunc(s, t, fn, opts)) // panics as AddTool does, or joins a Register's refusals
}

func addFunc[In, Out any](s *Server, t Tool, fn func(ctx context.Context, in In) (Out, error), opts []ItemOption) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("mcp: tool %s: %s", t.Name, fmt.Sprintf(format, args...))
	}
	if fn == nil {
		return fail("nil function")
	}
	inSchema, err := typeschema.ForInput(reflect.TypeFor[In]())
	if err != nil {
		return fail("input: %v", err)
	}
	var folds *typeschema.Folds
	if t.InputSchema == nil {
		t.InputSchema = inSchema.JSON
	} else if _, err := typeschema.Compatible(t.InputSchema, inSchema.JSON, typeschema.Input); err != nil {
		return fail("inputSchema does not fit %s: %v", reflect.TypeFor[In](), err)
	} else {
		// A given schema may admit members it does not name; encoding/json
		// would decode one that differs from a field's name only in case
		// into that field, past the constraints the schema declares there.
		// (A derived schema admits no member it does not name.)
		folds = typeschema.NewFolds(reflect.TypeFor[In]())
	}
	ft := &funcTool{}
	var encode func(Out) ([]byte, error)
	if rt := reflect.TypeFor[Out](); rt == reflect.TypeFor[*ToolResult]() {
		ft.validate = t.OutputSchema != nil
	} else {
		outSchema, err := typeschema.For(rt)
		if err != nil {
			return fail("output: %v", err)
		}
		if t.OutputSchema == nil {
			t.OutputSchema = outSchema.JSON
			ft.validate = outSchema.Constrained
		} else if shaped, err := typeschema.Compatible(t.OutputSchema, outSchema.JSON, typeschema.Output); err != nil {
			return fail("outputSchema does not fit %s: %v", rt, err)
		} else {
			// A given schema that fits the type and asserts nothing but
			// its shape admits whatever the type encodes.
			ft.validate = !shaped || !typeschema.Structural(t.OutputSchema)
		}
		isPtr := rt.Kind() == reflect.Pointer
		encode = func(out Out) ([]byte, error) {
			if isPtr && reflect.ValueOf(&out).Elem().IsNil() {
				return nil, errors.New("the function returned a nil result and no error")
			}
			if outSchema.Addressable {
				// encoding/json calls a field's pointer-receiver MarshalJSON
				// or MarshalText (big.Float's) only on an addressable value,
				// and the schema says what they write.
				return encodeAddressable(outSchema, out)
			}
			return outSchema.Encode(out)
		}
	}
	ft.run = func(ctx context.Context, args []byte) ([]byte, *ToolResult, error) {
		if m := folds.Find(args); m != "" {
			return nil, nil, &errDecode{field: m, folded: true}
		}
		var in In
		if err := json.Unmarshal(args, &in); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) && te.Field != "" {
				return nil, nil, &errDecode{field: te.Field}
			}
			return nil, nil, &errDecode{field: "the input type"}
		}
		out, err := fn(ctx, in)
		if err != nil || CallFromContext(ctx).pending {
			return nil, nil, err
		}
		if encode == nil {
			full := any(out).(*ToolResult)
			if full == nil {
				return nil, nil, errors.New("the function returned a nil *ToolResult and no error")
			}
			return nil, full, nil
		}
		b, err := encode(out)
		if err != nil {
			return nil, nil, fmt.Errorf("encoding the result: %w", err)
		}
		return b, nil, nil
	}
	return s.addFuncTool(t, ft, opts)
}

// encodeAddressable encodes out through a pointer to its copy, so that
// only such results pay for the copy on the heap.
func encodeAddressable[Out any](s *typeschema.Schema, out Out) ([]byte, error) {
	return s.Encode(&out)
}

// addFuncTool registers a function tool: AddTool's checks, without a route.
func (s *Server) addFuncTool(t Tool, ft *funcTool, opts []ItemOption) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.notFrozen("AddToolFunc"); err != nil {
		return err
	}
	fail := func(format string, args ...any) error { return toolFail(t.Name, format, args...) }
	entry, _, err := s.toolBase(t)
	if err != nil {
		return err
	}
	entry.fn = ft
	for _, o := range opts {
		o.applyItem(&entry.opts)
	}
	switch {
	case entry.opts.completions != nil:
		return fail("WithCompletion applies to prompts and resource templates, not tools")
	case entry.opts.placement != nil:
		return fail("WithPlacement applies to route tools: a function gets its arguments decoded")
	case entry.opts.task != nil:
		return fail("WithTask applies to route tools whose job routes answer 202")
	}
	s.putTool(entry)
	return nil
}

// ConfirmWithInput is ConfirmWith for a tool whose arguments decode into
// In (AddToolFunc's, or a route's request type): prepare gets them decoded,
// after they passed the input schema, to word the question from server
// data. Everything ConfirmWith says holds.
func ConfirmWithInput[In any](prepare func(ctx context.Context, in In) (message string, err error)) ItemOption {
	if prepare == nil {
		panic("mcp: ConfirmWithInput needs a function")
	}
	return ConfirmWith(func(ctx context.Context, call *Call) (string, error) {
		var in In
		if err := json.Unmarshal(call.Arguments(), &in); err != nil {
			return "", errors.New("the arguments do not fit the tool's input")
		}
		return prepare(ctx, in)
	})
}

// internalToolError is the text of a tool that failed on the server's side.
const internalToolError = "The tool failed with an internal error."

// runFunc runs a function tool once the call passed every check a route
// call passes (scopes, validation, confirmation). Its context keeps the
// MCP request's values (there is no router to confuse) and adds the
// identity and the Call.
func (req *request) runFunc(t *tool, call *Call) (seam.Result, error) {
	ctx := req.identityContext(req.callPart.runContext(routeContext{Context: req.HTTP.Context(), call: call, fn: true}))
	out, full, p, err := t.fn.call(ctx, call.args)
	if p == nil && err != nil && ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		// The function gave up because its request ended: no outcome.
		return req.interrupted(t, call)
	}
	undecoded := p == nil && err != nil && undecodable(err)
	switch {
	case undecoded:
		// The arguments passed the schema but not the Go type: the
		// function never ran, and settle records that it did not.
		if call.idemKey != "" {
			req.audit(t, call, "not executed, arguments do not fit")
		}
	default:
		req.claim.recordFunc(err != nil, p != nil) // a confirmed call ran: a retry is told so
	}
	if call.idemKey != "" && !undecoded {
		outcome := "returned"
		switch {
		case p != nil:
			outcome = "panicked"
		case err != nil:
			outcome = "failed"
		}
		req.audit(t, call, "executed, "+outcome)
	}
	name := t.def.Name
	if p != nil {
		req.logError("mcp: tool function panicked", "tool", name, "panic", p)
		return textResult(internalToolError, true), nil
	}
	if call.pending {
		return req.pendingTool(t, call)
	}
	if err != nil {
		return req.funcFailed(name, err), nil
	}
	f := req.rev.f
	if full != nil {
		return req.fullResult(t, full, f)
	}
	if int64(len(out)) > req.handler.cfg.limits.ResponseBytes {
		return req.tooLarge(t), nil
	}
	if t.fn.validate && t.output != nil && !req.outputValid(t, out, false) {
		return textResult(internalToolError, true), nil
	}
	req.toolRes = toolResult{text: out, isText: true}
	if f.OutputSchema {
		req.toolRes.structured = out
	}
	return &req.toolRes, nil
}

// call runs the function, recovering a panic (described for the log:
// panics.Value).
func (ft *funcTool) call(ctx context.Context, args []byte) (out []byte, full *ToolResult, panicked any, err error) {
	defer func() {
		if v := recover(); v != nil {
			panicked = panics.Describe(v)
		}
	}()
	out, full, err = ft.run(ctx, args)
	return out, full, nil, err
}

// outputValid checks a tool's output against its output schema, logging
// why not. scanned: out has passed the strict scanner (jsonrpc.Validate),
// which the quick check requires; a function's encoded output has not
// (a MarshalJSON may write a lone surrogate escape encoding/json lets by).
// out is not written to again, so the decoded values may alias it.
func (req *request) outputValid(t *tool, out []byte, scanned bool) bool {
	if scanned = scanned || jsonrpc.Validate(out, jsonrpc.DefaultMaxDepth) == nil; scanned && t.output.Conforms(out) {
		return true
	}
	decoded, err := schema.DecodeShared(out, 0)
	if scanned && errors.Is(err, jsonrpc.ErrNumberTooLarge) {
		// The bound that keeps a validator safe from a client's numbers
		// holds for a tool's own: its output cannot be checked.
		req.logError("mcp: tool output holds a number the outputSchema cannot be checked against", "tool", t.def.Name, "err", err)
		return false
	}
	if !scanned || err != nil {
		req.logError("mcp: tool output is not JSON though the tool has an outputSchema", "tool", t.def.Name)
		return false
	}
	if v := t.output.Validate(decoded, maxViolations); v != nil {
		req.logError("mcp: tool output does not match its outputSchema", "tool", t.def.Name, "violations", v)
		return false
	}
	return true
}

// tooLarge answers a tool call whose response is over
// Limits.ResponseBytes, a route's or a function's, and logs it.
func (req *request) tooLarge(t *tool) *toolResult {
	req.logError("mcp: tool response over the size limit", "tool", t.def.Name, "limit", req.handler.cfg.limits.ResponseBytes)
	return textResult("The tool's response was too large.", true)
}

// fullResult renders a *ToolResult.
func (req *request) fullResult(t *tool, r *ToolResult, f features) (seam.Result, error) {
	legacy := !f.ResourceLinks
	n := len(r.Content) + 1 // the brackets and commas
	for _, c := range r.Content {
		if c.IsZero() {
			req.logError("mcp: tool function returned an empty content block", "tool", t.def.Name)
			return textResult(internalToolError, true), nil
		}
		n += len(c.JSON(legacy))
	}
	if int64(n-1) > req.handler.cfg.limits.ResponseBytes {
		return req.tooLarge(t), nil
	}
	req.toolRes = toolResult{isError: r.IsError}
	res := &req.toolRes
	if n > streamAbove {
		// The blocks' JSON is the builders' own and is not written to
		// again: a large result is written from it, with no copy.
		blocks := make([][]byte, len(r.Content))
		for i, c := range r.Content {
			blocks[i] = c.JSON(legacy)
		}
		res.blocks = &blocks
	} else {
		b := append(make([]byte, 0, n), '[')
		for i, c := range r.Content {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, c.JSON(legacy)...)
		}
		res.content = append(b, ']')
	}
	if r.StructuredContent == nil && f.OutputSchema && t.output != nil && !r.IsError {
		// An outputSchema promises structured results that conform.
		req.logError("mcp: tool function's result has no StructuredContent though the tool has an outputSchema", "tool", t.def.Name)
		return textResult(internalToolError, true), nil
	}
	if r.StructuredContent != nil && f.OutputSchema {
		s, err := json.Marshal(r.StructuredContent)
		if err != nil || !jsonrpc.IsObject(s) || jsonrpc.Validate(s, jsonrpc.DefaultMaxDepth) != nil {
			req.logError("mcp: tool function's StructuredContent is not a JSON object", "tool", t.def.Name, "err", err)
			return textResult(internalToolError, true), nil
		}
		if t.output != nil && !r.IsError && !req.outputValid(t, s, true) {
			return textResult(internalToolError, true), nil
		}
		res.structured = s
	}
	return res, nil
}

// funcFailed is the result of a function that returned err: the targets
// errors.As writes to live on the heap, so they are made only here, not
// on every call.
func (req *request) funcFailed(name string, err error) *toolResult {
	var te *toolError
	var de *errDecode
	switch {
	case errors.As(err, &te):
		return textResult(te.msg, true)
	case errors.As(err, &de) && de.folded:
		return textResult("Invalid arguments for tool "+name+": member "+strconv.Quote(de.field)+" differs from a field's name only in case", true)
	case errors.As(err, &de):
		return textResult("Invalid arguments for tool "+name+": a value does not fit "+strconv.Quote(de.field), true)
	}
	req.logError("mcp: tool function failed", "tool", name, "err", err)
	return textResult(internalToolError, true)
}

// maxViolations bounds how many schema violations a result lists.
const maxViolations = 10
