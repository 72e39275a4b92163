// Package task describes how a tool whose route starts long work becomes
// an MCP task (the io.modelcontextprotocol/tasks extension of revision
// 2026-07-28), with no task state in the library.
//
// A route that starts long work answers 202 Accepted with a reference to
// the job (a Location header, or the job's id in its body), the way REST
// APIs already do. For a client that declared the extension, the endpoint
// turns that answer into a task: its id is sealed with the same AEAD and
// key ring as requestState and binds the caller (principal, workspace),
// the server, the tool and the route values that name the job, and it
// expires with the task's TTL. tasks/get then runs the job's status route
// in process with the caller's identity, on whichever replica gets the
// poll, and Config.Read (ReadJob by default) maps its answer to the task's
// status, result, error and input requests; tasks/cancel runs the cancel
// route and tasks/update posts the client's answers to the update route.
// A task id of another caller or workspace opens like a forged one: as an
// unknown task.
//
// The inner request of a call that may become a task carries
// "Prefer: respond-async" (RFC 7240), so a route that can also answer at
// once (short work) knows when a 202 is welcome. A client without the
// extension gets the route's answer as it is, 202 body included, unless
// the tool requires a task, or Config.StatusTool names a generated tool
// that follows the job: that client then gets a tool result naming the
// sealed job reference (the task id) and the tool, which reads the job
// through the status route as tasks/get does.
package task
