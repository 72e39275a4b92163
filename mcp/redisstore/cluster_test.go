package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// clusterAddrs are the masters of the Redis Cluster TestMain starts: three
// redis-server --cluster-enabled yes on loopback ports, no replicas, every
// slot assigned.
var clusterAddrs []string

// startCluster starts a three-master cluster in dir and waits until every
// node reports cluster_state:ok. stop ends every node by its PID.
func startCluster(dir string) (addrs []string, stop func(), err error) {
	var nodes []*redisServer
	stop = func() {
		for _, n := range nodes {
			n.stop()
		}
	}
	defer func() {
		if err != nil {
			stop()
		}
	}()
	for range 3 {
		n, err := startClusterNode(dir)
		if err != nil {
			return nil, stop, err
		}
		nodes = append(nodes, n)
		addrs = append(addrs, n.addr)
	}
	args := append([]string{"--cluster", "create"}, addrs...)
	args = append(args, "--cluster-replicas", "0", "--cluster-yes")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "redis-cli", args...).CombinedOutput(); err != nil {
		return nil, stop, fmt.Errorf("redis-cli --cluster create: %v: %s", err, tail(string(out)))
	}
	// Bounded: 200 rounds 25 ms apart, five seconds at most.
	for range 200 {
		if clusterOK(addrs) {
			return addrs, stop, nil
		}
		time.Sleep(25 * time.Millisecond)
	}
	return nil, stop, errors.New("the cluster did not reach cluster_state:ok within 5 s")
}

// startClusterNode starts one cluster node on a free port, with its
// cluster bus on another (cluster-port, Redis 7.0), both probed free: a
// taken one makes the start fail, and another pair is tried.
func startClusterNode(dir string) (*redisServer, error) {
	var err error
	for range 5 {
		var p, bus int
		if p, bus, err = freePorts(); err != nil {
			return nil, err
		}
		var s *redisServer
		s, err = launch(dir, p, []string{
			"--cluster-enabled", "yes",
			"--cluster-config-file", "nodes-" + strconv.Itoa(p) + ".conf",
			"--cluster-port", strconv.Itoa(bus),
		})
		if err == nil {
			return s, nil
		}
	}
	return nil, err
}

// freePorts returns two loopback ports nothing listened on a moment ago.
func freePorts() (int, int, error) {
	a, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, 0, err
	}
	defer a.Close()
	b, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, 0, err
	}
	defer b.Close()
	return a.Addr().(*net.TCPAddr).Port, b.Addr().(*net.TCPAddr).Port, nil
}

// clusterOK reports whether every node says cluster_state:ok and knows
// all three.
func clusterOK(addrs []string) bool {
	for _, a := range addrs {
		c := redis.NewClient(&redis.Options{Addr: a, DialTimeout: time.Second})
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		info, err := c.ClusterInfo(ctx).Result()
		cancel()
		c.Close()
		if err != nil || !strings.Contains(info, "cluster_state:ok") || !strings.Contains(info, "cluster_known_nodes:"+strconv.Itoa(len(addrs))) {
			return false
		}
	}
	return true
}

// newClusterClient returns a go-redis cluster client for the test
// cluster, closed at the end of the test.
func newClusterClient(t testing.TB) *redis.ClusterClient {
	t.Helper()
	c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: clusterAddrs, ContextTimeoutEnabled: true})
	t.Cleanup(func() { c.Close() })
	return c
}

// clusterPrefix is testPrefix for the cluster: its keys are deleted from
// every master at the end of the test.
func clusterPrefix(t testing.TB) string {
	t.Helper()
	p := newPrefix()
	t.Cleanup(func() {
		c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: clusterAddrs})
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		keys, _ := scan(ctx, c, p)
		for _, k := range keys { // one by one: keys of several slots
			c.Del(ctx, k)
		}
	})
	return p
}

func startTestCluster() (stop func(), err error) {
	dir, err := os.MkdirTemp("", "redisstore-cluster-")
	if err != nil {
		return nil, err
	}
	addrs, stopNodes, err := startCluster(dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	clusterAddrs = addrs
	return func() { stopNodes(); os.RemoveAll(dir) }, nil
}
