package main

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the kernel kill the redis-server this test binary
// starts should the binary end without stopping it (a panic, a timeout).
func dieWithParent(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
