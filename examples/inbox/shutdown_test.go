package main

import (
	"bufio"
	"context"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain_StartsAndStopsCleanly builds the command, starts it on a free
// loopback port, reads the URLs and tokens it prints, serves a request,
// and exits 0 on SIGINT and on SIGTERM.
func TestMain_StartsAndStopsCleanly(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := inboxBinary(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		cmd := exec.Command(bin, "-addr", "127.0.0.1:0")
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		sc := bufio.NewScanner(stdout)
		var printed []string
		for sc.Scan() {
			printed = append(printed, sc.Text())
			if strings.Contains(sc.Text(), "dev-reader") {
				break
			}
		}
		go func() {
			for sc.Scan() {
			}
			done <- cmd.Wait()
		}()
		text := strings.Join(printed, "\n")
		var base string
		for _, l := range printed {
			if f := strings.Fields(l); len(f) == 3 && f[0] == "MCP" {
				base = strings.TrimSuffix(f[2], "/mcp")
			}
		}
		if base == "" || !strings.Contains(text, base+"/api/v1") || !strings.Contains(text, "dev-admin") || !strings.Contains(text, "dev-writer") {
			_ = cmd.Process.Kill()
			t.Fatalf("printed:\n%s", text)
		}
		req, _ := http.NewRequest("GET", base+"/api/v1/inboxes", nil)
		req.Header.Set("Authorization", "Bearer dev-reader")
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != 200 {
			_ = cmd.Process.Kill()
			t.Fatalf("REST call: %v %v", err, resp)
		}
		resp.Body.Close()
		_ = cmd.Process.Signal(sig)
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("%v: exit %v", sig, err)
			}
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			t.Fatalf("%v: still running after 15 s", sig)
		}
	}
}

// TestMain_SIGTERMHandsBackJobs: a replica with -redis that gets SIGTERM
// while its worker runs a job hands the job back before it exits: no job
// is left leased to the stopped process (another replica claims it at
// once, not after the lease).
func TestMain_SIGTERMHandsBackJobs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	rdb := testRedis(t)
	bin := inboxBinary(t)
	opt := rdb.Options()
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0", "-redis", "redis://"+opt.Addr+"/"+strconv.Itoa(opt.DB))
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
		}
		done <- cmd.Wait()
	}()
	stopped := false
	defer func() {
		if !stopped {
			_ = cmd.Process.Kill()
			<-done
		}
	}()
	// Jobs straight into the replica's queue: 200 of 20 ms keep its worker
	// busy for seconds.
	q := newRedisJobs(rdb, redisPrefix, 1024)
	ctx := context.Background()
	var ids []string
	for range 200 {
		j, err := q.enqueue(ctx, "org_globex", "ws_globex", "email.reprocess", "eml_globex_0001")
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, j.ID)
	}
	finished := func() int {
		n := 0
		for _, id := range ids {
			if j, _, _ := q.get(ctx, "ws_globex", id); j.Status == "succeeded" {
				n++
			}
		}
		return n
	}
	for i := 0; finished() < 5; i++ {
		if i == 1000 {
			t.Fatal("the replica's worker runs no job")
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-done:
		stopped = true
		if err != nil {
			t.Errorf("exit after SIGTERM: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("still running 15 s after SIGTERM")
	}
	queued, err := rdb.ZRangeWithScores(ctx, q.queueKey(), 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(queued) == 0 {
		t.Fatal("every job finished before SIGTERM: nothing was running to hand back")
	}
	now := float64(time.Now().UnixMilli())
	for _, z := range queued {
		if z.Score > now {
			t.Errorf("job %v is still leased to the stopped replica for %.0f ms", z.Member, z.Score-now)
		}
	}
}
