package openapi

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/mcpdual/mcpdual/mcp"
)

// The confirmation question of a destructive tool. A user asked to
// accept "Delete a repository" needs to see which one: the default
// question names the operation (its summary, method and path) and quotes
// the arguments that identify what changes, the path parameters first,
// then up to three short (at most 40 characters) string, number or
// boolean arguments the body requires. Every value goes through
// mcp.Quote; the question stays under the library's 500-character bound
// by leaving arguments out and saying how many.

const (
	maxKeyArgs   = 3
	maxKeyLen    = 40
	questionRoom = 440 // leaves room for the closing sentence
)

// confirmOption is the mcp.ConfirmWith of a destructive tool.
func (r *registrar) confirmOption(t *tool) mcp.ItemOption {
	op := t.op.public()
	custom := r.cfg.confirm
	title := first(t.def.Title, t.def.Name)
	ids, keys := t.pathArgs, t.keyArgs
	return mcp.ConfirmWith(func(_ context.Context, call *mcp.Call) (string, error) {
		args := decodeArgs(call.Arguments())
		if custom != nil {
			if msg := custom(op, args); msg != "" {
				return msg, nil
			}
		}
		return defaultQuestion(op, title, ids, keys, args), nil
	})
}

func decodeArgs(raw json.RawMessage) map[string]any {
	args := map[string]any{}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	_ = dec.Decode(&args) // the arguments were validated as an object
	return args
}

// argText renders a scalar argument, or reports that it is none.
func argText(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case json.Number:
		return v.String(), true
	case bool:
		return strconv.FormatBool(v), true
	}
	return "", false
}

func defaultQuestion(op Operation, title string, ids, keys []string, args map[string]any) string {
	var b strings.Builder
	b.WriteString("Confirm ")
	b.WriteString(mcp.Quote(title))
	if len(op.Path) <= 120 {
		b.WriteString(" (" + op.Method + " " + op.Path + ")")
	}
	var parts []string
	for _, name := range ids {
		if s, ok := argText(args[name]); ok {
			parts = append(parts, name+" "+mcp.Quote(s))
		}
	}
	shown := 0
	for _, name := range keys {
		if s, ok := argText(args[name]); ok && shown < maxKeyArgs && len(s) <= maxKeyLen {
			parts = append(parts, name+" "+mcp.Quote(s))
			shown++
		}
	}
	for i, p := range parts {
		sep := ", "
		if i == 0 {
			sep = " for "
		}
		if b.Len()+len(sep)+len(p) > questionRoom {
			b.WriteString(" and " + strconv.Itoa(len(parts)-i) + " more arguments, not shown")
			break
		}
		b.WriteString(sep + p)
	}
	b.WriteString(": this changes or deletes data and may not be undoable.")
	return b.String()
}
