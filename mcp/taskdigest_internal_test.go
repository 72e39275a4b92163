package mcp

import "testing"

// TestTaskPayload_Changed: a task id names the task routes it was started
// on (Job); one sealed before that names the whole definition (Def), and
// one older still names neither.
func TestTaskPayload_Changed(t *testing.T) {
	tl := &tool{digest: "def1", jobDigest: "job1"}
	for _, c := range []struct {
		name string
		p    taskPayload
		want bool
	}{
		{"same task routes", taskPayload{Job: "job1"}, false},
		{"same task routes, another definition", taskPayload{Job: "job1", Def: "def0"}, false},
		{"other task routes", taskPayload{Job: "job0"}, true},
		{"other task routes, same definition", taskPayload{Job: "job0", Def: "def1"}, true},
		{"before Job: same definition", taskPayload{Def: "def1"}, false},
		{"before Job: another definition", taskPayload{Def: "def0"}, true},
		{"before either", taskPayload{}, false},
	} {
		if got := c.p.changed(tl); got != c.want {
			t.Errorf("%s: changed %v, want %v", c.name, got, c.want)
		}
	}
}

// TestJobRoutesDigest: the digest a task id seals follows the task
// routes and nothing else of the definition.
func TestJobRoutesDigest(t *testing.T) {
	mk := func(status, cancel, update string, schema string) *tool {
		tl := &tool{opts: itemOptions{task: &taskSpec{}}}
		tl.opts.task.status.Text, tl.opts.task.cancel.Text, tl.opts.task.update.Text = status, cancel, update
		tl.def.InputSchema = []byte(schema)
		return tl
	}
	base := mk("GET /jobs/{id}", "POST /jobs/{id}/cancel", "", `{}`)
	if d := base.jobRoutesDigest(); d == "" || d != mk("GET /jobs/{id}", "POST /jobs/{id}/cancel", "", `{"type":"object"}`).jobRoutesDigest() {
		t.Errorf("an input schema changed the digest: %q", d)
	}
	for _, other := range []*tool{
		mk("GET /jobs/{id}/", "POST /jobs/{id}/cancel", "", `{}`),
		mk("GET /jobs/{id}", "POST /jobs/{id}/stop", "", `{}`),
		mk("GET /jobs/{id}", "POST /jobs/{id}/cancel", "POST /jobs/{id}/input", `{}`),
		// The boundaries between the routes count.
		mk("GET /jobs/{id}POST /jobs/{id}/cancel", "", "", `{}`),
	} {
		if other.jobRoutesDigest() == base.jobRoutesDigest() {
			t.Errorf("%+v: same digest as the base", other.opts.task)
		}
	}
	if d := (&tool{}).jobRoutesDigest(); d != "" {
		t.Errorf("a tool that is no task: %q", d)
	}
}
