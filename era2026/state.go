package era2026

import (
	"log/slog"
	"time"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/mrtr"
)

// openState verifies the requestState of a retry and hands it, with the
// inputResponses, to the core. inputResponses without a requestState go to
// the core as unverified answers (the server may keep no state between
// rounds); the core never counts them as a confirmation. Any failure is the
// one "Invalid or expired requestState" answer; the reason is logged.
func (e *Era) openState(req *seam.Request) error {
	m := req.Method
	if m.Task || req.TaskID != "" {
		return e.openTask(req)
	}
	raw, ok := req.Param("requestState")
	if !ok {
		if responses, has := req.Param("inputResponses"); has && m.InputRequired {
			return req.Core.SetRound(nil, nil, time.Time{}, responses)
		}
		return nil
	}
	refuse := func(reason string) error {
		args := []any{"reason", reason, "method", req.Name}
		if hint := e.hint(reason); hint != "" {
			args = append(args, "hint", hint)
		}
		req.Core.Log(slog.LevelWarn, "era2026: requestState refused", args...)
		return seam.InvalidState()
	}
	if !m.InputRequired {
		return refuse("method_without_input")
	}
	state, isStr := jsonrpc.String(raw)
	if !isStr {
		return refuse("not_a_string")
	}
	b, err := req.Core.Binding(false)
	if err != nil {
		return err
	}
	opened, err := e.sealer.Open(mrtr.Binding(b), state)
	if err != nil {
		return refuse(mrtr.Reason(err))
	}
	responses, _ := req.Param("inputResponses")
	return req.Core.SetRound(opened.Payload, opened.Nonce[:], opened.ValidUntil, responses)
}

// hint says, for the log, what usually causes a refusal that a
// configuration can fix: on a fleet, a state sealed under a key this
// replica does not hold (unknown_key) or holds with another secret
// (bad_tag; also what tampering looks like), or replicas that bind states
// to different resource URIs (binding_mismatch; also what a retry with
// other arguments looks like).
func (e *Era) hint(reason string) string {
	switch {
	case reason == "binding_mismatch":
		return "the retry is not the request the state was issued for (caller, workspace, tool, arguments), " +
			"or the replicas name different resource URIs: every replica must be configured with the same public one"
	case reason != "unknown_key" && reason != "bad_tag":
		return ""
	case e.ephemeral:
		return "this process seals with a random key of its own, so states from another replica or from before a restart cannot open: " +
			"load one key ring on every replica (mrtr.LoadKeys, era2026.WithSealer)"
	case reason == "unknown_key":
		return "the state names a key this replica's ring lacks: every replica must load the same ring (mrtr.LoadKeys); " +
			"in a rotation, add the new key second on every replica before any makes it first, and retire the old one only after the TTL"
	}
	return "the key id is in this replica's ring but the secret differs from the sealing replica's (or the state was altered): " +
		"every replica must load the same ring (mrtr.LoadKeys)"
}

// openTask opens the task id of a tasks/* request and hands its payload to
// the core. A forged, expired or foreign id (another caller's, another
// workspace's, another server's) is the same unknown task; the reason is
// logged at Debug, since a stale id is an everyday thing for a poller.
// A call of a task's status tool carries the id in req.TaskID and takes
// the same path.
func (e *Era) openTask(req *seam.Request) error {
	id := req.TaskID
	if id == "" {
		raw, _ := req.Param("taskId")
		var isStr bool
		if id, isStr = jsonrpc.String(raw); !isStr {
			return seam.InvalidParams("Invalid params: taskId must be a string", nil)
		}
	}
	b, err := req.Core.Binding(true)
	if err != nil {
		return err
	}
	opened, err := e.sealer.Open(mrtr.Binding(b), id)
	if err != nil {
		req.Core.Log(slog.LevelDebug, "era2026: task id refused", "reason", mrtr.Reason(err), "method", req.Name)
		// In-band, like an unknown tool: the request was understood.
		return seam.UnknownTask()
	}
	return req.Core.SetTask(opened.Payload)
}
