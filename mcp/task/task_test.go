package task_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mcpdual/mcpdual/mcp/task"
)

func TestReadJob(t *testing.T) {
	at := time.Date(2026, 7, 28, 10, 30, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		status int
		body   string
		want   task.Job
		err    string
	}{
		{"working", 200, `{"status":"working","statusMessage":"queued"}`, task.Job{State: task.Working, Message: "queued"}, ""},
		{"under data", 200, `{"data":{"status":"completed","result":"done","updatedAt":"2026-07-28T10:30:00Z"}}`,
			task.Job{State: task.Completed, Result: json.RawMessage(`"done"`), UpdatedAt: at}, ""},
		{"tool error", 200, `{"status":"completed","result":{"n":1},"isError":true}`,
			task.Job{State: task.Completed, Result: json.RawMessage(`{"n":1}`), IsError: true}, ""},
		{"failed", 200, `{"status":"failed","error":{"code":-32603,"message":"crashed"}}`,
			task.Job{State: task.Failed, Error: &task.Error{Code: -32603, Message: "crashed"}}, ""},
		{"input", 202, `{"status":"input_required","inputRequests":{"k":{"method":"elicitation/create","params":{}}}}`,
			task.Job{State: task.InputRequired, InputRequests: map[string]json.RawMessage{"k": json.RawMessage(`{"method":"elicitation/create","params":{}}`)}}, ""},
		{"unknown status", 200, `{"status":"queued"}`, task.Job{}, "not one of"},
		{"no status", 200, `{"id":"j1"}`, task.Job{}, "not one of"},
		{"not JSON", 200, `<html>`, task.Job{}, "not a JSON object"},
		{"wrong types", 200, `{"status":"completed","isError":"yes"}`, task.Job{}, "documented shape"},
		{"not 2xx", 500, `{"status":"working"}`, task.Job{}, "Internal Server Error"},
	} {
		got, err := task.ReadJob(tc.status, nil, []byte(tc.body))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || !cmp.Equal(got, tc.want, cmpopts.EquateEmpty()) {
			t.Errorf("%s: %+v, %v\nwant %+v", tc.name, got, err, tc.want)
		}
	}
}

func TestState_Valid(t *testing.T) {
	for _, s := range []task.State{task.Working, task.InputRequired, task.Completed, task.Failed, task.Cancelled} {
		if !s.Valid() {
			t.Errorf("%s not valid", s)
		}
	}
	for _, s := range []task.State{"", "queued", "Completed"} {
		if s.Valid() {
			t.Errorf("%q valid", s)
		}
	}
}

// A status route's answer in the documented shape, read.
func ExampleReadJob() {
	job, err := task.ReadJob(200, nil, []byte(`{"status":"completed","result":"Report ready: 42 rows"}`))
	fmt.Println(job.State, string(job.Result), err)
	// Output: completed "Report ready: 42 rows" <nil>
}

// TestReadJob_ShapeFaultQuotesNoValue: a job that does not fit its shape
// is refused naming the member at fault, never quoting its value (the
// endpoint logs the error; json quotes an overflowing number, time a
// date it cannot parse).
func TestReadJob_ShapeFaultQuotesNoValue(t *testing.T) {
	const secret = "7331975318642731975318642"
	for body, want := range map[string]string{
		`{"status":"failed","error":{"code":` + secret + `e400,"message":"x"}}`: "task: the job is not in the documented shape: error.code is not int",
		`{"status":"working","updatedAt":"` + secret + `"}`:                     "task: the job is not in the documented shape",
		`{"status":"working","statusMessage":` + secret + `}`:                   "task: the job is not in the documented shape: statusMessage is not string",
	} {
		_, err := task.ReadJob(200, nil, []byte(body))
		if err == nil || err.Error() != want || strings.Contains(err.Error(), secret[3:12]) {
			t.Errorf("%s: %v, want %s", body, err, want)
		}
	}
}
