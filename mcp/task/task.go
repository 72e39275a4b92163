package task

import (
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"time"
)

// Support says whether a tool runs as a task.
type Support int

const (
	// Optional: the call becomes a task when the client declared the
	// extension and the route answers 202; any other client gets the
	// route's answer as it is.
	Optional Support = iota
	// Required: the tool runs only as a task; a client without the
	// extension gets -32021 (2026-07-28) or a tool error naming what it
	// needs (earlier revisions), and the route never runs.
	Required
)

// Config makes a tool's route a task's start. The routes are patterns
// like the tool's own, served by the same handler; their wildcards must
// be the status route's.
type Config struct {
	Support Support
	// Status reads the job, such as "GET /api/v1/jobs/{id}". Required.
	Status string
	// Cancel asks the job to stop, such as "POST /api/v1/jobs/{id}/cancel".
	// Without it tasks/cancel is acknowledged and changes nothing
	// (cancellation is cooperative). It answers 2xx, or 409 for a job
	// that already ended; 404 makes the task unknown; 429, 502, 503 and
	// 504 are answered as a retryable 503 (task_unavailable), as they are
	// from the status and update routes.
	Cancel string
	// Update takes the client's answers to the job's input requests, such
	// as "POST /api/v1/jobs/{id}/input": it gets the inputResponses object
	// of tasks/update as its JSON body, and should ignore keys it did not
	// ask (or asked already). 2xx acknowledges; 400 and 422 refuse the
	// answers (-32602); 404 makes the task unknown.
	Update string
	// TTL is how long the task id stays valid from the task's creation
	// (default one hour): its ttlMs. Keys of the ring that sealed ids must
	// outlive it.
	TTL time.Duration
	// PollInterval is the pollIntervalMs suggested to clients (default
	// one second).
	PollInterval time.Duration
	// Accepted reads the route's 202 answer and returns the values of the
	// status route's wildcards. Nil uses the Location header (its path
	// matched against the status route's, a mount prefix allowed), then
	// an "id" (or "data"."id") string in a JSON body when the status
	// route has one wildcard.
	Accepted func(header http.Header, body []byte) (values map[string]string, ok bool)
	// Read maps the status route's answer to the job. Nil is ReadJob.
	Read func(status int, header http.Header, body []byte) (Job, error)
	// StatusTool, when set, names a tool the server generates so that a
	// client without the tasks extension can follow the job too (a 2025
	// client, or a 2026-07-28 one that did not declare it): the call's
	// 202 answer then becomes a tool result naming a sealed job reference
	// and this tool, which takes it as {"taskId": "..."} and reads the
	// job through Status, as tasks/get does, answering the job's status
	// while it runs and the tool's result once it completed. It is listed
	// and callable only in revisions whose era seals job references
	// (era2026 always; era2025 with WithSealer or WithSessions), to
	// whoever may use the tool. Such as "emails_reprocess_status".
	StatusTool string
}

// State is a task's status.
type State string

// The statuses of a task. Completed, Failed and Cancelled are final.
const (
	Working       State = "working"
	InputRequired State = "input_required"
	Completed     State = "completed"
	Failed        State = "failed"
	Cancelled     State = "cancelled"
)

// Valid reports whether s is one of the five statuses.
func (s State) Valid() bool {
	switch s {
	case Working, InputRequired, Completed, Failed, Cancelled:
		return true
	}
	return false
}

// Job is what the status route says about the job.
type Job struct {
	State   State
	Message string // statusMessage, for people; optional
	// Result is the tool's answer once Completed: a JSON value, rendered
	// as the route's JSON answer of a call that ran at once would be (a
	// JSON string becomes its text), and checked against the tool's
	// output schema. IsError makes it a tool error, still Completed.
	Result  json.RawMessage
	IsError bool
	// Error is why a Failed job failed: a JSON-RPC fault, not a tool
	// error. Without one, Failed reports an internal error.
	Error *Error
	// InputRequests are the questions an InputRequired job waits on, keyed
	// as the answers come back: {"key":{"method":"elicitation/create",
	// "params":{...}}}, every one still open on every read.
	InputRequests map[string]json.RawMessage
	// UpdatedAt is lastUpdatedAt (zero: the time of the read).
	UpdatedAt time.Time
}

// Error is a JSON-RPC error a failed job reports.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// jobShape is the documented body ReadJob reads.
type jobShape struct {
	Status        State                      `json:"status"`
	StatusMessage string                     `json:"statusMessage"`
	Result        json.RawMessage            `json:"result"`
	IsError       bool                       `json:"isError"`
	Error         *Error                     `json:"error"`
	InputRequests map[string]json.RawMessage `json:"inputRequests"`
	UpdatedAt     *time.Time                 `json:"updatedAt"`
}

// ReadJob reads the default job shape from a 2xx JSON answer, at the top
// level or inside a "data" object:
//
//	{"status": "working" | "input_required" | "completed" | "failed" | "cancelled",
//	 "statusMessage": "...",
//	 "inputRequests": {"key": {"method": "elicitation/create", "params": {...}}},
//	 "result": <any JSON>, "isError": false,
//	 "error": {"code": -32603, "message": "..."},
//	 "updatedAt": "2026-07-28T10:30:00Z"}
//
// Only status is required. Another HTTP status, a body that is not a JSON
// object, a member of the wrong type or a status outside the five is an
// error, which names the member at fault but never a value.
func ReadJob(status int, _ http.Header, body []byte) (Job, error) {
	if status < 200 || status > 299 {
		return Job{}, errors.New("task: the status route answered " + http.StatusText(status))
	}
	var outer struct {
		Status State           `json:"status"`
		Data   json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &outer); err != nil {
		return Job{}, errors.New("task: the status route's answer is not a JSON object")
	}
	if outer.Status == "" && len(outer.Data) > 0 && outer.Data[0] == '{' {
		body = outer.Data
	}
	var s jobShape
	if err := json.Unmarshal(body, &s); err != nil {
		return Job{}, errors.New("task: the job is not in the documented shape" + shapeFault(err))
	}
	if !s.Status.Valid() {
		return Job{}, errors.New("task: the job's status is not one of working, input_required, completed, failed, cancelled")
	}
	j := Job{State: s.Status, Message: s.StatusMessage, Result: s.Result, IsError: s.IsError, Error: s.Error, InputRequests: s.InputRequests}
	if s.UpdatedAt != nil {
		j.UpdatedAt = *s.UpdatedAt
	}
	return j, nil
}

// shapeFault says which member of a job does not fit, never its value:
// the endpoint logs this error, and json's own text quotes a number that
// overflows its field, as time's quotes a date it cannot parse (a job's
// members are the host's, and a status route may carry anything; design
// record 011).
func shapeFault(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		want := "a value"
		if te.Type != nil {
			want = te.Type.String()
			if te.Type.Kind() == reflect.Pointer {
				want = te.Type.Elem().String()
			}
		}
		return ": " + te.Field + " is not " + want
	}
	return ""
}
