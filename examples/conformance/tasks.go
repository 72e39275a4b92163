package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/task"
)

// The tools of the suite's tasks-* scenarios are REST routes that answer
// 202 with a Location, as a host's long operations do, over a small job
// runner of the fixture's own; mcp.WithTask makes them tasks. The jobs
// live in this process, as a host's would live in its database: the
// library keeps none.

// maxJobs bounds the runner: the oldest finished jobs go first.
const maxJobs = 1000

type job struct {
	id      string
	created time.Time
	status  task.State
	message string
	result  json.RawMessage // a JSON string: the text of the result
	isError bool
	err     *task.Error
	// inputs are the open questions; answered decides what answers to
	// them do (nil: the job takes none).
	inputs   map[string]json.RawMessage
	answered func(j *job, key string, answer json.RawMessage)
	stop     chan struct{} // closed by cancel
}

type runner struct {
	mu   sync.Mutex
	n    int
	jobs map[string]*job
}

func newRunner() *runner { return &runner{jobs: map[string]*job{}} }

// start registers a job (init, when set, completes it under the
// runner's lock) and runs work on it in the background; work holds the
// lock only through update.
func (rn *runner) start(w http.ResponseWriter, status task.State, init, work func(j *job)) {
	rn.mu.Lock()
	rn.n++
	j := &job{id: "job-" + strconv.Itoa(rn.n), created: time.Now(), status: status, stop: make(chan struct{})}
	if init != nil {
		init(j)
	}
	rn.jobs[j.id] = j
	rn.prune()
	rn.mu.Unlock()
	if work != nil {
		go work(j)
	}
	w.Header().Set("Location", "/jobs/"+j.id)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusAccepted)
	_ = json.NewEncoder(w).Encode(map[string]string{"id": j.id, "status": string(status)})
}

func (rn *runner) prune() {
	for len(rn.jobs) > maxJobs {
		var oldest *job
		for _, j := range rn.jobs {
			if final(j.status) && (oldest == nil || j.created.Before(oldest.created)) {
				oldest = j
			}
		}
		if oldest == nil {
			return
		}
		delete(rn.jobs, oldest.id)
	}
}

func final(s task.State) bool { return s == task.Completed || s == task.Failed || s == task.Cancelled }

// update changes a job unless it already ended (a cancel may win).
func (rn *runner) update(j *job, f func(j *job)) {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	if !final(j.status) {
		f(j)
	}
}

// sleep waits d, or until the job is cancelled; it reports whether the
// time ran out.
func sleep(j *job, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-j.stop:
		return false
	}
}

func done(text string) func(j *job) {
	return func(j *job) {
		j.status, j.inputs = task.Completed, nil
		j.result, _ = json.Marshal(text)
	}
}

func (rn *runner) routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /jobs/{id}", func(w http.ResponseWriter, r *http.Request) {
		rn.mu.Lock()
		defer rn.mu.Unlock()
		j, ok := rn.jobs[r.PathValue("id")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		body := map[string]any{"status": j.status}
		if j.message != "" {
			body["statusMessage"] = j.message
		}
		if j.result != nil {
			body["result"], body["isError"] = j.result, j.isError
		}
		if j.err != nil {
			body["error"] = j.err
		}
		if len(j.inputs) > 0 {
			body["inputRequests"] = j.inputs
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(body)
	})
	mux.HandleFunc("POST /jobs/{id}/cancel", func(w http.ResponseWriter, r *http.Request) {
		rn.mu.Lock()
		defer rn.mu.Unlock()
		j, ok := rn.jobs[r.PathValue("id")]
		switch {
		case !ok:
			http.NotFound(w, r)
		case final(j.status):
			w.WriteHeader(http.StatusConflict)
		default:
			j.status, j.inputs, j.message = task.Cancelled, nil, "cancelled by the client"
			close(j.stop)
			w.WriteHeader(http.StatusNoContent)
		}
	})
	mux.HandleFunc("POST /jobs/{id}/input", func(w http.ResponseWriter, r *http.Request) {
		var answers map[string]json.RawMessage
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&answers); err != nil {
			http.Error(w, "the answers must be a JSON object", http.StatusBadRequest)
			return
		}
		rn.mu.Lock()
		defer rn.mu.Unlock()
		j, ok := rn.jobs[r.PathValue("id")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		// Keys the job did not ask, or asked already, are ignored.
		for key, answer := range answers {
			if _, open := j.inputs[key]; open && !final(j.status) && j.answered != nil {
				delete(j.inputs, key)
				j.answered(j, key, answer)
			}
		}
		w.WriteHeader(http.StatusNoContent)
	})
}

// elicit is an elicitation/create input request for a flat form.
func elicit(message string, properties string, required ...string) json.RawMessage {
	req, _ := json.Marshal(required)
	return json.RawMessage(`{"method":"elicitation/create","params":{"mode":"form","message":` + strconv.Quote(message) +
		`,"requestedSchema":{"type":"object","properties":` + properties + `,"required":` + string(req) + `}}}`)
}

// accepted returns the content of an accepted elicitation answer.
func accepted(answer json.RawMessage) (map[string]any, bool) {
	var a struct {
		Action  string         `json:"action"`
		Content map[string]any `json:"content"`
	}
	if json.Unmarshal(answer, &a) != nil || a.Action != "accept" {
		return nil, false
	}
	return a.Content, true
}

func taskTool(srv *mcp.Server, mux *http.ServeMux, name, description string, input json.RawMessage, support task.Support, h http.HandlerFunc) {
	route := "POST /tools/" + name
	mux.HandleFunc(route, h)
	srv.AddTool(mcp.Tool{Name: name, Description: description, InputSchema: input}, route, mux,
		mcp.WithTask(task.Config{Support: support, Status: "GET /jobs/{id}", Cancel: "POST /jobs/{id}/cancel",
			Update: "POST /jobs/{id}/input", PollInterval: 200 * time.Millisecond}))
}

// async reports whether the call may become a task: the endpoint says so
// with Prefer: respond-async.
func async(r *http.Request) bool { return strings.Contains(r.Header.Get("Prefer"), "respond-async") }

func addTaskTools(srv *mcp.Server, mux *http.ServeMux) {
	rn := newRunner()
	rn.routes(mux)
	tool(srv, mux, "greet", "Greets at once.", schema(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
		func(w http.ResponseWriter, r *http.Request) { text(w, "Hello, "+arg(r, "name")+"!") })

	taskTool(srv, mux, "slow_compute", "Computes for a few seconds; a task for clients that take one.",
		schema(`{"type":"object","properties":{"seconds":{"type":"number","minimum":0},"label":{"type":"string"}},"required":["seconds"]}`),
		task.Optional, func(w http.ResponseWriter, r *http.Request) {
			var in struct {
				Seconds float64 `json:"seconds"`
				Label   string  `json:"label"`
			}
			_ = json.NewDecoder(r.Body).Decode(&in)
			d := time.Duration(in.Seconds * float64(time.Second))
			msg := fmt.Sprintf("Computed %q in %gs", in.Label, in.Seconds)
			if d <= 0 || !async(r) {
				select {
				case <-time.After(min(d, 10*time.Second)):
				case <-r.Context().Done():
					return
				}
				text(w, msg)
				return
			}
			rn.start(w, task.Working, nil, func(j *job) {
				if sleep(j, d) {
					rn.update(j, done(msg))
				}
			})
		})

	taskTool(srv, mux, "failing_job", "Runs only as a task, and ends in a tool error.", empty, task.Required,
		func(w http.ResponseWriter, r *http.Request) {
			rn.start(w, task.Working, nil, func(j *job) {
				if sleep(j, time.Second) {
					rn.update(j, func(j *job) {
						done("failing_job failed: the input could not be processed")(j)
						j.isError = true
					})
				}
			})
		})

	taskTool(srv, mux, "protocol_error_job", "A task whose worker crashes.", empty, task.Optional,
		func(w http.ResponseWriter, r *http.Request) {
			rn.start(w, task.Working, nil, func(j *job) {
				if sleep(j, 300*time.Millisecond) {
					rn.update(j, func(j *job) {
						j.status, j.err = task.Failed, &task.Error{Code: -32603, Message: "Internal error: the worker crashed"}
						j.message = "the worker crashed"
					})
				}
			})
		})

	taskTool(srv, mux, "confirm_delete", "Deletes a file once the user confirms, as a task.",
		schema(`{"type":"object","properties":{"filename":{"type":"string"}},"required":["filename"]}`), task.Optional,
		func(w http.ResponseWriter, r *http.Request) {
			name := arg(r, "filename")
			rn.start(w, task.InputRequired, func(j *job) {
				j.inputs = map[string]json.RawMessage{"confirm": elicit("Delete "+name+"?",
					`{"confirm":{"type":"boolean","title":"Confirm","description":"Check to delete the file."}}`, "confirm")}
				j.answered = func(j *job, _ string, answer json.RawMessage) {
					if c, ok := accepted(answer); ok && c["confirm"] == true {
						done("Deleted " + name)(j)
						return
					}
					done("Not deleted: " + name)(j)
				}
			}, nil)
		})

	taskTool(srv, mux, "multi_input", "Asks two questions at once, as a task.", empty, task.Optional,
		func(w http.ResponseWriter, r *http.Request) {
			rn.start(w, task.InputRequired, func(j *job) {
				j.inputs = map[string]json.RawMessage{
					"first":  elicit("First answer?", `{"name":{"type":"string"},"confirm":{"type":"boolean"}}`, "name"),
					"second": elicit("Second answer?", `{"name":{"type":"string"},"confirm":{"type":"boolean"}}`, "name"),
				}
				var names []string
				j.answered = func(j *job, key string, answer json.RawMessage) {
					if c, ok := accepted(answer); ok {
						if n, _ := c["name"].(string); n != "" {
							names = append(names, n)
						}
					}
					if len(j.inputs) == 0 {
						done("Answers: " + strings.Join(names, ", "))(j)
					}
				}
			}, nil)
		})

	taskTool(srv, mux, "test_tool_with_task", "Asks a name first (multi round-trip), then runs as a task.", empty, task.Required,
		func(w http.ResponseWriter, r *http.Request) {
			call := mcp.CallFromContext(r.Context())
			a, ok := call.Elicitation("user_name")
			if !ok || a.Action != mcp.ElicitAccept {
				call.RequireInput(nil, mcp.ElicitForm("user_name", "What is your name?", nameForm))
				return
			}
			name := field(a.Content, "name")
			rn.start(w, task.Working, nil, func(j *job) {
				if sleep(j, 300*time.Millisecond) {
					rn.update(j, done("Hello, "+name+"! Your task is complete."))
				}
			})
		})
}
