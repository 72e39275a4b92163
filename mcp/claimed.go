package mcp

import (
	"context"
	"log/slog"
	"strconv"
	"time"
)

// claimed is a confirmation this request holds the lease of, while its
// route runs: renewal goes on in the background until settle.
type claimed struct {
	h     *Handler
	ctx   context.Context // the request's, without its cancellation: read once, here
	g     ReplayGuard
	nonce []byte
	token string
	until time.Time
	call  string // what was confirmed (callDigest), for the guard's record of runs
	stop  chan struct{}
	done  chan struct{}
	ran   string // the summary of what the route did ("" when it did not run)
	// interrupted: the call ended with no outcome (see interrupted); the
	// lease is released, and nothing is recorded.
	interrupted bool
}

// renew extends the lease every third of its length until stopped.
func (c *claimed) renew() {
	defer close(c.done)
	lease := c.h.lease()
	tick := time.NewTicker(lease / 3)
	defer tick.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-tick.C:
		}
		ctx, cancel := context.WithTimeout(c.ctx, settleTimeout)
		held, err := guardRenew(ctx, c.g, c.nonce, c.token, lease)
		cancel()
		switch {
		case err != nil:
			c.log(slog.LevelWarn, "mcp: replay guard: renewing a confirmation's lease failed; should it lapse, a retry runs the route again with the same Idempotency-Key", "err", err)
		case !held:
			c.log(slog.LevelWarn, "mcp: replay guard: a running confirmation lost its lease; a retry may run the route again with the same Idempotency-Key")
			return
		}
	}
}

// log logs from the renewal goroutine, with the request's context; a log
// handler's panic there would end the process (logQuietly).
func (c *claimed) log(level slog.Level, msg string, args ...any) {
	logQuietly(c.ctx, c.h.cfg.logger, level, msg, args...)
}

// record notes what the route did, for settle. c may be nil: no guard.
func (c *claimed) record(status int, panicked bool) {
	if c != nil {
		c.ran = outcomeSummary(status, false, panicked, time.Now())
	}
}

// recordFunc notes what a function tool did, for settle: it returned, it
// returned an error (failed), or it panicked. It ran either way, and a
// retry must hear so: without this the guard would store "did not run".
// c may be nil: no guard.
func (c *claimed) recordFunc(failed, panicked bool) {
	if c != nil {
		c.ran = outcomeSummary(0, failed, panicked, time.Now())
	}
}

// interrupt notes that the call ended with no outcome: settle releases the
// lease and records nothing. c may be nil: no guard.
func (c *claimed) interrupt() {
	if c != nil {
		c.ran, c.interrupted = "", true
	}
}

// settle (c may be nil: no claim) stops the renewal and records the
// outcome in place of the lease, and, when the route ran, under what was
// confirmed, for LastRun. A route that never ran (its arguments could not
// be placed) is recorded as not executed: a retry would fail the same way.
// An interrupted call records nothing: its lease is released, and the
// next retry runs the route again with the same Idempotency-Key.
func (c *claimed) settle() {
	if c == nil {
		return
	}
	close(c.stop)
	<-c.done
	var outcome []byte
	call := ""
	switch {
	case c.interrupted:
	case c.ran == "":
		outcome = []byte(`{"executed":false}`)
	default:
		outcome, call = []byte(c.ran), c.call
	}
	ctx, cancel := context.WithTimeout(c.ctx, settleTimeout)
	defer cancel()
	err := guardComplete(ctx, c.g, c.nonce, c.token, outcome, c.until, call)
	switch {
	case err != nil && c.interrupted:
		c.log(slog.LevelError, "mcp: replay guard: releasing an interrupted confirmation's lease failed; once it lapses, a retry runs the route again with the same Idempotency-Key", "err", err)
	case err != nil:
		c.log(slog.LevelError, "mcp: replay guard: recording a confirmation's outcome failed; once its lease lapses, a retry runs the route again with the same Idempotency-Key", "err", err)
	}
}

// lease is the endpoint's claim length (tests shorten it).
func (h *Handler) lease() time.Duration {
	if h.cfg.lease > 0 {
		return h.cfg.lease
	}
	return confirmLease
}

// settleTimeout bounds a renewal or the recording of an outcome, which run
// on a context of their own: the client going away must not keep a call
// that ran from being recorded.
const settleTimeout = 5 * time.Second

// outcomeSummary is what the guard records of a confirmed call that ran:
// the route's status (0 for a function tool, which has none), that it
// failed (a function returned an error) or panicked, and when.
func outcomeSummary(status int, failed, panicked bool, at time.Time) string {
	b := []byte(`{"executed":true,`)
	switch {
	case panicked:
		b = append(b, `"panicked":true,`...)
	case failed:
		b = append(b, `"failed":true,`...)
	case status > 0:
		b = append(b, `"status":`...)
		b = strconv.AppendInt(b, int64(status), 10)
		b = append(b, ',')
	}
	b = append(b, `"at":`...)
	b = strconv.AppendInt(b, at.Unix(), 10)
	return string(append(b, '}'))
}

// confirmLease is how long a claim on a confirmation lasts unless renewed.
// The endpoint renews it every third of that while the route runs, so a
// slow but live call keeps it; a replica that dies mid-call loses it that
// long after its last renewal, and a retry then runs the route again.
const confirmLease = 5 * time.Second
