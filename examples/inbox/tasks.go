package main

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/task"
	"github.com/mcpdual/mcpdual/mrtr"
)

// jobTask makes a route that answers 202 with a job a task for 2026-07-28
// clients that declare the tasks extension: tasks/get reads the job
// through GET /api/v1/jobs/{id} and tasks/cancel cancels it through POST
// /api/v1/jobs/{id}/cancel, with the caller's identity, on whichever
// replica is asked (with -redis the jobs are every replica's). The job's
// id comes from the 202 body's data.id (the default). Every other client
// gets a sealed job reference and the name of the generated status tool
// (statusTool) that follows the job through the same status route.
func jobTask(statusTool string) mcp.ItemOption {
	return mcp.WithTask(task.Config{
		Status:       "GET /api/v1/jobs/{id}",
		Cancel:       "POST /api/v1/jobs/{id}/cancel",
		TTL:          jobTTL,
		PollInterval: 500 * time.Millisecond,
		Read:         readJob,
		StatusTool:   statusTool,
	})
}

// referenceSealer seals the job references the status tools read for
// 2025 clients (era2025.WithSealer): with the fleet's ring, so that any
// replica opens them, or a key of this process.
func (s shared) referenceSealer() *mrtr.Sealer {
	if s.ring != nil {
		return mrtr.NewSealer(s.ring)
	}
	return mrtr.NewSealer(localRing())
}

// localRing is a key ring of this process only, as era2026 makes itself
// without one.
func localRing() *mrtr.Ring {
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		panic(err)
	}
	r, err := mrtr.NewRing(mrtr.Key{ID: "local", Secret: secret})
	if err != nil {
		panic(err)
	}
	return r
}

// readJob maps the API's job, {"data":{"status":"queued"|"succeeded",...}},
// to a task: queued is working; succeeded is completed, with the job as
// the result.
func readJob(status int, _ http.Header, body []byte) (task.Job, error) {
	if status/100 != 2 {
		return task.Job{}, errors.New("inbox: the job route answered " + http.StatusText(status))
	}
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	var j job
	if json.Unmarshal(body, &env) != nil || json.Unmarshal(env.Data, &j) != nil {
		return task.Job{}, errors.New("inbox: not a job")
	}
	switch j.Status {
	case "queued":
		return task.Job{State: task.Working, Message: "queued"}, nil
	case "cancelled":
		return task.Job{State: task.Cancelled, Message: "cancelled"}, nil
	case "succeeded":
		out := task.Job{State: task.Completed, Result: env.Data}
		if j.FinishedAt != nil {
			out.UpdatedAt = *j.FinishedAt
		}
		return out, nil
	}
	return task.Job{}, errors.New("inbox: unknown job status " + j.Status)
}
