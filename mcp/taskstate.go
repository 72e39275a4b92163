package mcp

import (
	"net/http"
	"time"

	"github.com/mcpdual/mcpdual/internal/inproc"
	"github.com/mcpdual/mcpdual/mcp/task"
)

// taskPayload is what a task id seals besides its binding: the tool, the
// job's route values, and the task's clock.
type taskPayload struct {
	Tool    string            `json:"t"`
	Values  map[string]string `json:"v"`
	Created int64             `json:"c"` // Unix milliseconds
	TTL     int64             `json:"l"` // milliseconds
	Poll    int64             `json:"p"` // milliseconds
	// Job is the digest of what reading the task's job depends on
	// (jobDigestOf): a task is refused as tool_changed only when that
	// changed. Def, the whole definition's digest, is what ids sealed
	// before Job existed carry instead, and is checked on them; it is
	// still written beside Job for replicas that know only Def (a rolling
	// upgrade), which check it as before.
	Job string `json:"j,omitempty"`
	Def string `json:"d,omitempty"`
}

// changed reports whether t is no longer the tool p's task started on:
// its status route or output schema changed (Job), or, for an id sealed
// before Job existed, its definition did (Def). An id with neither
// predates both, and is taken as it is.
func (p *taskPayload) changed(t *tool) bool {
	if p.Job != "" {
		return p.Job != t.jobDigest
	}
	return p.Def != "" && p.Def != t.digest
}

// openTask is the task a tasks/* request names, opened.
type openTask struct {
	tool      *tool
	values    map[string]string
	created   time.Time
	ttl, poll time.Duration
}

// updatedAt is a task's lastUpdatedAt: the job's, unless the status route
// gave none or one before the task was created, then now.
func (ot *openTask) updatedAt(job task.Job) time.Time {
	if job.UpdatedAt.IsZero() || job.UpdatedAt.Before(ot.created) {
		return time.Now()
	}
	return job.UpdatedAt
}

// taskSpec is a tool's WithTask configuration, checked.
type taskSpec struct {
	support              task.Support
	status               inproc.Pattern
	cancel, update       inproc.Pattern
	hasCancel, hasUpdate bool
	ttl, poll            time.Duration
	accepted             func(http.Header, []byte) (map[string]string, bool)
	read                 func(int, http.Header, []byte) (task.Job, error)
	statusTool           string // the generated status tool's name, "" for none
	// idWildcard is the status route's one wildcard, which an id in a 202
	// body fills ("" when the route has more than one).
	idWildcard string
}

// missingTasksExtension refuses a tasks/* request of a client that did
// not declare the extension, before its id is looked at.
func missingTasksExtension() *Error {
	return NewError(CodeMissingRequiredClientCapabilities, "The tasks methods need the "+tasksExtension+" extension").
		WithData(map[string]any{"requiredCapabilities": requiredCapabilities(capTasks)})
}
