package mcp

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/mcpdual/mcpdual/mcp/auth"
)

type itemOptions struct {
	placement   *Placement
	scopes      []string
	noConfirm   bool
	prepare     func(ctx context.Context, call *Call) (string, error)
	completions map[string]CompletionFunc
	task        *taskSpec // WithTask, tools only
}

// ItemOption configures one registered tool, resource, resource template
// or prompt.
type ItemOption interface{ applyItem(*itemOptions) }

type itemOptionFunc func(*itemOptions)

func (f itemOptionFunc) applyItem(o *itemOptions) { f(o) }

// RequireScopes makes the item need every one of scopes (with WithAuth). A
// token lacking one does not see the item in its list, and using it is
// answered 403 with an insufficient_scope challenge naming every scope the
// request needs, so the client can step up. It panics on a scope that is
// not an RFC 6750 scope token (printable ASCII without spaces, double
// quotes or backslashes).
func RequireScopes(scopes ...string) ItemOption {
	for _, s := range scopes {
		if !auth.ValidScope(s) {
			panic(fmt.Sprintf("mcp: RequireScopes: invalid scope %q: RFC 6750 allows printable ASCII without spaces, quotes or backslashes", s))
		}
	}
	cp := append([]string(nil), scopes...)
	return itemOptionFunc(func(o *itemOptions) { o.scopes = append(o.scopes, cp...) })
}

// applyItemOptions applies the options of a resource, template or prompt;
// completions are allowed only for the
// arguments in completable (nil: the item takes none).
func applyItemOptions(opts []ItemOption, what string, completable map[string]bool) (itemOptions, error) {
	var o itemOptions
	for _, opt := range opts {
		opt.applyItem(&o)
	}
	args := make([]string, 0, len(o.completions))
	for a := range o.completions {
		args = append(args, a)
	}
	sort.Strings(args)
	for _, a := range args {
		if !completable[a] {
			return o, fmt.Errorf("mcp: %s: WithCompletion(%q): no such argument", what, a)
		}
	}
	if o.noConfirm || o.prepare != nil {
		return o, errors.New("mcp: " + what + ": confirmation options apply to tools only")
	}
	if o.task != nil {
		return o, errors.New("mcp: " + what + ": WithTask applies to tools only")
	}
	return o, nil
}

// CompletionFunc suggests values for one argument of a prompt or one
// variable of a resource template, given what the user typed so far and,
// from 2025-06-18 on, the values of the other arguments the client sent
// (those the prompt or template declares; any others are not passed).
// The endpoint sends at most 100 of them, with the total and whether
// there were more.
type CompletionFunc func(ctx context.Context, value string, args map[string]string) ([]string, error)

// Placement says where a tool's arguments go in its route's request, for
// routes that take some arguments in the query and others in the body, or a
// body that is not a JSON object of the remaining arguments. The default,
// without WithPlacement: path wildcards in the path, every other argument in
// the query for GET, HEAD and DELETE and in a JSON object body otherwise.
// With a Placement, arguments go to the body on every method but GET and
// HEAD (whose arguments all go to the query).
type Placement struct {
	// Query names arguments sent in the query string whatever the method.
	Query []string
	// Body names the one argument whose value is the whole JSON body (an
	// array, a string, an object...); every other argument that is not a
	// wildcard then goes to the query. "" makes the body an object of the
	// arguments placed nowhere else.
	Body string
	// Form sends the remaining arguments as an
	// application/x-www-form-urlencoded body instead of JSON: strings,
	// numbers and booleans as text, arrays as repeated fields, objects as
	// JSON text.
	Form bool
}
