package main

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// claimedUntil is the queue score of job id: when its lease lapses (ms),
// or when it was queued; -1 when it is not queued.
func claimedUntil(t *testing.T, q *redisJobs, id string) int64 {
	t.Helper()
	s, err := q.rdb.ZScore(context.Background(), q.queueKey(), id).Result()
	if err != nil {
		return -1
	}
	return int64(s)
}

// TestRedisJobs_StopHandsBack: a worker stopped while it runs a job
// returns once it has handed the job back, without its effect; another
// replica's worker claims it at once, not after the lease.
func TestRedisJobs_StopHandsBack(t *testing.T) {
	rdb := testRedis(t)
	a, b := newRedisJobs(rdb, "t:", 8), newRedisJobs(rdb, "t:", 8)
	a.run = time.Hour // still running when stopped
	ctx := context.Background()
	j, err := a.enqueue(ctx, "org|a", "ws", "email.reprocess", "e1")
	if err != nil {
		t.Fatal(err)
	}
	var applied atomic.Int64
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		a.work(stop, func(string, string) { applied.Add(1) })
	}()
	for i := 0; claimedUntil(t, a, j.ID) <= time.Now().UnixMilli(); i++ {
		if i == 500 {
			t.Fatal("the worker never claimed the job")
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(stop)
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("the worker did not return after stop")
	}
	if n := applied.Load(); n != 0 {
		t.Errorf("the stopped worker applied the job %d times", n)
	}
	if s := claimedUntil(t, a, j.ID); s != j.CreatedAt.UnixMilli() {
		t.Errorf("queue score after the hand-back: %d, want the job's creation %d", s, j.CreatedAt.UnixMilli())
	}
	got, err := b.claim(ctx)
	if err != nil || got == nil || got.Job.ID != j.ID {
		t.Fatalf("another replica's claim after the hand-back: %+v %v", got, err)
	}
}

// TestRedisJobs_HandBackKeepsAnotherClaim: a worker whose lease lapsed
// and whose job another worker claimed since hands back nothing: the
// other claim stands.
func TestRedisJobs_HandBackKeepsAnotherClaim(t *testing.T) {
	q := newRedisJobs(testRedis(t), "t:", 8)
	q.lease = 100 * time.Millisecond
	ctx := context.Background()
	if _, err := q.enqueue(ctx, "org|a", "ws", "email.reprocess", "e1"); err != nil {
		t.Fatal(err)
	}
	late, err := q.claim(ctx)
	if err != nil || late == nil {
		t.Fatalf("claim: %+v %v", late, err)
	}
	var now *storedJob
	for i := 0; now == nil; i++ {
		if i == 100 {
			t.Fatal("the lease never lapsed")
		}
		time.Sleep(20 * time.Millisecond)
		if now, err = q.claim(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if ok, err := q.handBack(ctx, late); ok || err != nil {
		t.Errorf("a lapsed claim was handed back: %v %v", ok, err)
	}
	if s := claimedUntil(t, q, now.Job.ID); s != now.claimed {
		t.Errorf("queue score %d, want the standing claim's %d", s, now.claimed)
	}
	if ok, err := q.handBack(ctx, now); !ok || err != nil {
		t.Errorf("the standing claim's hand-back: %v %v", ok, err)
	}
	q.lease = time.Hour
	if again, err := q.claim(ctx); err != nil || again == nil {
		t.Errorf("claim after the hand-back: %+v %v", again, err)
	}
}
