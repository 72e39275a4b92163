//go:build !linux

package main

import "os/exec"

// dieWithParent has no portable equivalent outside Linux; stopTestRedis
// covers a normal end of the run.
func dieWithParent(*exec.Cmd) {}
