package mcp

import "time"

// releaseSlot gives back req's concurrency slot, if it holds one: when it
// is served, or when it starts to wait for something that is not this
// process's work (a 2025 client's answer, a task's next status read), so
// that waits cannot hold every slot.
func (h *Handler) releaseSlot(req *request) {
	if req.slot {
		req.slot = false
		h.cfg.admit.release(req.callerKey())
	}
}

// retakeSlot takes a concurrency slot again for req after a wait, waiting
// up to d for one. It returns the 503 to answer when none came.
func (h *Handler) retakeSlot(req *request, d time.Duration) *Error {
	a := h.cfg.admit
	if a == nil || req.slot {
		return nil
	}
	if e := a.acquireWithin(req.ctx(), req.callerKey(), d); e != nil {
		return e
	}
	req.slot = true
	return nil
}
