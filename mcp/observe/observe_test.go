package observe_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"testing"

	"github.com/mcpdual/mcpdual/mcp/observe"
)

type step struct {
	name string
	log  *[]string
}

type stepKey struct{}

func (s step) Request(ctx context.Context, ev *observe.Event) (context.Context, func()) {
	*s.log = append(*s.log, s.name+" start after "+str(ctx.Value(stepKey{})))
	return context.WithValue(ctx, stepKey{}, s.name), func() { *s.log = append(*s.log, s.name+" done") }
}

func (s step) Route(outer, inner context.Context, ev *observe.RouteEvent) (context.Context, func()) {
	*s.log = append(*s.log, s.name+" route after "+str(inner.Value(stepKey{})))
	return context.WithValue(inner, stepKey{}, s.name), nil
}

func str(v any) string { s, _ := v.(string); return s }

// TestJoin: hooks in order, each given the previous one's context; done
// functions in reverse; nil observers and nil done functions skipped.
func TestJoin(t *testing.T) {
	var log []string
	o := observe.Join(step{"a", &log}, nil, step{"b", &log})
	ctx, done := o.Request(context.Background(), &observe.Event{})
	done()
	_, rdone := o.Route(ctx, context.Background(), &observe.RouteEvent{})
	rdone()
	want := []string{"a start after ", "b start after a", "b done", "a done", "a route after ", "b route after a"}
	if !slices.Equal(log, want) {
		t.Errorf("got %q\nwant %q", log, want)
	}
	one := step{"only", &log}
	if observe.Join(nil, one) != observe.Observer(one) {
		t.Error("Join of one observer is not that observer")
	}
}

func TestAccessLog_Levels(t *testing.T) {
	var buf bytes.Buffer
	o := observe.AccessLog(slog.New(slog.NewJSONHandler(&buf, nil)))
	for _, ev := range []*observe.Event{
		{Method: "tools/list", Status: 200},
		{Method: "tools/call", Status: 200, Code: -32603, Message: "Internal error"},
		{Status: 503},
	} {
		_, done := o.Request(context.Background(), ev)
		done()
	}
	var levels []string
	for _, line := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatal(err)
		}
		levels = append(levels, m["level"].(string))
	}
	if want := []string{"INFO", "WARN", "WARN"}; !slices.Equal(levels, want) {
		t.Errorf("levels %q, want %q", levels, want)
	}
}

func TestEvent_Meta(t *testing.T) {
	ev := &observe.Event{RawMeta: json.RawMessage(`{"traceparent":"00-a-b-01","n":3,"tracestate":"k\u003dv"}`)}
	for key, want := range map[string]string{"traceparent": "00-a-b-01", "tracestate": "k=v"} {
		if got, ok := ev.Meta(key); !ok || got != want {
			t.Errorf("Meta(%q) = %q, %v", key, got, ok)
		}
	}
	for _, key := range []string{"n", "baggage"} {
		if got, ok := ev.Meta(key); ok {
			t.Errorf("Meta(%q) = %q: not a string member", key, got)
		}
	}
	if _, ok := (&observe.Event{}).Meta("traceparent"); ok {
		t.Error("Meta of an event without _meta")
	}
}
