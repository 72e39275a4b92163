package era2026

import (
	"log/slog"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/mrtr"
)

// openState verifies the requestState of a retry and hands it, with the
// inputResponses, to the core. inputResponses without a requestState go to
// the core as unverified answers (the server may keep no state between
// rounds); the core never counts them as a confirmation. Any failure is the
// one "Invalid or expired requestState" answer; the reason is logged.
func (e *Era) openState(req seam.Request) error {
	m := req.Method()
	raw, ok := req.Param("requestState")
	if !ok {
		if responses, has := req.Param("inputResponses"); has && m.InputRequired {
			return req.SetAnswers(responses)
		}
		return nil
	}
	refuse := func(reason string) error {
		hint := ""
		if reason == "bad_tag" || reason == "unknown_key" {
			// The usual cause on a fleet: replicas sealing with keys of
			// their own. Every replica must load the same key ring.
			hint = "replicas must share one requestState key ring (era2026.WithSealer over mrtr.ParseKeys)"
		}
		req.Log(slog.LevelWarn, "era2026: requestState refused", "reason", reason, "method", req.Name(), "hint", hint)
		return seam.InvalidState()
	}
	if !m.InputRequired {
		return refuse("method_without_input")
	}
	state, isStr := jsonrpc.String(raw)
	if !isStr {
		return refuse("not_a_string")
	}
	b, err := req.Binding()
	if err != nil {
		return err
	}
	opened, err := e.sealer.Open(mrtr.Binding(b), state)
	if err != nil {
		return refuse(mrtr.Reason(err))
	}
	responses, _ := req.Param("inputResponses")
	return req.SetRound(opened.Payload, opened.Nonce[:], opened.ValidUntil, responses)
}
