package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"
	"unicode/utf8"

	"github.com/mcpdual/mcpdual/internal/inproc"
	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/panics"
	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/task"
)

// Task defaults and bounds.
const (
	defaultTaskTTL  = time.Hour
	maxTaskTTL      = 7 * 24 * time.Hour
	defaultTaskPoll = time.Second
)

// WithTask makes a tool's route the start of a task (see package task):
// when the route answers 202 Accepted to a client that declared the tasks
// extension, the call's answer is a task whose status, cancellation and
// input go through the routes c names. It panics on a route that is not a
// valid pattern, a status route that is not a GET with a wildcard naming
// the job, cancel or update routes with wildcards the status route lacks,
// a TTL out of [1 ms, 7 days], or a PollInterval under 1 ms (the wire
// carries both in whole milliseconds).
func WithTask(c task.Config) ItemOption {
	sp := &taskSpec{support: c.Support, ttl: c.TTL, poll: c.PollInterval, accepted: c.Accepted, read: c.Read}
	if sp.ttl == 0 {
		sp.ttl = defaultTaskTTL
	}
	if sp.ttl < time.Millisecond || sp.ttl > maxTaskTTL {
		panic("mcp: WithTask: TTL must be at least 1 ms and at most 7 days")
	}
	if sp.poll <= 0 {
		sp.poll = defaultTaskPoll
	}
	if sp.poll < time.Millisecond {
		// pollIntervalMs must be positive, and the wire has whole ones.
		panic("mcp: WithTask: PollInterval must be at least 1 ms")
	}
	if sp.read == nil {
		sp.read = task.ReadJob
	}
	if c.Support != task.Optional && c.Support != task.Required {
		panic("mcp: WithTask: Support must be task.Optional or task.Required")
	}
	var err error
	if sp.status, err = inproc.Parse(c.Status); err != nil || sp.status.Method != http.MethodGet {
		panic(fmt.Sprintf("mcp: WithTask: Status %q must be a GET route (%v)", c.Status, err))
	}
	names := sp.status.Wildcards()
	if len(names) == 0 {
		panic(fmt.Sprintf("mcp: WithTask: Status %q needs a wildcard naming the job", c.Status))
	}
	if len(names) == 1 {
		for n := range names {
			sp.idWildcard = n
		}
	}
	other := func(what, pattern string) (inproc.Pattern, bool) {
		if pattern == "" {
			return inproc.Pattern{}, false
		}
		rt, err := inproc.Parse(pattern)
		if err != nil || rt.Method == http.MethodGet || rt.Method == http.MethodHead {
			panic(fmt.Sprintf("mcp: WithTask: %s %q must be a POST, PUT, PATCH or DELETE route (%v)", what, pattern, err))
		}
		if len(rt.Wildcards()) == 0 {
			panic(fmt.Sprintf("mcp: WithTask: %s %q needs a wildcard naming the job", what, pattern))
		}
		for n := range rt.Wildcards() {
			if !names[n] {
				panic(fmt.Sprintf("mcp: WithTask: %s %q has wildcard {%s}, which Status lacks", what, pattern, n))
			}
		}
		return rt, true
	}
	if c.StatusTool != "" && !toolName.MatchString(c.StatusTool) {
		panic(fmt.Sprintf("mcp: WithTask: StatusTool %q is not a valid tool name", c.StatusTool))
	}
	sp.statusTool = c.StatusTool
	sp.cancel, sp.hasCancel = other("Cancel", c.Cancel)
	sp.update, sp.hasUpdate = other("Update", c.Update)
	return itemOptionFunc(func(o *itemOptions) { o.task = sp })
}

// maxJobReference bounds the route values a task id seals (the id must
// stay under mrtr.MaxMintBytes and fit a header), as they are sealed:
// JSON-encoded, where a control character takes six bytes.
const maxJobReference = 1 << 10

// jobReference finds which job a 202 answer started (the tool's Accepted
// function, or the Location header, or the id in the body) and checks the
// values name one job: every wildcard of the status route, each a valid
// segment of valid UTF-8 (JSON, which seals them, would replace the
// rest, and the status route be asked of another job), together under
// maxJobReference bytes once encoded. panicked is the value the tool's
// Accepted function panicked with (nil when it did not).
func (sp *taskSpec) jobReference(rec *inproc.Recorder) (vals map[string]string, ok bool, panicked any) {
	vals, ok, panicked = sp.findJob(rec)
	if !ok {
		return nil, false, panicked
	}
	size := 0
	var enc []byte
	for k, v := range vals {
		if !utf8.ValidString(v) {
			return nil, false, nil
		}
		enc = jsonrpc.AppendString(jsonrpc.AppendString(enc[:0], k), v)
		size += len(enc) - 4 // not the quotes
	}
	if _, _, bad := sp.status.Fill(func(name string) (string, bool) { v, ok := vals[name]; return v, ok }); bad != "" || size > maxJobReference {
		return nil, false, nil
	}
	return vals, true, nil
}

func (sp *taskSpec) findJob(rec *inproc.Recorder) (vals map[string]string, ok bool, panicked any) {
	if sp.accepted != nil {
		defer func() {
			if p := recover(); p != nil {
				vals, ok, panicked = nil, false, panics.Describe(p)
			}
		}()
		vals, ok = sp.accepted(rec.Headers, rec.Body.Bytes())
		return vals, ok, nil
	}
	if loc := rec.Headers.Get("Location"); loc != "" {
		if u, err := url.Parse(loc); err == nil {
			if vals, ok := sp.status.Match(u.EscapedPath()); ok {
				return vals, true, nil
			}
		}
	}
	if sp.idWildcard == "" {
		return nil, false, nil
	}
	body := rec.Body.Bytes()
	if jsonrpc.Validate(body, jsonrpc.DefaultMaxDepth) != nil {
		return nil, false, nil
	}
	id, ok := jsonrpc.Lookup(body, "id")
	if !ok {
		if data, has := jsonrpc.Lookup(body, "data"); has {
			id, ok = jsonrpc.Lookup(data, "id")
		}
	}
	if !ok {
		return nil, false, nil
	}
	v, isStr := jsonrpc.String(id)
	if !isStr && len(id) > 0 && (id[0] == '-' || id[0] >= '0' && id[0] <= '9') {
		v, isStr = string(id), true
	}
	if !isStr || v == "" {
		return nil, false, nil
	}
	return map[string]string{sp.idWildcard: v}, true, nil
}

// acceptsTask reports whether this call may become a task: a tool with
// WithTask, on 2026-07-28, for a client that declared the extension in
// this request.
func (req *request) acceptsTask(t *tool) bool {
	return t.opts.task != nil && req.rev.f.InputRequests && req.capBits&capTasks != 0
}

// taskRequired answers a call of a tool that runs only as a task from a
// client that cannot take one: a revision with input requests refuses the
// missing capability (-32021); the others cannot say so but in the result.
func taskRequired(f features, t *tool) (seam.Result, error) {
	if f.InputRequests {
		return nil, NewError(CodeMissingRequiredClientCapabilities, t.def.Name+" runs only as a task: declare the "+tasksExtension+" extension").
			WithData(map[string]any{"requiredCapabilities": requiredCapabilities(capTasks)})
	}
	return notExecuted(f, "task_required", "Not executed (task_required): "+t.def.Name+
		" runs only as a background task, which needs an MCP 2026-07-28 client with the tasks extension."), nil
}

// createTask turns a route's 202 answer into a task; follow: into the
// tool result naming the job reference and the status tool, for a
// client without the extension.
func (req *request) createTask(t *tool, rec *inproc.Recorder, follow bool) (seam.Result, error) {
	sp := t.opts.task
	vals, ok, panicked := sp.jobReference(rec)
	switch {
	case panicked != nil:
		req.logError("mcp: the tool's task Accepted function panicked on the route's 202 answer", "tool", t.def.Name, "panic", panicked)
		return textResult("The tool failed with an internal error.", true), nil
	case !ok:
		req.logError("mcp: a task route answered 202 without a job reference the status route can read (Location, or an id in the body, "+
			"filling every wildcard, under 1 KiB)", "tool", t.def.Name)
		return textResult("The tool failed with an internal error.", true), nil
	}
	now := time.Now()
	// Encoded as jobReference measured it: "<" or "&" in a job's id is
	// one byte, not json.Marshal's six.
	payload, err := marshalPlain(taskPayload{Tool: t.def.Name, Job: t.jobDigest, Def: t.digest, Values: vals, Created: now.UnixMilli(),
		TTL: sp.ttl.Milliseconds(), Poll: sp.poll.Milliseconds()})
	if err != nil {
		return nil, err
	}
	res := &seam.TaskCreated{Payload: payload, TTL: sp.ttl, PollInterval: sp.poll, Status: string(task.Working), Created: now}
	if follow {
		// structuredContent only where results carry it, and not against
		// an output schema that describes the job's result, not this.
		res.StatusTool, res.Structured = sp.statusTool, req.rev.f.OutputSchema && t.output == nil
	}
	// The 202 body often is the job already; its status is the task's
	// first, when it reads as one. Read was written for the status
	// route's answers, so whatever it makes of this one is only a hint;
	// if it panics, the task starts as working and the panic is logged
	// (the same function reads every status answer, where a panic fails
	// the poll).
	func() {
		defer func() {
			if p := recover(); p != nil {
				req.Log(slog.LevelWarn, "mcp: the tool's task Read function panicked on the route's 202 answer; the task starts as working",
					"tool", t.def.Name, "panic", panics.Describe(p))
			}
		}()
		if job, err := sp.read(rec.Status, rec.Headers, rec.Body.Bytes()); err == nil && job.State.Valid() {
			res.Status, res.Message = string(job.State), job.Message
		}
	}()
	return res, nil
}

func unknownTask() *Error {
	e, _ := asError(seam.UnknownTask())
	return e
}

// runTaskRoute runs one of a task's routes in process with the caller's
// identity. It returns nil and the error to answer when the route
// panicked or says the job does not exist.
func (req *request) runTaskRoute(ot *openTask, rt inproc.Pattern, body []byte) (*inproc.Recorder, error) {
	path, values, bad := rt.Fill(func(name string) (string, bool) { v, ok := ot.values[name]; return v, ok })
	if bad != "" {
		return nil, unknownTask()
	}
	in := inner{pattern: rt.Text, method: rt.Method, path: path, values: values}
	if body != nil {
		in.body, in.contentType = body, "application/json"
	}
	call := req.newCall(ot.tool.def.Name, json.RawMessage(`{}`))
	rec, p := req.runRoute(ot.tool.handler, call, in)
	if rec.Interrupted {
		// The route gave up because its request ended (a server-side
		// deadline, a cancellation): it answered nothing, and the
		// recorder's 200 would acknowledge a cancel or an update that
		// never happened, or fail a status read as unreadable. No
		// outcome: retry.
		req.Log(slog.LevelInfo, "mcp: a task request was interrupted: its request ended before the task's route answered",
			"tool", ot.tool.def.Name, "route", rt.Text)
		return nil, unavailable("The request was interrupted before the task's route answered; retry it", "call_interrupted")
	}
	if p != nil {
		req.logError("mcp: task route panicked", "tool", ot.tool.def.Name, "route", rt.Text, "panic", p)
		return nil, errInternal()
	}
	if rec.Status == http.StatusNotFound || rec.Status == http.StatusGone {
		return nil, unknownTask()
	}
	return rec, nil
}

// getTask answers tasks/get: the status route's answer, read as a job.
func (s *Server) getTask(req *request) (seam.Result, error) {
	raw, _ := req.Param("taskId")
	id, _ := jsonrpc.String(raw)
	res, _, err := req.detailTask(req.task, id)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// detailTask reads the opened task ot, whose id is id, as a
// DetailedTask: what tasks/get answers and a listen stream's
// notifications/tasks carries (tasklisten.go). It also returns the job as
// the status route described it.
func (req *request) detailTask(ot *openTask, id string) (*taskResult, task.Job, error) {
	job, err := req.readJob(ot)
	if err != nil {
		return nil, job, err
	}
	res := &taskResult{id: id, state: job.State, message: job.Message, created: ot.created, updated: ot.updatedAt(job), ttl: ot.ttl, poll: ot.poll}
	switch job.State {
	case task.Completed:
		tr, err := req.jobResult(ot.tool, job)
		if err != nil {
			return nil, job, err
		}
		tr.stamp = seam.Stamp{ResultType: "complete"}
		res.result = tr
	case task.Failed:
		e := job.Error
		if e == nil || e.Code == 0 || e.Message == "" {
			e = &task.Error{Code: int(CodeInternal), Message: "Internal error"}
		}
		res.failure, _ = json.Marshal(e)
	case task.InputRequired:
		b, needs, ok := inputRequestsJSON(job.InputRequests)
		if !ok {
			req.logError("mcp: a job's inputRequests are not {key: {method, params}} with known methods", "tool", ot.tool.def.Name)
			return nil, job, errInternal()
		}
		if missing := needs &^ req.capBits; missing != 0 {
			// As in a multi round-trip call: ask only what the client
			// said it can answer.
			return nil, job, NewError(CodeMissingRequiredClientCapabilities, "The task waits for input the client's capabilities do not declare").
				WithData(map[string]any{"requiredCapabilities": requiredCapabilities(missing)})
		}
		res.inputRequests = b
	}
	return res, job, nil
}

// readJob reads the opened task's job through its status route.
func (req *request) readJob(ot *openTask) (task.Job, error) {
	sp := ot.tool.opts.task
	rec, err := req.runTaskRoute(ot, sp.status, nil)
	if err != nil {
		return task.Job{}, err
	}
	job, err := sp.read(rec.Status, rec.Headers, rec.Body.Bytes())
	if (err != nil || !job.State.Valid()) && transientStatus(rec.Status) {
		req.Log(slog.LevelWarn, "mcp: a task's status route is unavailable", "tool", ot.tool.def.Name, "status", rec.Status)
		return task.Job{}, taskRouteUnavailable()
	}
	if err != nil || !job.State.Valid() {
		req.logError("mcp: a task's status route answered what cannot be read as a job", "tool", ot.tool.def.Name,
			"status", rec.Status, "err", err)
		return task.Job{}, errInternal()
	}
	return job, nil
}

// jobResult renders a completed job's result as the tool's answer of a
// call that ran at once would be.
func (req *request) jobResult(t *tool, job task.Job) (*toolResult, error) {
	text := string(job.Result)
	mediaType := "application/json"
	if s, ok := jsonrpc.String(job.Result); ok && len(job.Result) > 0 && job.Result[0] == '"' {
		text, mediaType = s, "text/plain; charset=utf-8"
	}
	if job.IsError {
		return textResult(text, true), nil
	}
	rec := &inproc.Recorder{Headers: http.Header{"Content-Type": {mediaType}}, Status: http.StatusOK, Limit: req.handler.cfg.limits.ResponseBytes}
	rec.Body.WriteString(text)
	return t.result(req, rec, req.rev.f)
}

// inputRequestsJSON renders a job's input requests, each checked to be
// {"method": a method a server may ask, "params": {...}}, with the client
// capabilities they need.
func inputRequestsJSON(reqs map[string]json.RawMessage) (_ []byte, needs Capability, ok bool) {
	if len(reqs) == 0 {
		return nil, 0, false
	}
	for key, v := range reqs {
		if key == "" || len(key) > maxInputKey || jsonrpc.Validate(v, jsonrpc.DefaultMaxDepth) != nil || !jsonrpc.IsObject(v) {
			return nil, 0, false
		}
		params, has := jsonrpc.Lookup(v, "params")
		if has && !jsonrpc.IsObject(params) {
			return nil, 0, false
		}
		m, _ := jsonrpc.Lookup(v, "method")
		switch {
		case jsonrpc.StringIs(m, "elicitation/create"):
			mode, _ := jsonrpc.Lookup(params, "mode")
			if jsonrpc.StringIs(mode, "url") {
				needs |= CapElicitationURL
			} else {
				needs |= CapElicitationForm
			}
		case jsonrpc.StringIs(m, "sampling/createMessage"):
			needs |= CapSampling
		case jsonrpc.StringIs(m, "roots/list"):
			needs |= CapRoots
		default:
			return nil, 0, false
		}
	}
	b, err := json.Marshal(reqs)
	if err != nil {
		return nil, 0, false
	}
	return b, needs, true
}

// cancelTask answers tasks/cancel with a bare acknowledgement once the
// cancel route took the request (2xx, or 409 for a job already ended).
// Without a cancel route nothing can stop the job: the request is
// acknowledged all the same (cancellation is cooperative, and the job's
// own status stays the truth).
func (s *Server) cancelTask(req *request) (seam.Result, error) {
	ot := req.task
	sp := ot.tool.opts.task
	if !sp.hasCancel {
		return &emptyResult{}, nil
	}
	rec, err := req.runTaskRoute(ot, sp.cancel, nil)
	if err != nil {
		return nil, err
	}
	if rec.Status/100 == 2 || rec.Status == http.StatusConflict {
		return &emptyResult{}, nil
	}
	if transientStatus(rec.Status) {
		req.Log(slog.LevelWarn, "mcp: a task's cancel route is unavailable", "tool", ot.tool.def.Name, "status", rec.Status)
		return nil, taskRouteUnavailable()
	}
	req.logError("mcp: a task's cancel route failed", "tool", ot.tool.def.Name, "status", rec.Status)
	return nil, errInternal()
}

// updateTask answers tasks/update: the inputResponses go to the update
// route as they are; it ignores what it did not ask.
func (s *Server) updateTask(req *request) (seam.Result, error) {
	ot := req.task
	sp := ot.tool.opts.task
	responses, ok := req.Param("inputResponses")
	if !ok || !jsonrpc.IsObject(responses) {
		return nil, NewError(CodeInvalidParams, "Invalid params: inputResponses must be an object")
	}
	if !sp.hasUpdate {
		return &emptyResult{}, nil
	}
	rec, err := req.runTaskRoute(ot, sp.update, responses)
	if err != nil {
		return nil, err
	}
	switch {
	case rec.Status/100 == 2:
		return &emptyResult{}, nil
	case rec.Status == http.StatusBadRequest || rec.Status == http.StatusUnprocessableEntity:
		return nil, invalidInputResponses("")
	case transientStatus(rec.Status):
		req.Log(slog.LevelWarn, "mcp: a task's update route is unavailable", "tool", ot.tool.def.Name, "status", rec.Status)
		return nil, taskRouteUnavailable()
	}
	req.logError("mcp: a task's update route failed", "tool", ot.tool.def.Name, "status", rec.Status)
	return nil, errInternal()
}

// transientStatus reports whether a task route's status says that the
// host's job service is unavailable for now (overloaded, its store or an
// upstream down): the job's fate is unknown to it, and the same request
// may succeed shortly. A 500 is a fault, not a wait.
func transientStatus(status int) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// taskRouteUnavailable answers a tasks/* request (or a status tool's
// call) whose route said its service is unavailable for now: a retry is
// due, and nothing is known of the job.
func taskRouteUnavailable() *Error {
	return unavailable("The task's service is temporarily unavailable; retry shortly", "task_unavailable")
}

// isTaskRouteUnavailable reports whether err is taskRouteUnavailable's.
func isTaskRouteUnavailable(err error) bool {
	var e *Error
	if !errors.As(err, &e) || e.status != http.StatusServiceUnavailable {
		return false
	}
	d, _ := e.data.(map[string]any)
	return d["reason"] == "task_unavailable"
}

// taskResult is a tasks/get answer: the task, with its result, error or
// input requests as its status has them.
type taskResult struct {
	stamp            seam.Stamp
	id               string
	state            task.State
	message          string
	created, updated time.Time
	ttl, poll        time.Duration
	result           *toolResult // completed
	failure          []byte      // failed: the error object
	inputRequests    []byte      // input_required
}

func (r *taskResult) Stamp() *seam.Stamp { return &r.stamp }

func (r *taskResult) AppendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	dst, comma := r.stamp.AppendMembers(dst)
	dst = seam.Comma(dst, comma)
	dst = seam.AppendTask(dst, r.id, string(r.state), r.message, r.created, r.updated, r.ttl, r.poll)
	switch {
	case r.result != nil:
		dst = append(dst, `,"result":`...)
		dst = r.result.AppendJSON(dst)
	case r.failure != nil:
		dst = append(dst, `,"error":`...)
		dst = append(dst, r.failure...)
	case r.inputRequests != nil:
		dst = append(dst, `,"inputRequests":`...)
		dst = append(dst, r.inputRequests...)
	}
	return append(dst, '}')
}

// taskMethods are the method table's rows of tasks (see methodTable).
var taskMethods = []*methodRow{
	{name: "tasks/get", Method: seam.Method{Member: "taskId", Task: true}, capability: seam.CapTasks, serve: (*Server).getTask},
	{name: "tasks/update", Method: seam.Method{Member: "taskId", Task: true}, capability: seam.CapTasks, serve: (*Server).updateTask},
	{name: "tasks/cancel", Method: seam.Method{Member: "taskId", Task: true}, capability: seam.CapTasks, serve: (*Server).cancelTask},
	// Only its task notifications (tasklisten.go); any other listen is
	// answered as a method the server lacks, as before.
	{name: "subscriptions/listen", capability: seam.CapTasks | seam.CapListChanged, serve: (*Server).listen, notifier: (*Handler).listenNotifier},
}

// SetTask implements seam.Core: it takes the opened payload of a task id. A task whose tool is gone, no longer
// runs as a task, or is no longer the caller's to use is unknown.
func (req *request) SetTask(payload []byte) error {
	var p taskPayload
	if err := json.Unmarshal(payload, &p); err != nil {
		return unknownTask()
	}
	t := req.server.byName[p.Tool]
	if t == nil || t.opts.task == nil || req.hiddenTool(t) || !req.visible(auth.KindTool, p.Tool) || !req.usable(t.opts.scopes) {
		return unknownTask()
	}
	if p.changed(t) {
		return taskToolChanged(p.Tool) // the task started on a status route or output schema the tool no longer has (update.go)
	}
	ot := &openTask{tool: t, values: p.Values, created: time.UnixMilli(p.Created),
		ttl: time.Duration(p.TTL) * time.Millisecond, poll: time.Duration(p.Poll) * time.Millisecond}
	// The sealer accepts an id up to its skew past its expiry; the task
	// itself lives its TTL (a job store keeps the job that long, no
	// longer), so it is unknown from then on.
	if !time.Now().Before(ot.created.Add(ot.ttl)) {
		return unknownTask()
	}
	req.task = ot
	return nil
}

// The tasks extension, as the core's extension hook sees it: a client
// declares it with an object, and a task's generated status tool exists
// only where the era seals job references.
func init() {
	registerExtension(&extension{
		name:     tasksExtension,
		bit:      capTasks,
		declares: jsonrpc.IsObject,
		freeze: func(s *Server) (seam.Capability, bool, error) {
			for _, t := range s.tools {
				if t.statusOf != nil {
					return 0, true, nil
				}
			}
			return 0, false, nil
		},
		hides:  func(req *request) bool { return !req.rev.f.SealsTasks },
		hidden: func(req *request, t *tool) bool { return t.statusOf != nil && !req.rev.f.SealsTasks },
	})
}
