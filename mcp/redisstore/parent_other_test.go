//go:build !linux

package redisstore_test

import "os/exec"

// setParentDeath has no portable equivalent outside Linux; stop covers a
// normal end of the run.
func setParentDeath(*exec.Cmd) {}
