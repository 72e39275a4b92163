package main

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisJobs keeps the jobs in Redis, one JSON value per job under
// <prefix>job:<id>, for jobTTL after its last change: any replica reads,
// answers and cancels a job another one created. A change is optimistic
// (WATCH, then MULTI/EXEC), retried while another replica changed the same
// job in between. The worker that finishes a job runs on the replica that
// created it; should that replica stop first, the job stays working until
// its TTL ends it (the fixture's jobs last seconds).
type redisJobs struct {
	rdb    redis.UniversalClient
	prefix string
}

// jobTTL is how long a job outlives its last change: well past the
// tasks' own TTL, which the library bounds.
const jobTTL = time.Hour

// maxChangeAttempts bounds the retries of one change under contention.
const maxChangeAttempts = 16

func (s *redisJobs) key(id string) string { return s.prefix + "job:" + id }

func (s *redisJobs) put(ctx context.Context, j *job) error {
	b, err := json.Marshal(j)
	if err != nil {
		return err
	}
	ok, err := s.rdb.SetNX(ctx, s.key(j.ID), b, jobTTL).Result()
	if err == nil && !ok {
		err = errors.New("job id " + j.ID + " is taken")
	}
	return err
}

func (s *redisJobs) get(ctx context.Context, id string) (*job, error) {
	b, err := s.rdb.Get(ctx, s.key(id)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, errNoJob
	}
	if err != nil {
		return nil, err
	}
	j := new(job)
	return j, json.Unmarshal(b, j)
}

func (s *redisJobs) change(ctx context.Context, id string, f func(j *job) error) error {
	key := s.key(id)
	for range maxChangeAttempts {
		err := s.rdb.Watch(ctx, func(tx *redis.Tx) error {
			b, err := tx.Get(ctx, key).Bytes()
			if errors.Is(err, redis.Nil) {
				return errNoJob
			}
			if err != nil {
				return err
			}
			j := new(job)
			if err := json.Unmarshal(b, j); err != nil {
				return err
			}
			if err := f(j); err != nil {
				return err
			}
			if b, err = json.Marshal(j); err != nil {
				return err
			}
			_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.Set(ctx, key, b, jobTTL)
				return nil
			})
			return err
		}, key)
		if !errors.Is(err, redis.TxFailedErr) {
			return err
		}
	}
	return errors.New("job " + id + ": changed by others too often to apply a change")
}
