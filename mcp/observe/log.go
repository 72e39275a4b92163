package observe

import (
	"context"
	"log/slog"
	"time"
)

// AccessLog returns an Observer that writes one line per MCP request to
// logger, at Info (Warn for a server-side failure: a 5xx status or an
// internal error code), with the request's context, so a handler that
// adds trace ids finds them. The line is "mcp: request" with the
// Event's fields: transport, method, id, target, version, principal,
// workspace, client (the peer's address), status, code, resultType,
// toolError, retry, confirmation, bytesIn, bytesOut and durationMs (empty,
// zero and false fields left out, durationMs aside). Route calls are not
// logged: the host's own access log sees them.
//
// The target is what the client sent; it is a name or a URI, never an
// argument. Arguments, results and tokens are never logged. It panics on a
// nil logger.
func AccessLog(logger *slog.Logger) Observer {
	if logger == nil {
		panic("observe: AccessLog needs a logger")
	}
	return accessLog{logger}
}

type accessLog struct{ l *slog.Logger }

func (a accessLog) Request(ctx context.Context, ev *Event) (context.Context, func()) {
	return ctx, func() {
		level := slog.LevelInfo
		if ev.Status >= 500 || ev.Code == -32603 {
			level = slog.LevelWarn
		}
		if !a.l.Enabled(ctx, level) {
			return
		}
		attrs := make([]slog.Attr, 0, 16)
		str := func(k, v string) {
			if v != "" {
				attrs = append(attrs, slog.String(k, v))
			}
		}
		num := func(k string, v int) {
			if v != 0 {
				attrs = append(attrs, slog.Int(k, v))
			}
		}
		flag := func(k string, v bool) {
			if v {
				attrs = append(attrs, slog.Bool(k, v))
			}
		}
		str("transport", ev.Transport)
		str("method", ev.Method)
		str("id", ev.ID)
		str("target", ev.Target)
		str("version", ev.Version)
		str("principal", ev.Principal)
		str("workspace", ev.Workspace)
		str("client", ev.ClientAddr)
		num("status", ev.Status)
		num("code", ev.Code)
		str("resultType", ev.ResultType)
		flag("toolError", ev.ToolError)
		flag("retry", ev.Retry)
		str("confirmation", ev.Confirmation)
		num("bytesIn", ev.BytesIn)
		num("bytesOut", ev.BytesOut)
		attrs = append(attrs, slog.Float64("durationMs", float64(ev.Duration)/float64(time.Millisecond)))
		a.l.LogAttrs(ctx, level, "mcp: request", attrs...)
	}
}

func (accessLog) Route(_, inner context.Context, _ *RouteEvent) (context.Context, func()) {
	return inner, nil
}

// Join returns an Observer that calls each of observers in turn: Request
// hooks in order, each given the context the previous one returned, and
// done functions in reverse order (the first observer's span ends last).
func Join(observers ...Observer) Observer {
	var list []Observer
	for _, o := range observers {
		if o != nil {
			list = append(list, o)
		}
	}
	if len(list) == 1 {
		return list[0]
	}
	return joined(list)
}

type joined []Observer

func (j joined) Request(ctx context.Context, ev *Event) (context.Context, func()) {
	dones := make([]func(), 0, len(j))
	for _, o := range j {
		var done func()
		ctx, done = o.Request(ctx, ev)
		dones = append(dones, done)
	}
	return ctx, func() { runReversed(dones) }
}

func (j joined) Route(outer, inner context.Context, ev *RouteEvent) (context.Context, func()) {
	dones := make([]func(), 0, len(j))
	for _, o := range j {
		var done func()
		inner, done = o.Route(outer, inner, ev)
		dones = append(dones, done)
	}
	return inner, func() { runReversed(dones) }
}

func runReversed(dones []func()) {
	for i := len(dones) - 1; i >= 0; i-- {
		if dones[i] != nil {
			dones[i]()
		}
	}
}
