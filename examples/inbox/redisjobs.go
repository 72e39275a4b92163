package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisJobs keeps the job queue and the jobs in Redis, for every replica:
// any replica answers GET /api/v1/jobs/{id} (and so tasks/get) for a job
// another one accepted, and a replica that restarts or dies loses
// nothing: a job it had claimed is claimed again by a worker of any
// replica once its lease lapses — or at once when the replica stops
// gracefully (SIGTERM), which hands back the job its worker holds.
//
//	<prefix>job:<id>          the job (JSON, with its tenant); TTL: a day
//	                          while queued, jobTTL once finished
//	<prefix>jobs:queue        sorted set of queued job ids, by the time a
//	                          worker may claim them (a claim pushes it a
//	                          lease ahead)
//	<prefix>jobs:tenant:<h>   sorted set of one tenant's queued job ids,
//	                          by creation: its share
//	<prefix>jobs:done         sorted set of finished job ids, by when
//
// The queue holds at most capacity jobs and a tenant at most share, as in
// memory; at most maxJobs finished jobs are kept (the oldest go first),
// each for jobTTL. The effects of a job are this example's in-memory records, so
// they happen on the replica whose worker ran it; the job and its result
// are the fleet's.
type redisJobs struct {
	rdb      redis.UniversalClient
	prefix   string
	capacity int
	share    int
	maxDone  int           // finished jobs kept, at most
	lease    time.Duration // a claim's, before another worker may take the job
	queued   time.Duration // how long a job may wait, at most
	poll     time.Duration // an idle worker's pause between claims
	timeout  time.Duration // of each Redis call
	run      time.Duration // how long a job takes (jobDuration)
}

func newRedisJobs(rdb redis.UniversalClient, prefix string, capacity int) *redisJobs {
	return &redisJobs{rdb: rdb, prefix: prefix, capacity: capacity, share: queueShare(capacity), maxDone: maxJobs,
		lease: 10 * time.Second, queued: 24 * time.Hour, poll: 50 * time.Millisecond, timeout: 500 * time.Millisecond,
		run: jobDuration}
}

// storedJob is a job as Redis holds it.
type storedJob struct {
	Job    job    `json:"job"`
	Tenant string `json:"tenant"`
	// claimed is the queue score this worker's claim set (when its lease
	// lapses, ms); 0 when not claimed here.
	claimed int64
}

func (q *redisJobs) jobKey(id string) string { return q.prefix + "job:" + id }
func (q *redisJobs) queueKey() string        { return q.prefix + "jobs:queue" }
func (q *redisJobs) doneKey() string         { return q.prefix + "jobs:done" }

// finishKeys and finishArgs are what jobFinish and jobCancel take.
func (q *redisJobs) finishKeys(tenant, id string) []string {
	return []string{q.queueKey(), q.tenantKey(tenant), q.jobKey(id), q.doneKey()}
}

func (q *redisJobs) finishArgs(id string, v []byte) []any {
	return []any{id, v, jobTTL.Milliseconds(), time.Now().UnixMilli(), q.maxDone, q.prefix + "job:"}
}
func (q *redisJobs) tenantKey(tenant string) string {
	h := sha256.Sum256([]byte(tenant))
	return q.prefix + "jobs:tenant:" + hex.EncodeToString(h[:16])
}

// jobEnqueue: KEYS the queue, the tenant's set, the job; ARGV the id, the
// job, now (ms), the capacity, the share, how long a job may wait (ms).
// A tenant's set forgets ids that waited longer (their job is gone), and
// ids whose job expired; it returns 0 when the queue or the share is full.
var jobEnqueue = redis.NewScript(`
local now, wait = tonumber(ARGV[3]), tonumber(ARGV[6])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - wait)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) or redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[5]) then
  return 0
end
redis.call('SET', KEYS[3], ARGV[2], 'PX', wait)
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZADD', KEYS[2], now, ARGV[1])
redis.call('PEXPIRE', KEYS[2], wait)
return 1
`)

// jobClaim: KEYS the queue; ARGV now (ms), the lease (ms), the job key
// prefix. It returns the job of the first id a worker may claim, pushed a
// lease ahead, or false; ids whose job expired are dropped on the way.
var jobClaim = redis.NewScript(`
for _ = 1, 10 do
  local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, 1)
  if #ids == 0 then return false end
  local v = redis.call('GET', ARGV[3] .. ids[1])
  if v then
    redis.call('ZADD', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[2]), ids[1])
    return v
  end
  redis.call('ZREM', KEYS[1], ids[1])
end
return false
`)

// jobHandBack: KEYS the queue; ARGV the id, the score the claim set, the
// score that makes it claimable again. A job finished, cancelled or
// claimed by another worker since (its score moved) is left alone.
var jobHandBack = redis.NewScript(`
local s = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not s or tonumber(s) ~= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], 'XX', ARGV[3], ARGV[1])
return 1
`)

// jobFinish: KEYS the queue, the tenant's set, the job, the finished set;
// ARGV the id, the finished job, its TTL (ms), now (ms), maxJobs, the job
// key prefix. A job finished already (by a worker whose lease lapsed, then
// another) stays as it was.
var jobFinish = redis.NewScript(`
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
local v = redis.call('GET', KEYS[3])
if not v or cjson.decode(v)['job']['status'] ~= 'queued' then return 0 end
redis.call('SET', KEYS[3], ARGV[2], 'PX', ARGV[3])
` + keepFinished + `
return 1
`)

// keepFinished records ARGV[1] as finished at ARGV[4] in KEYS[4], forgets
// what finished more than ARGV[3] ms ago, and the oldest past ARGV[5]
// (their jobs too, under the prefix ARGV[6]).
const keepFinished = `
local now = tonumber(ARGV[4])
redis.call('ZADD', KEYS[4], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now - tonumber(ARGV[3]))
local over = redis.call('ZCARD', KEYS[4]) - tonumber(ARGV[5])
if over > 0 then
  for _, id in ipairs(redis.call('ZRANGE', KEYS[4], 0, over - 1)) do
    redis.call('DEL', ARGV[6] .. id)
  end
  redis.call('ZREMRANGEBYRANK', KEYS[4], 0, over - 1)
end
redis.call('PEXPIRE', KEYS[4], ARGV[3])
`

// jobCancel: KEYS and ARGV as jobFinish's, with the cancelled job. Only a
// queued job is cancelled; it returns the job as it is then.
var jobCancel = redis.NewScript(`
local v = redis.call('GET', KEYS[3])
if not v then return false end
if cjson.decode(v)['job']['status'] ~= 'queued' then return v end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('SET', KEYS[3], ARGV[2], 'PX', ARGV[3])
` + keepFinished + `
return ARGV[2]
`)

func (q *redisJobs) ctx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, q.timeout)
}

func (q *redisJobs) enqueue(ctx context.Context, tenant, ws, kind, target string) (job, error) {
	j := job{ID: newID("job_"), Workspace: ws, Kind: kind, Target: target, Status: "queued", CreatedAt: time.Now().UTC()}
	v, err := json.Marshal(storedJob{Job: j, Tenant: tenant})
	if err != nil {
		return job{}, err
	}
	cctx, cancel := q.ctx(ctx)
	defer cancel()
	ok, err := jobEnqueue.Run(cctx, q.rdb, []string{q.queueKey(), q.tenantKey(tenant), q.jobKey(j.ID)},
		j.ID, v, time.Now().UnixMilli(), q.capacity, q.share, q.queued.Milliseconds()).Int()
	switch {
	case err != nil:
		return job{}, fmt.Errorf("enqueue: %w", err)
	case ok == 0:
		return job{}, errBusy
	}
	return j, nil
}

func (q *redisJobs) get(ctx context.Context, ws, id string) (job, bool, error) {
	if id == "" || len(id) > 64 {
		return job{}, false, nil
	}
	cctx, cancel := q.ctx(ctx)
	defer cancel()
	v, err := q.rdb.Get(cctx, q.jobKey(id)).Bytes()
	switch {
	case errors.Is(err, redis.Nil):
		return job{}, false, nil
	case err != nil:
		return job{}, false, fmt.Errorf("get: %w", err)
	}
	var sj storedJob
	if err := json.Unmarshal(v, &sj); err != nil {
		return job{}, false, fmt.Errorf("get: a job that does not parse: %w", err)
	}
	if sj.Job.Workspace != ws {
		return job{}, false, nil
	}
	return sj.Job, true, nil
}

// cancel cancels a queued job of workspace ws (a job a worker has claimed
// already finishes as cancelled: its result is not recorded).
func (q *redisJobs) cancel(ctx context.Context, ws, id string) (job, bool, error) {
	j, found, err := q.get(ctx, ws, id)
	if err != nil || !found || j.Status != "queued" {
		return j, found, err
	}
	// The tenant is in the stored job; get's answer leaves it out.
	cctx, cancel := q.ctx(ctx)
	defer cancel()
	v, err := q.rdb.Get(cctx, q.jobKey(id)).Bytes()
	if err != nil {
		return job{}, false, fmt.Errorf("cancel: %w", err)
	}
	var sj storedJob
	if err := json.Unmarshal(v, &sj); err != nil {
		return job{}, false, fmt.Errorf("cancel: a job that does not parse: %w", err)
	}
	now := time.Now().UTC()
	sj.Job.Status, sj.Job.FinishedAt = "cancelled", &now
	cancelled, err := json.Marshal(sj)
	if err != nil {
		return job{}, false, err
	}
	res, err := jobCancel.Run(cctx, q.rdb, q.finishKeys(sj.Tenant, id), q.finishArgs(id, cancelled)...).Text()
	switch {
	case errors.Is(err, redis.Nil):
		return job{}, false, nil // expired meanwhile
	case err != nil:
		return job{}, false, fmt.Errorf("cancel: %w", err)
	}
	if err := json.Unmarshal([]byte(res), &sj); err != nil {
		return job{}, false, fmt.Errorf("cancel: a job that does not parse: %w", err)
	}
	return sj.Job, true, nil
}

// claim takes the next job a worker may run; nil when there is none.
func (q *redisJobs) claim(ctx context.Context) (*storedJob, error) {
	cctx, cancel := q.ctx(ctx)
	defer cancel()
	now := time.Now().UnixMilli()
	v, err := jobClaim.Run(cctx, q.rdb, []string{q.queueKey()}, now, q.lease.Milliseconds(), q.prefix+"job:").Text()
	switch {
	case errors.Is(err, redis.Nil):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("claim: %w", err)
	}
	var sj storedJob
	if err := json.Unmarshal([]byte(v), &sj); err != nil {
		return nil, fmt.Errorf("claim: a job that does not parse: %w", err)
	}
	sj.claimed = now + q.lease.Milliseconds()
	return &sj, nil
}

// handBack gives up this worker's claim of sj: the job is claimable at
// once, by a worker of any replica, in its place in the queue (by
// creation). It reports whether the claim was still this worker's.
func (q *redisJobs) handBack(ctx context.Context, sj *storedJob) (bool, error) {
	cctx, cancel := q.ctx(ctx)
	defer cancel()
	n, err := jobHandBack.Run(cctx, q.rdb, []string{q.queueKey()}, sj.Job.ID, sj.claimed, sj.Job.CreatedAt.UnixMilli()).Int()
	if err != nil {
		return false, fmt.Errorf("hand back: %w", err)
	}
	return n == 1, nil
}

func (q *redisJobs) finish(ctx context.Context, sj *storedJob) error {
	now := time.Now().UTC()
	sj.Job.Status, sj.Job.FinishedAt = "succeeded", &now
	v, err := json.Marshal(sj)
	if err != nil {
		return err
	}
	cctx, cancel := q.ctx(ctx)
	defer cancel()
	err = jobFinish.Run(cctx, q.rdb, q.finishKeys(sj.Tenant, sj.Job.ID), q.finishArgs(sj.Job.ID, v)...).Err()
	if err != nil {
		return fmt.Errorf("finish: %w", err)
	}
	return nil
}

// work claims and runs jobs until stop is closed; apply does a job's
// effect. A job whose finish is not recorded (Redis did not answer, or
// the replica died) is claimed again after its lease: a job runs at least
// once, and its result is recorded once. When stop closes while a job
// runs, the job is interrupted before its effect and handed back, and
// work returns once Redis has it (or its call failed: then the lease
// lapses), so that a replica stopping gracefully leaves no job waiting
// out a lease.
func (q *redisJobs) work(stop <-chan struct{}, apply func(kind, target string)) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-stop
		cancel()
	}()
	quiet := false // log one failure of a run of them, not each
	for ctx.Err() == nil {
		// A claim is never cut halfway: one that Redis made and this
		// worker did not hear of would hold the job for a lease.
		sj, err := q.claim(context.WithoutCancel(ctx))
		if err != nil && ctx.Err() == nil && !quiet {
			log.Printf("inbox: job queue: %v", err)
		}
		quiet = err != nil
		if sj == nil {
			select {
			case <-ctx.Done():
			case <-time.After(q.poll):
			}
			continue
		}
		op := time.NewTimer(q.run) // the "long" operation
		select {
		case <-ctx.Done():
			op.Stop()
			if _, err := q.handBack(context.WithoutCancel(ctx), sj); err != nil {
				log.Printf("inbox: job queue: %v (job %s is claimed again after its lease)", err, sj.Job.ID)
			}
			return
		case <-op.C:
		}
		apply(sj.Job.Kind, sj.Job.Target)
		if err := q.finish(context.WithoutCancel(ctx), sj); err != nil {
			log.Printf("inbox: job queue: %v", err)
		}
	}
}
