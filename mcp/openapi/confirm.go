package openapi

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpdual/mcpdual/mcp"
)

// The confirmation question of a destructive tool. A user asked to
// accept "Delete a repository" needs to see which one: the default
// question names the operation (its summary, method and path) and quotes
// the arguments that identify what changes, the path parameters first,
// then up to three short (at most 40 characters) string, number or
// boolean arguments the body requires. Every value goes through
// mcp.Quote; the question stays under the library's 500-character bound,
// counted in characters as the library counts them: a path parameter's
// value too long to fit is shortened to its start and end, marked with how
// many characters are not shown; other arguments are left out, and the
// question says how many.

const (
	maxKeyArgs = 3
	maxKeyLen  = 40
	// questionRoom is the characters the question may take before its
	// closing sentence (55) and the count of arguments not shown (at
	// most 33), under the library's bound of 500.
	questionRoom = 410
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
	// The room is counted in characters, as the library bounds the
	// question: an escape is as many characters as it shows, a letter of
	// any script one.
	n := utf8.RuneCountInString(b.String())
	shown, hidden := 0, 0
	add := func(p string) {
		sep := ", "
		if shown == 0 {
			sep = " for "
		}
		b.WriteString(sep + p)
		n += utf8.RuneCountInString(sep + p)
		shown++
	}
	// A path parameter names what changes: it is shown, shortened (and
	// marked so) when the whole value does not fit. Each gets an equal
	// share of the room the earlier ones left, so the first cannot crowd
	// out the others.
	var present []string
	for _, name := range ids {
		if _, ok := argText(args[name]); ok {
			present = append(present, name)
		}
	}
	for i, name := range present {
		s, _ := argText(args[name])
		share := (questionRoom-n)/(len(present)-i) - len(" for ") - len(name+" ")
		if q, ok := quoteWithin(s, share); ok {
			add(name + " " + q)
		} else {
			hidden++
		}
	}
	keyed := 0
	for _, name := range keys {
		s, ok := argText(args[name])
		if !ok || keyed == maxKeyArgs || utf8.RuneCountInString(s) > maxKeyLen {
			continue
		}
		keyed++
		if p := name + " " + mcp.Quote(s); hidden == 0 && n+len(", ")+utf8.RuneCountInString(p) <= questionRoom {
			add(p)
		} else {
			hidden++
		}
	}
	if hidden > 0 {
		b.WriteString(" and " + strconv.Itoa(hidden) + " more arguments, not shown")
	}
	b.WriteString(": this changes or deletes data and may not be undoable.")
	return b.String()
}

// quoteWithin is mcp.Quote(s) if that fits in room characters; otherwise
// s's start and end, each quoted, around "…", and how many characters are
// not shown, as much of s as fits (the end of a value is where a
// look-alike differs, so it is kept too). ok is false when not even that
// fits.
func quoteWithin(s string, room int) (string, bool) {
	if q := mcp.Quote(s); utf8.RuneCountInString(q) <= room {
		return q, true
	}
	r := []rune(s)
	// Quote shows at most 80 characters whole; below that, the start and
	// the end are quoted as they are, with no cut of Quote's own.
	for k := min(len(r)-1, 72); k >= 2; k-- {
		head, tail := r[:k-k/3], r[len(r)-k/3:]
		q := `"` + inner(mcp.Quote(string(head))) + "…" + inner(mcp.Quote(string(tail))) + `" (` +
			strconv.Itoa(len(r)-len(head)-len(tail)) + " characters not shown)"
		if utf8.RuneCountInString(q) <= room {
			return q, true
		}
	}
	return "", false
}

// inner is a quoted value without its quotes.
func inner(q string) string { return q[1 : len(q)-1] }
