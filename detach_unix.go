//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// detach puts cmd in a session of its own, so that Claude Code ending the
// status line's process group does not end the prediction it started.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

// lowerPriority makes this process yield to the agent and the harness: a
// prediction is background work.
func lowerPriority() {
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, 0, 10)
}
