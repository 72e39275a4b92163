package mcp

import "testing"

// TestTaskPayload_Changed: a task id names the status route and output
// schema its task started on (Job); one sealed before that names the whole
// definition (Def), and one older still names neither.
func TestTaskPayload_Changed(t *testing.T) {
	tl := &tool{digest: "def1", jobDigest: "job1"}
	for _, c := range []struct {
		name string
		p    taskPayload
		want bool
	}{
		{"same job", taskPayload{Job: "job1"}, false},
		{"same job, another definition", taskPayload{Job: "job1", Def: "def0"}, false},
		{"another job", taskPayload{Job: "job0"}, true},
		{"another job, same definition", taskPayload{Job: "job0", Def: "def1"}, true},
		{"before Job: same definition", taskPayload{Def: "def1"}, false},
		{"before Job: another definition", taskPayload{Def: "def0"}, true},
		{"before either", taskPayload{}, false},
	} {
		if got := c.p.changed(tl); got != c.want {
			t.Errorf("%s: changed %v, want %v", c.name, got, c.want)
		}
	}
}

// TestJobDigestOf: the digest a task id seals follows the status route
// and the output schema, and nothing else of the definition.
func TestJobDigestOf(t *testing.T) {
	mk := func(status, cancel, input, output string) *tool {
		tl := &tool{opts: itemOptions{task: &taskSpec{}}}
		tl.opts.task.status.Text, tl.opts.task.cancel.Text = status, cancel
		tl.def.InputSchema, tl.def.OutputSchema = []byte(input), []byte(output)
		return tl
	}
	base := mk("GET /jobs/{id}", "POST /jobs/{id}/cancel", `{}`, `{"type":"object"}`)
	d := base.jobDigestOf()
	for _, same := range []*tool{
		mk("GET /jobs/{id}", "POST /jobs/{id}/cancel", `{"type":"object"}`, `{"type":"object"}`),
		mk("GET /jobs/{id}", "POST /jobs/{id}/stop", `{}`, `{"type":"object"}`),
		mk("GET /jobs/{id}", "POST /jobs/{id}/cancel", `{}`, `{ "type" : "object" }`), // compacted
	} {
		if got := same.jobDigestOf(); d == "" || got != d {
			t.Errorf("%+v %s: digest %q, want the base's %q", same.opts.task, same.def.InputSchema, got, d)
		}
	}
	for _, other := range []*tool{
		mk("GET /jobs/{id}/", "POST /jobs/{id}/cancel", `{}`, `{"type":"object"}`),
		mk("GET /jobs/{id}", "POST /jobs/{id}/cancel", `{}`, `{"type":"object","required":["n"]}`),
		mk("GET /jobs/{id}", "POST /jobs/{id}/cancel", `{}`, ``),
	} {
		if other.jobDigestOf() == d {
			t.Errorf("%+v %s: same digest as the base", other.opts.task, other.def.OutputSchema)
		}
	}
	if d := (&tool{}).jobDigestOf(); d != "" {
		t.Errorf("a tool that is no task: %q", d)
	}
}
