package redisstore_test

import (
	"os/exec"
	"syscall"
)

// setParentDeath makes the kernel kill a redis-server this test binary
// started if the binary dies without stopping it (a test timeout, a
// crash), so no server outlives the run. The signal follows the thread
// that started the server, and Go ends a thread only when a goroutine that
// locked it returns, which nothing in these tests does.
func setParentDeath(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
