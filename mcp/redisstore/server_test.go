package redisstore_test

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpdual/mcpdual/mcp/redisstore"
)

// The tests run against a real redis-server, never a stand-in: what they
// check (atomic scripts, SET NX under contention, expiry, a server that
// stops or hangs) is what a fake would get wrong.

const installHint = "the redisstore tests need a real Redis: install redis-server (apt-get install -y redis-server, or your system's package), " +
	"or run .ci/redis.sh, which installs it"

// sharedAddr is the Redis most tests use: MCPDUAL_REDIS_ADDR, or a server
// TestMain starts. Tests keep to keys under a prefix of their own, so a
// Redis that holds other data is safe to use.
var sharedAddr string

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	flag.Parse()
	if f := flag.Lookup("test.fuzzworker"); f != nil && f.Value.String() == "true" {
		// A fuzzing worker runs fuzz targets only, none of which talks to
		// Redis: no server for each of them.
		return m.Run()
	}
	// The outage tests start servers of their own even when
	// MCPDUAL_REDIS_ADDR is set, and so does the cluster's harness, so
	// the binaries are needed either way.
	for _, bin := range []string{"redis-server", "redis-cli"} {
		if _, err := exec.LookPath(bin); err != nil {
			fmt.Fprintln(os.Stderr, "FAIL: no "+bin+" on PATH: "+installHint)
			return 1
		}
	}
	stopCluster, err := startTestCluster()
	if err != nil {
		fmt.Fprintln(os.Stderr, "FAIL: the test cluster:", err)
		return 1
	}
	defer stopCluster()
	if addr := os.Getenv("MCPDUAL_REDIS_ADDR"); addr != "" {
		if err := checkLoopback(addr); err != nil {
			fmt.Fprintln(os.Stderr, "FAIL: MCPDUAL_REDIS_ADDR:", err)
			return 1
		}
		if !ping(addr) {
			fmt.Fprintf(os.Stderr, "FAIL: MCPDUAL_REDIS_ADDR=%s does not answer PING\n", addr)
			return 1
		}
		sharedAddr = addr
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "redisstore-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	srv, err := startRedis(dir, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		return 1
	}
	defer srv.stop()
	sharedAddr = srv.addr
	return m.Run()
}

// checkLoopback refuses any address but a loopback one: the tests write
// and delete keys, and send outage traffic.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("%q is not a loopback address", addr)
	}
	return nil
}

// redisServer is a redis-server process started by this test binary, on a
// loopback port, with no persistence.
type redisServer struct {
	addr string
	port int
	dir  string
	args []string
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
}

// startRedis starts redis-server in dir on port (0: a free one) with the
// extra arguments, and waits until it answers PING.
func startRedis(dir string, port int, extra ...string) (*redisServer, error) {
	if port != 0 {
		return launch(dir, port, extra)
	}
	// A free port can be taken between the probe and the server's bind;
	// try a few.
	var err error
	for range 5 {
		var l net.Listener
		if l, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			return nil, err
		}
		p := l.Addr().(*net.TCPAddr).Port
		l.Close()
		var s *redisServer
		if s, err = launch(dir, p, extra); err == nil {
			return s, nil
		}
	}
	return nil, err
}

func launch(dir string, port int, extra []string) (*redisServer, error) {
	s := &redisServer{addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), port: port, dir: dir, args: extra}
	logFile := filepath.Join(dir, fmt.Sprintf("redis-%d.log", port))
	args := append([]string{
		"--bind", "127.0.0.1", "--port", strconv.Itoa(port),
		"--save", "", "--appendonly", "no", "--daemonize", "no",
		"--dir", dir, "--logfile", logFile,
	}, extra...)
	s.cmd = exec.Command("redis-server", args...)
	setParentDeath(s.cmd)
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("redis-server: %v (%s)", err, installHint)
	}
	s.done = make(chan struct{})
	go func() { s.cmd.Wait(); close(s.done) }()
	// Bounded: 200 tries 25 ms apart, five seconds at most.
	for range 200 {
		select {
		case <-s.done:
			log, _ := os.ReadFile(logFile)
			return nil, fmt.Errorf("redis-server on port %d exited: %s", port, tail(string(log)))
		default:
		}
		if ping(s.addr) {
			return s, nil
		}
		time.Sleep(25 * time.Millisecond)
	}
	s.stop()
	return nil, fmt.Errorf("redis-server on port %d did not answer PING within 5 s", port)
}

// ping sends PING over a fresh connection; a server started with
// requirepass answers NOAUTH, which shows it is up as well.
func ping(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
	if err != nil {
		return false
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(200 * time.Millisecond))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && (strings.HasPrefix(line, "+PONG") || strings.HasPrefix(line, "-NOAUTH"))
}

func tail(s string) string {
	if len(s) > 2000 {
		s = s[len(s)-2000:]
	}
	return s
}

// stop ends the process by its PID: SIGCONT in case it was paused, then
// SIGTERM, then SIGKILL if it has not exited within five seconds.
func (s *redisServer) stop() {
	select {
	case <-s.done:
		return
	default:
	}
	s.cmd.Process.Signal(syscall.SIGCONT)
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
}

// restart starts a new process on the same port, as after an outage.
// Nothing was persisted, so it comes back empty.
func (s *redisServer) restart(t testing.TB) {
	t.Helper()
	s.stop()
	n, err := launch(s.dir, s.port, s.args)
	if err != nil {
		t.Fatal(err)
	}
	*s = *n
}

// pause and resume make the server hang without closing its connections,
// the outage a timeout exists for.
func (s *redisServer) pause()  { s.cmd.Process.Signal(syscall.SIGSTOP) }
func (s *redisServer) resume() { s.cmd.Process.Signal(syscall.SIGCONT) }

// ownRedis starts a server for one test, which may stop it; it is stopped
// at the end of the test in any case.
func ownRedis(t testing.TB, extra ...string) *redisServer {
	t.Helper()
	s, err := startRedis(t.TempDir(), 0, extra...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.stop() })
	return s
}

// newClient returns a go-redis client for addr, closed at the end of the
// test. Every test client honours contexts, as the package comment
// advises, except where a test says otherwise.
func newClient(t testing.TB, addr string) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true})
	t.Cleanup(func() { c.Close() })
	return c
}

// testPrefix returns a key prefix no other test or run uses, and deletes
// its keys at the end of the test.
func testPrefix(t testing.TB) string {
	t.Helper()
	p := newPrefix()
	t.Cleanup(func() {
		c := redis.NewClient(&redis.Options{Addr: sharedAddr})
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		keys, _ := scan(ctx, c, p)
		if len(keys) > 0 {
			c.Del(ctx, keys...)
		}
	})
	return p
}

// newPrefix returns a key prefix no other test or run uses.
func newPrefix() string {
	b := make([]byte, 6)
	rand.Read(b)
	return "mcpdualtest:" + hex.EncodeToString(b) + ":"
}

// scan lists the keys under prefix, in at most 100 rounds per node: on a
// cluster, of every master.
func scan(ctx context.Context, c redis.UniversalClient, prefix string) ([]string, error) {
	cc, ok := c.(*redis.ClusterClient)
	if !ok {
		return scanNode(ctx, c, prefix)
	}
	var mu sync.Mutex
	var keys []string
	err := cc.ForEachMaster(ctx, func(ctx context.Context, node *redis.Client) error {
		k, err := scanNode(ctx, node, prefix)
		mu.Lock()
		keys = append(keys, k...)
		mu.Unlock()
		return err
	})
	return keys, err
}

func scanNode(ctx context.Context, c redis.UniversalClient, prefix string) ([]string, error) {
	var keys []string
	var cursor uint64
	for range 100 {
		batch, next, err := c.Scan(ctx, cursor, prefix+"*", 1000).Result()
		if err != nil {
			return nil, err
		}
		keys = append(keys, batch...)
		if cursor = next; cursor == 0 {
			return keys, nil
		}
	}
	return nil, errors.New("scan did not finish in 100 rounds")
}

// eventually retries f every 50 ms for at most 10 s.
func eventually(t testing.TB, what string, f func() error) {
	t.Helper()
	var err error
	for range 200 {
		if err = f(); err == nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s: still failing after 10 s: %v", what, err)
}

// patient is the timeout of the tests that are not about timeouts: they
// check what Redis answers, and a loaded machine (the race detector, 50
// requests at once, two cores) can take longer than the 200 ms default.
var patient = redisstore.WithTimeout(5 * time.Second)

// overrun is how late past its timeout a call may return on a loaded
// machine; far below go-redis's own socket timeout of 3 s, which is what
// a call would take without the bound.
const overrun = 1500 * time.Millisecond

// subscribers counts the subscribers of channel where it lives: on the
// node that owns its slot (sharded pub/sub) on a cluster, on the server
// otherwise.
func subscribers(t testing.TB, ctx context.Context, rdb redis.UniversalClient, channel string) int64 {
	t.Helper()
	var n map[string]int64
	var err error
	if cc, ok := rdb.(*redis.ClusterClient); ok {
		var node *redis.Client
		if node, err = cc.MasterForKey(ctx, channel); err == nil {
			n, err = node.PubSubShardNumSub(ctx, channel).Result()
		}
	} else {
		n, err = rdb.PubSubNumSub(ctx, channel).Result()
	}
	if err != nil {
		t.Fatal(err)
	}
	return n[channel]
}
