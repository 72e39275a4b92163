package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log"
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
// live in the runner's store, as a host's would live in its database: in
// this process, or in Redis with -redis (jobs_redis.go), so that any
// replica reads, answers and cancels a job another one created. The
// library keeps none.

// job is one job's record, all of it data, so that a store can keep it
// as JSON: what an answer to an open question does is named by Kind and
// works on Subject and Names (answer, below).
type job struct {
	ID      string                     `json:"id"`
	Created time.Time                  `json:"created"`
	Status  task.State                 `json:"status"`
	Message string                     `json:"message,omitempty"`
	Result  json.RawMessage            `json:"result,omitempty"` // a JSON string: the text of the result
	IsError bool                       `json:"isError,omitempty"`
	Err     *task.Error                `json:"error,omitempty"`
	Inputs  map[string]json.RawMessage `json:"inputs,omitempty"` // the open questions
	Kind    string                     `json:"kind,omitempty"`   // "": the job takes no answers
	Subject string                     `json:"subject,omitempty"`
	Names   []string                   `json:"names,omitempty"`
}

// Kinds of jobs that take answers.
const (
	kindConfirmDelete = "confirm_delete"
	kindMultiInput    = "multi_input"
)

// answer applies the answer to the open question key (which the caller
// has removed from j.Inputs).
func (j *job) answer(key string, a json.RawMessage) {
	switch j.Kind {
	case kindConfirmDelete:
		if c, ok := accepted(a); ok && c["confirm"] == true {
			j.complete("Deleted " + j.Subject)
			return
		}
		j.complete("Not deleted: " + j.Subject)
	case kindMultiInput:
		if c, ok := accepted(a); ok {
			if n, _ := c["name"].(string); n != "" {
				j.Names = append(j.Names, n)
			}
		}
		if len(j.Inputs) == 0 {
			j.complete("Answers: " + strings.Join(j.Names, ", "))
		}
	}
}

func (j *job) complete(text string) {
	j.Status, j.Inputs = task.Completed, nil
	j.Result, _ = json.Marshal(text)
}

func final(s task.State) bool { return s == task.Completed || s == task.Failed || s == task.Cancelled }

// errNoJob is a store's answer for an id it does not hold; errEnded is
// what a change returns to leave an ended job as it is.
var (
	errNoJob = errors.New("no such job")
	errEnded = errors.New("the job has ended")
)

// jobStore keeps the jobs. change reads a job, applies f and writes it
// back, atomically (f may run more than once under contention); an error
// from f leaves the job as it was and is returned.
type jobStore interface {
	put(ctx context.Context, j *job) error
	get(ctx context.Context, id string) (*job, error)
	change(ctx context.Context, id string, f func(j *job) error) error
}

type runner struct {
	store jobStore
	// poll is how often a job's worker looks whether the job was
	// cancelled (on any replica), so that it stops early.
	poll time.Duration
}

// storeTimeout bounds a background worker's store calls.
const storeTimeout = 2 * time.Second

// newJobID is random: replicas create jobs without agreeing on a counter.
func newJobID() string {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return "job-" + hex.EncodeToString(b)
}

// start stores j as a new job and answers 202 with its Location; when
// finish is set, a worker of this process applies it after d unless the
// job ended before (a cancel, on whichever replica, wins).
func (rn *runner) start(w http.ResponseWriter, r *http.Request, j *job, d time.Duration, finish func(j *job)) {
	j.ID, j.Created = newJobID(), time.Now()
	if err := rn.store.put(r.Context(), j); err != nil {
		unavailable(w, err)
		return
	}
	if finish != nil {
		go rn.work(j.ID, d, finish)
	}
	w.Header().Set("Location", "/jobs/"+j.ID)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusAccepted)
	_ = json.NewEncoder(w).Encode(map[string]string{"id": j.ID, "status": string(j.Status)})
}

// work waits d, looking every poll whether the job ended meanwhile, then
// applies finish to the job unless it did.
func (rn *runner) work(id string, d time.Duration, finish func(j *job)) {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	tick := time.NewTicker(rn.poll)
	defer tick.Stop()
	for {
		select {
		case <-deadline.C:
			ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
			err := rn.store.change(ctx, id, func(j *job) error {
				if final(j.Status) {
					return errEnded
				}
				finish(j)
				return nil
			})
			cancel()
			if err != nil && !errors.Is(err, errEnded) && !errors.Is(err, errNoJob) {
				log.Printf("job %s: not finished: %v", id, err)
			}
			return
		case <-tick.C:
			ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
			j, err := rn.store.get(ctx, id)
			cancel()
			if errors.Is(err, errNoJob) || (err == nil && final(j.Status)) {
				return
			}
		}
	}
}

func unavailable(w http.ResponseWriter, err error) {
	log.Printf("job store: %v", err)
	w.Header().Set("Retry-After", "1")
	http.Error(w, "the job store is unavailable", http.StatusServiceUnavailable)
}

func (rn *runner) routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /jobs/{id}", func(w http.ResponseWriter, r *http.Request) {
		j, err := rn.store.get(r.Context(), r.PathValue("id"))
		switch {
		case errors.Is(err, errNoJob):
			http.NotFound(w, r)
			return
		case err != nil:
			unavailable(w, err)
			return
		}
		body := map[string]any{"status": j.Status}
		if j.Message != "" {
			body["statusMessage"] = j.Message
		}
		if j.Result != nil {
			body["result"], body["isError"] = j.Result, j.IsError
		}
		if j.Err != nil {
			body["error"] = j.Err
		}
		if len(j.Inputs) > 0 {
			body["inputRequests"] = j.Inputs
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(body)
	})
	mux.HandleFunc("POST /jobs/{id}/cancel", func(w http.ResponseWriter, r *http.Request) {
		err := rn.store.change(r.Context(), r.PathValue("id"), func(j *job) error {
			if final(j.Status) {
				return errEnded
			}
			j.Status, j.Inputs, j.Message = task.Cancelled, nil, "cancelled by the client"
			return nil
		})
		switch {
		case err == nil:
			w.WriteHeader(http.StatusNoContent)
		case errors.Is(err, errNoJob):
			http.NotFound(w, r)
		case errors.Is(err, errEnded):
			w.WriteHeader(http.StatusConflict)
		default:
			unavailable(w, err)
		}
	})
	mux.HandleFunc("POST /jobs/{id}/input", func(w http.ResponseWriter, r *http.Request) {
		var answers map[string]json.RawMessage
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&answers); err != nil {
			http.Error(w, "the answers must be a JSON object", http.StatusBadRequest)
			return
		}
		// Keys the job did not ask, or asked already, are ignored.
		err := rn.store.change(r.Context(), r.PathValue("id"), func(j *job) error {
			for key, a := range answers {
				if _, open := j.Inputs[key]; open && !final(j.Status) && j.Kind != "" {
					delete(j.Inputs, key)
					j.answer(key, a)
				}
			}
			return nil
		})
		switch {
		case err == nil:
			w.WriteHeader(http.StatusNoContent)
		case errors.Is(err, errNoJob):
			http.NotFound(w, r)
		default:
			unavailable(w, err)
		}
	})
}

// memJobs keeps the jobs in this process: at most maxJobs, the oldest
// finished ones going first. It stores each job as JSON, as Redis does,
// so that no caller shares a job's maps with the store.
type memJobs struct {
	mu   sync.Mutex
	jobs map[string][]byte
	// created and ended index the jobs for pruning.
	created map[string]time.Time
	ended   map[string]bool
}

// maxJobs bounds the in-memory store.
const maxJobs = 1000

func newMemJobs() *memJobs {
	return &memJobs{jobs: map[string][]byte{}, created: map[string]time.Time{}, ended: map[string]bool{}}
}

func (m *memJobs) put(_ context.Context, j *job) error {
	b, err := json.Marshal(j)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.jobs[j.ID], m.created[j.ID], m.ended[j.ID] = b, j.Created, final(j.Status)
	m.prune()
	return nil
}

func (m *memJobs) prune() {
	for len(m.jobs) > maxJobs {
		oldest := ""
		for id, ended := range m.ended {
			if ended && (oldest == "" || m.created[id].Before(m.created[oldest])) {
				oldest = id
			}
		}
		if oldest == "" {
			return
		}
		delete(m.jobs, oldest)
		delete(m.created, oldest)
		delete(m.ended, oldest)
	}
}

func (m *memJobs) get(_ context.Context, id string) (*job, error) {
	m.mu.Lock()
	b, ok := m.jobs[id]
	m.mu.Unlock()
	if !ok {
		return nil, errNoJob
	}
	j := new(job)
	return j, json.Unmarshal(b, j)
}

func (m *memJobs) change(_ context.Context, id string, f func(j *job) error) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.jobs[id]
	if !ok {
		return errNoJob
	}
	j := new(job)
	if err := json.Unmarshal(b, j); err != nil {
		return err
	}
	if err := f(j); err != nil {
		return err
	}
	b, err := json.Marshal(j)
	if err != nil {
		return err
	}
	m.jobs[id], m.ended[id] = b, final(j.Status)
	return nil
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

func addTaskTools(srv *mcp.Server, mux *http.ServeMux, store jobStore) {
	rn := &runner{store: store, poll: 250 * time.Millisecond}
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
			rn.start(w, r, &job{Status: task.Working}, d, func(j *job) { j.complete(msg) })
		})

	taskTool(srv, mux, "failing_job", "Runs only as a task, and ends in a tool error.", empty, task.Required,
		func(w http.ResponseWriter, r *http.Request) {
			rn.start(w, r, &job{Status: task.Working}, time.Second, func(j *job) {
				j.complete("failing_job failed: the input could not be processed")
				j.IsError = true
			})
		})

	taskTool(srv, mux, "protocol_error_job", "A task whose worker crashes.", empty, task.Optional,
		func(w http.ResponseWriter, r *http.Request) {
			rn.start(w, r, &job{Status: task.Working}, 300*time.Millisecond, func(j *job) {
				j.Status, j.Err = task.Failed, &task.Error{Code: -32603, Message: "Internal error: the worker crashed"}
				j.Message = "the worker crashed"
			})
		})

	taskTool(srv, mux, "confirm_delete", "Deletes a file once the user confirms, as a task.",
		schema(`{"type":"object","properties":{"filename":{"type":"string"}},"required":["filename"]}`), task.Optional,
		func(w http.ResponseWriter, r *http.Request) {
			name := arg(r, "filename")
			rn.start(w, r, &job{Status: task.InputRequired, Kind: kindConfirmDelete, Subject: name,
				Inputs: map[string]json.RawMessage{"confirm": elicit("Delete "+name+"?",
					`{"confirm":{"type":"boolean","title":"Confirm","description":"Check to delete the file."}}`, "confirm")}}, 0, nil)
		})

	taskTool(srv, mux, "multi_input", "Asks two questions at once, as a task.", empty, task.Optional,
		func(w http.ResponseWriter, r *http.Request) {
			rn.start(w, r, &job{Status: task.InputRequired, Kind: kindMultiInput, Inputs: map[string]json.RawMessage{
				"first":  elicit("First answer?", `{"name":{"type":"string"},"confirm":{"type":"boolean"}}`, "name"),
				"second": elicit("Second answer?", `{"name":{"type":"string"},"confirm":{"type":"boolean"}}`, "name"),
			}}, 0, nil)
		})

	taskTool(srv, mux, "test_tool_with_task", "Asks a name first (multi round-trip), then runs as a task.", empty, task.Required,
		func(w http.ResponseWriter, r *http.Request) {
			call := mcp.CallFromContext(r.Context())
			a, ok := call.Elicitation("user_name")
			if !ok || a.Action != mcp.ElicitAccept {
				call.RequireInput(nil, mcp.ElicitForm("user_name", "What is your name?", nameForm))
				return
			}
			msg := "Hello, " + field(a.Content, "name") + "! Your task is complete."
			rn.start(w, r, &job{Status: task.Working}, 300*time.Millisecond, func(j *job) { j.complete(msg) })
		})
}
