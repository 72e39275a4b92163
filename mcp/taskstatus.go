package mcp

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/mcp/task"
)

// A task's status tool (task.Config.StatusTool) lets a client without the
// tasks extension follow a job: the call that started it answers with a
// job reference, which is a task id (sealed by the era, bound to the
// caller, opened by any replica), and the status tool reads the job with
// it through the status route, as tasks/get does. It keeps no state
// either.

// statusSchema is a status tool's input: the job reference.
var statusSchema = json.RawMessage(`{"type":"object","properties":{"taskId":{"type":"string","minLength":1,` +
	`"description":"The job reference (taskId) the tool's answer named."}},"required":["taskId"],"additionalProperties":false}`)

// addStatusTool registers parent's generated status tool, right after
// parent. s.mu is held. On a refusal parent is taken out again, so a
// staged registration leaves neither.
func (s *Server) addStatusTool(parent *tool) error {
	name := parent.opts.task.statusTool
	title := parent.def.Title
	if title == "" {
		title = parent.def.Name
	}
	def := Tool{Name: name, Title: "Status of " + title,
		Description: "Follows a background job that " + parent.def.Name + " started, for clients without the tasks extension: " +
			"pass the taskId its answer named. While the job runs, the answer is its status (call again after pollIntervalMs); " +
			"once it completed, it is " + parent.def.Name + "'s result.",
		InputSchema: statusSchema,
		Annotations: Annotations{Title: "Status of " + title, ReadOnly: true, Idempotent: true}}
	entry, _, err := s.toolBase(def)
	if err == nil && name == parent.def.Name {
		err = toolFail(parent.def.Name, "WithTask: StatusTool must not be the tool's own name")
	}
	if err != nil {
		s.tools = s.tools[:len(s.tools)-1]
		delete(s.byName, parent.def.Name)
		return err
	}
	entry.statusOf = parent // hidden wherever parent is (extension.go)
	entry.opts.scopes = parent.opts.scopes
	input := compact(def.InputSchema)
	for i := range entry.shapes {
		entry.shapes[i] = renderTool(&def, input, nil, entry.meta, i)
		if i > 0 && bytes.Equal(entry.shapes[i], entry.shapes[i-1]) {
			entry.shapes[i] = entry.shapes[i-1]
		}
	}
	s.tools = append(s.tools, entry)
	s.byName[name] = entry
	return nil
}

// followsTask reports whether a call of t that answers 202 becomes a job
// reference for a client that cannot take a task: t has a status tool
// and the era seals job references in this revision.
func (req *request) followsTask(t *tool) bool {
	sp := t.opts.task
	return sp != nil && sp.statusTool != "" && req.rev.f.SealsTasks
}

// statusReference hands the era the job reference of a status tool's
// call (its taskId argument) to open before the call is served, as a
// tasks/* request's params.taskId. A missing or empty one is left to the
// input schema to refuse. A caller who may not see or use the tool gets
// no reference opened: callTool then answers as for any tool it cannot
// see or use (unknown tool, or the scope challenge), not "Unknown task",
// which would say the tool exists.
func (req *request) statusReference() {
	if !req.rev.f.SealsTasks {
		return
	}
	raw, _ := req.Param("name")
	t, name, _ := req.server.toolNamed(raw)
	if t == nil || t.statusOf == nil {
		return
	}
	if t = req.visibleTool(name); t == nil || !req.usable(t.opts.scopes) {
		return
	}
	args, _ := req.Param("arguments")
	v, ok := jsonrpc.Lookup(args, "taskId")
	if id, isStr := jsonrpc.String(v); ok && isStr && id != "" {
		req.TaskID = id
	}
}

// followTask answers a call of a status tool: the job the reference the
// era opened names, read through the status route. A reference of
// another tool's task is as unknown as a forged one.
func (req *request) followTask(st *tool) (seam.Result, error) {
	ot := req.task
	if ot == nil || ot.tool != st.statusOf {
		return nil, unknownTask()
	}
	job, err := req.readJob(ot)
	if err != nil {
		return nil, err
	}
	switch job.State {
	case task.Completed:
		return req.jobResult(ot.tool, job)
	case task.Failed:
		msg := "The job failed."
		if job.Error != nil && job.Error.Message != "" {
			msg = "The job failed: " + job.Error.Message
		}
		return textResult(msg, true), nil
	case task.Cancelled:
		return textResult("The job was cancelled.", true), nil
	}
	text := "The job is " + string(job.State)
	if job.Message != "" {
		text += " (" + job.Message + ")"
	}
	if job.State == task.InputRequired {
		text += ": it waits for answers that only a client with the " + tasksExtension + " extension can give"
	}
	text += ". Call " + st.def.Name + " again with the same taskId in about " +
		strconv.FormatFloat(ot.poll.Seconds(), 'f', -1, 64) + " s."
	res := textResult(text, false)
	if req.rev.f.OutputSchema {
		b := append([]byte(nil), '{')
		b = seam.AppendTask(b, req.TaskID, string(job.State), job.Message, ot.created, ot.updatedAt(job), ot.ttl, ot.poll)
		res.structured = append(b, '}')
	}
	return res, nil
}
