package mcp

import (
	"bytes"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/mcp/task"
)

// Task status notifications (the tasks extension, 2026-07-28): a client
// that declared the extension opens a subscriptions/listen stream whose
// params.notifications.taskIds names tasks it holds. Each id is opened as
// tasks/get opens it; the stream is acknowledged with the ids that opened,
// then the request's own goroutine reads each task through its status
// route every pollIntervalMs (at least every second: minListenPoll) and
// sends notifications/tasks, the full DetailedTask, whenever it changed.
// The reads are bounded by their own budgets, per stream and per caller
// (listenReadsPerStream, listenReadsPerCaller), not by the caller's rate
// limit: following tasks never spends what the caller's own calls need.
// An open stream holds a listen slot (listensPerCaller, maxListens), not
// one of Limits.Concurrent: it mostly waits. Nothing outlives the stream: no
// goroutine, no record. A listen without taskIds is answered as before
// (the method does not exist here), so the list-change and resource
// subscriptions the server does not serve stay refused as they were,
// unless WithChangeNotifications serves them (listen.go).

// listenLifetime is how long a stream stays open before it ends with its
// result (the client listens again if it still cares): below the 60 s
// WriteTimeout the README's servers use, which would otherwise cut it.
// A variable for tests.
var listenLifetime = 45 * time.Second

// metaSubscriptionID names the listen request on everything its stream
// carries.
const metaSubscriptionID = "io.modelcontextprotocol/subscriptionId"

// listenNotifier gives a 2026-07-28 subscriptions/listen over HTTP that
// accepts an event stream its response stream, and one over a local
// transport that takes notifications (stdio: the one connection) its
// messages, with WithChangeNotifications. It returns nil otherwise.
func (h *Handler) listenNotifier(w http.ResponseWriter, req *request) *notifier {
	if !req.rev.f.Envelope {
		return nil
	}
	if loc := req.local; loc != nil {
		if loc.Notify == nil || h.notes == nil {
			return nil
		}
		return &notifier{minLevel: -1, w: &streamWriter{ResponseWriter: w, version: req.version, direct: loc.Notify}}
	}
	if !acceptsEventStream(req.HTTP) {
		return nil
	}
	if n := req.notify; n != nil {
		return n
	}
	return &notifier{minLevel: -1, w: &streamWriter{ResponseWriter: w, version: req.version}}
}

// listenTasks checks a listen's taskIds and opens each as tasks/get
// opens it: the tasks the stream follows, those that opened (the subset
// the server honours, in the acknowledgement). When none opens, the
// stream is refused as tasks/get refuses the first. malformed: the client
// declared the tasks extension and taskIds is not its shape (an array of
// at most maxListenTasks task ids), which the stream's other kinds do not
// excuse.
func (s *Server) listenTasks(req *request, raw []byte) (_ []*watched, malformed bool, _ error) {
	if req.capBits&capTasks == 0 {
		return nil, false, missingTasksExtension()
	}
	h := req.handler
	if a := h.cfg.auth; a != nil {
		// Following a task is reading it: the scopes of tasks/get (which
		// include the tool call's), besides listen's own, checked before.
		if need := h.taskScopes["tasks/get"]; !a.Satisfies(req.principal, need) {
			return nil, false, h.failure(req.ctx(), a.InsufficientScope(need))
		}
	}
	ids, err := listenTaskIDs(raw)
	if err != nil {
		return nil, true, err
	}
	tasks, err := s.openListenTasks(req, ids)
	return tasks, false, err
}

// listenTaskIDs reads taskIds: an array of task ids, duplicates left out,
// at most maxListenTasks.
func listenTaskIDs(raw []byte) ([]string, error) {
	ids, malformed, over := distinctStrings(raw, maxListenTasks, func(id string) bool { return id != "" })
	switch {
	case malformed:
		return nil, NewError(CodeInvalidParams, "Invalid params: notifications.taskIds must be an array of task ids")
	case over:
		return nil, NewError(CodeInvalidParams, "Invalid params: at most "+strconv.Itoa(maxListenTasks)+" taskIds on one stream")
	}
	return ids, nil
}

// distinctStrings reads arr, a JSON array the scanner accepted, as
// strings each valid, duplicates left out, in order. It walks the array
// in place and copies a string only when it is new: decoded into
// json.RawMessage first, a 1 MiB array of one string repeated (or of
// numbers, refused only when seen) cost 35 (66) times its size in one
// allocation an element. malformed: arr is not an array, or an element
// is not a string or not valid; over: more than max distinct strings
// (the reading stops there).
func distinctStrings(arr []byte, max int, valid func(string) bool) (out []string, malformed, over bool) {
	if len(arr) == 0 || arr[0] != '[' {
		return nil, true, false
	}
	var buf []byte
	for it := jsonrpc.NewElems(arr); ; {
		v, more := it.Next()
		if !more {
			return out, false, false
		}
		var isStr bool
		if buf, isStr = jsonrpc.AppendUnquoted(buf[:0], v); !isStr {
			return nil, true, false
		}
		if slices.ContainsFunc(out, func(s string) bool { return s == string(buf) }) {
			continue // a string it holds, so valid
		}
		s := string(buf)
		if !valid(s) {
			return nil, true, false
		}
		if out = append(out, s); len(out) > max {
			return nil, false, true
		}
	}
}

// openListenTasks opens a listen's task ids, as listenTasks says.
func (s *Server) openListenTasks(req *request, ids []string) ([]*watched, error) {
	if len(ids) == 0 {
		return nil, NewError(CodeInvalidParams, "Invalid params: notifications.taskIds names no task")
	}
	var tasks []*watched
	var firstErr error
	for _, id := range ids {
		req.TaskID, req.task = id, nil
		if err := req.rev.era.Open(&req.Request); err != nil || req.task == nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		tasks = append(tasks, &watched{id: id, ot: req.task})
	}
	req.TaskID, req.task = "", nil
	if len(tasks) == 0 {
		if firstErr == nil {
			firstErr = unknownTask()
		}
		return nil, firstErr
	}
	return tasks, nil
}

// watched is a task a listen stream follows.
type watched struct {
	id   string
	ot   *openTask
	next time.Time
	last []byte // what the last notification said, nil before one
}

// taskReads are the budgets of a stream's status reads.
type taskReads struct {
	stream, caller *readBudget
}

// pollTasks reads the tasks that are due, within the budgets, and sends
// notifications/tasks for each whose status changed. It returns the tasks
// still followed, when it must run again (zero: never), and false when
// the stream is finished (the client left).
func (req *request) pollTasks(tasks []*watched, reads taskReads, meta []byte) ([]*watched, time.Time, bool) {
	now := time.Now()
	// The longest due first: a task the budgets held back is read
	// before the others next time.
	slices.SortStableFunc(tasks, func(a, b *watched) int { return a.next.Compare(b.next) })
	var held time.Duration // until the budgets allow another read; 0 when they did
	kept := tasks[:0]
	for _, t := range tasks {
		if now.Before(t.next) || held > 0 {
			kept = append(kept, t)
			continue
		}
		if !now.Before(t.ot.created.Add(t.ot.ttl)) {
			continue // past its TTL, tasks/get no longer knows it either
		}
		if held = takeRead(now, reads.stream, reads.caller); held > 0 {
			kept = append(kept, t)
			continue
		}
		req.TaskID, req.task = t.id, nil
		if err := req.rev.era.Open(&req.Request); err != nil || req.task == nil {
			// tasks/get would refuse it now: the stream stops following it.
			req.TaskID, req.task = "", nil
			req.Log(slog.LevelDebug, "mcp: a listen stream stopped following a task it may no longer read", "tool", t.ot.tool.def.Name, "err", err)
			continue
		}
		t.ot = req.task
		req.TaskID, req.task = "", nil
		res, job, err := req.detailTask(t.ot, t.id)
		if isTaskRouteUnavailable(err) {
			// The job's service is down for now, which says nothing of
			// the job: read it again at the next poll.
			t.next = now.Add(max(t.ot.poll, minListenPoll))
			kept = append(kept, t)
			continue
		}
		if err != nil {
			// The job is gone, or cannot be read or shown to this
			// client: tasks/get would say so; the stream stops
			// following it.
			req.Log(slog.LevelDebug, "mcp: a listen stream stopped following a task", "tool", t.ot.tool.def.Name, "err", err)
			continue
		}
		sig := listenSignature(res, job)
		if !bytes.Equal(sig, t.last) {
			t.last = sig
			res.stamp = seam.Stamp{Meta: meta}
			if !req.notify.send("notifications/tasks", res.AppendJSON(nil)) {
				return nil, time.Time{}, false
			}
		}
		if job.State == task.Completed || job.State == task.Failed || job.State == task.Cancelled {
			continue // a final status never changes
		}
		t.next = now.Add(max(t.ot.poll, minListenPoll))
		kept = append(kept, t)
	}
	if len(kept) == 0 {
		return nil, time.Time{}, true
	}
	next := kept[0].next
	for _, t := range kept[1:] {
		if t.next.Before(next) {
			next = t.next
		}
	}
	if held > 0 {
		next = now.Add(held) // a task is due and waits for the budgets
	}
	return kept, next, true
}

// listenSignature is what a notification says that may change between
// two reads of the same job: lastUpdatedAt counts only when the status
// route gives it (otherwise each read would be "now").
func listenSignature(res *taskResult, job task.Job) []byte {
	b := append([]byte(nil), res.state...)
	b = append(b, 0)
	b = append(b, res.message...)
	b = append(b, 0)
	b = append(b, res.inputRequests...)
	b = append(b, 0)
	b = append(b, res.failure...)
	if !job.UpdatedAt.IsZero() {
		b = job.UpdatedAt.AppendFormat(append(b, 0), time.RFC3339Nano)
	}
	return b
}

// listenEnd is a listen stream's result: it ends the stream, naming the
// subscription in _meta beside what the era puts there.
type listenEnd struct {
	stamp seam.Stamp
	id    []byte
}

func (r *listenEnd) Stamp() *seam.Stamp { return &r.stamp }

func (r *listenEnd) AppendJSON(dst []byte) []byte {
	st := r.stamp
	m := st.Meta
	st.Meta = nil
	dst = append(dst, '{')
	dst, comma := st.AppendMembers(dst)
	dst = seam.Comma(dst, comma)
	dst = append(dst, `"_meta":{`...)
	if len(m) > 2 && m[0] == '{' && m[len(m)-1] == '}' {
		dst = append(dst, m[1:len(m)-1]...)
		dst = append(dst, ',')
	}
	dst = append(dst, `"`+metaSubscriptionID+`":`...)
	dst = append(dst, r.id...)
	return append(dst, "}}"...)
}
