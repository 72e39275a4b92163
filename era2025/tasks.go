package era2025

import (
	"log/slog"

	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/mrtr"
)

// WithSealer lets these revisions seal and open job references: a tool
// that becomes a task (mcp.WithTask) with a status tool
// (task.Config.StatusTool) answers a 2025 client with a reference to the
// job, sealed with s for the task's TTL and bound to the caller, which
// the status tool opens on any replica (give s the key ring of
// era2026.WithSealer). Without it, the sealer of WithSessions serves;
// without either, status tools are not served in these revisions and a
// task tool answers 2025 clients with its route's answer, as before.
//
// A key that sealed a job reference must stay in every ring for the
// longest task TTL plus the sealer's skew. It panics on a nil Sealer.
func WithSealer(s *mrtr.Sealer) Option {
	if s == nil {
		panic("era2025: WithSealer needs a Sealer")
	}
	return optionFunc(func(e *Era) { e.tasks = s })
}

// taskSealer is the sealer of job references, or nil.
func (e *Era) taskSealer() *mrtr.Sealer {
	if e.tasks != nil {
		return e.tasks
	}
	return e.sessions
}

// openTask opens the job reference of a status tool's call, which the
// core puts in r.TaskID, as era2026 opens a task id: bound to the caller,
// the workspace, the server and the revision, under the method name of
// the tasks extension (so neither a session id nor anything else sealed
// opens as one). Every refusal is the same unknown task.
func (e *Era) openTask(r *seam.Request) error {
	if r.TaskID == "" {
		return nil // every request of these revisions but a status tool's call
	}
	s := e.taskSealer()
	if s == nil {
		return seam.UnknownTask()
	}
	b, err := r.Core.Binding(true)
	if err != nil {
		return err
	}
	opened, err := s.Open(mrtr.Binding(b), r.TaskID)
	if err != nil {
		r.Core.Log(slog.LevelDebug, "era2025: job reference refused", "reason", mrtr.Reason(err), "method", r.Name)
		return seam.UnknownTask()
	}
	return r.Core.SetTask(opened.Payload)
}

// finish seals the job reference of a call that became a task. These
// revisions stamp nothing else.
func (e *Era) finish(r *seam.Request, res seam.Result) (seam.Result, error) {
	tc, ok := res.(*seam.TaskCreated)
	if !ok {
		return res, nil
	}
	s := e.taskSealer()
	if s == nil || tc.StatusTool == "" {
		// The core makes a task for these revisions only with a status
		// tool, and only where the profile says SealsTasks.
		r.Core.Log(slog.LevelError, "era2025: a task without a status tool or a sealer", "method", r.Name)
		return nil, &seam.Failure{Code: -32603, Message: "Internal error"}
	}
	b, err := r.Core.Binding(true)
	if err != nil {
		return nil, err
	}
	id, _, err := s.SealFor(mrtr.Binding(b), tc.Payload, tc.TTL)
	if err != nil {
		r.Core.Log(slog.LevelError, "era2025: cannot seal a job reference", "method", r.Name, "err", err)
		return nil, &seam.Failure{Code: -32603, Message: "Internal error"}
	}
	tc.TaskID = id
	return tc, nil
}
