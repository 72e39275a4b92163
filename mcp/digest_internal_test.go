package mcp

import (
	"encoding/json"
	"testing"
)

// digestSamples are tools whose digests TestDigests_Stable pins.
func digestSamples() []*tool {
	plain := &tool{pathParams: nameSet{"id": true}, queryArgs: nameSet{"q": true}}
	plain.route.Text = "GET /items/{id}"
	plain.def.InputSchema = json.RawMessage(`{ "type": "object" }`)
	plain.def.Annotations.Destructive = true
	job := &tool{}
	job.route.Text = "POST /jobs"
	job.def.OutputSchema = json.RawMessage(`{"type":"object"}`)
	job.opts.task = &taskSpec{statusTool: "job_status", support: 1}
	job.opts.task.status.Text, job.opts.task.cancel.Text = "GET /jobs/{id}", "POST /jobs/{id}/cancel"
	status := &tool{statusOf: job}
	return []*tool{plain, job, status}
}

// TestDigests_Stable: the digests of digestSamples are what they were when
// task ids began to seal Job. A state or task id sealed by one version is
// checked by the next (a rolling upgrade, a state a client holds across a
// deployment): a digest computed differently would refuse every one of
// them as tool_changed.
func TestDigests_Stable(t *testing.T) {
	want := [][2]string{{"7d727c40fb9333d3", ""}, {"1518cbeab3583b60", "783d672307918e45"}, {"942bc74e5a60dbe7", ""}}
	for i, tl := range digestSamples() {
		if got := [2]string{tl.definitionDigest(), tl.jobDigestOf()}; got != want[i] {
			t.Errorf("sample %d: digests %q, want %q", i, got, want[i])
		}
	}
}
