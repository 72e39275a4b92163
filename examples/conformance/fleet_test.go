package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/mcptest"
	"github.com/mcpdual/mcpdual/mrtr"
)

func TestMain(m *testing.M) {
	code := m.Run()
	stopTestRedis()
	os.Exit(code)
}

// The Redis cases run against a real redis-server: MCPDUAL_REDIS_ADDR (a
// loopback address; each test takes a database of its own and empties
// it, never database 0, which .ci/conformance.sh's fleet uses), or one
// this test binary starts when redis-server is on PATH.
var (
	redisOnce   sync.Once
	redisAddr   string
	redisErr    error
	redisServer *exec.Cmd
	redisDir    string
	redisDBs    int
	redisMu     sync.Mutex
)

func testRedis(t *testing.T) *redis.Client {
	t.Helper()
	redisOnce.Do(func() {
		if addr := os.Getenv("MCPDUAL_REDIS_ADDR"); addr != "" {
			host, _, err := net.SplitHostPort(addr)
			if ip := net.ParseIP(host); err != nil || (host != "localhost" && (ip == nil || !ip.IsLoopback())) {
				redisErr = fmt.Errorf("MCPDUAL_REDIS_ADDR=%q is not a loopback address", addr)
			}
			redisAddr = addr
			return
		}
		redisAddr, redisErr = startRedisServer()
	})
	if redisErr != nil {
		if _, missing := redisErr.(*exec.Error); missing {
			t.Skip("needs redis-server on PATH, or MCPDUAL_REDIS_ADDR")
		}
		t.Fatal(redisErr)
	}
	redisMu.Lock()
	redisDBs++
	db := redisDBs
	redisMu.Unlock()
	if db > 15 {
		t.Fatal("more Redis tests than databases")
	}
	rdb := redis.NewClient(&redis.Options{Addr: redisAddr, DB: db})
	t.Cleanup(func() { rdb.Close() })
	if err := rdb.FlushDB(context.Background()).Err(); err != nil {
		t.Fatalf("Redis at %s: %v", redisAddr, err)
	}
	return rdb
}

func startRedisServer() (string, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return "", err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	if redisDir, err = os.MkdirTemp("", "conformance-redis-"); err != nil {
		return "", err
	}
	cmd := exec.Command(bin, "--bind", "127.0.0.1", "--port", strconv.Itoa(port), "--save", "", "--appendonly", "no", "--dir", redisDir)
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		return "", err
	}
	redisServer = cmd
	addr := "127.0.0.1:" + strconv.Itoa(port)
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	for range 100 {
		if rdb.Ping(context.Background()).Err() == nil {
			return addr, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return "", fmt.Errorf("redis-server on %s does not answer PING", addr)
}

func stopTestRedis() {
	if redisServer != nil {
		_ = redisServer.Process.Kill()
		_ = redisServer.Wait()
	}
	if redisDir != "" {
		os.RemoveAll(redisDir)
	}
}

func testRing(t *testing.T) *mrtr.Ring {
	t.Helper()
	secret := make([]byte, 32)
	rand.Read(secret)
	keys, err := mrtr.ParseKeys("k1:" + base64.StdEncoding.EncodeToString(secret))
	if err != nil {
		t.Fatal(err)
	}
	ring, err := mrtr.NewRing(keys...)
	if err != nil {
		t.Fatal(err)
	}
	return ring
}

// taskClient is a 2026-07-28 client that takes tasks and answers
// elicitations, calling one replica in-process.
func taskClient(fl fleet) *mcptest.Client {
	return mcptest.New(newApp(fl), mcp.Version20260728,
		mcptest.WithCapabilities(json.RawMessage(`{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`)))
}

type taskState struct {
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage"`
	ResultType    string `json:"resultType"`
	TaskID        string `json:"taskId"`
}

func call(t *testing.T, c *mcptest.Client, method string, params any) (taskState, *mcptest.Response) {
	t.Helper()
	r, err := c.Call(context.Background(), method, params)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	var s taskState
	if r.Error == nil {
		if err := json.Unmarshal(r.Result, &s); err != nil {
			t.Fatalf("%s: %v in %s", method, err, r.Raw)
		}
	}
	return s, r
}

// TestTasks_AcrossReplicas: with -redis and one key ring, a task created
// on one replica is read, answered and cancelled on another, and the
// first sees what the other did. Without Redis the jobs are each
// process's own and the second replica does not know the task: the
// fleet's legs of .ci/conformance.sh would fail.
func TestTasks_AcrossReplicas(t *testing.T) {
	ring := testRing(t)
	rdb := testRedis(t)
	shared := fleet{ring: ring, rdb: rdb}
	a, b := taskClient(shared), taskClient(shared)

	// Cancelled on b, seen cancelled on a.
	created, r := call(t, a, "tools/call", map[string]any{"name": "confirm_delete", "arguments": map[string]string{"filename": "x.txt"}})
	if created.ResultType != "task" || created.TaskID == "" {
		t.Fatalf("confirm_delete did not become a task: %s", r.Raw)
	}
	if s, r := call(t, b, "tasks/get", map[string]string{"taskId": created.TaskID}); s.Status != "input_required" {
		t.Fatalf("tasks/get on the other replica: %s", r.Raw)
	}
	if _, r := call(t, b, "tasks/cancel", map[string]string{"taskId": created.TaskID}); r.Error != nil {
		t.Fatalf("tasks/cancel on the other replica: %s", r.Raw)
	}
	if s, r := call(t, a, "tasks/get", map[string]string{"taskId": created.TaskID}); s.Status != "cancelled" {
		t.Fatalf("tasks/get on the creating replica after the other cancelled: %s", r.Raw)
	}

	// A worker of a stops early once b cancelled its job; it never
	// completes it.
	created, r = call(t, a, "tools/call", map[string]any{"name": "slow_compute", "arguments": map[string]any{"seconds": 0.5, "label": "x"}})
	if created.TaskID == "" {
		t.Fatalf("slow_compute did not become a task: %s", r.Raw)
	}
	if _, r := call(t, b, "tasks/cancel", map[string]string{"taskId": created.TaskID}); r.Error != nil {
		t.Fatalf("tasks/cancel on the other replica: %s", r.Raw)
	}
	time.Sleep(time.Second) // past the job's duration: the outcome must still be the cancel
	if s, r := call(t, a, "tasks/get", map[string]string{"taskId": created.TaskID}); s.Status != "cancelled" {
		t.Fatalf("a cancelled job after its worker's time: %s", r.Raw)
	}

	// Each process's own jobs: the other replica opens the task id (one
	// ring) and finds no job.
	alone := fleet{ring: ring}
	a, b = taskClient(alone), taskClient(alone)
	created, _ = call(t, a, "tools/call", map[string]any{"name": "confirm_delete", "arguments": map[string]string{"filename": "x.txt"}})
	if created.TaskID == "" {
		t.Fatal("confirm_delete created no task")
	}
	if _, r := call(t, b, "tasks/get", map[string]string{"taskId": created.TaskID}); r.Error == nil {
		t.Fatalf("without Redis the other replica knows the job: %s", r.Raw)
	}
}

// TestMultiInput_AnswersAcrossReplicas: the two answers of multi_input
// reach the job through two replicas, and the job completes with both.
func TestMultiInput_AnswersAcrossReplicas(t *testing.T) {
	shared := fleet{ring: testRing(t), rdb: testRedis(t)}
	store := shared.jobs()
	ctx := context.Background()
	j := &job{ID: newJobID(), Status: "input_required", Kind: kindMultiInput, Inputs: map[string]json.RawMessage{"first": nil, "second": nil}}
	if err := store.put(ctx, j); err != nil {
		t.Fatal(err)
	}
	other := shared.jobs()
	for i, key := range []string{"first", "second"} {
		s := []jobStore{store, other}[i]
		if err := s.change(ctx, j.ID, func(j *job) error {
			delete(j.Inputs, key)
			j.answer(key, json.RawMessage(`{"action":"accept","content":{"name":"`+key+`"}}`))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := store.get(ctx, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != "completed" || string(got.Result) != `"Answers: first, second"` {
		t.Fatalf("multi_input after answers on two replicas: %s %s", got.Status, got.Result)
	}
	if _, err := other.get(ctx, "job-none"); err != errNoJob {
		t.Fatalf("an unknown id: %v, want errNoJob", err)
	}
}

// TestSetupFleet: what the command line and the environment may say.
func TestSetupFleet(t *testing.T) {
	listen := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 3001}
	t.Setenv(keysEnv, "")
	os.Unsetenv(keysEnv)
	if f, report, err := setupFleet(listen, "", ""); err != nil || f.ring != nil || f.rdb != nil || f.hosts != nil {
		t.Fatalf("no configuration: %+v %v", f, err)
	} else if !strings.Contains(strings.Join(report, "\n"), "a random key of this process") {
		t.Errorf("the report does not say the key is the process's own: %q", report)
	}
	for _, bad := range []string{"ftp://x", "http://x/mcp", "http://u:p@x", "x"} {
		if _, _, err := setupFleet(listen, bad, ""); err == nil || !strings.Contains(err.Error(), "-public-url") {
			t.Errorf("-public-url %q: %v", bad, err)
		}
	}
	if f, _, err := setupFleet(listen, "https://conformance.example.com", ""); err != nil ||
		strings.Join(f.hosts, " ") != "conformance.example.com 127.0.0.1:3001" {
		t.Errorf("a public name: hosts %v, %v", f.hosts, err)
	}
	if f, _, err := setupFleet(listen, "http://127.0.0.1:8080", ""); err != nil || f.hosts != nil {
		t.Errorf("a loopback balancer: hosts %v, %v", f.hosts, err)
	}
	if _, _, err := setupFleet(listen, "", "http://127.0.0.1:6379"); err == nil || !strings.Contains(err.Error(), "-redis") {
		t.Errorf("-redis with another scheme: %v", err)
	}
	t.Setenv(keysEnv, "k1:short")
	if _, _, err := setupFleet(listen, "", ""); err == nil || !strings.Contains(err.Error(), keysEnv) {
		t.Errorf("a bad ring: %v", err)
	}
	secret := make([]byte, 32)
	rand.Read(secret)
	t.Setenv(keysEnv, "k1:"+base64.StdEncoding.EncodeToString(secret))
	f, report, err := setupFleet(listen, "", "")
	if err != nil || f.ring == nil {
		t.Fatalf("a ring: %v", err)
	}
	if strings.Contains(strings.Join(report, "\n"), base64.StdEncoding.EncodeToString(secret)) {
		t.Error("the report quotes the secret")
	}
}

// TestWork_CancelWins: a worker whose job was cancelled (on any replica)
// neither finishes it when its time is up nor waits out its time: it
// stops at its next look.
func TestWork_CancelWins(t *testing.T) {
	// Each store is opened in its own subtest: without redis-server only
	// the Redis case is skipped.
	for name, open := range map[string]func(*testing.T) jobStore{
		"memory": func(*testing.T) jobStore { return newMemJobs() },
		"redis":  func(t *testing.T) jobStore { return fleet{rdb: testRedis(t)}.jobs() },
	} {
		t.Run(name, func(t *testing.T) {
			store := open(t)
			ctx := context.Background()
			rn := &runner{store: store, poll: time.Millisecond}
			cancel := func(j *job) error { j.Status = "cancelled"; return nil }
			finished := func(j *job) { j.complete("finished") }

			// Time up at once, after the cancel: the cancel stays.
			j := &job{ID: newJobID(), Status: "working"}
			if err := store.put(ctx, j); err != nil {
				t.Fatal(err)
			}
			if err := store.change(ctx, j.ID, cancel); err != nil {
				t.Fatal(err)
			}
			rn.work(j.ID, 0, finished)
			if got, _ := store.get(ctx, j.ID); got.Status != "cancelled" || got.Result != nil {
				t.Fatalf("after the worker's time: %s %s", got.Status, got.Result)
			}

			// An hour's job, cancelled: work returns (it would block the
			// test for an hour otherwise) and the job stays cancelled.
			j = &job{ID: newJobID(), Status: "working"}
			if err := store.put(ctx, j); err != nil {
				t.Fatal(err)
			}
			if err := store.change(ctx, j.ID, cancel); err != nil {
				t.Fatal(err)
			}
			rn.work(j.ID, time.Hour, finished)
			if got, _ := store.get(ctx, j.ID); got.Status != "cancelled" {
				t.Fatalf("a cancelled hour's job: %s", got.Status)
			}

			// Not cancelled: finished when its time is up.
			j = &job{ID: newJobID(), Status: "working"}
			if err := store.put(ctx, j); err != nil {
				t.Fatal(err)
			}
			rn.work(j.ID, 0, finished)
			if got, _ := store.get(ctx, j.ID); got.Status != "completed" || string(got.Result) != `"finished"` {
				t.Fatalf("a job left alone: %s %s", got.Status, got.Result)
			}
		})
	}
}
