package seam

import (
	"strconv"
	"time"
)

// appendFollow appends the members of the tool result that starts a task
// for a client without the tasks extension: one text block saying which
// tool follows the job and with which reference, and the same as
// structuredContent when the revision has it.
func (r *TaskCreated) appendFollow(dst []byte) []byte {
	text := "Started a background job (status: " + r.Status + "). It is not finished: call the tool " + r.StatusTool +
		` with {"taskId": "` + r.TaskID + `"} to follow it, every ` + seconds(r.PollInterval) +
		" or so; the reference stays valid for " + seconds(r.TTL) + "."
	dst = append(dst, `"content":[{"type":"text","text":`...)
	dst = AppendString(dst, text)
	dst = append(dst, `}]`...)
	if r.Structured {
		dst = append(dst, `,"structuredContent":{"statusTool":`...)
		dst = AppendString(dst, r.StatusTool)
		dst = append(dst, ',')
		dst = AppendTask(dst, r.TaskID, r.Status, r.Message, r.Created, r.Created, r.TTL, r.PollInterval)
		dst = append(dst, '}')
	}
	return append(dst, `,"isError":false}`...)
}

// seconds renders a duration for people: "0.5 s", "3600 s".
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
}
